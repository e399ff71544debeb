"""A project folder with its daemon stopped after the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A project folder (it holds visor.toml), the current folder while the test runs; its daemon stopped after."""
    (tmp_path / "visor.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    Cli(tmp_path).run("stop", "--force")
