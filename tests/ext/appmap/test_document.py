"""The app map's document: every map read and written again gives the same bytes, key for key."""

from __future__ import annotations

import dataclasses
import shutil
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest

from tests.conftest import FIXTURES
from visor.clock import VirtualClock
from visor.ext.appmap.document import SAFETIES, MapDocument, Part, Safety, fields_of
from visor.ext.appmap.model import place_of_file, read_map, write_map

#: Maps visor wrote (a crawl with an annotation, inputs and thumbnails; exit recipes), one edited by hand (keys in
#: another order, fields visor does not read, whole numbers as confidences, a null target), and one an older writer
#: left (no actions, exit recipes nor control keys; typed values in an edge's arguments), with what visor writes of it.
MAPS = sorted(path for path in (FIXTURES / "maps").glob("*.json") if not path.name.endswith(".written.json"))


@pytest.mark.parametrize("source", MAPS, ids=[path.stem for path in MAPS])
def test_a_map_read_and_written_again_is_the_same_bytes(tmp_path: Path, source: Path) -> None:
    copy = tmp_path / source.name
    shutil.copy(source, copy)
    app_map = read_map(place_of_file(str(copy)), VirtualClock())
    app_map.changed = True  # written even when reading it changed nothing
    assert write_map(app_map, VirtualClock())  # the fixtures' updated_at is this clock's time
    expected = source.with_name(source.stem + ".written.json")
    assert copy.read_bytes() == (expected if expected.exists() else source).read_bytes()


def _model_shape(annotation: object, nullable: set[str], at: str) -> dict[str, object]:
    """Return the JSON Schema (its properties, required, types, items, enums) a field's annotation stands for."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (types.UnionType, Union):
        nullable.add(at)  # None: the key is missing, or (where the schema says so) the file's null
        (inner,) = (arg for arg in args if arg is not type(None))
        return _model_shape(inner, nullable, at)
    if origin is Literal:
        return {"enum": sorted(str(arg) for arg in args)}
    if origin is tuple:
        return {"type": "array", "items": _model_shape(args[0], nullable, at + "[]")}
    if origin is Mapping:
        return {"type": "object"} if args[1] is object else {
            "type": "object", "additionalProperties": _model_shape(args[1], nullable, at + "{}")}  # fmt: skip
    if isinstance(annotation, type) and issubclass(annotation, Part):
        hints = get_type_hints(annotation)
        fields = [item for item in dataclasses.fields(annotation) if item.name in fields_of(annotation)]
        required = sorted(item.name for item in fields
                          if item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING)  # fmt: skip
        shape: dict[str, object] = {"type": "object"}
        shape["properties"] = {item.name: _model_shape(hints[item.name], nullable, f"{at}.{item.name}")
                               for item in fields}  # fmt: skip
        if required:
            shape["required"] = required
        return shape
    return {"type": {str: "string", bool: "boolean", int: "integer", float: "number"}[annotation]}  # type: ignore[index]


_KEPT = ("type", "properties", "required", "items", "additionalProperties", "enum")


def _shipped_shape(node: dict[str, Any], nullable: set[str], at: str) -> dict[str, object]:
    """Return the shipped schema's node as far as a part's fields say it: properties, required, types, enums."""
    node = {"type": "integer"} if node.get("const") == 1 else node
    shape: dict[str, object] = {}
    for key in _KEPT:
        if key not in node:
            continue
        value = node[key]
        if key == "type" and isinstance(value, list):
            nullable.add(at)
            (value,) = (kind for kind in value if kind != "null")
        if key == "properties":
            value = {name: _shipped_shape(item, nullable, f"{at}.{name}") for name, item in value.items()}
        elif key in ("items", "additionalProperties"):
            value = _shipped_shape(value, nullable, at + ("[]" if key == "items" else "{}"))
        elif key in ("required", "enum"):
            value = sorted(value)
        shape[key] = value
    return shape


def test_the_typed_document_and_the_shipped_schema_agree() -> None:
    """Every field of every part is the schema's property of that name, required or not alike, of the same type.

    The parts read what the schema checks and nothing else (what a file holds besides is a part's `extra`): a field
    added to either alone, or a type changed in one, fails here.
    """
    from visor.scenario.schema import shipped_schema

    optional: set[str] = set()
    nulls: set[str] = set()
    assert _model_shape(MapDocument, optional, "") == _shipped_shape(shipped_schema("app-map"), nulls, "")
    # The schema's null (an action or exit recipe naming no target) is None in the part; a None elsewhere stands
    # for a key that is not there, never for a field the schema requires.
    assert nulls == {".variants[].actions[].target", ".variants[].exit_recipes[].target"} and nulls <= optional
    assert set(get_args(Safety)) == SAFETIES
