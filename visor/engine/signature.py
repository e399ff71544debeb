"""The determinism signature: SHA-256 of canonical JSON over a documented projection of a run.

Upstream's projection is kept: `{platform, steps: [{id, command, status, details}], assertions: [...]}`. visor
removes every volatile key (timings, paths, artifact copies) at any depth, not only `details.args.path`, and its
step details carry `screen`, the fingerprint of what the screen showed after the step. docs/determinism.md
states the rules.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from visor.engine.results import AssertionResult, StepResult

#: Keys dropped at any depth: they change between identical runs (or identical behaviour on another machine).
VOLATILE_KEYS = frozenset({"path", "copy", "waited_ms", "elapsed_ms", "duration_ms", "timeout_ms", "recovery"})


def normalize(value: Any) -> Any:
    """Return `value` without volatile keys, recursively."""
    if isinstance(value, Mapping):
        return {key: normalize(item) for key, item in value.items() if key not in VOLATILE_KEYS}
    if isinstance(value, list | tuple):
        return [normalize(item) for item in value]
    return value


def step_projection(step: StepResult) -> dict[str, Any]:
    """Return what of a step counts for determinism."""
    return {"id": step.id, "command": step.command, "status": step.status, "details": normalize(step.details)}


def assertion_projection(check: AssertionResult) -> dict[str, Any]:
    """Return what of an assertion counts for determinism."""
    return {
        "id": check.id,
        "type": check.type,
        "target": check.target,
        "status": check.status,
        "details": check.details,
    }


def projection(platform: str, steps: Iterable[StepResult], assertions: Iterable[AssertionResult]) -> dict[str, Any]:
    """Return the signature's input."""
    return {
        "platform": platform,
        "steps": [step_projection(step) for step in steps],
        "assertions": [assertion_projection(check) for check in assertions],
    }


def canonical(value: Any) -> str:
    """Serialise with sorted keys and no spaces: equal data, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def signature(platform: str, steps: Iterable[StepResult], assertions: Iterable[AssertionResult]) -> str:
    """Return the hex SHA-256 signature of a run."""
    return hashlib.sha256(canonical(projection(platform, steps, assertions)).encode("utf-8")).hexdigest()
