"""Load app models: find the file, parse it with positions, validate it, and check its references.

A broken app model is an INPUT_ERROR naming the first problem's file, line and column, with every issue in
the error details, exactly as a broken scenario is reported by `visor validate`. Every problem is found in one
pass: the schema's, the document-wide limits' (size, nesting), the references' (screens, overlays, fields,
sliders) and the loops' (screens opening one another as they show), read from the plain data so that a broken
part hides nothing in the others.

`config.app` loads only app models, and only from the scenario's project (see `resolve_app`): messages never
echo more than a short, escaped excerpt of what a file holds.
"""

from __future__ import annotations

import functools
import os
import re
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from importlib import resources

from pydantic import ValidationError

from visor.errors import InputError, SourceError
from visor.inputs.data import read_data
from visor.inputs.document import Document, Path, dotted
from visor.inputs.issues import Issue, IssueCode, Severity, error, locate
from visor.inputs.suggest import did_you_mean
from visor.runtimes.sim.model import (
    MAX_ACTION_DEPTH,
    MAX_CONDITION_DEPTH,
    MAX_ITEMS,
    MAX_MODEL_NODES,
    MAX_NAME,
    MAX_ROW_DEPTH,
    MAX_VARS,
    PLATFORMS,
    AppModel,
    Platform,
    excerpt,
)
from visor.scenario.fields import Owner
from visor.scenario.project import inside, project_folder
from visor.scenario.validate import ValidationResult

APP_SUFFIXES = (".app.yaml", ".app.yml")
#: The app a scenario gets on the simulated device when `config.app` does not name one.
DEFAULT_APP = "demo"
#: Characters a message or hint may have in all.
MAX_MESSAGE = 500

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GO_VERBS = ("go", "replace", "restart")
_HANDLERS = ("on_tap", "on_long_press", "on_change", "on_submit")
#: Elements whose value is the variable named by their id.
_VALUED = ("field", "switch", "checkbox", "slider", "timeline")


class AppModelError(InputError):
    """An app model (or another file of the simulated device) cannot be loaded; `issues` says every problem found."""

    #: What the file is, as messages name it.
    kind = "app model"
    likely = "The simulated app's model file has an error."

    def __init__(self, path: str, issues: list[Issue]) -> None:
        first = next((issue for issue in issues if issue.is_error), issues[0])
        more = len([i for i in issues if i.is_error]) - 1
        super().__init__(
            f"{path}:{first.line}:{first.column}: {self.kind}: {first.message}"
            + (f" (and {more} more problem{'s' if more > 1 else ''})" if more > 0 else ""),
            likely_cause=self.likely,
            next_step=f"Fix the {self.kind} (run `visor validate {path}` to see every problem).",
            details={"issues": [{**issue.to_dict(), "file": path} for issue in issues]},
        )
        self.issues = issues


def builtin_apps() -> list[str]:
    """Return the names of the app models shipped with visor."""
    folder = resources.files("visor.runtimes.sim").joinpath("apps")
    return sorted(item.name.removesuffix(".app.yaml") for item in folder.iterdir() if item.name.endswith(".app.yaml"))


