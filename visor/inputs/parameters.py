"""Parameters in scenarios: `${KEY}` in any text value, given with `-e KEY=VALUE`, `--env-file` or `--secret KEY`.

A scenario says `value: ${USER_EMAIL}`; the run says `-e USER_EMAIL=ada@example.com` (or reads a dotenv file, or
takes a secret from the environment). Every `${KEY}` of a scenario must be given: one that is not is an error
of `visor validate` and of the run, at the value's line and column, never an empty string typed into a field.
`$${` writes a literal `${`. Keys are letters, digits and underscores, not starting with a digit.

A text that also holds a script's value (`${output.user}`) is a template (`visor.inputs.templates`): its
parameters are checked here, and it is kept as written (its path in `Document.templates`), for its step to
fill in when it runs. A text that is one parameter and nothing else (`timeout: ${TIMEOUT}`) whose value writes a
number is that number wherever a number goes (its path in `Document.numbers`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from visor.errors import InputError
from visor.files import read_regular
from visor.inputs.document import Document, Path, texts_of
from visor.inputs.issues import Issue, IssueCode, error
from visor.inputs.reading import decode
from visor.inputs.templates import Literal, Parameter, as_number, is_template, parameter_names, pieces

_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KEY_START = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}")
#: An env file larger than this is not one (a thousand long values fit in it).
MAX_ENV_BYTES = 1024 * 1024


def substitute(document: Document, values: Mapping[str, str]) -> tuple[Document, list[Issue]]:
    """Return the document with every `${KEY}` replaced by its value, and an issue per key not given.

    A template (a text with a script's value in it) is kept as written, and its path is in `templates`.
    """
    issues: list[Issue] = []
    templates: set[Path] = set()
    numbers: dict[Path, int | float] = {}
    texts = texts_of(document.data)
    if texts is not None and "$" not in texts:
        return replace(document, templates=frozenset(), numbers={}), issues

    def walk(value: object, path: Path) -> object:
        if isinstance(value, str):
            if "$" not in value:
                return value
            if is_template(value):
                templates.add(path)
                _check_given(parameter_names(value), path, values, issues)
                return value
            filled = _text(value, path, values, issues)
            whole = list(pieces(value))
            if len(whole) == 1 and isinstance(whole[0], Parameter) and (number := as_number(filled)) is not None:
                numbers[path] = number  # `timeout: ${TIMEOUT}` is a number where one goes
            return filled
        if isinstance(value, dict):
            return {key: walk(item, (*path, key)) for key, item in value.items()}
        if isinstance(value, list):
            return [walk(item, (*path, number)) for number, item in enumerate(value)]
        return value

    data = walk(document.data, ())
    # A value given may hold what a file's text cannot (a lone surrogate from `-e T=$'\\xff'`): checked again.
    return replace(document, data=data, templates=frozenset(templates), numbers=numbers, text_checked=False), issues


def _text(text: str, path: Path, values: Mapping[str, str], issues: list[Issue]) -> str:
    """Return a text (one with no script's value) with its parameters filled in; one not given stays as written."""
    parts: list[str] = []
    for piece in pieces(text):
        if isinstance(piece, Literal):
            parts.append(piece.text)
        elif isinstance(piece, Parameter) and piece.name in values:
            parts.append(values[piece.name])
        elif isinstance(piece, Parameter):
            _check_given((piece.name,), path, values, issues)
            parts.append(f"${{{piece.name}}}")
    return "".join(parts)


def _check_given(names: Iterable[str], path: Path, values: Mapping[str, str], issues: list[Issue]) -> None:
    for key in names:
        if key not in values:
            hint = f"give it: -e {key}=VALUE, a line {key}=VALUE in --env-file, or --secret {key}"
            issues.append(error(IssueCode.UNKNOWN_REFERENCE, f"${{{key}}} is not given", path, hint=hint))


def parse_assignment(text: str) -> tuple[str, str]:
    """Read `KEY=VALUE` (`-e`, or a line of an env file).

    Raises:
        InputError: no `=`, or a key that is not a name.
    """
    key, sep, value = text.partition("=")
    key = key.strip()
    if not sep or not _KEY.match(key):
        raise InputError(
            f"{text!r} is not KEY=VALUE (a key is letters, digits and _, not starting with a digit)",
            next_step="Write it as KEY=VALUE, e.g. -e USER_EMAIL=ada@example.com.",
        )
    return key, value


def read_env_file(path: str) -> dict[str, str]:
    """Read a dotenv file: `KEY=VALUE` lines, `#` comments, blank lines, optional `export `, quotes stripped.

    Raises:
        InputError: the file cannot be read (`SourceError`), or a line is not KEY=VALUE.
    """
    lines = decode(read_regular(path, noun="env file", limit=MAX_ENV_BYTES), path).splitlines()
    found: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            key, value = parse_assignment(stripped.removeprefix("export ").strip())
        except InputError as exc:
            # The line is not quoted: it may hold a credential written the wrong way (`TOKEN: sk-…`).
            start = _KEY_START.match(stripped.removeprefix("export ").strip())
            named = f" (it starts {start.group()!r})" if start else ""
            raise InputError(
                f"{path}:{number}: the line is not KEY=VALUE{named}",
                likely_cause="A `:` or a space instead of `=`, or a key that is not a name (letters, digits, _).",
                next_step=exc.next_step,
            ) from exc
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        found[key] = value
    return found


def gather(
    env_file: str | None, assignments: Sequence[str], secret_keys: Sequence[str], *, secret_flag: str = "--secret"
) -> tuple[dict[str, str], tuple[str, ...]]:
    """Return the `${KEY}` values a command line gives, and those to mask.

    The env file comes first, then each `KEY=VALUE`, then the secrets (read from the environment).

    Raises:
        InputError: a value is not KEY=VALUE, the file cannot be read, or a secret's variable is not set.
    """
    given: dict[str, str] = read_env_file(env_file) if env_file is not None else {}
    given |= dict(parse_assignment(text) for text in assignments)
    hidden = []
    for key in secret_keys:
        if key not in os.environ:
            raise InputError(
                f"{secret_flag} {key}: the environment variable {key} is not set",
                next_step=f"Set it (export {key}=…, or your CI's secret store), then run again.",
            )
        given[key] = os.environ[key]
        hidden.append(os.environ[key])
    return given, tuple(hidden)
