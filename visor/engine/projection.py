"""Read details by their declared shapes: the part the signature signs, and the artifacts they name.

Shapes are the `TypedDict`s of `visor.steps.details`, of each command's module in `visor.steps.commands` and of
`visor.ext.tools.details`; a key's role is its `Annotated` mark (`Volatile`, `Evidence`), signed when unmarked.
Both readers follow the declarations into nested shapes and lists of them, so a key's role is decided where it
is declared, never by its name.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import UnionType
from typing import (
    Annotated,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from visor.steps.details import Role


@dataclass(frozen=True, slots=True)
class Signed:
    """The signed part of some details, and the place of every key no shape declared (signed all the same)."""

    data: dict[str, object]
    #: Keys no shape declares, by place (`details.surprise`): signed, the safe side (a change in one shows as
    #: non-determinism); a test holds every shipped command's and tool's details to none.
    unclassified: tuple[str, ...] = ()


def signed(details: Mapping[str, object], shapes: Sequence[type], where: str = "details") -> Signed:
    """Return the signed part of `details`, whose keys the first of `shapes` (TypedDicts) declaring them classify."""
    unclassified: list[str] = []
    return Signed(_signed(details, tuple(shapes), where, unclassified), tuple(unclassified))


def _signed(
    details: Mapping[str, object], shapes: tuple[type, ...], where: str, unclassified: list[str]
) -> dict[str, object]:
    keys = _keys(shapes)
    out: dict[str, object] = {}
    for key, value in details.items():
        declared = keys.get(key)
        if declared is None:
            unclassified.append(f"{where}.{key}")
            out[key] = value
        elif declared[0] is Role.SIGNED:
            out[key] = _signed_value(value, declared[1], f"{where}.{key}", unclassified)
    return out


def _signed_value(value: object, kind: object, where: str, unclassified: list[str]) -> object:
    """Project a signed value by its declared type: into declared objects and lists of them; else whole."""
    if value is None:
        return None
    for inner, item in _inside(kind):
        if inner is not None and isinstance(value, Mapping):
            return _signed(value, (inner,), where, unclassified)
        if item is not None and isinstance(value, list):
            return [_signed_value(element, item, f"{where}[]", unclassified) for element in value]
    return value


@functools.cache
def _keys(shapes: tuple[type, ...]) -> Mapping[str, tuple[Role, object]]:
    """Return every key the shapes declare, with its role and type (the first shape declaring a key decides)."""
    keys: dict[str, tuple[Role, object]] = {}
    for shape in reversed(shapes):
        keys.update({key: _role(hint) for key, hint in get_type_hints(shape, include_extras=True).items()})
    return keys


def _role(hint: object) -> tuple[Role, object]:
    """Return a declared key's role and its type without the role."""
    while get_origin(hint) in (NotRequired, Required):
        # The type a key holds is inside its presence mark; left on, its shape would be signed whole.
        hint = get_args(hint)[0]
    if get_origin(hint) is Annotated:
        kind, *marks = get_args(hint)
        role = next((mark for mark in marks if isinstance(mark, Role)), Role.SIGNED)
        return role, kind
    return Role.SIGNED, hint


@functools.cache
def _inside(kind: object) -> tuple[tuple[type | None, object], ...]:
    """Return what a declared type holds that has declared keys: a shape, or a list of (a list's item type)."""
    options = [option for option in get_args(kind) if option is not type(None)] if _is_union(kind) else [kind]
    found: list[tuple[type | None, object]] = []
    for option in options:
        if isinstance(option, type) and is_typeddict(option):
            found.append((option, None))
        elif get_origin(option) is list:
            found.append((None, get_args(option)[0]))
    return tuple(found)


def _is_union(kind: object) -> bool:
    return get_origin(kind) in (Union, UnionType)


def evidence(details: Mapping[str, object], shapes: Sequence[type]) -> list[str]:
    """Return the artifact paths the details name (their `Evidence` keys, at any depth), each once, in order."""
    return list(dict.fromkeys(_evidence(details, shapes)))


def _evidence(details: Mapping[str, object], shapes: Sequence[type]) -> Iterator[str]:
    keys = _keys(tuple(shapes))
    for key, value in details.items():
        declared = keys.get(key)
        if declared is None:
            continue
        role, kind = declared
        if role is Role.EVIDENCE:
            yield from _strings(value)
        elif role is Role.SIGNED:
            yield from _nested_evidence(value, kind)


def _nested_evidence(value: object, kind: object) -> Iterator[str]:
    for inner, item in _inside(kind):
        if inner is not None and isinstance(value, Mapping):
            yield from _evidence(value, (inner,))
        elif item is not None and isinstance(value, list):
            for element in value:
                yield from _nested_evidence(element, item)


def _strings(value: object) -> Iterator[str]:
    """Return every string in a value (an artifact's path, or the paths of a kept screen)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)
