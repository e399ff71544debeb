"""validate never crashes and always prints one schema-valid envelope, whatever it is given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.strategies import scenarios
from visor.errors import ExitCode

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _dump(doc: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=1)
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


@FUZZ
@given(doc=scenarios(), fmt=st.sampled_from(["yaml", "json"]))
def test_validate_scenario_shaped_documents(tmp_path: Path, doc: Any, fmt: str) -> None:
    path = tmp_path / f"fuzz.{fmt}"
    path.write_text(_dump(doc, fmt), encoding="utf-8")
    result = Cli(tmp_path).run("validate", str(path), "-q")
    envelope = result.envelope  # checked against the envelope schema
    assert result.exit_code in (ExitCode.OK, ExitCode.ERROR)
    assert (result.exit_code == ExitCode.OK) == (envelope["data"]["valid"] is True)
    if envelope["status"] == "ok":
        for issue in envelope["data"]["issues"]:
            assert issue["line"] >= 1 and issue["column"] >= 1


@FUZZ
@given(content=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_validate_arbitrary_bytes(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "noise.yaml"
    path.write_bytes(content)
    result = Cli(tmp_path).run("validate", str(path), "-q")
    assert result.exit_code == ExitCode.ERROR or result.envelope["data"]["valid"] is True
