"""The checker of visor's argument rules, and the shapes the tools' rules share (points, rectangles, selectors).

The rules are what the tools spec's descriptions require beyond its schemas; each model states its own
(`models.py`, `ToolModel.check`) with these helpers, and every broken rule is reported with its path, so an author
sees all problems at once. Rules that need the live screen (pixel bounds, pinch paths on this screen's size) are
checked before input, at run time. A well-formed point that lies off the screen, or outside the call's declared
region, is not a malformed argument: the tools' vocabulary names it apart (OFF_SCREEN, OUT_OF_REGION, as the same
point found off the live screen is), and the checker keeps that code beside the problem.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from visor.ext.tools.spec.bounds import NORMALIZED_MAX
from visor.inputs.document import Path
from visor.inputs.issues import ArgumentCode, Issue, error
from visor.selectors.control import ControlSelector


def problem(
    path: Path, message: str, hint: str | None = None, *, code: ArgumentCode = ArgumentCode.VALIDATION_ERROR
) -> Issue:
    """Return one problem of a tool call: where (a path into its arguments), what, and how to fix it."""
    return error(code, message, path, hint)


#: A well-formed point (or a swipe's container, or a region) off the screen: normalized beyond 0..1000, negative pixels.
OFF_SCREEN = "OFF_SCREEN"
#: A well-formed point outside the region the call declared.
OUT_OF_REGION = "OUT_OF_REGION"
_NEVER_CLAMPED = "Points are never clamped: use observed coordinates, or coordinate_space pixel for pixels."


@dataclass
class Checker:
    """Collects problems, and the tools' code of those that are about where a point lies."""

    problems: list[Issue] = field(default_factory=list)
    #: OFF_SCREEN or OUT_OF_REGION, by the problem's place in `problems`; the others are VALIDATION_ERROR.
    placed: dict[int, str] = field(default_factory=dict)

    def add(self, path: Path, message: str, hint: str | None = None) -> None:
        """Record a broken rule."""
        self.problems.append(problem(path, message, hint))

    def misplaced(self, code: str, path: Path, message: str, hint: str | None = None) -> None:
        """Record a well-formed point (or rectangle) that lies where input cannot go: `code` says where."""
        self.placed[len(self.problems)] = code
        self.add(path, message, hint)

    def pair(self, value: Sequence[int], path: Path, space: str = "normalized") -> bool:
        """Check an [x, y] pair in a coordinate space; return True when it is usable."""
        if len(value) != 2:
            self.add(path, f"a point is [x, y]: exactly 2 integers, got {len(value)}")
            return False
        ok = True
        for axis, number in enumerate(value):
            if space == "normalized" and not 0 <= number <= NORMALIZED_MAX:
                message = (
                    f"{list(value)} is off the screen: normalized coordinates run from 0 to {NORMALIZED_MAX}, "
                    f"got {number}"
                )
                self.misplaced(OFF_SCREEN, (*path, axis), message, _NEVER_CLAMPED)
                ok = False
            elif space == "pixel" and number < 0:
                message = f"{list(value)} is off the screen: pixels are never negative, got {number}"
                self.misplaced(OFF_SCREEN, (*path, axis), message, _NEVER_CLAMPED)
                ok = False
        return ok

    def rect(self, value: Sequence[int], path: Path, space: str = "pixel", *, area: bool = False) -> bool:
        """Check a [left, top, right, bottom] rectangle; return True when it is usable.

        `area`: the rectangle is a place input goes (a region, a swipe's container), so one beyond the screen's
        coordinates is OFF_SCREEN; otherwise (a selector's exact bounds, a filter) it is a broken rule.
        """
        if len(value) != 4:
            self.add(path, "a rectangle is [left, top, right, bottom]: exactly 4 integers")
            return False
        left, top, right, bottom = value
        high = NORMALIZED_MAX if space == "normalized" else math.inf
        if not all(0 <= number <= high for number in value):
            limit = f"0..{NORMALIZED_MAX}" if space == "normalized" else "non-negative"
            if area:
                self.misplaced(
                    OFF_SCREEN, path, f"rectangle {list(value)} is off the screen: {space} coordinates are {limit}"
                )
            else:
                self.add(path, f"rectangle {list(value)} must be {limit} ({space} coordinates)")
            return False
        if not (left < right and top < bottom):
            self.add(path, f"rectangle {list(value)} is empty: left < right and top < bottom are required")
            return False
        return True

    def description(self, value: str | None, key: str, path: Path, why: str) -> None:
        """Require a description that says what the target is."""
        if value is None or not value.strip():
            self.add(
                (*path, key), f"{key} is required {why}", "Say what the target is in a few words, e.g. 'play button'."
            )

    def text(self, value: str | None, key: str, path: Path) -> None:
        """Refuse a text that is given but blank."""
        if value is not None and not value.strip():
            self.add((*path, key), f"{key} must not be blank")

    def between(self, value: int | None, key: str, path: Path, low: int, high: int) -> None:
        """Hold a number within visor's bounds (where the spec leaves it open)."""
        if value is not None and not low <= value <= high:
            self.add((*path, key), f"{key} must be from {low} to {high}, got {value}")

    def selector(self, selector: ControlSelector, path: Path) -> None:
        """Require at least one attribute (an empty selector matches everything) and valid pixel bounds."""
        if not selector.given():
            self.add(
                path,
                "the selector is empty: it would match every element",
                "Copy the observed element's native_selector (resource_id, class_name, …) unchanged.",
            )
        for key in ("resource_id", "content_desc", "class_name", "package_name"):
            self.text(getattr(selector, key), key, path)
        if selector.bounds is not None:
            self.rect(selector.bounds, (*path, "bounds"), "pixel")

    def settles(self, stable_ms: int, timeout_ms: int, path: Path) -> None:
        """Require room for a value to hold: `stable_ms` within `timeout_ms`."""
        if stable_ms > timeout_ms:
            self.add(
                (*path, "stable_ms"),
                f"stable_ms ({stable_ms}) cannot exceed timeout_ms ({timeout_ms}): it could never hold",
            )


def inside(point: Sequence[int], rect: Sequence[int]) -> bool:
    """Return True when a point lies in a rectangle (edges included)."""
    return rect[0] <= point[0] <= rect[2] and rect[1] <= point[1] <= rect[3]
