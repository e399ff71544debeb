"""The determinism signature: SHA-256 of canonical JSON over a documented projection of a run.

Upstream's projection is kept: `{platform, steps: [{id, command, status, details}], assertions: [...]}`. What
of a step's details counts is declared, not guessed from key names: each command and tool declares the shape of
its details (`visor.steps.details`, `visor.ext.tools.details`), where every key is signed, volatile
(timings) or evidence (artifact paths), and only signed keys enter the signature, at every depth. Step details
carry `screen`, the fingerprint of what the screen showed after the step. docs/determinism.md states the rules.

The run's secrets are masked in the projection before it is hashed (the fingerprints mask them too): a signature
is published, and over a secret's text it would tell the secret to whoever hashes guesses. Masked the same way
in every run, the signature stays deterministic and changes with every difference not involving a secret.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterable, Mapping

from visor.engine.projection import Signed, signed
from visor.engine.results import AssertionResult, StepResult
from visor.steps.catalogue import detail_shapes
from visor.ui.secrets import redact


def step_projection(step: StepResult) -> dict[str, object]:
    """Return what of a step counts for determinism."""
    details = signed_details(step.command, step.details).data
    return {"id": step.id, "command": step.command, "status": step.word, "details": details}


def signed_details(command: str, details: Mapping[str, object]) -> Signed:
    """Return what of a step's details counts for determinism, and the keys its shapes do not declare."""
    return signed(details, detail_shapes(command), f"{command}: details")


def assertion_projection(check: AssertionResult) -> dict[str, object]:
    """Return what of an assertion counts for determinism."""
    return {
        "id": check.id,
        "type": check.type,
        "target": check.target,
        "status": check.word,
        "details": check.details,
    }


def projection(platform: str, steps: Iterable[StepResult], assertions: Iterable[AssertionResult]) -> dict[str, object]:
    """Return the signature's input."""
    return {
        "platform": platform,
        "steps": [step_projection(step) for step in steps],
        "assertions": [assertion_projection(check) for check in assertions],
    }


def canonical(value: object) -> str:
    """Serialise with sorted keys and no spaces: equal data, equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def signature(
    platform: str, steps: Iterable[StepResult], assertions: Iterable[AssertionResult], secrets: Collection[str] = ()
) -> str:
    """Return the hex SHA-256 signature of a run, its `secrets` masked in what it hashes."""
    signed = redact(projection(platform, steps, assertions), secrets)
    return hashlib.sha256(canonical(signed).encode("utf-8")).hexdigest()
