"""Filling in a script's values as a step (or a repeat) starts: `${output.user}` in its arguments, a `times` count.

A step's templates (`visor.inputs.templates`) are filled in from what the run's scripts have set, then its
arguments are checked again as validation checks them: what was filled in is reported (`details.filled`, by
argument), and a value that cannot be filled in (a script that throws, `undefined`, a text where a number goes)
fails the step, saying why. A number where one goes (`index: ${i}`) is the number the filled-in text writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from visor.errors import ErrorCode, ErrorInfo
from visor.inputs.document import Path, dotted
from visor.inputs.templates import as_number, render
from visor.scenario.scenario import Step
from visor.scenario.validate import step_with_args
from visor.scripting.sandbox import ScriptError, value_text


@dataclass(frozen=True, slots=True)
class Filled:
    """A step with its arguments filled in, and what they were filled in with (by argument: `target.text`)."""

    step: Step
    shown: dict[str, str]


@dataclass(frozen=True, slots=True)
class Unfilled:
    """Why a step's arguments (or a repeat's count) could not be filled in, and what was, so far."""

    message: str
    shown: dict[str, str]


@dataclass(frozen=True, slots=True)
class Filler:
    """Fills texts in from the run: its parameters, and `evaluate` for a script expression's value (as JSON)."""

    parameters: Mapping[str, str]
    evaluate: Callable[[str], object]

    def step(self, step: Step) -> Filled | Unfilled:
        """Return the step with its templates filled in and its arguments checked again, or why it cannot be."""
        assert step.template is not None
        template = step.template
        filler = replace(self, parameters={**self.parameters, **template.parameters}) if template.parameters else self
        try:
            values: dict[Path, str] = {path: filler.text(text) for path, text in template.texts().items()}
        except ScriptError as exc:
            return Unfilled(exc.message, {})
        shown = {dotted(path): text for path, text in values.items()}
        checked = step_with_args(step, template.filled(values))
        if not isinstance(checked, Step):
            numbers = {path: number for path, text in values.items() if (number := as_number(text)) is not None}
            checked = step_with_args(step, template.filled({**values, **numbers})) if numbers else checked
        if not isinstance(checked, Step):
            return Unfilled("; ".join(issue.message for issue in checked[:3]), shown)
        return Filled(replace(checked, template=None), shown)

    def count(self, count: str, bound: int) -> int | Unfilled:
        """Return a repeat's count (`${items.length}`), a whole number from 0 to `bound`; or why it is none."""
        try:
            text = self.text(count)
        except ScriptError as exc:
            return Unfilled(exc.message, {})
        number = as_number(text)
        if isinstance(number, int) and 0 <= number <= bound:
            return number
        return Unfilled(f"{count} is {text!r}, not a whole number of times from 0 to {bound}", {})

    def text(self, template: str) -> str:
        """Return a template filled in.

        Raises:
            ScriptError: an expression failed or has no value, or a parameter is not given.
        """
        try:
            return render(template, self.parameters, self._value)
        except KeyError as exc:
            raise ScriptError(f"${{{exc.args[0]}}} is not given", likely_cause="The run was not given it.") from exc

    def _value(self, expression: str) -> str:
        """Return an expression's value as the text it fills in (`undefined` and `null` fill in nothing: an error)."""
        value = self.evaluate(expression)
        if value is None:
            raise ScriptError(f"${{{expression}}} has no value (it is undefined or null)",
                              likely_cause="No script has set it yet, or it is misspelt.")  # fmt: skip
        return value_text(value)


def unfilled_error(what: str, unfilled: Unfilled) -> ErrorInfo:
    """Return the failure of a step (or repeat) `what` names ("Step 'x' (tap)") whose values could not be filled in."""
    return ErrorInfo(
        code=str(ErrorCode.ACTION_ERROR),
        message=f"{what} could not fill in its script's values: {unfilled.message}",
        likely_cause="A script's value it reads failed, has no value, or is not what the argument takes.",
        next_step="Check its ${…}, and the script steps that set what they read.",
    )
