"""Load a scenario: read the file (or standard input), parse it, fill its parameters, validate it.

A file in another tool's format (a Maestro flow) is converted on the way in (`visor.scenario.formats`): its
`${NAME}`s default to the values it sets, and what could not be converted is a warning at the flow's own line.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import BinaryIO

from visor.inputs.data import STDIN_PATH, parse_data, read_document
from visor.inputs.document import Document
from visor.inputs.issues import locate
from visor.inputs.parameters import substitute
from visor.scenario.formats import Translated, foreign_format
from visor.scenario.validate import ValidationResult, validate_document


def load_scenario(
    path: str, stdin: BinaryIO | None = None, parameters: Mapping[str, str] | None = None
) -> ValidationResult:
    """Read, parse and validate one scenario, its `${KEY}` parameters given their values.

    A parameter not given is an issue at its value (`visor.inputs.parameters`), and the scenario is not valid.

    Raises:
        SourceError: the input cannot be read or parsed (schema problems are issues, not errors).
    """
    foreign = foreign_format(path) if path != STDIN_PATH else None
    translated = foreign.translate(path) if foreign is not None else None
    document = read_document(path, stdin) if translated is None else _translated_document(path, translated)
    given = {**translated.defaults, **(parameters or {})} if translated is not None else parameters or {}
    document, unknown = substitute(document, given)
    result = validate_document(document)
    if unknown:
        result = ValidationResult(document, tuple(locate([*result.issues, *unknown], document)), None)
    return result if translated is None else _with_notes(result, translated)


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