def resolve_app(reference: str, base_dir: str) -> str:
    """Turn `config.app` into a file path: a shipped app's name, or a path (relative to the scenario).

    A path must end in `.app.yaml` or `.app.yml`, and so must the file it leads to once symlinks are followed;
    that file must lie inside the project of the scenario's folder `base_dir` (see `project_folder`). Nothing
    is read here.

    Raises:
        InputError: it names no shipped app, or a path breaking these rules.
    """
    by_id = shipped_app_ids().get(reference)
    if by_id is not None:  # an app id, as a phone's scenario names it (an imported Maestro flow's appId)
        reference = by_id
    if "/" not in reference and os.sep not in reference and "." not in reference:
        if reference in builtin_apps():
            return str(resources.files("visor.runtimes.sim").joinpath("apps", f"{reference}.app.yaml"))
        hint = did_you_mean(reference, builtin_apps())
        raise InputError(
            f"no app model named {excerpt(reference)!r}",
            likely_cause="config.app names neither a shipped app nor an app-model file (<name>.app.yaml).",
            next_step=(f"Did you mean {hint.split(' ', 3)[-1]} " if hint else "")
            + f"Shipped apps: {', '.join(builtin_apps())}; or give a path to your own <name>.app.yaml.",
        )
    if not reference.lower().endswith(APP_SUFFIXES):
        if APP_ID.fullmatch(reference) and not reference.lower().endswith(DATA_SUFFIXES):
            raise _an_app_id(reference)  # a file name (shop.model.yaml) is told about its suffix instead
        raise _not_a_model_path(f"config.app {excerpt(reference, 80)!r}")
    path = os.path.normpath(os.path.join(base_dir, reference))
    real = os.path.realpath(path)
    project = project_folder(base_dir)
    if not inside(real, project):
        raise InputError(
            f"config.app {excerpt(reference, 80)!r} is outside the scenario's project folder {project}",
            likely_cause="App models are loaded only from the scenario's project: the nearest folder above the "
            "scenario holding visor.toml, pyproject.toml or .git (else the scenario's own folder); symlinks are "
            "followed first.",
            next_step="Put the app model inside the project (or add a visor.toml at the project's root), or use "
            f"a shipped app: {', '.join(builtin_apps())}.",
        )
    if not real.lower().endswith(APP_SUFFIXES):
        raise _not_a_model_path(f"config.app {excerpt(reference, 80)!r} leads to {excerpt(real, 80)!r}, which")
    return path


#: What ends a data file's name: a dotted name ending so is a file, never an app id.
DATA_SUFFIXES = (".yaml", ".yml", ".json")
#: What an app's id looks like (a package or bundle id): dotted words.
APP_ID = re.compile(r"[A-Za-z][\w-]*(?:\.[A-Za-z0-9_][\w-]*){2,}")


@functools.lru_cache(maxsize=1)
def shipped_app_ids() -> dict[str, str]:
    """Map the app id of each shipped app model (`app.id`, e.g. com.visor.demo) to its name (demo)."""
    found: dict[str, str] = {}
    for name in builtin_apps():
        shipped = resources.files("visor.runtimes.sim").joinpath("apps", f"{name}.app.yaml")
        document = read_data(str(shipped), noun="app model").data
        app = document.get("app") if isinstance(document, dict) else None
        if isinstance(app, dict) and isinstance(app.get("id"), str):
            found[app["id"]] = name
    return found


def _an_app_id(reference: str) -> InputError:
    shipped = ", ".join(f"{name} ({app_id})" for app_id, name in sorted(shipped_app_ids().items()))
    return InputError(
        f"config.app {excerpt(reference, 80)!r} is an app id, and the simulated phone has no such app",
        likely_cause="The scenario was written for a phone (an imported Maestro flow keeps its appId); the "
        f"simulated phone runs app models: {shipped}.",
        next_step=f"Run it on a phone (--runtime appium), or give the simulated phone a model: --app "
        f"{builtin_apps()[0]} (or a path to your own <name>.app.yaml).",
    )


def _not_a_model_path(subject: str) -> InputError:
    return InputError(
        f"{subject} must end in .app.yaml or .app.yml",
        likely_cause="config.app names an app model of the simulated device: a <name>.app.yaml file, or the "
        "name of a shipped app.",
        next_step=f"Name an app-model file (<name>.app.yaml) or a shipped app: {', '.join(builtin_apps())}.",
    )


@functools.lru_cache(maxsize=32)
def _load_cached(path: str, mtime: float) -> AppModel:
    document = read_data(path, noun="app model")
    model, issues = check_app_document(document)
    if model is None:
        raise AppModelError(path, issues)
    return model.read_from(path)


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


