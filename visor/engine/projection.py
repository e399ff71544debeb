"""Read details by their declared shapes: the part the signature signs, and the artifacts they name.

Shapes are the `TypedDict`s of `visor.actions.step_details` and `visor.actions.tools.details`; a key's role is its
`Annotated` mark (`Volatile`, `Evidence`), signed when unmarked. Both readers follow the declarations into nested
shapes and lists of them, so a key's role is decided where it is declared, never by its name.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints, is_typeddict

from visor.actions.step_details import Role


def _sign_undeclared(where: str) -> None:
    """Let a key no shape declares be signed: the safe side (a change in it shows as non-determinism)."""


#: Called with the place of every detail key no shape declares. The test suite makes it an error.
on_unclassified: Callable[[str], None] = _sign_undeclared


def signed(details: Mapping[str, Any], shapes: Sequence[type], where: str = "details") -> dict[str, Any]:
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
            out[key] = _signed_value(value, kind, f"{where}.{key}")
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


def _signed_value(value: Any, kind: Any, where: str) -> Any:
    """Project a signed value by its declared type: into declared objects and lists of them; else whole."""
    if value is None:
        return None
    options = [option for option in get_args(kind) if option is not type(None)] if _is_union(kind) else [kind]
    for option in options:
        if is_typeddict(option) and isinstance(value, Mapping):
            return signed(value, (option,), where)
        if get_origin(option) is list and isinstance(value, list):
            (item,) = get_args(option)
            return [_signed_value(element, item, f"{where}[]") for element in value]
    return value


def _is_union(kind: Any) -> bool:
    return get_origin(kind) in (Union, UnionType)


def evidence(details: Mapping[str, Any], shapes: Sequence[type]) -> list[str]:
    """Return the artifact paths the details name (their `Evidence` keys, at any depth), each once, in order."""
    return list(dict.fromkeys(_evidence(details, shapes)))


def _evidence(details: Mapping[str, Any], shapes: Sequence[type]) -> Iterator[str]:
    for key, value in details.items():
        hint = _declared(shapes, key)
        if hint is None:
            continue
        role, kind = _role(hint)
        if role is Role.EVIDENCE:
            yield from _strings(value)
        elif role is Role.SIGNED:
            yield from _nested_evidence(value, kind)


def _nested_evidence(value: Any, kind: Any) -> Iterator[str]:
    options = [option for option in get_args(kind) if option is not type(None)] if _is_union(kind) else [kind]
    for option in options:
        if is_typeddict(option) and isinstance(value, Mapping):
            yield from _evidence(value, (option,))
        elif get_origin(option) is list and isinstance(value, list):
            (item,) = get_args(option)
            for element in value:
                yield from _nested_evidence(element, item)


def _strings(value: Any) -> Iterator[str]:
    """Return every string in a value (an artifact's path, or the paths of a kept screen)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
