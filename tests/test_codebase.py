"""The linters and the type checker are part of the suite, so CI enforces them."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint_and_format() -> None:
    lint = _run(sys.executable, "-m", "ruff", "check", "visor", "tests", "bench", "noxfile.py")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = _run(sys.executable, "-m", "ruff", "format", "--check", "visor", "tests", "bench", "noxfile.py")
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_mypy_strict() -> None:
    result = _run(sys.executable, "-m", "mypy", "visor")
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_property_test_has_a_deadline() -> None:
    """A deadline times a speed: on a loaded 2-core CI machine it failed tests that were right."""
    import re

    timed = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"\bdeadline=(?!None)", line) and path.name != "test_codebase.py"
    ]
    assert not timed, timed
    from hypothesis import settings

    assert settings.default.deadline is None, "the visor profile (tests/conftest.py) is loaded"
