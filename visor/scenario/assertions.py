"""Assertion types and their models.

Upstream has only `visible` and lets unknown types through to fail at run time; visor knows thirteen screen types
and eight on the phone's data (`DeviceAssertion`),
and refuses unknown ones when validating (naming the type meant: `unchecked` is `not_checked`, never
`checked`, whose spelling is closer but whose meaning is the opposite). Extra fields (`value`, `tolerance`,
`min`, `max`) are additive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from pydantic import ConfigDict, Field, field_validator

from visor.inputs.issues import IssueCode
from visor.inputs.suggest import did_you_mean
from visor.scenario.fields import FiniteNumber, InputModel, NonEmptyStr, NonNegativeNumber, SelectorStr, plain_error


class AssertionModel(InputModel):
    """Base of the assertion models: an id, a type and the selector of the element checked."""

    id: NonEmptyStr = Field(description="A unique assertion id.")
    type: str
    target: SelectorStr = Field(description="The element to check.")

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Return the messages of every broken rule about which fields go together."""
        return []


class StateAssertion(AssertionModel):
    """The element is (not) visible, enabled, checked or selected (`disabled` is `not_enabled`)."""

    type: Literal[
        "visible",
        "not_visible",
        "enabled",
        "disabled",
        "not_enabled",
        "checked",
        "not_checked",
        "selected",
        "not_selected",
    ]


class TextAssertion(AssertionModel):
    """The element's text equals, or contains, `value`."""

    type: Literal["text_equals", "text_contains"]
    value: str = Field(description="The expected text.")


class CountAssertion(AssertionModel):
    """The number of elements matching `target` is `value`, or lies within `min`..`max`."""

    # The schema says `rules` (value, or a range; never both) so editors flag it too; min <= max it cannot say.
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [{"required": ["value"]}, {"anyOf": [{"required": ["min"]}, {"required": ["max"]}]}],
        }
    )

    type: Literal["count"]
    value: int | None = Field(None, ge=0, description="The exact expected count.")
    min: int | None = Field(None, ge=0, description="The least acceptable count.")
    max: int | None = Field(None, ge=0, description="The greatest acceptable count.")

    @classmethod
    def rules(cls, raw: Mapping[str, object]) -> list[str]:
        """Either an exact value or a range."""
        has_value, has_range = "value" in raw, "min" in raw or "max" in raw
        if has_value == has_range:
            return ["count assertion requires either value, or min and/or max"]
        low, high = raw.get("min"), raw.get("max")
        if isinstance(low, int) and isinstance(high, int) and low > high:
            return ["count assertion min must not exceed max"]
        return []


class ValueAssertion(AssertionModel):
    """The element's numeric value (a slider, a progress bar, a number in its text) is `value` ± `tolerance`."""

    type: Literal["value"]
    value: FiniteNumber = Field(description="The expected value.")
    tolerance: NonNegativeNumber = Field(0, description="How far the actual value may be from the expected one.")


class DeviceAssertion(AssertionModel):
    """The phone's data, not its screen (visor addition, docs/agentcab.md): `target` names what is checked.

    `file_exists` / `file_missing` (a path in shared storage), `clipboard_equals` (the text), `notification_posted`
    (a title), `sms_sent` and `call_made` (a number), `event_exists` / `event_missing` (a calendar event's title).
    """

    type: Literal[
        "file_exists", "file_missing", "clipboard_equals", "notification_posted", "sms_sent", "call_made",
        "event_exists", "event_missing",
    ]  # fmt: skip
    target: str = Field(max_length=100_000, description="What is checked: a path, a text, a title or a number.")


class UnknownAssertion(AssertionModel):
    """Stands in for an assertion of an unknown type, so that its other fields are still checked."""

    model_config = ConfigDict(extra="allow")

    @field_validator("type")
    @classmethod
    def _unknown(cls, value: str) -> str:
        meant = OPPOSITES.get(value.strip().lower().replace("-", "_").replace(" ", "_"))
        raise plain_error(
            IssueCode.UNSUPPORTED_ASSERTION,
            f"Unsupported assertion type '{value}'",
            (f"did you mean '{meant}'?" if meant else did_you_mean(value, ASSERTIONS))
            or f"one of: {', '.join(ASSERTIONS)}",
        )


ASSERTIONS: dict[str, type[AssertionModel]] = {
    "visible": StateAssertion,
    "not_visible": StateAssertion,
    "enabled": StateAssertion,
    "disabled": StateAssertion,
    "not_enabled": StateAssertion,
    "checked": StateAssertion,
    "not_checked": StateAssertion,
    "selected": StateAssertion,
    "not_selected": StateAssertion,
    "text_equals": TextAssertion,
    "text_contains": TextAssertion,
    "count": CountAssertion,
    "value": ValueAssertion,
    **dict.fromkeys(get_args(DeviceAssertion.model_fields["type"].annotation), DeviceAssertion),
}


#: Names other tools use for a negated state: spelling alone would suggest the state itself (the opposite).
OPPOSITES = {
    "unchecked": "not_checked",
    "not_checked": "not_checked",
    "unselected": "not_selected",
    "deselected": "not_selected",
    "not_disabled": "enabled",
    "invisible": "not_visible",
    "hidden": "not_visible",
    "not_displayed": "not_visible",
    "not_present": "not_visible",
    "absent": "not_visible",
    "gone": "not_visible",
}


def assertion_model(raw: Mapping[str, object]) -> type[AssertionModel]:
    """Return the model that checks this raw assertion."""
    kind = raw.get("type")
    return ASSERTIONS.get(kind, UnknownAssertion) if isinstance(kind, str) else UnknownAssertion
