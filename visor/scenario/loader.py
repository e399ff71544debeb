"""Load a scenario: read the file (or standard input), parse it, fill its parameters, validate it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import BinaryIO

from visor.inputs.data import read_document
from visor.inputs.issues import locate
from visor.inputs.parameters import substitute
from visor.scenario.validate import ValidationResult, validate_document


def load_scenario(
    path: str, stdin: BinaryIO | None = None, parameters: Mapping[str, str] | None = None
) -> ValidationResult:
    """Read, parse and validate one scenario, its `${KEY}` parameters given their values.

    A parameter not given is an issue at its value (`visor.inputs.parameters`), and the scenario is not valid.

    Raises:
        SourceError: the input cannot be read or parsed (schema problems are issues, not errors).
    """
    document, unknown = substitute(read_document(path, stdin), parameters or {})
    result = validate_document(document)
    if not unknown:
        return result
    issues = locate([*result.issues, *unknown], document)
    return ValidationResult(document, tuple(issues), None)
