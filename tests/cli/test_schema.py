from __future__ import annotations

import json

from tests.conftest import Cli
from visor.errors import ExitCode
from visor.scenario.schema import scenario_schema, shipped_schema


def test_schema_envelope(cli_runner: Cli) -> None:
    result = cli_runner.run("schema")
    assert result.exit_code == ExitCode.OK
    assert result.data == {"kind": "scenario", "schema": scenario_schema()}


def test_schema_raw_for_editors(cli_runner: Cli) -> None:
    result = cli_runner.run("schema", "--raw", envelope=False)
    assert json.loads(result.stdout) == shipped_schema("scenario")


def test_envelope_schema(cli_runner: Cli) -> None:
    result = cli_runner.run("schema", "envelope", "--raw", envelope=False)
    assert json.loads(result.stdout)["$id"] == "urn:visor:schema:envelope"
