"""The scenario format's top level: `meta`, `config`, `steps`, `assertions`, `output`.

These pydantic models are the single source of the format: validation runs them and the JSON Schema
(`visor schema`) is generated from them. Step arguments and assertion types live in `commands` and
`assertions`, one model per command or type.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, field_validator

from visor.inputs.issues import IssueCode
from visor.scenario.blocks import WhenArgs
from visor.scenario.fields import (
    AppName,
    FolderName,
    InputModel,
    ItemList,
    NonEmptyStr,
    PositiveDurationMs,
    Seed,
    SelectorStr,
    predicate_error,
)

Platform = Literal["android", "ios", "web"]
Runtime = Literal["sim", "appium", "local"]


class Meta(InputModel):
    """What the scenario is: its name and version, and optionally its platform and tags."""

    name: str = Field(description="The scenario's name, shown in reports.")
    version: str = Field(description='The scenario\'s version, as a string ("1").')
    platform: Platform | None = Field(
        None, description="The platform the scenario targets (web: a mobile page in Chromium through Appium)."
    )
    tags: list[str] = Field(default_factory=list, description="Free-form tags.")

    @field_validator("platform", mode="before")
    @classmethod
    def _platform(cls, value: object) -> object:
        if value not in ("android", "ios", "web"):
            folded = value.lower() if isinstance(value, str) else None
            known = ("android", "ios", "web")
            hint = f'did you mean "{folded}"? platforms are lower case' if folded in known else None
            raise predicate_error(IssueCode.INPUT_ERROR, "must be ios|android|web", hint)
        return value


class Config(InputModel):
    """How to run the scenario. Keys beyond upstream's three are additive."""

    timeout_ms: PositiveDurationMs | None = Field(
        None, alias="timeoutMs", description="Per-step timeout in ms (default 2500; --timeout wins)."
    )
    seed: Seed | None = Field(None, description="Seed for everything random in the run; without it runs may differ.")
    artifacts_dir: FolderName | None = Field(
        None, alias="artifactsDir", description="Where run artifacts go (default ./artifacts; --output wins)."
    )
    runtime: Runtime | None = Field(None, description="Which runtime runs the scenario: sim or appium.")
    app: AppName | None = Field(
        None, description="The app: an app-model file or name on sim; an app id (package or bundle id) on appium."
    )
    stop_on_failure: bool = Field(
        False, alias="stopOnFailure", description="Skip the remaining steps after the first failed step."
    )
    capabilities: dict[str, Any] | None = Field(
        None, description="Extra Appium capabilities, merged over the ones visor derives."
    )
    mask: list[SelectorStr] = Field(
        default_factory=list,
        description="Elements whose text must not count in screen fingerprints (clocks, counters, ads).",
    )
    observe: Literal["each-step", "on-demand"] | None = Field(
        None,
        description="When the screen is read: after each step (default), or only when a step needs it (on a "
        "device that finds elements itself, taps and typing then cost what a hand-written script's do; "
        "--observe wins).",
    )
    video: Literal["off", "on-failure", "always"] | None = Field(
        None,
        description="Record the run's screen as a video (video.webm, a chapter a step): kept when the run failed "
        "(on-failure), always, or never (off, the default; --record-video wins).",
    )


class Output(InputModel):
    """Output preferences (upstream accepts `report` and ignores it)."""

    nullable = frozenset({"report"})

    report: Any = Field(None, description='Report formats, e.g. ["summary", "json", "junit", "html"].')


class StepHead(InputModel):
    """The fields every step has; `args` is checked against the command's own model."""

    id: NonEmptyStr = Field(description="A unique step id, used in reports and the signature.")
    command: str = Field(description="The command to run.")
    args: dict[str, Any] = Field(description="The command's arguments.")
    optional: bool = Field(False, description="A miss is reported, and does not fail the run.")
    when: WhenArgs | None = Field(None, description="Run the step only when this holds.")
    context: NonEmptyStr | None = Field(
        None,
        description="Run it in this context of a hybrid app: webview (its web view, driven as a web page), "
        "native, or a context's exact name; switched to as it begins and back as it ends.",
    )


class ScenarioDocument(InputModel):
    """The whole scenario file; each step and assertion is checked on its own, so one bad item hides nothing."""

    nullable = frozenset({"assertions", "output", "teardown", "env"})

    schema_ref: str | None = Field(None, alias="$schema", description="Editors' JSON Schema reference; ignored.")
    meta: Meta
    config: Config
    env: dict[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")], str] | None = Field(
        None, description="Default values of the scenario's `${KEY}` parameters: what the run gives overrides them."
    )
    steps: ItemList = Field(description="The steps, run in order.")
    assertions: list[Any] | None = Field(None, description="Checked after all steps.")
    teardown: list[Any] | None = Field(
        None, description="Steps run after the steps and assertions, whatever happened: after a failure too."
    )
    output: Output | None = None

    @field_validator("assertions", "teardown", mode="before")
    @classmethod
    def _lists(cls, value: object) -> object:
        if value is not None and not isinstance(value, list):
            raise predicate_error(IssueCode.TYPE_ERROR, "must be list")
        return value
