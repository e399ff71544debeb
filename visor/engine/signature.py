"""The determinism signature: SHA-256 of canonical JSON over a documented projection of a run.

Upstream's projection is kept: `{platform, steps: [{id, command, status, details}], assertions: [...]}`. What
of a step's details counts is declared, not guessed from key names: each command and tool declares the shape of
its details (`visor.actions.details`, `visor.actions.tools.details`), where every key is signed, volatile
(timings) or evidence (artifact paths), and only signed keys enter the signature, at every depth. Step details
carry `screen`, the fingerprint of what the screen showed after the step. docs/determinism.md states the rules.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints, is_typeddict

from visor.actions.catalogue import detail_shapes
from visor.actions.details import Role
from visor.engine.results import AssertionResult, StepResult


def _sign_undeclared(where: str) -> None:
    """Let a key no shape declares be signed: the safe side (a change in it shows as non-determinism)."""


#: Called with the place of every detail key no shape declares. The test suite makes it an error.
on_unclassified: Callable[[str], None] = _sign_undeclared


def project(details: Mapping[str, Any], shapes: Sequence[type], where: str = "details") -> dict[str, Any]:
    """Return the signed part of `details`, whose keys the first of `shapes` (TypedDicts) declaring them classify."""
    out: dict[str, Any] = {}
    for key, value in details.items():
        hint = _declared(shapes, key)
        if hint is None:
            on_unclassified(f"{where}.{key}")
            out[key] = value
            continue
        role, kind = _role(hint)
        if role is Role.SIGNED:
            out[key] = _signed(value, kind, f"{where}.{key}")
    return out


def _declared(shapes: Sequence[type], key: str) -> Any:
    for shape in shapes:
        hints = _hints(shape)
        if key in hints:
            return hints[key]
    return None


@functools.cache
def _hints(shape: type) -> dict[str, Any]:
    return get_type_hints(shape, include_extras=True)


def _role(hint: Any) -> tuple[Role, Any]:
    """Return a declared key's role and its type without the role."""
    if get_origin(hint) is Annotated:
        kind, *marks = get_args(hint)
        role = next((mark for mark in marks if isinstance(mark, Role)), Role.SIGNED)
        return role, kind
    return Role.SIGNED, hint


def _signed(value: Any, kind: Any, where: str) -> Any:
    """Project a signed value by its declared type: into declared objects and lists of them; else whole."""
    if value is None:
        return None
    options = [option for option in get_args(kind) if option is not type(None)] if _is_union(kind) else [kind]
    for option in options:
        if is_typeddict(option) and isinstance(value, Mapping):
            return project(value, (option,), where)
        if get_origin(option) is list and isinstance(value, list):
            (item,) = get_args(option)
            return [_signed(element, item, f"{where}[]") for element in value]
    return value


def _is_union(kind: Any) -> bool:
    return get_origin(kind) in (Union, UnionType)


def step_projection(step: StepResult) -> dict[str, Any]:
    """Return what of a step counts for determinism."""
    details = project(step.details, detail_shapes(step.command), f"{step.command}: details")
    return {"id": step.id, "command": step.command, "status": step.status, "details": details}


def assertion_projection(check: AssertionResult) -> dict[str, Any]:
    """Return what of an assertion counts for determinism."""
    return {
        "id": check.id,
        "type": check.type,
        "target": check.target,
        "status": check.status,
        "details": check.details,
    }


def projection(platform: str, steps: Iterable[StepResult], assertions: Iterable[AssertionResult]) -> dict[str, Any]:
    """Return the signature's input."""
    return {
        "platform": platform,
        "steps": [step_projection(step) for step in steps],
        "assertions": [assertion_projection(check) for check in assertions],
    }


def canonical(value: Any) -> str:
    """Serialise with sorted keys and no spaces: equal data, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def signature(platform: str, steps: Iterable[StepResult], assertions: Iterable[AssertionResult]) -> str:
    """Return the hex SHA-256 signature of a run."""
    return hashlib.sha256(canonical(projection(platform, steps, assertions)).encode("utf-8")).hexdigest()