def choose_platform(model: AppModel, option: str | None, scenario: str | None) -> Platform:
    """Return the flavour to run `model` in: --platform, then the scenario's `meta.platform`, then its first.

    Raises:
        InputError: the app model does not run on the platform asked for (`app.platforms`).
    """
    asked = option or scenario
    platforms = model.app.platforms
    if asked is None:
        return platforms[0]
    for platform in platforms:
        if platform == asked:
            return platform
    where = "--platform" if option else "the scenario's meta.platform"
    if asked not in PLATFORMS:
        raise InputError(
            f"the simulated phone has no {asked!r} flavour ({where})",
            likely_cause="It is an Android phone or an iPhone; a web page runs in a browser.",
            next_step="Run a web page in Chromium through Appium: --runtime appium --platform web.",
            details={"app": model.app.id, "platform": asked, "platforms": list(PLATFORMS)},
        )
    raise InputError(
        f"the app model {model.app.id} does not run on {asked!r} ({where}): its app.platforms is "
        f"[{', '.join(platforms)}]",
        likely_cause="The simulated app declares the flavours it runs in, and this one is not among them.",
        next_step=f"Run it on {' or '.join(platforms)}, or add {asked} to app.platforms in its app model.",
        details={"app": model.app.id, "platform": asked, "platforms": list(platforms)},
    )


def validate_app_file(path: str) -> list[Issue]:
    """Return every problem of the app model at `path`, sorted by position; an empty list when it is valid.

    A file that cannot be read or parsed gives one issue (where the reader stopped), not an exception.
    """
    try:
        document = read_data(path, noun="app model")
    except SourceError as exc:
        return [Issue(Severity.ERROR, IssueCode.INPUT_ERROR, exc.problem, (), exc.next_step, exc.line, exc.column)]
    return check_app_document(document)[1]


def validate_app_document(document: Document) -> ValidationResult:
    """Validate a parsed app model the way `visor validate` reports scenarios."""
    _, issues = check_app_document(document)
    return ValidationResult(document, tuple(issues), None)


def check_app_document(document: Document) -> tuple[AppModel | None, list[Issue]]:
    """Validate a parsed app model; return it (None when invalid) and its located issues, in one pass."""
    data = document.data
    if not isinstance(data, dict) or "app" not in data:
        # Said before any field is looked at: a file that is not an app model gets no field-by-field echo.
        issue = error(
            IssueCode.TYPE_ERROR,
            "this is not an app model: an app model is a mapping with an `app` key (app: {id, name, start})",
            (),
            "Check that config.app (or the file given) names a <name>.app.yaml app model.",
        )
        return None, locate([issue], document)
    if _too_many_values(data):
        issue = error(
            IssueCode.TYPE_ERROR,
            f"the app model holds more than {MAX_MODEL_NODES:,} values (mappings, lists and scalars)",
            (),
            "Split it, or shorten its lists; docs/sim.md lists the limits.",
        )
        return None, locate([issue], document)
    issues = list(_nesting(data))
    model: AppModel | None = None
    try:
        model = AppModel.model_validate(data)
    except ValidationError as exc:
        from visor.scenario.translate import translate  # lazy: only broken models need it

        issues.extend(translate(exc, Owner(AppModel, ()), data))
    screens = _screens(data)
    issues.extend(_references(data, screens))
    issues.extend(_loops(screens))
    located = [_tidy(issue, data) for issue in locate(issues, document)]
    valid = model is not None and not any(issue.is_error for issue in located)
    return (model if valid else None), located


# -- the document as a whole ----------------------------------------------------------------------------------------


def _too_many_values(data: object) -> bool:
    count, pending = 0, [data]
    while pending:
        node = pending.pop()
        count += 1
        if count > MAX_MODEL_NODES:
            return True
        if isinstance(node, dict):
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return False


