"""Load a scenario: read the file (or standard input), parse it, fill its parameters, validate it.

A file in another tool's format (a Maestro flow) is converted on the way in (`visor.scenario.formats`): its
`${NAME}`s default to the values it sets, and what could not be converted is a warning at the flow's own line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import BinaryIO

from visor.errors import SourceError
from visor.inputs.data import STDIN_PATH, parse_data, read_document
from visor.inputs.document import Document
from visor.inputs.issues import Issue, IssueCode, error, locate
from visor.inputs.parameters import substitute
from visor.scenario.flows import expand_flows, has_flows
from visor.scenario.formats import Translated, foreign_format
from visor.scenario.scenario import Scenario
from visor.scenario.validate import ValidationResult, validate_document


def load_scenario(
    path: str,
    stdin: BinaryIO | None = None,
    parameters: Mapping[str, str] | None = None,
    *,
    chain: tuple[str, ...] = (),
) -> ValidationResult:
    """Read, parse and validate one scenario, its `${KEY}` parameters given their values (then its own `env`'s).

    A parameter not given is an issue at its value (`visor.inputs.parameters`), and the scenario is not valid.
    The flows its `run_flow` steps name are read and put in (`visor.scenario.flows`); `chain` is the flows that
    led to this one.

    Raises:
        SourceError: the input cannot be read or parsed (schema problems are issues, not errors).
    """
    foreign = foreign_format(path) if path != STDIN_PATH else None
    translated = foreign.translate(path) if foreign is not None else None
    document = read_document(path, stdin) if translated is None else _translated_document(path, translated)
    defaults = translated.defaults if translated is not None else own_defaults(document.data)
    given = {**defaults, **(parameters or {})}
    document, unknown = substitute(document, given)
    result = validate_document(document)
    if unknown:
        result = ValidationResult(document, tuple(locate([*result.issues, *unknown], document)), None)
    if result.scenario is not None and given:
        result = replace(result, scenario=replace(result.scenario, parameters=dict(given)))
    if result.scenario is not None and has_flows(result.scenario):
        result = _with_flows(result, path, given, chain)
    return result if translated is None else _with_notes(result, translated)


def own_defaults(data: object) -> dict[str, str]:
    """Return the values a scenario's own `env` gives its `${KEY}`s (what the run gives overrides them).

    Only texts by parameter names count: validation says what else is wrong with an `env`.
    """
    env = data.get("env") if isinstance(data, dict) else None
    if not isinstance(env, dict):
        return {}
    return {key: value for key, value in env.items() if isinstance(key, str) and isinstance(value, str)}


def _with_flows(
    result: ValidationResult, path: str, given: Mapping[str, str], chain: tuple[str, ...]
) -> ValidationResult:
    """Put in the flows a valid scenario's `run_flow` steps name; what is wrong in one is an issue at its step."""
    assert result.scenario is not None
    expanded, found = expand_flows(result.scenario, path, given, _load_flow, chain)
    located = tuple(locate(found, result.document))
    issues = tuple(sorted((*result.issues, *located), key=lambda issue: (issue.line or 0, issue.column or 0)))
    if expanded is None:
        return ValidationResult(result.document, issues, None)
    warnings = (*expanded.warnings, *(issue for issue in located if not issue.is_error))
    return ValidationResult(result.document, issues, replace(expanded, warnings=warnings))


def _load_flow(
    path: str, parameters: Mapping[str, str], chain: tuple[str, ...]
) -> tuple[Scenario | None, tuple[Issue, ...]]:
    """Load a flow a `run_flow` step names, as any scenario loads (its own flows put in too)."""
    try:
        result = load_scenario(path, parameters=parameters, chain=chain)
    except SourceError as exc:  # a flow that cannot be read is the step's issue, not the scenario's unreadability
        return None, (error(IssueCode.INPUT_ERROR, exc.message, (), exc.next_step),)
    return result.scenario, result.issues


def _translated_document(path: str, translated: Translated) -> Document:
    """Parse a converted scenario's YAML, named by the original file (its folder is the scenario's)."""
    return parse_data(translated.text.encode("utf-8"), path, format="yaml")


def _with_notes(result: ValidationResult, translated: Translated) -> ValidationResult:
    """Add what the conversion left out to the issues (and the scenario's warnings), and keep its text."""
    issues = (*result.issues, *translated.notes)
    if result.scenario is None:
        return replace(result, issues=issues)
    warnings = (*result.scenario.warnings, *translated.notes)
    scenario = replace(result.scenario, warnings=warnings, translated=translated.text)
    return replace(result, issues=issues, scenario=scenario)
