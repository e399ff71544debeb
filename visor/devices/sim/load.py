"""Load app models: find the file, parse it with positions, validate it, and check its references.

A broken app model is an INPUT_ERROR naming the first problem's file, line and column, with every issue in
the error details, exactly as a broken scenario is reported by `visor validate`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources

from pydantic import ValidationError

from visor.devices.sim.model import (
    Action,
    AppModel,
    DialogOverlay,
    Element,
    FieldElement,
    ListElement,
    RowElement,
    Screen,
    SliderElement,
)
from visor.errors import InputError
from visor.scenario.document import Document, Path, dotted
from visor.scenario.fields import Owner
from visor.scenario.issues import Issue, IssueCode, error, locate
from visor.scenario.loader import read_document
from visor.scenario.suggest import did_you_mean
from visor.scenario.validate import ValidationResult

APP_SUFFIXES = (".app.yaml", ".app.yml")
#: The app a scenario gets on the simulated device when `config.app` does not name one.
DEFAULT_APP = "demo"


class AppModelError(InputError):
    """An app model cannot be loaded; `issues` says every problem found."""

    def __init__(self, path: str, issues: list[Issue]) -> None:
        first = next((issue for issue in issues if issue.is_error), issues[0])
        more = len([i for i in issues if i.is_error]) - 1
        super().__init__(
            f"{path}:{first.line}:{first.column}: app model: {first.message}"
            + (f" (and {more} more problem{'s' if more > 1 else ''})" if more > 0 else ""),
            likely_cause="The simulated app's model file has an error.",
            next_step=f"Fix the app model (run `visor validate {path}` to see every problem).",
            details={"issues": [{**issue.to_dict(), "file": path} for issue in issues]},
        )
        self.issues = issues


def builtin_apps() -> list[str]:
    """Return the names of the app models shipped with visor."""
    folder = resources.files("visor.devices.sim").joinpath("apps")
    return sorted(item.name.removesuffix(".app.yaml") for item in folder.iterdir() if item.name.endswith(".app.yaml"))


def resolve_app(reference: str, base_dir: str) -> str:
    """Turn `config.app` into a file path: a path (relative to the scenario) or a shipped app's name.

    Raises:
        InputError: it names neither a file nor a shipped app.
    """
    if reference.endswith(APP_SUFFIXES) or os.sep in reference or "/" in reference:
        return os.path.normpath(os.path.join(base_dir, reference))
    if reference in builtin_apps():
        return str(resources.files("visor.devices.sim").joinpath("apps", f"{reference}.app.yaml"))
    hint = did_you_mean(reference, builtin_apps())
    raise InputError(
        f"no app model named {reference!r}",
        likely_cause="config.app names neither a shipped app nor an app-model file (<name>.app.yaml).",
        next_step=(f"Did you mean {hint.split(' ', 3)[-1]} " if hint else "")
        + f"Shipped apps: {', '.join(builtin_apps())}; or give a path to your own <name>.app.yaml.",
    )


@functools.lru_cache(maxsize=32)
def _load_cached(path: str, mtime: float) -> AppModel:
    document = read_document(path)
    model, issues = check_app_document(document)
    if model is None:
        raise AppModelError(path, issues)
    return model


def load_app(path: str) -> AppModel:
    """Load and check an app model (cached while the file is unchanged).

    Raises:
        SourceError: the file cannot be read or parsed.
        AppModelError: the model is invalid.
    """
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        mtime = 0.0
    return _load_cached(path, mtime)


def validate_app_document(document: Document) -> ValidationResult:
    """Validate a parsed app model the way `visor validate` reports scenarios."""
    _, issues = check_app_document(document)
    return ValidationResult(document, tuple(issues), None)


def check_app_document(document: Document) -> tuple[AppModel | None, list[Issue]]:
    """Validate a parsed app model; return it (None when invalid) and its located issues."""
    data = document.data
    if not isinstance(data, dict):
        return None, locate([error(IssueCode.TYPE_ERROR, "app model root must be object", ())], document)
    try:
        model = AppModel.model_validate(data)
    except ValidationError as exc:
        from visor.scenario.translate import translate

        return None, locate(translate(exc, Owner(AppModel, ()), data), document)
    issues = locate(_references(model), document)
    return (None if any(issue.is_error for issue in issues) else model), issues


def _references(model: AppModel) -> list[Issue]:
    issues: list[Issue] = []
    screens = list(model.screens)
    if model.app.start not in model.screens:
        issues.append(_unknown("screen", model.app.start, ("app", "start"), screens))
    for pattern, target in model.deeplinks.items():
        if "://" not in pattern:
            issues.append(
                error(IssueCode.TYPE_ERROR, f"deep link {pattern!r} needs a scheme (demo://…)", ("deeplinks", pattern))
            )
        if target not in model.screens:
            issues.append(_unknown("screen", target, ("deeplinks", pattern), screens))
    all_fields = sorted(
        {e.id for screen in model.screens.values() for e in _all_elements(screen) if isinstance(e, FieldElement)}
    )
    for name, screen in model.screens.items():
        base: Path = ("screens", name)
        elements = list(_elements(screen.elements, (*base, "elements")))
        for overlay_name, overlay in screen.overlays.items():
            if not isinstance(overlay, DialogOverlay):
                elements.extend(_elements(overlay.elements, (*base, "overlays", overlay_name, "elements")))
        issues.extend(_duplicate_ids(elements))
        here = _Known(
            screens,
            list(screen.overlays),
            [e.id for e, _ in elements if isinstance(e, FieldElement)],
            all_fields,
            [e.id for e, _ in elements if isinstance(e, SliderElement)],
        )
        for path, action in _screen_actions(screen, base, elements):
            issues.extend(_check_action(action, path, here))
    return issues


def _elements(elements: list[Element], path: Path) -> Iterator[tuple[Element, Path]]:
    for index, element in enumerate(elements):
        yield element, (*path, index)
        if isinstance(element, RowElement):
            yield from _elements(element.elements, (*path, index, "elements"))


def _duplicate_ids(elements: list[tuple[Element, Path]]) -> list[Issue]:
    seen: dict[str, Path] = {}
    issues = []
    for element, path in elements:
        if element.id is None:
            continue
        if element.id in seen:
            issues.append(
                error(
                    IssueCode.DUPLICATE_ID,
                    f"Duplicate element id '{element.id}' (first used by {dotted(seen[element.id])})",
                    (*path, "id"),
                )
            )
        seen.setdefault(element.id, path)
    return issues


def _screen_actions(screen: Screen, base: Path, elements: list[tuple[Element, Path]]) -> Iterator[tuple[Path, Action]]:
    yield from _actions(screen.on_show, (*base, "on_show"))
    for element, path in elements:
        for key in ("on_tap", "on_long_press", "on_change", "on_submit"):
            yield from _actions(getattr(element, key, []), (*path, key))
        if isinstance(element, ListElement):
            yield from _actions(element.item.on_tap, (*path, "item", "on_tap"))
            yield from _actions(element.item.on_long_press, (*path, "item", "on_long_press"))
    for name, overlay in screen.overlays.items():
        if isinstance(overlay, DialogOverlay):
            for index, button in enumerate(overlay.buttons):
                yield from _actions(button.on_tap, (*base, "overlays", name, "buttons", index, "on_tap"))


def _actions(actions: list[Action], path: Path) -> Iterator[tuple[Path, Action]]:
    for index, action in enumerate(actions):
        here = (*path, index)
        yield here, action
        if action.after is not None:
            yield from _actions(action.after.do, (*here, "after", "do"))
        yield from _actions(action.then, (*here, "then"))
        yield from _actions(action.else_, (*here, "else"))


def _all_elements(screen: Screen) -> list[Element]:
    elements = list(screen.elements)
    for overlay in screen.overlays.values():
        if not isinstance(overlay, DialogOverlay):
            elements.extend(overlay.elements)
    return [element for element, _ in _elements(elements, ())]


@dataclass(frozen=True, slots=True)
class _Known:
    """The names an action of one screen may refer to."""

    screens: list[str]
    overlays: list[str]
    fields: list[str]
    all_fields: list[str]
    sliders: list[str]


def _check_action(action: Action, path: Path, known: _Known) -> list[Issue]:
    issues = []
    for verb in ("go", "replace", "restart"):
        target = getattr(action, verb)
        if target is not None:
            name = target if isinstance(target, str) else target.screen
            if name not in known.screens:
                issues.append(_unknown("screen", name, (*path, verb), known.screens))
    for verb in ("show", "hide", "toggle"):
        target = getattr(action, verb)
        if target is not None and target not in known.overlays:
            issues.append(_unknown("overlay of this screen", target, (*path, verb), known.overlays))
    if action.focus is not None and action.focus not in known.fields:
        issues.append(_unknown("field of this screen", action.focus, (*path, "focus"), known.fields))
    if action.clear is not None and action.clear not in known.all_fields:
        issues.append(_unknown("field", action.clear, (*path, "clear"), known.all_fields))
    for slider in action.nudge or {}:
        if slider not in known.sliders:
            issues.append(_unknown("slider of this screen", slider, (*path, "nudge", slider), known.sliders))
    return issues


def _unknown(kind: str, name: str, path: Path, known: list[str]) -> Issue:
    hint = did_you_mean(name, known) or (f"known: {', '.join(known)}" if known else f"this screen has no {kind}")
    return error(IssueCode.UNKNOWN_REFERENCE, f"no {kind} named '{name}'", path, hint)
