"""Field types shared by the input models, and the custom errors they raise.

Custom errors carry a visor issue code as their pydantic error type, so `visor.scenario.errors` can map
them without guessing. A *predicate* message ("must be ios|android") is prefixed with the field's label
("meta.platform must be ios|android"); a plain message is used as it stands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from visor.inputs.document import Path, dotted
from visor.inputs.issues import IssueCode
from visor.jsontypes import JsonObject
from visor.limits import MAX_DURATION_MS, MAX_SEED
from visor.selectors.parse import SelectorSyntaxError, parse_selector
from visor.selectors.refine import MatchError, read_match


class _Null:
    """Stands in for an explicit null: no field type accepts it."""

    def __repr__(self) -> str:
        return "null"


_NULL = _Null()


def predicate_error(code: IssueCode, predicate: str, hint: str | None = None) -> PydanticCustomError:
    """Return an error whose message completes the field's label: `<label> <predicate>`."""
    return PydanticCustomError(str(code), predicate, {"predicate": True, "hint": hint})


def plain_error(code: IssueCode, message: str, hint: str | None = None) -> PydanticCustomError:
    """Return an error whose message stands alone."""
    return PydanticCustomError(str(code), message, {"predicate": False, "hint": hint})


class InputModel(BaseModel):
    """Base of the models at the input edge: strict types, unknown fields refused, immutable values.

    An explicit `null` is refused unless the field is listed in `nullable`: in YAML `settle:` with nothing
    after it is null, and almost always a mistake. Leaving a field out is how to take its default.
    """

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True, defer_build=True, populate_by_name=False)

    #: Keys that accept an explicit null (upstream accepts `assertions: null`, for instance).
    nullable: ClassVar[frozenset[str]] = frozenset()

    @model_validator(mode="before")
    @classmethod
    def _refuse_null(cls, data: object) -> object:
        # A null becomes a value no field type accepts, so each field reports it with its own description.
        if isinstance(data, dict) and None in data.values():
            return {key: _NULL if value is None and key not in cls.nullable else value for key, value in data.items()}
        return data


def _match_of(value: object) -> object:
    """Turn a selector written as a mapping (`target: {text: "Log.*", below: "id=email"}`) into its `match=` text."""
    if not isinstance(value, dict):
        return value
    try:
        return read_match(value).canonical()
    except MatchError as exc:
        raise predicate_error(
            IssueCode.SELECTOR_ERROR,
            f"is not a match selector visor can use: {exc}",
            'e.g. {text: "Log.*", below: "id=email", enabled: true}',
        ) from exc


def _check_selector(value: str) -> str:
    if not value.strip():
        raise predicate_error(IssueCode.TYPE_ERROR, "must be a non-empty string")
    try:
        parse_selector(value)
    except SelectorSyntaxError as exc:
        raise predicate_error(IssueCode.SELECTOR_ERROR, exc.message, exc.hint) from exc
    return value


_SELECTOR_SCHEMA: JsonObject = {
    "anyOf": [
        {"type": "string", "minLength": 1},
        {"type": "object", "minProperties": 1, "description": "A match selector's keys (text, id, below, index…)."},
    ],
    "description": (
        "A selector: a bare accessibility id, or accessibility=, id=, text=, text~=, xpath=, uiautomator=, "
        "predicate=, classchain=, css=, first-in-section= or match= followed by the value; or a mapping of match keys."
    ),
}


def _non_empty_list(value: object) -> object:
    if not isinstance(value, list) or not value:
        raise predicate_error(IssueCode.TYPE_ERROR, "must be non-empty list")
    return value


