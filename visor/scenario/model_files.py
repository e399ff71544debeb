"""Small documents read into one model (a policy, an agent test, an annotation): one way to read and refuse them."""

from __future__ import annotations

from typing import Any, BinaryIO, TypeVar

from pydantic import BaseModel, ValidationError

from visor.errors import InputError
from visor.scenario.fields import Owner
from visor.scenario.issues import locate
from visor.scenario.loader import read_document

M = TypeVar("M", bound=BaseModel)


def load_model(
    path: str, model: type[M], kind: str, next_step: str, stdin: BinaryIO | None = None, *, prefix: str = ""
) -> M:
    """Read the document at `path` (`-`: standard input) into `model`; `prefix` starts an error's message.

    Raises:
        SourceError: it cannot be read or parsed.
        InputError: it does not fit the model: `<path>:<line>:<column>: <kind>: <first problem> (and N more)`,
            every problem (located) in the details.
    """
    document = read_document(path, stdin)
    data: Any = document.data if isinstance(document.data, dict) else {}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        from visor.scenario.translate import translate  # lazy: only broken documents need it

        issues = locate(translate(exc, Owner(model, ()), document.data), document)
        first = issues[0]
        more = f" (and {len(issues) - 1} more)" if len(issues) > 1 else ""
        raise InputError(
            f"{prefix}{document.name}:{first.line}:{first.column}: {kind}: {first.message}{more}",
            likely_cause=f"The {kind} has an error.",
            next_step=next_step,
            details={"issues": [issue.to_dict() for issue in issues]},
        ) from None
