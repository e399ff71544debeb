"""An annotation document for the app map (`visor discover --annotate-current FILE|-`).

Upstream's `screen` names the screen being observed (`label` and `purpose`, with `description` and `notes`).
visor adds what a crawl needs to get past a form and in through deep links:

```yaml
screen: {label: Sign in, purpose: Authenticate with the demo account}
inputs: {username: DEMO_USER, password: DEMO_PASSWORD}   # field id -> environment variable (never stored)
entries: ["demo://feed", "demo://settings"]              # deep links the crawl also starts from
```

Upstream's annotation `actions` are not read yet: a document holding them is refused, saying so.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, model_validator

from visor.scenario.fields import InputModel

Text = Annotated[str, Field(min_length=1, max_length=4096, pattern=r"\S")]


class ScreenNote(InputModel):
    """What a screen is."""

    label: Text
    purpose: Text
    description: Text | None = None
    notes: list[Text] | None = None


class MapAnnotation(InputModel):
    """An annotation document."""

    screen: ScreenNote | None = None
    inputs: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")],
                 Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]] = Field(default_factory=dict)  # fmt: skip
    entries: list[Annotated[str, Field(min_length=3, max_length=4096, pattern=r"^[a-zA-Z][a-zA-Z0-9+.-]*://")]] = Field(
        default_factory=list, max_length=100
    )

    @model_validator(mode="before")
    @classmethod
    def _no_actions(cls, data: Any) -> Any:
        if isinstance(data, dict) and "actions" in data:
            raise ValueError("annotation `actions` are not supported yet: name the screen, inputs and entries")
        return data


def read_annotation(path: str, stdin: Any = None) -> MapAnnotation:
    """Read an annotation document (`-` is standard input).

    Raises:
        SourceError: it cannot be read or parsed.
        InputError: "Invalid discovery annotation", with the first problem located.
    """
    from visor.scenario.model_files import load_model

    next_step = "Fix the annotation and retry before navigating away from the current screen."
    return load_model(path, MapAnnotation, "annotation", next_step, stdin, prefix="Invalid discovery annotation: ")