#: A list of at least one item (a scenario's steps, a block's), each checked on its own by the validator.
ItemList = Annotated[list[Any], BeforeValidator(_non_empty_list)]
#: A string with at least one non-blank character.
NonEmptyStr = Annotated[str, Field(min_length=1, pattern=r"\S")]
#: A selector string, checked for syntax (prefix, empty value, XPath); a mapping is a `match=` selector's keys.
SelectorStr = Annotated[
    str, BeforeValidator(_match_of), AfterValidator(_check_selector), WithJsonSchema(_SELECTOR_SCHEMA)
]
#: Any finite number.
FiniteNumber = Annotated[float, Field(allow_inf_nan=False)]
#: A finite number >= 0.
NonNegativeNumber = Annotated[float, Field(ge=0, allow_inf_nan=False)]
#: A finite number > 0.
PositiveNumber = Annotated[float, Field(gt=0, allow_inf_nan=False)]
#: A number from 0 to 1.
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


def _at_most_a_day(value: float) -> float:
    # A separate check, so a negative value keeps upstream's wording ("must be a non-negative number").
    if value > MAX_DURATION_MS:
        raise predicate_error(IssueCode.TYPE_ERROR, f"must be at most {MAX_DURATION_MS} ms (a day)")
    return value


#: A duration in ms from 0 to a day.
DurationMs = Annotated[float, Field(ge=0, allow_inf_nan=False), AfterValidator(_at_most_a_day)]
#: A duration in ms above 0, up to a day.
PositiveDurationMs = Annotated[float, Field(gt=0, allow_inf_nan=False), AfterValidator(_at_most_a_day)]


def _check_relative_path(value: str) -> str:
    """Refuse an absolute path, or one that names no file (whether it stays in the project is checked later)."""
    _no_nul(value)
    if value.startswith(("/", "\\", "~")) or (len(value) > 1 and value[1] == ":"):
        raise predicate_error(
            IssueCode.ARG_ERROR,
            "must be a relative path (it is resolved against the scenario's folder)",
            "Write it as e.g. screenshots/login.png.",
        )
    if value.replace("\\", "/").rstrip("/").split("/")[-1] in ("", ".", ".."):
        raise predicate_error(IssueCode.ARG_ERROR, "must name a file, not a folder")
    return value


_RELATIVE_PATH_SCHEMA: JsonObject = {
    "type": "string",
    "minLength": 1,
    "maxLength": 1024,
    "description": "A path relative to the scenario's folder, inside its project folder.",
}


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise predicate_error(IssueCode.TYPE_ERROR, "must not contain a NUL character")
    return value


def _fits_64_bits(value: int) -> int:
    # A separate check, so a negative value keeps upstream's wording ("must be a non-negative integer").
    if value > MAX_SEED:
        raise predicate_error(IssueCode.TYPE_ERROR, f"must be at most {MAX_SEED} (64 bits)")
    return value


#: A seed: an integer from 0 to 2**64 - 1.
Seed = Annotated[int, Field(ge=0), AfterValidator(_fits_64_bits)]

#: A folder name (no file system accepts a NUL in one).
FolderName = Annotated[str, Field(min_length=1, pattern=r"\S"), AfterValidator(_no_nul)]
#: An app: a model file's path or a name, or an app id (neither a path nor an id holds a NUL).
AppName = FolderName

#: A relative file path (resolved against the scenario's folder; `validate` checks it stays in the project).
RelativePath = Annotated[
    str,
    Field(min_length=1, max_length=1024),
    AfterValidator(_check_relative_path),
    WithJsonSchema(_RELATIVE_PATH_SCHEMA),
]


@dataclass(frozen=True, slots=True)
class Owner:
    """The model an error came from, where it sits in the document, and whose arguments they are."""

    model: type[BaseModel]
    base: Path
    #: Set when validating step arguments: "tap", "act slider".
    args_of: str | None = None

    def label(self, loc: Path) -> str:
        """Name the field at `loc` the way messages do: "meta.version", "scroll args.percent"."""
        if self.args_of is not None:
            return f"{self.args_of} args.{dotted(loc)}" if loc else f"{self.args_of} args"
        return dotted(self.base + loc)
