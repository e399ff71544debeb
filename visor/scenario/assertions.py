"""Assertion types and their models.

Upstream has only `visible` and lets unknown types through to fail at run time; visor knows ten types
and refuses unknown ones when validating. Extra fields (`value`, `tolerance`, `min`, `max`) are additive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from visor.scenario.fields import FiniteNumber, InputModel, NonEmptyStr, NonNegativeNumber, SelectorStr, plain_error
from visor.scenario.issues import IssueCode
from visor.scenario.suggest import did_you_mean


class AssertionModel(InputModel):
    """Base of the assertion models: an id, a type and the selector of the element checked."""

    id: NonEmptyStr = Field(description="A unique assertion id.")
    type: str
    target: SelectorStr = Field(description="The element to check.")

    @classmethod
    def rules(cls, raw: Mapping[str, Any]) -> list[str]:
        """Return the messages of every broken rule about which fields go together."""
        return []


class StateAssertion(AssertionModel):
    """The element is (not) visible, enabled, disabled, checked or selected."""

    type: Literal["visible", "not_visible", "enabled", "disabled", "checked", "selected"]


class TextAssertion(AssertionModel):
    """The element's text equals, or contains, `value`."""

    type: Literal["text_equals", "text_contains"]
    value: str = Field(description="The expected text.")


class CountAssertion(AssertionModel):
    """The number of elements matching `target` is `value`, or lies within `min`..`max`."""

    type: Literal["count"]
    value: int | None = Field(None, ge=0, description="The exact expected count.")
    min: int | None = Field(None, ge=0, description="The least acceptable count.")
    max: int | None = Field(None, ge=0, description="The greatest acceptable count.")

    @classmethod
    def rules(cls, raw: Mapping[str, Any]) -> list[str]:
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


class UnknownAssertion(AssertionModel):
    """Stands in for an assertion of an unknown type, so that its other fields are still checked."""

    model_config = ConfigDict(extra="allow")

    @field_validator("type")
    @classmethod
    def _unknown(cls, value: str) -> str:
        raise plain_error(
            IssueCode.UNSUPPORTED_ASSERTION,
            f"Unsupported assertion type '{value}'",
            did_you_mean(value, ASSERTIONS) or f"one of: {', '.join(ASSERTIONS)}",
        )


ASSERTIONS: dict[str, type[AssertionModel]] = {
    "visible": StateAssertion,
    "not_visible": StateAssertion,
    "enabled": StateAssertion,
    "disabled": StateAssertion,
    "checked": StateAssertion,
    "selected": StateAssertion,
    "text_equals": TextAssertion,
    "text_contains": TextAssertion,
    "count": CountAssertion,
    "value": ValueAssertion,
}


def assertion_model(raw: Mapping[str, Any]) -> type[AssertionModel]:
    """Return the model that checks this raw assertion."""
    kind = raw.get("type")
    return ASSERTIONS.get(kind, UnknownAssertion) if isinstance(kind, str) else UnknownAssertion
