"""The types of JSON data as visor writes it: envelopes, reports, the daemon's wire.

`JsonValue` is any JSON value and `JsonObject` an object of them: what `json.dumps` takes without a default.
Data visor reads is checked into models at its edge (pydantic, `visor.inputs`); these name what it builds to
write, so a value that is not JSON (a path object, a set, a dataclass) is a type error, not a crash at dump time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeAlias

JsonValue: TypeAlias = "bool | int | float | str | list[JsonValue] | dict[str, JsonValue] | None"
JsonObject: TypeAlias = "dict[str, JsonValue]"
#: What a function that only reads JSON to write it takes (lists and dicts in, without copying them).
JsonLike: TypeAlias = "bool | int | float | str | Sequence[JsonLike] | Mapping[str, JsonLike] | None"

__all__ = ["JsonLike", "JsonObject", "JsonValue"]
