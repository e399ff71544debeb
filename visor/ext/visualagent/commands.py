"""The VisualAgent commands' parameters (spec 000), one model each, and what a command file gets wrong, in words.

Each command's `params` object is validated into its model: a missing parameter is MISSING_PARAM, naming every one
missing; a parameter of the wrong kind is INVALID_COMMAND, naming it and what it must be (each field says so with
`Must`). Parameters the spec does not define are ignored, as agents add their own (a note, a reason).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from visor.jsontypes import JsonValue

DEFAULT_SWIPE_MS = 300
#: The longest swipe: the spec sets no bound, and a swipe of years would hold the phone (and the server) for good.
MAX_SWIPE_MS = 60_000
#: The details of a missing parameter: agents often put them beside `type` instead of under `params`.
WHERE_PARAMS_GO = 'parameters go under "params": {"id": …, "type": "tap", "params": {"x": 540, "y": 960}}'


@dataclass(frozen=True, slots=True)
class Must:
    """What a parameter must be, as a refusal says it: "an integer", "a non-empty string"."""

    be: str


class Params(BaseModel):
    """The parameters of one command type: strict JSON types, unknown keys ignored, immutable."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)

    #: The command type these parameters belong to (the file's `type`).
    command: ClassVar[str]


class TapParams(Params):
    """Tap a pixel of the screenshot."""

    command = "tap"
    x: Annotated[int, Must("an integer")]
    y: Annotated[int, Must("an integer")]


class SwipeParams(Params):
    """Swipe between two pixels of the screenshot in `duration_ms`."""

    command = "swipe"
    x1: Annotated[int, Must("an integer")]
    y1: Annotated[int, Must("an integer")]
    x2: Annotated[int, Must("an integer")]
    y2: Annotated[int, Must("an integer")]
    duration_ms: Annotated[int, Field(gt=0, le=MAX_SWIPE_MS), Must(f"a positive integer, at most {MAX_SWIPE_MS}")] = (
        DEFAULT_SWIPE_MS
    )


class InputParams(Params):
    """Type text into the focused field."""

    command = "input"
    text: Annotated[str, Must("a string")]


class StartAppParams(Params):
    """Start an installed app."""

    command = "start_app"
    # An explicit null is a package not given: the agent left it for later (the spec's examples show it so).
    package: Annotated[str | None, Field(min_length=1), Must("a non-empty string")] = None


class ScreenshotParams(Params):
    """Save a PNG of the screen (at `path` below the served folder, else in results/)."""

    command = "screenshot"
    path: Annotated[str | None, Must("a string")] = None


#: The command types' parameters by type, in the spec's order (`protocol` runs each).
BY_TYPE: Mapping[str, type[Params]] = {
    model.command: model for model in (ScreenshotParams, TapParams, SwipeParams, InputParams, StartAppParams)
}


@dataclass(frozen=True, slots=True)
class ParamsProblem:
    """Why a command's parameters were refused: the protocol's code, the message and its details."""

    code: str
    message: str
    details: str = ""


def read_params(model: type[Params], params: Mapping[str, JsonValue]) -> Params | ParamsProblem:
    """Validate a command's `params` into its model, or say what is wrong with them (missing ones first)."""
    try:
        read = model.model_validate(params)
    except ValidationError as exc:
        return _problem(model, exc)
    if isinstance(read, StartAppParams) and read.package is None:
        return ParamsProblem("MISSING_PARAM", f"{model.command} needs {named(['package'])}", WHERE_PARAMS_GO)
    return read


def named(names: list[str] | tuple[str, ...]) -> str:
    """Name parameters as the command file holds them: `params.x and params.y`."""
    shown = [f"params.{name}" for name in names]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _problem(model: type[Params], exc: ValidationError) -> ParamsProblem:
    errors = exc.errors(include_url=False, include_input=False)
    missing = [str(error["loc"][0]) for error in errors if error["type"] == "missing"]
    if missing:
        ordered = [name for name in model.model_fields if name in missing]
        return ParamsProblem("MISSING_PARAM", f"{model.command} needs {named(ordered)}", WHERE_PARAMS_GO)
    field = str(errors[0]["loc"][0])
    must = next(mark.be for mark in model.model_fields[field].metadata if isinstance(mark, Must))
    return ParamsProblem("INVALID_COMMAND", f"{model.command} {named([field])} must be {must}")
