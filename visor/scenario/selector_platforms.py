"""Platform-only selectors (and arguments) checked against the platform a scenario declares (`meta.platform`).

`uiautomator=` is UiAutomator2's grammar (Android), `predicate=` and `classchain=` are XCUITest's (iOS): on the
other platform a device cannot evaluate them, and the step fails at run time. A scenario that declares its platform
says where it runs, so such a selector is reported when validating. Without `meta.platform` a scenario may run on
either platform, and nothing is said. A step in a hybrid app's web view (`context: webview`) is on the web's
platform: `css=` there, and no native grammar.

Which fields hold selectors is read from the models (every `SelectorStr` field), so a selector field added to a
command, an assertion type or `config` is checked here without being listed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import cast, get_args, get_origin

from pydantic import BaseModel

from visor.inputs.document import Path
from visor.inputs.issues import Issue, IssueCode, error
from visor.scenario.assertions import assertion_model
from visor.scenario.blocks import StepItems, is_block
from visor.scenario.commands import COMMANDS
from visor.scenario.contexts import names_web
from visor.scenario.fields import Owner, SelectorStr
from visor.scenario.models import Config
from visor.selectors.parse import PLATFORM_HINT, PLATFORM_NAMES, SelectorSyntaxError, parse_selector


def platform_issues(data: Mapping[str, object], steps: StepItems) -> list[Issue]:
    """Return a `SELECTOR_ERROR` for every selector that works only on the platform `meta.platform` does not name.

    A step in a hybrid app's web view (its own `context`, or its nearest block's) is on the web's. `steps` are the
    data's step items (`step_items`).
    """
    platform = _declared(data)
    config = data.get("config")
    issues = []
    if platform is not None and isinstance(config, dict):
        issues += _in_model(Config, config, Owner(Config, ("config",)), platform)
    for where, step in steps:
        here = _platform_at(data, where, platform)
        if not is_block(step) and here is not None:
            issues += _in_step(step, where, *here, declared=platform)
    if platform is None:
        return issues  # none declared (either may run it), or one the model refuses on its own
    for index, raw in enumerate(_items(data.get("assertions"))):
        if isinstance(raw, dict):
            model = assertion_model(raw)
            issues += _in_model(model, raw, Owner(model, ("assertions", index)), platform)
    return issues


def _declared(data: Mapping[str, object]) -> str | None:
    """Return the platform `meta.platform` declares (None: none, or one the model refuses on its own)."""
    meta = data.get("meta")
    declared = meta.get("platform") if isinstance(meta, dict) else None
    return declared if isinstance(declared, str) and declared in PLATFORM_NAMES else None


def _platform_at(data: Mapping[str, object], path: Path, declared: str | None) -> tuple[str, str] | None:
    """Return the platform of the step at `path` and why: the web's inside a web view, else the one declared."""
    platform = (declared, f"meta.platform is {declared}") if declared is not None else None
    holder = cast(object, data)
    for part in path:
        if isinstance(holder, dict):
            holder = holder.get(part)
        elif isinstance(holder, list) and isinstance(part, int) and 0 <= part < len(holder):
            holder = holder[part]
        context = holder.get("context") if isinstance(holder, dict) else None
        if isinstance(context, str) and context.strip():
            inside = ("web", f"it is in the web view {context.strip()!r}") if names_web(context) else None
            platform = inside or ((declared, f"meta.platform is {declared}") if declared is not None else None)
    return platform


def _in_step(step: Mapping[str, object], path: Path, platform: str, why: str, declared: str | None) -> list[Issue]:
    """Return the step's selectors `platform` cannot use (`why` it is the step's), and what `declared` cannot do.

    What a step asks of the phone itself (a key) is the phone's in a web view too: checked on the declared one.
    """
    command, args = step.get("command"), step.get("args")
    spec = COMMANDS.get(command) if isinstance(command, str) else None
    if spec is None or not isinstance(args, dict):
        return []  # an unknown command is reported on its own; an agent tool's selectors are attribute filters
    model = spec.select(args)
    if isinstance(model, tuple):
        return []  # no model for these arguments (`act` without a known name): reported on its own
    found = _in_model(model, args, Owner(model, (*path, "args"), args_of=model.owner), platform, why)
    # What else the arguments ask that the platform cannot do (a key an iPhone lacks), reported at `args`.
    rules = model.platform_rules(args, declared) if declared is not None else []
    return found + [error(IssueCode.ARG_ERROR, message, (*path, "args")) for message in rules]


def _items(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _in_model(
    model: type[BaseModel], raw: Mapping[str, object], owner: Owner, platform: str, why: str = ""
) -> list[Issue]:
    issues = []
    for key, many in _selector_fields(model):
        value = raw.get(key)
        placed: list[tuple[Path, object]] = [((key,), value)]
        if many:
            placed = [((key, index), item) for index, item in enumerate(value)] if isinstance(value, list) else []
        for loc, item in placed:
            issue = _mismatch(item, loc, owner, platform, why or f"meta.platform is {platform}")
            if issue is not None:
                issues.append(issue)
    return issues


def _mismatch(value: object, loc: Path, owner: Owner, platform: str, why: str) -> Issue | None:
    if not isinstance(value, str):
        return None
    try:
        selector = parse_selector(value)
    except SelectorSyntaxError:
        return None  # the field's own check reports it
    only = selector.platform
    if only is None or only == platform:
        return None
    message = (
        f"{owner.label(loc)} is a {selector.kind.value}= selector, which works on {PLATFORM_NAMES[only]} only, "
        f"but {why}"
    )
    at = (*owner.base, *loc)
    # As `translate` does: a step argument's problem is reported at `args`, and located at the field itself.
    path = owner.base if owner.args_of is not None else at
    return error(IssueCode.SELECTOR_ERROR, message, path, PLATFORM_HINT, at=at)


@functools.cache
def _selector_fields(model: type[BaseModel]) -> tuple[tuple[str, bool], ...]:
    """Return the keys (as a scenario writes them) of the model's selector fields, and whether each is a list."""
    found = []
    for name, info in model.model_fields.items():
        key = info.validation_alias if isinstance(info.validation_alias, str) else info.alias or name
        annotation = info.annotation
        if get_origin(annotation) is list and _holds_selector(annotation):
            found.append((key, True))
        elif _holds_selector(annotation) or _checked_as_selector(info.metadata):
            found.append((key, False))
    return tuple(found)


#: What makes a string a `SelectorStr`: its validator and schema (pydantic keeps these very objects).
_SELECTOR_CHECKS = get_args(SelectorStr)[1:]


def _checked_as_selector(metadata: list[object]) -> bool:
    """Return True for a required `SelectorStr` field, which pydantic unpacks into `str` and this metadata."""
    return all(any(item is check for item in metadata) for check in _SELECTOR_CHECKS)


def _holds_selector(annotation: object) -> bool:
    """Return True when `annotation` is `SelectorStr` or is built from it (`SelectorStr | None`, a list of them)."""
    if annotation is SelectorStr or annotation == SelectorStr:
        return True
    return any(_holds_selector(arg) for arg in get_args(annotation))
