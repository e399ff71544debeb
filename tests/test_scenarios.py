"""Every scenario shipped in scenarios/ is valid."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT
from visor.scenario.discovery import expand_paths
from visor.scenario.loader import load_scenario

SHIPPED = expand_paths([str(ROOT / "scenarios")])


def test_scenarios_are_shipped() -> None:
    assert len(SHIPPED) >= 2


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: Path(p).name)
def test_shipped_scenario_is_valid_without_warnings(path: str) -> None:
    result = load_scenario(path)
    assert result.valid and not result.issues, [i.to_dict() for i in result.issues]
