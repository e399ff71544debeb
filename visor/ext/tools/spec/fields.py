"""The building blocks of the tools' argument models: strict JSON types, points, rectangles and the selector.

Each type validates exactly what its JSON Schema says (`Int` refuses 3.0 and true, as the spec's `integer` does)
and generates that schema, so the models and the shipped spec can be compared (`tests/ext/tools/spec`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    GetPydanticSchema,
    Strict,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError, core_schema

from visor.ext.tools.spec.rules import Checker
from visor.inputs.document import Path
from visor.selectors.control import Box, ControlSelector

Int = Annotated[int, Strict()]
Float = Annotated[float, Strict()]
Str = Annotated[str, Strict()]
Bool = Annotated[bool, Strict()]
Coord = tuple[int, int]
#: The error of visor's rules (`ToolModel.check`): its context carries the checker with every problem.
RULES_ERROR = "visor_rules"


def checked_as(kind: object) -> GetPydanticSchema:
    """Validate a field as `kind` (and describe it so), while its annotation says what it is once checked.

    For a point the spec types `array of integer`: the rules, not the schema, require two (with their own
    message), so the field is a `Coord` only once the model's rules passed. For an argument that may be left out
    but not written as null, the field's None default means "not given".
    """
    return GetPydanticSchema(lambda _source, handler: handler(kind))


@dataclass(frozen=True, slots=True)
class Items:
    """An array's bounds (`minItems`, `maxItems`), checked after its items so that both are always reported."""

    low: int
    high: int

    def __get_pydantic_core_schema__(self, source: object, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validate the items (all of them: pydantic's own `max_length` stops at the first extra one), then count."""
        return core_schema.no_info_after_validator_function(self._count, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """Describe the bounds as the spec does."""
        return {**handler(schema), "minItems": self.low, "maxItems": self.high}

    def _count(self, value: tuple[object, ...]) -> tuple[object, ...]:
        if not self.low <= len(value) <= self.high:
            raise PydanticCustomError("items_count", "{low} to {high} items", {"low": self.low, "high": self.high})
        return value


@dataclass(frozen=True, slots=True)
class Range:
    """A number's bounds as JSON Schema compares them: NaN lies within every bound (pydantic's own refuse it)."""

    minimum: int | None = None
    maximum: int | None = None
    exclusive_minimum: int | None = None

    def __get_pydantic_core_schema__(self, source: object, handler: GetCoreSchemaHandler) -> CoreSchema:
        """Validate the number, then compare it with each bound."""
        return core_schema.no_info_after_validator_function(self._compare, handler(source))

    def __get_pydantic_json_schema__(self, schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        """Describe the bounds as the spec does."""
        bounds = {"minimum": self.minimum, "maximum": self.maximum, "exclusiveMinimum": self.exclusive_minimum}
        return {**handler(schema), **{key: bound for key, bound in bounds.items() if bound is not None}}

    def _compare(self, value: float) -> float:
        low, high, above = self.minimum, self.maximum, self.exclusive_minimum
        if (
            (low is not None and value < low)
            or (high is not None and value > high)
            or (above is not None and value <= above)
        ):
            raise PydanticCustomError("number_range", "out of range")
        return value


Ints = tuple[Int, ...]
#: A point as the spec's older tools type it (any number of integers: the rules want two).
Point = Annotated[Coord, checked_as(Ints)]
#: A point as the newer tools type it: exactly two integers.
Pair = Annotated[Coord, checked_as(Annotated[Ints, Items(2, 2)])]
#: [left, top, right, bottom].
Rect = Annotated[Box, checked_as(Annotated[Ints, Items(4, 4)])]
Space = Literal["normalized", "pixel"]
#: An id, a class or a description: 1 to 512 characters.
Name = Annotated[str, Strict(), Field(min_length=1, max_length=512)]
Text = Annotated[str, Strict(), Field(max_length=4096)]


class ToolModel(BaseModel):
    """Base of every argument model: immutable, unknown keys refused; a tool's own model runs its rules."""

    model_config = ConfigDict(frozen=True, extra="forbid", regex_engine="python-re")

    #: The tool these are the arguments of; None for a nested object or a sequence member (its tool checks it).
    tool_name: ClassVar[str | None] = None

    def check(self, c: Checker, path: Path) -> None:
        """Check visor's rules beyond the spec's schema (each problem with its path under `path`)."""

    def normalized(self) -> Self:
        """Return the arguments in the one form the executor reads (most are already)."""
        return self

    @model_validator(mode="after")
    def _rules(self) -> Self:
        # Only once every field is valid, as before: a call with a malformed field reports only what is malformed.
        if self.tool_name is None:
            return self
        checker = Checker()
        self.check(checker, ())
        if checker.problems:
            raise PydanticCustomError(
                RULES_ERROR, "{count} broken rule(s)", {"count": len(checker.problems), "checker": checker}
            )
        return self.normalized()


class ToolArgs(ToolModel):
    """Base of a tool's arguments: unknown top-level keys are refused before, with a suggestion (`check.py`)."""

    model_config = ConfigDict(extra="ignore")


class SelectorModel(ToolModel, title="ControlSelector"):
    """The spec's `ControlSelector`, read into the core's `ControlSelector`."""

    resource_id: Name | None = None
    text: Text | None = None
    content_desc: Name | None = None
    class_name: Name | None = None
    package_name: Name | None = None
    bounds: Rect | None = None

    def selector(self) -> ControlSelector:
        """Return the selector the engine resolves."""
        return ControlSelector(
            self.resource_id, self.text, self.content_desc, self.class_name, self.package_name, self.bounds
        )


def _selector(model: SelectorModel) -> ControlSelector:
    return model.selector()


Selector = Annotated[
    ControlSelector,
    GetPydanticSchema(
        lambda _s, handler: core_schema.no_info_after_validator_function(_selector, handler(SelectorModel))
    ),
]
