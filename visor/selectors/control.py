"""The agent tools' exact control selector: light to import (the engine's run path needs it, not the tools)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

Box = tuple[int, int, int, int]


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def box(value: object) -> Box | None:
    """Return a [left, top, right, bottom] list as a tuple (None stays None)."""
    return (int(value[0]), int(value[1]), int(value[2]), int(value[3])) if isinstance(value, list) else None


@dataclass(frozen=True, slots=True)
class ControlSelector:
    """An exact AND filter over live native elements (the tools spec's `ControlSelector`)."""

    resource_id: str | None = None
    text: str | None = None
    content_desc: str | None = None
    class_name: str | None = None
    package_name: str | None = None
    #: Exact pixel bounds [left, top, right, bottom].
    bounds: Box | None = None

    @classmethod
    def from_raw(cls, raw: Mapping[str, object]) -> ControlSelector:
        """Build from validated arguments."""
        return cls(
            resource_id=_text(raw.get("resource_id")),
            text=_text(raw.get("text")),
            content_desc=_text(raw.get("content_desc")),
            class_name=_text(raw.get("class_name")),
            package_name=_text(raw.get("package_name")),
            bounds=box(raw.get("bounds")),
        )

    def given(self) -> dict[str, str | list[int]]:
        """Return the attributes that filter (those not null), in the tools spec's names."""
        fields: dict[str, str | list[int] | None] = {
            "resource_id": self.resource_id,
            "text": self.text,
            "content_desc": self.content_desc,
            "class_name": self.class_name,
            "package_name": self.package_name,
            "bounds": list(self.bounds) if self.bounds is not None else None,
        }
        return {key: value for key, value in fields.items() if value is not None}

    def describe(self) -> str:
        """Return a short form for messages: `resource_id=com.app:id/ok, class_name=…`."""
        return ", ".join(f"{key}={value}" for key, value in self.given().items()) or "{}"
