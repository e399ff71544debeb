"""Platform-only selectors (and arguments) checked against the platform a scenario declares (`meta.platform`).

`uiautomator=` is UiAutomator2's grammar (Android), `predicate=` and `classchain=` are XCUITest's (iOS): on the
other platform a device cannot evaluate them, and the step fails at run time. A scenario that declares its platform
says where it runs, so such a selector is reported when validating. Without `meta.platform` a scenario may run on
either platform, and nothing is said.

Which fields hold selectors is read from the models (every `SelectorStr` field), so a selector field added to a
command, an assertion type or `config` is checked here without being listed.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import get_args, get_origin

from pydantic import BaseModel

from visor.inputs.document import Path
from visor.inputs.issues import Issue, IssueCode, error
from visor.scenario.assertions import assertion_model
from visor.scenario.blocks import is_block, step_items
from visor.scenario.commands import COMMANDS
from visor.scenario.fields import Owner, SelectorStr
from visor.scenario.models import Config
from visor.selectors.parse import PLATFORM_HINT, PLATFORM_NAMES, SelectorSyntaxError, parse_selector


def platform_issues(data: Mapping[str, object]) -> list[Issue]:
    """Return a `SELECTOR_ERROR` for every selector that works only on the platform `meta.platform` does not name."""
    meta = data.get("meta")
    platform = meta.get("platform") if isinstance(meta, dict) else None
    if not isinstance(platform, str) or platform not in PLATFORM_NAMES:
        return []  # none declared (either may run it), or one the model refuses on its own
    config = data.get("config")
    issues = _in_model(Config, config, Owner(Config, ("config",)), platform) if isinstance(config, dict) else []
    for where, step in step_items(data):
        if not is_block(step):
            issues += _in_step(step, where, platform)
    for index, raw in enumerate(_items(data.get("assertions"))):
        if isinstance(raw, dict):
            model = assertion_model(raw)
            issues += _in_model(model, raw, Owner(model, ("assertions", index)), platform)
    return issues


def _in_step(step: Mapping[str, object], path: Path, platform: str) -> list[Issue]:
    command, args = step.get("command"), step.get("args")
    spec = COMMANDS.get(command) if isinstance(command, str) else None
    if spec is None or not isinstance(args, dict):
        return []  # an unknown command is reported on its own; an agent tool's selectors are attribute filters
    model = spec.select(args)
    if isinstance(model, tuple):
        return []  # no model for these arguments (`act` without a known name): reported on its own
    found = _in_model(model, args, Owner(model, (*path, "args"), args_of=model.owner), platform)
    # What else the arguments ask that the platform cannot do (a key an iPhone lacks), reported at `args`.
    return found + [
        error(IssueCode.ARG_ERROR, message, (*path, "args")) for message in model.platform_rules(args, platform)
    ]


def _items(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _in_model(model: type[BaseModel], raw: Mapping[str, object], owner: Owner, platform: str) -> list[Issue]:
    issues = []
    for key, many in _selector_fields(model):
        value = raw.get(key)
        placed: list[tuple[Path, object]] = [((key,), value)]
        if many:
            placed = [((key, index), item) for index, item in enumerate(value)] if isinstance(value, list) else []
        for loc, item in placed:
            issue = _mismatch(item, loc, owner, platform)
            if issue is not None:
                issues.append(issue)
    return issues


def _mismatch(value: object, loc: Path, owner: Owner, platform: str) -> Issue | None:
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
        f"but meta.platform is {platform}"
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
