"""Small documents read into one model (a policy, an agent test, an annotation): one way to read and refuse them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO, TypeVar

from pydantic import BaseModel, ValidationError

from visor.errors import InputError
from visor.inputs.data import read_document
from visor.inputs.document import Document
from visor.inputs.issues import Issue, locate
from visor.scenario.fields import Owner

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
    return document_model(read_document(path, stdin), model, kind, next_step, prefix=prefix)


def document_model(document: Document, model: type[M], kind: str, next_step: str, *, prefix: str = "") -> M:
    """Validate a read document into `model`.

    Raises:
        InputError: it does not fit the model (as `load_model` says).
    """
    data: object = document.data if isinstance(document.data, dict) else {}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        from visor.scenario.translate import translate  # lazy: only broken documents need it

        raise refusal(translate(exc, Owner(model, ()), document.data), document, kind, next_step, prefix) from exc


def refusal(issues: Sequence[Issue], document: Document, kind: str, next_step: str, prefix: str = "") -> InputError:
    """Return the error refusing a document for its issues: the first located, every one in the details."""
    located = locate(issues, document)
    first = located[0]
    more = f" (and {len(located) - 1} more)" if len(located) > 1 else ""
    where = f"{document.name}:{first.line}:{first.column}" if document.positions else document.name
    return InputError(
        f"{prefix}{where}: {kind}: {first.message}{more}",
        likely_cause=f"The {kind} has an error.",
        next_step=next_step,
        details={"issues": [issue.to_dict() for issue in located]},
    )