#: Keys that nest a level of actions, of conditions; the limit each has.
_NESTING = (
    (frozenset({"then", "else", "do"}), MAX_ACTION_DEPTH, "actions", "then, else and after.do"),
    (frozenset({"not", "all", "any"}), MAX_CONDITION_DEPTH, "conditions", "not, all and any"),
)


def _nesting(data: object) -> Iterator[Issue]:
    """Report the first place on each branch where actions, conditions or rows nest deeper than allowed."""
    pending: list[tuple[object, Path, tuple[int, int, int]]] = [(data, (), (0, 0, 0))]
    while pending:
        node, path, depths = pending.pop()
        if isinstance(node, list):
            pending.extend((item, (*path, index), depths) for index, item in enumerate(node))
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            deeper = list(depths)
            for index, (keys, limit, what, how) in enumerate(_NESTING):
                if key in keys:
                    deeper[index] += 1
                    if deeper[index] >= limit:
                        yield error(
                            IssueCode.TYPE_ERROR,
                            f"{what} nest more than {limit} levels here ({how} inside one another)",
                            (*path, key),
                            "Flatten the logic: docs/sim.md lists the limits.",
                        )
            if key == "elements" and node.get("type") == "row":
                deeper[2] += 1
                if deeper[2] > MAX_ROW_DEPTH:
                    yield error(
                        IssueCode.TYPE_ERROR,
                        f"rows nest more than {MAX_ROW_DEPTH} levels here",
                        (*path, key),
                        "Flatten the layout: docs/sim.md lists the limits.",
                    )
            if deeper[0] < MAX_ACTION_DEPTH and deeper[1] < MAX_CONDITION_DEPTH and deeper[2] <= MAX_ROW_DEPTH:
                pending.append((value, (*path, key), (deeper[0], deeper[1], deeper[2])))


def _tidy(issue: Issue, data: object) -> Issue:
    """Make an issue safe to show: unknown content quoted only as a short escaped excerpt, the whole bounded."""
    unsafe = {part for part in issue.path if isinstance(part, str) and excerpt(part) != part}
    value = _value_at(data, issue.path)
    if isinstance(value, str) and excerpt(value) != value:
        unsafe.add(value)
    message, hint = issue.message, issue.hint
    for text in sorted(unsafe, key=len, reverse=True):
        short = excerpt(text)
        message = message.replace(repr(text), f"'{short}'").replace(text, short)
        hint = hint.replace(repr(text), f"'{short}'").replace(text, short) if hint else hint
    path = tuple(excerpt(part) if isinstance(part, str) else part for part in issue.path)
    return replace(
        issue,
        path=path,
        message=excerpt(message, MAX_MESSAGE),
        hint=excerpt(hint, MAX_MESSAGE) if hint else hint,
        at=None,
    )


def _value_at(data: object, path: Path) -> object:
    node = data
    for part in path:
        if isinstance(node, dict) and part in node:
            node = node[part]
            continue
        if not (isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)):
            return None
        node = node[part]
    return node


# -- reading the plain data, whatever state it is in -----------------------------------------------------------------


