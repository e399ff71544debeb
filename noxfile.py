"""Developer sessions: `nox` runs tests, lint and typecheck; `nox -s docs bench` on demand."""

from __future__ import annotations

import nox

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "visor", "tests", "bench", "noxfile.py")
    session.run("ruff", "format", "--check", "visor", "tests", "bench", "noxfile.py")


@nox.session
def typecheck(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("mypy", "visor")


@nox.session
def docs(session: nox.Session) -> None:
    """Regenerate docs/cli.md and the shipped scenario schema from the code."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "tests.cli_reference", "--write")
    session.run("python", "-c", _WRITE_SCHEMA)


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-e", ".")
    session.run("python", "bench/startup.py", *session.posargs)


_WRITE_SCHEMA = (
    "from pathlib import Path; from visor.scenario.schema import scenario_schema, schema_json; "
    "Path('visor/schemas/scenario.schema.json').write_text(schema_json(scenario_schema()))"
)
