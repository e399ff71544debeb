"""The app map's document as typed values: its screens, variants, edges and their parts, as the file holds them.

One parser (`parse_document`) builds them from the file's data once it fits the app-map schema
(visor/schemas/app-map.schema.json), and `to_json` gives that data back. Each part keeps what visor does not read
as the file had it (`extra`: a field an editor or another tool added, or one visor writes and never reads, such as
`last_observed_at`) and the order of its keys (`order`): a map read and written again is the same bytes, key for
key, and a field visor gives a part for the first time goes after the others, as it always has.

The parts are frozen. The map (`visor.ext.appmap.model.AppMap`, the one writer) changes by putting a new part in
place of the old (`dataclasses.replace`, with `present` adding the keys a change gives a value for the first time),
so a document a run found is a snapshot that costs no copy, and nothing else changes a map behind its back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

#: How safe a control is to tap (the schema's enum): the crawl taps safe ones, and never a risky one unless told.
Safety = Literal["safe", "needs-input", "risky", "unknown"]
SAFETIES: frozenset[str] = frozenset(get_args(Safety))
_SAFETY: dict[str, Safety] = {"safe": "safe", "needs-input": "needs-input", "risky": "risky", "unknown": "unknown"}
#: An object of the file that visor keeps as it is (an action's arguments, what a part holds besides its fields).
JsonObject = Mapping[str, object]


class MapShapeError(ValueError):
    """A map's data is not what its part says (the schema lets nothing of the kind through: a map read is checked)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Part:
    """What every part of a map keeps besides its fields: the rest of its keys, and the order of them all."""

    #: The keys visor does not read, with their values as the file had them.
    extra: JsonObject = field(default_factory=dict)
    #: Every key the part has (its fields that are present, and `extra`'s), in the file's order.
    order: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class InputDecl(Part):
    """A declared input: an environment variable the map's fields may be filled from (secret unless it says not)."""

    secret: bool | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Screen(Part):
    """A screen: the variants it looks like, and the name and purpose an annotation gave it."""

    id: str
    variant_ids: tuple[str, ...]
    label: str | None = None
    purpose: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Element(Part):
    """An element of a variant, as the map stores it (upstream's SourceElement: its place and tag are `extra`)."""

    selector: str
    targets: tuple[str, ...]
    labels: tuple[str, ...]
    safety: Safety
    stable: bool
    clickable: bool
    enabled: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Action(Part):
    """Something an annotation says can be done on a variant, and how safe it is (every field may be missing)."""

    identity: str | None = None
    command: str | None = None
    args: JsonObject = field(default_factory=dict)
    #: None also when present: the file's `null` (an action whose arguments name no target).
    target: str | None = None
    label: str | None = None
    intent: str | None = None
    safety: Safety | None = None
    description: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class ExitRecipe(Part):
    """How to leave a variant for another without a back key: a tap on a control (its target), else at a point."""

    command: str | None = None
    #: None also when present: the file's `null` (a control without semantics, tapped where it is).
    target: str | None = None
    x: int
    y: int
    to_variant_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant(Part):
    """One way a screen looks, identified by its normalized fingerprint; its label and notes, if any, are `extra`."""

    id: str
    screen_id: str
    fingerprint: str
    normalized_fingerprint: str
    elements: tuple[Element, ...]
    element_keys: tuple[str, ...]
    control_keys: tuple[str, ...] = ()
    auth_required: bool
    observations: int
    confidence: float
    required_targets: tuple[str, ...] = ()
    thumbnail: str | None = None
    actions: tuple[Action, ...] = ()
    exit_recipes: tuple[ExitRecipe, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class EdgeArgs(Part):
    """An edge's arguments: its target, and the fields filled before its tap (field id -> a declared variable)."""

    target: str | None = None
    fill: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class Contract(Part):
    """What proves an edge arrived: the variant it leads to, or enough of its targets."""

    variant_id: str
    required_targets: tuple[str, ...]
    normalized_fingerprint: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Edge(Part):
    """A tap from one variant that led to another, and how well it held; `last_observed_at` is `extra`."""

    id: str
    from_variant_id: str
    to_variant_id: str
    command: str
    target: str
    args: EdgeArgs
    intent: str | None = None
    confidence: float
    successes: int
    failures: int
    stale: bool
    candidate: bool
    destination_contract: Contract


@dataclass(frozen=True, slots=True, kw_only=True)
class MapDocument(Part):
    """An app map's document (`schema_version` 1): its identity, declared inputs, screens, variants and edges."""

    schema_version: int
    identity: str
    app_id: str
    platform: str
    created_at: str | None = None
    updated_at: str | None = None
    inputs: Mapping[str, InputDecl] = field(default_factory=dict)
    screens: tuple[Screen, ...]
    variants: tuple[Variant, ...]
    edges: tuple[Edge, ...]


def fields_of(kind: type[Part]) -> frozenset[str]:
    """Return the keys a kind of part reads into its fields (the others of a file's object are its `extra`)."""
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = frozenset(item.name for item in dataclasses.fields(kind)) - {"extra", "order"}
    return found


_FIELDS: dict[type[Part], frozenset[str]] = {}


def present(part: Part, *names: str) -> tuple[str, ...]:
    """Return a part's key order with `names` in it: those it lacks go at the end, in turn (as a dict's update)."""
    missing = tuple(name for name in dict.fromkeys(names) if name not in part.order)
    return part.order + missing if missing else part.order


def to_json(part: Part) -> dict[str, object]:
    """Return a part as the file holds it: its keys in its order, its fields as JSON, its `extra` as it was."""
    typed = fields_of(type(part))
    return {key: _json(getattr(part, key)) if key in typed else part.extra[key] for key in part.order}


def _json(value: object) -> object:
    if type(value) in _SCALARS:  # most values: checked first, by their exact type (an ABC's check costs more)
        return value
    if isinstance(value, tuple):
        return [to_json(item) for item in value] if value and isinstance(value[0], Part) else list(value)
    if isinstance(value, Part):
        return to_json(value)
    if isinstance(value, Mapping):
        return {key: _json(item) for key, item in value.items()}
    return value


_SCALARS = frozenset({str, bool, int, float, type(None)})


def parse_document(data: JsonObject) -> MapDocument:
    """Return the document of a map's data that fits the app-map schema (`visor.ext.appmap.model.read_map`).

    A variant an older writer left without `actions`, `exit_recipes` or `control_keys` gets them, empty, after its
    other keys (upstream's legacy enrichment does the same).

    Raises:
        MapShapeError: a field is not of its type (never, for data the schema accepted).
    """
    inputs = _object(data, "inputs")
    return MapDocument(
        schema_version=_int(data, "schema_version"), identity=_str(data, "identity"), app_id=_str(data, "app_id"),
        platform=_str(data, "platform"), created_at=_optional_str(data, "created_at"),
        updated_at=_optional_str(data, "updated_at"),
        inputs={name: _input(_mapping(entry)) for name, entry in inputs.items()},
        screens=tuple(_screen(_mapping(item)) for item in _list(data, "screens")),
        variants=tuple(_variant(_mapping(item)) for item in _list(data, "variants")),
        edges=tuple(_edge(_mapping(item)) for item in _list(data, "edges")),
        extra=_extra(data, MapDocument), order=tuple(data),
    )  # fmt: skip


def parse_element(data: JsonObject) -> Element:
    """Return a variant's element from its data (the file's, or an observed element's `to_dict`, masked).

    Raises:
        MapShapeError: a field is not of its type.
    """
    return Element(selector=_str(data, "selector"), targets=_strs(data, "targets"), labels=_strs(data, "labels"),
                   safety=_safety(data, "safety"), stable=_bool(data, "stable"), clickable=_bool(data, "clickable"),
                   enabled=_bool(data, "enabled"), extra=_extra(data, Element), order=tuple(data))  # fmt: skip


def _input(data: JsonObject) -> InputDecl:
    secret = data.get("secret")
    if secret is not None and not isinstance(secret, bool):
        raise MapShapeError(f"secret: {secret!r} is not a boolean")
    return InputDecl(secret=secret, extra=_extra(data, InputDecl), order=tuple(data))


def _screen(data: JsonObject) -> Screen:
    return Screen(id=_str(data, "id"), variant_ids=_strs(data, "variant_ids"), label=_optional_str(data, "label"),
                  purpose=_optional_str(data, "purpose"), extra=_extra(data, Screen), order=tuple(data))  # fmt: skip


#: What a variant of an older writer may lack, given it empty on reading (in this order, after its keys).
_ENRICHED = ("actions", "exit_recipes", "control_keys")


def _variant(data: JsonObject) -> Variant:
    return Variant(
        id=_str(data, "id"), screen_id=_str(data, "screen_id"), fingerprint=_str(data, "fingerprint"),
        normalized_fingerprint=_str(data, "normalized_fingerprint"),
        elements=tuple(parse_element(_mapping(item)) for item in _list(data, "elements")),
        element_keys=_strs(data, "element_keys"), control_keys=_strs(data, "control_keys"),
        auth_required=_bool(data, "auth_required"), observations=_int(data, "observations"),
        confidence=_number(data, "confidence"), required_targets=_strs(data, "required_targets"),
        thumbnail=_optional_str(data, "thumbnail"),
        actions=tuple(_action(_mapping(item)) for item in _list(data, "actions")),
        exit_recipes=tuple(_exit_recipe(_mapping(item)) for item in _list(data, "exit_recipes")),
        extra=_extra(data, Variant), order=tuple(data) + tuple(key for key in _ENRICHED if key not in data),
    )  # fmt: skip


def _action(data: JsonObject) -> Action:
    safety = _safety(data, "safety") if data.get("safety") is not None else None
    return Action(identity=_optional_str(data, "identity"), command=_optional_str(data, "command"),
                  args=_object(data, "args"), target=_optional_str(data, "target"), label=_optional_str(data, "label"),
                  intent=_optional_str(data, "intent"), safety=safety, description=_optional_str(data, "description"),
                  notes=_strs(data, "notes"), extra=_extra(data, Action), order=tuple(data))  # fmt: skip


def _exit_recipe(data: JsonObject) -> ExitRecipe:
    return ExitRecipe(command=_optional_str(data, "command"), target=_optional_str(data, "target"),
                      x=_int(data, "x"), y=_int(data, "y"), to_variant_id=_str(data, "to_variant_id"),
                      extra=_extra(data, ExitRecipe), order=tuple(data))  # fmt: skip


def _edge(data: JsonObject) -> Edge:
    args, contract = _mapping(data["args"]), _mapping(data["destination_contract"])
    fill = _object(args, "fill")
    if not all(isinstance(value, str) for value in fill.values()):
        raise MapShapeError("args.fill: a field is filled from something other than a variable's name")
    return Edge(
        id=_str(data, "id"), from_variant_id=_str(data, "from_variant_id"), to_variant_id=_str(data, "to_variant_id"),
        command=_str(data, "command"), target=_str(data, "target"),
        args=EdgeArgs(target=_optional_str(args, "target"), fill={key: str(value) for key, value in fill.items()},
                      extra=_extra(args, EdgeArgs), order=tuple(args)),
        intent=_optional_str(data, "intent"), confidence=_number(data, "confidence"),
        successes=_int(data, "successes"), failures=_int(data, "failures"), stale=_bool(data, "stale"),
        candidate=_bool(data, "candidate"),
        destination_contract=Contract(
            variant_id=_str(contract, "variant_id"), required_targets=_strs(contract, "required_targets"),
            normalized_fingerprint=_str(contract, "normalized_fingerprint"), extra=_extra(contract, Contract),
            order=tuple(contract),
        ),
        extra=_extra(data, Edge), order=tuple(data),
    )  # fmt: skip


def _extra(data: JsonObject, kind: type[Part]) -> JsonObject:
    typed = fields_of(kind)
    return {key: value for key, value in data.items() if key not in typed}


def _mapping(value: object) -> JsonObject:
    if not isinstance(value, dict):
        raise MapShapeError(f"{_shown(value)} is not an object")
    return value


def _object(data: JsonObject, key: str) -> JsonObject:
    return _mapping(data[key]) if key in data else {}


def _list(data: JsonObject, key: str) -> list[object]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise MapShapeError(f"{key}: {_shown(value)} is not an array")
    return value


def _str(data: JsonObject, key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise MapShapeError(f"{key}: {_shown(value)} is not a string")
    return value


def _optional_str(data: JsonObject, key: str) -> str | None:
    return None if data.get(key) is None else _str(data, key)


def _strs(data: JsonObject, key: str) -> tuple[str, ...]:
    items = _list(data, key)
    found = tuple(item for item in items if isinstance(item, str))
    if len(found) != len(items):
        raise MapShapeError(f"{key}: an item is not a string")
    return found


def _bool(data: JsonObject, key: str) -> bool:
    value = data[key]
    if not isinstance(value, bool):
        raise MapShapeError(f"{key}: {_shown(value)} is not a boolean")
    return value


def _int(data: JsonObject, key: str) -> int:
    value = data[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise MapShapeError(f"{key}: {_shown(value)} is not an integer")
    return value


def _number(data: JsonObject, key: str) -> float:
    """Return a number as the file has it: a whole one stays an int (`1`, written back `1`, not `1.0`)."""
    value = data[key]
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise MapShapeError(f"{key}: {_shown(value)} is not a number")
    return value


def _safety(data: JsonObject, key: str) -> Safety:
    value = data[key]
    found = _SAFETY.get(value) if isinstance(value, str) else None
    if found is not None:
        return found
    raise MapShapeError(f"{key}: {_shown(value)} is not one of {', '.join(sorted(SAFETIES))}")


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
