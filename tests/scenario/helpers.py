"""Build and validate scenario documents in tests."""

from __future__ import annotations

import copy
from typing import Any

import yaml

from visor.inputs.data import parse_source
from visor.inputs.document import Document
from visor.inputs.reading import SourceText
from visor.scenario.validate import ValidationResult, validate_document

BASE: dict[str, Any] = {
    "meta": {"name": "t", "version": "1"},
    "config": {"seed": 1},
    "steps": [{"id": "s1", "command": "screenshot", "args": {"label": "x"}}],
}


def scenario(**overrides: Any) -> dict[str, Any]:
    """Return a valid scenario with top-level parts replaced."""
    doc = copy.deepcopy(BASE)
    doc.update(overrides)
    return doc


def with_step(command: str, args: Any, **extra: Any) -> dict[str, Any]:
    """Return a valid scenario whose only step is this one."""
    return scenario(steps=[{"id": "s1", "command": command, "args": args, **extra}])


def validate(doc: Any, fmt: str = "yaml") -> ValidationResult:
    """Serialise `doc` (block-style YAML, so positions are meaningful) and validate it."""
    text = doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False, default_flow_style=False)
    return validate_document(parse_source(SourceText("t." + fmt, text, fmt)))  # type: ignore[arg-type]


def validate_data(data: Any) -> ValidationResult:
    """Validate data directly (no file, no positions): for property tests over any value."""
    return validate_document(Document("t.yaml", "yaml", data, {}))


def triples(result: ValidationResult) -> list[tuple[str, str, str]]:
    """Return (severity, code, path) of every issue."""
    return [(str(i.severity), str(i.code), i.to_dict()["path"]) for i in result.issues]


def messages(result: ValidationResult) -> list[str]:
    """Return every issue's message."""
    return [i.message for i in result.issues]