def _mapping(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _items(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _name(value: object) -> str | None:
    """Return `value` when it is a well-formed name (anything else is the schema's to report)."""
    return value if isinstance(value, str) and len(value) <= MAX_NAME and _NAME.fullmatch(value) else None


def _target(value: object) -> str | None:
    """Return the screen a go/replace/restart opens: `screen` or `{screen: …, params: …}`."""
    return _name(value.get("screen") if isinstance(value, dict) else value)


@dataclass(frozen=True, slots=True)
class _Screen:
    """One screen of the plain data: its name, where it is, and its elements (rows and panels included)."""

    name: str
    path: Path
    data: dict[str, object]
    elements: tuple[tuple[dict[str, object], Path], ...]

    def ids(self, kind: str) -> list[str]:
        """Return the ids of this screen's elements of one type."""
        found = (_name(e.get("id")) for e, _ in self.elements if e.get("type") == kind)
        return [name for name in found if name is not None]

    def actions(self) -> Iterator[tuple[dict[str, object], Path]]:
        """Yield every action of the screen, nested ones included, with its path."""
        yield from _actions(self.data.get("on_show"), (*self.path, "on_show"))
        for element, path in self.elements:
            for key in _HANDLERS:
                yield from _actions(element.get(key), (*path, key))
            item = _mapping(element.get("item"))
            for key in ("on_tap", "on_long_press"):
                yield from _actions(item.get(key), (*path, "item", key))
        for name, overlay in _mapping(self.data.get("overlays")).items():
            for index, button in enumerate(_items(_mapping(overlay).get("buttons"))):
                base = (*self.path, "overlays", name, "buttons", index, "on_tap")
                yield from _actions(_mapping(button).get("on_tap"), base)


def _screens(data: dict[str, object]) -> list[_Screen]:
    screens = []
    for name, screen in _mapping(data.get("screens")).items():
        if not isinstance(screen, dict):
            continue
        path: Path = ("screens", str(name))
        elements = list(_elements(screen.get("elements"), (*path, "elements")))
        for overlay_name, overlay in _mapping(screen.get("overlays")).items():
            overlay = _mapping(overlay)
            if overlay.get("type") != "dialog":
                elements.extend(_elements(overlay.get("elements"), (*path, "overlays", overlay_name, "elements")))
        screens.append(_Screen(str(name), path, screen, tuple(elements)))
    return screens


def _elements(value: object, path: Path) -> Iterator[tuple[dict[str, object], Path]]:
    pending = [(value, path)]
    while pending:
        elements, where = pending.pop()
        found = [(e, (*where, i)) for i, e in enumerate(_items(elements)) if isinstance(e, dict)]
        yield from found
        pending.extend((e["elements"], (*p, "elements")) for e, p in reversed(found) if e.get("type") == "row")


def _actions(value: object, path: Path, *, at_once: bool = False) -> Iterator[tuple[dict[str, object], Path]]:
    """Yield every action of a list, nested ones included, with its path.

    With `at_once`, only the actions that surely run at this instant: outside any `if`, or in a zero-delay `after`.
    """
    pending = [(value, path)]
    while pending:
        actions, where = pending.pop()
        for index, action in enumerate(_items(actions)):
            if not isinstance(action, dict) or (at_once and "if" in action):
                continue
            here = (*where, index)
            yield action, here
            after = _mapping(action.get("after"))
            if not at_once or (type(after.get("ms")) is int and after["ms"] == 0):
                pending.append((after.get("do"), (*here, "after", "do")))
            if not at_once:
                pending.append((action.get("then"), (*here, "then")))
                pending.append((action.get("else"), (*here, "else")))


# -- references -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Known:
    """The names an action of one screen may refer to."""

    screens: list[str]
    overlays: list[str]
    fields: list[str]
    all_fields: list[str]
    sliders: list[str]


def _references(data: dict[str, object], screens: list[_Screen]) -> Iterator[Issue]:
    names = [str(name) for name in _mapping(data.get("screens"))]
    start = _name(_mapping(data.get("app")).get("start"))
    if start is not None and start not in names:
        yield _unknown("screen", start, ("app", "start"), names)
    for pattern, target in _mapping(data.get("deeplinks")).items():
        if "://" not in str(pattern):
            yield error(
                IssueCode.TYPE_ERROR,
                f"deep link '{excerpt(str(pattern))}' needs a scheme (demo://…)",
                ("deeplinks", pattern),
            )
        shown = _name(target)
        if shown is not None and shown not in names:
            yield _unknown("screen", shown, ("deeplinks", pattern), names)
    yield from _variables(data, screens)
    all_fields = sorted({name for screen in screens for name in screen.ids("field")})
    for screen in screens:
        yield from _duplicate_ids(screen.elements)
        yield from _shuffled_items(screen)
        known = _Known(
            names, [str(name) for name in _mapping(screen.data.get("overlays"))], screen.ids("field"), all_fields,
            screen.ids("slider"),
        )  # fmt: skip
        for action, path in screen.actions():
            yield from _check_action(action, path, known)


def _variables(data: dict[str, object], screens: list[_Screen]) -> Iterator[Issue]:
    """Bound the variables an app uses in all: each may hold a long value while it runs."""
    named: list[tuple[str, Path]] = [(str(name), ("vars", name)) for name in _mapping(data.get("vars"))]
    for screen in screens:
        for element, path in screen.elements:
            name = _name(element.get("id"))
            if name is not None and element.get("type") in _VALUED:
                named.append((name, (*path, "id")))
                if element.get("type") == "timeline":
                    named.append((f"{name}_scale", (*path, "id")))
        for action, path in screen.actions():
            for verb in ("set", "add"):
                named.extend((str(key), (*path, verb, key)) for key in _mapping(action.get(verb)))
    seen: set[str] = set()
    for name, path in named:
        seen.add(name)
        if len(seen) > MAX_VARS:
            yield error(
                IssueCode.TYPE_ERROR,
                f"the app uses more than {MAX_VARS:,} variables (vars, the ids of fields, switches, checkboxes, "
                "sliders and timelines, and the names `set` sets)",
                path,
                "Use fewer variables: docs/sim.md lists the limits.",
            )
            return


def _duplicate_ids(elements: Iterable[tuple[dict[str, object], Path]]) -> Iterator[Issue]:
    seen: dict[str, Path] = {}
    for element, path in elements:
        name = _name(element.get("id"))
        if name is None:
            continue
        if name in seen:
            yield error(
                IssueCode.DUPLICATE_ID,
                f"Duplicate element id '{name}' (first used by {dotted(seen[name])})",
                (*path, "id"),
            )
        seen.setdefault(name, path)


def _shuffled_items(screen: _Screen) -> Iterator[Issue]:
    """Bound the items of a screen's shuffled lists: each keeps its order in memory while the screen is open."""
    total = 0
    for element, path in screen.elements:
        items = element.get("items")
        if element.get("type") != "list" or element.get("shuffle") is not True:
            continue
        total += len(items) if isinstance(items, list) else items if isinstance(items, int) else 0
        if total > MAX_ITEMS:
            yield error(
                IssueCode.TYPE_ERROR,
                f"the shuffled lists of screen '{screen.name}' hold more than {MAX_ITEMS:,} items in all",
                (*path, "shuffle"),
                "Shuffle fewer items: docs/sim.md lists the limits.",
            )
            return


def _check_action(action: dict[str, object], path: Path, known: _Known) -> Iterator[Issue]:
    for verb in _GO_VERBS:
        name = _target(action.get(verb))
        if name is not None and name not in known.screens:
            yield _unknown("screen", name, (*path, verb), known.screens)
    for verb in ("show", "hide", "toggle"):
        name = _name(action.get(verb))
        if name is not None and name not in known.overlays:
            yield _unknown("overlay of this screen", name, (*path, verb), known.overlays)
    name = _name(action.get("focus"))
    if name is not None and name not in known.fields:
        yield _unknown("field of this screen", name, (*path, "focus"), known.fields)
    name = _name(action.get("clear"))
    if name is not None and name not in known.all_fields:
        yield _unknown("field", name, (*path, "clear"), known.all_fields)
    for slider in _mapping(action.get("nudge")):
        if _name(slider) is not None and slider not in known.sliders:
            yield _unknown("slider of this screen", slider, (*path, "nudge", slider), known.sliders)


def _unknown(kind: str, name: str, path: Path, known: list[str]) -> Issue:
    listed = ", ".join(known[:20]) + (", …" if len(known) > 20 else "")
    hint = did_you_mean(name, known) or (f"known: {listed}" if known else f"this screen has no {kind}")
    return error(IssueCode.UNKNOWN_REFERENCE, f"no {kind} named '{name}'", path, hint)


# -- loops ------------------------------------------------------------------------------------------------------------

_Edge = tuple[str, Path]


def _loops(screens: list[_Screen]) -> Iterator[Issue]:
    """Report chains that would run forever, or until a slider's end, with no input and no time passing.

    Only what surely happens at once is followed: actions outside any `if`, and those of zero-delay timers.
    Loops behind conditions are stopped while the app runs (state.py).
    """
    names = {screen.name for screen in screens}
    shows: dict[str, list[_Edge]] = {}
    for screen in screens:
        edges = []
        for action, path in _actions(screen.data.get("on_show"), (*screen.path, "on_show"), at_once=True):
            for verb in _GO_VERBS:
                name = _target(action.get(verb))
                if name in names:
                    edges.append((name, (*path, verb)))
        shows[screen.name] = edges
    for cycle in _cycles(shows):
        yield error(
            IssueCode.INPUT_ERROR,
            f"on_show opens screens in a loop with no time passing ({_chain(cycle)}): the app would run "
            "forever without any input",
            cycle[-1][1],
            "Open the next screen from an input (on_tap…), behind a condition that turns false, or after a "
            "delay (after: {ms: 1 or more}).",
        )
    for screen in screens:
        sliders = screen.ids("slider")
        nudges: dict[str, list[_Edge]] = {name: [] for name in sliders}
        for element, path in screen.elements:
            source = _name(element.get("id"))
            if element.get("type") != "slider" or source is None:
                continue
            for action, where in _actions(element.get("on_change"), (*path, "on_change"), at_once=True):
                for slider, steps in _mapping(action.get("nudge")).items():
                    if slider in nudges and isinstance(steps, int) and steps:
                        nudges[source].append((slider, (*where, "nudge", slider)))
        for cycle in _cycles(nudges):
            yield error(
                IssueCode.INPUT_ERROR,
                f"on_change nudges sliders in a loop ({_chain(cycle)}): each change sets off the next without "
                "any input, until a slider reaches its end",
                cycle[-1][1],
                "Nudge sliders from an input (on_tap…), or behind a condition.",
            )


def _cycles(graph: dict[str, list[_Edge]]) -> list[list[_Edge]]:
    """Return one cycle (its edges, the last one closing it) for each strongly connected part that has one."""
    found = []
    for part in _strong_parts(graph):
        start = part[0]  # the first in document order: graph keys keep it
        back: dict[str, tuple[str, _Edge]] = {}
        queue = deque([start])
        closing: tuple[str, _Edge] | None = None
        while queue and closing is None:
            node = queue.popleft()
            for edge in graph[node]:
                target = edge[0]
                if target == start:
                    closing = (node, edge)
                    break
                if target in part and target not in back:
                    back[target] = (node, edge)
                    queue.append(target)
        if closing is None:
            continue  # a single screen that does not open itself
        edges = [closing[1]]
        node = closing[0]
        while node != start:
            node, edge = back[node]
            edges.append(edge)
        found.append([(start, ()), *reversed(edges)])
    return found


def _chain(cycle: list[_Edge]) -> str:
    return " -> ".join(name for name, _ in cycle)


def _strong_parts(graph: dict[str, list[_Edge]]) -> list[list[str]]:
    """Return the strongly connected parts of `graph` (Tarjan's algorithm, without recursion), in node order."""
    order = {node: index for index, node in enumerate(graph)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    parts: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, next_edge = work.pop()
            if next_edge == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            edges = graph[node]
            if next_edge < len(edges):
                work.append((node, next_edge + 1))
                target = edges[next_edge][0]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                parts.append(sorted(part, key=order.__getitem__))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(parts, key=lambda part: order[part[0]])
