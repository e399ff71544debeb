"""The front door, `visor.api`: what it exports is pinned, and each member does what the command line does."""

from __future__ import annotations

import ast
from pathlib import Path

import visor.api
import visor.pytest_plugin
from visor.run.hooks import map_hook

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def test_the_exported_members_are_pinned() -> None:
    assert visor.api.__all__ == [
        "EXPECTED_FAILURE",
        "DeviceConfig",
        "Environment",
        "Heading",
        "InputError",
        "NotInstalled",
        "RunConfig",
        "RunResult",
        "Selection",
        "SingleRun",
        "SourceError",
        "TargetError",
        "UsageError",
        "Verdict",
        "VisorError",
        "benchmark",
        "gather_parameters",
        "is_scenario_file",
        "load",
        "open_device",
        "plug_map",
        "read_heading",
        "run",
        "run_once",
        "shown",
        "skip_reason",
        "validate",
    ]
    for name in visor.api.__all__:
        assert getattr(visor.api, name).__doc__, name


def test_importing_it_plugs_the_app_map_into_runs() -> None:
    assert map_hook() is not None


def test_load_validate_run_and_open_a_device(tmp_path: Path) -> None:
    loaded = visor.api.load(str(SCENARIOS / "login.yaml"))
    assert loaded.scenario is not None and not loaded.issues
    assert visor.api.validate(str(SCENARIOS / "login.yaml")) == ()
    broken = tmp_path / "broken.yaml"
    broken.write_text(
        'meta: {name: b, version: "1"}\nconfig: {seed: 1}\nsteps:\n  - {id: s, command: tapp, args: {}}\n'
    )
    (problem,) = [issue for issue in visor.api.validate(str(broken)) if issue.severity == "error"]
    assert "tapp" in problem.message and problem.line == 4
    config = visor.api.RunConfig(
        device=visor.api.DeviceConfig(runtime="sim"), output=str(tmp_path / "out"), no_map=True
    )
    outcome = visor.api.run(str(SCENARIOS / "login.yaml"), config)
    assert outcome.status == "ok", outcome.error
    opened = visor.api.open_device(visor.api.DeviceConfig(runtime="sim"))
    try:
        assert opened.device.info.runtime == "sim"
    finally:
        opened.device.close()


def test_the_pytest_plugin_uses_the_front_door_only() -> None:
    source = Path(visor.pytest_plugin.__file__).read_text(encoding="utf-8")
    imported = {
        alias.name if isinstance(node, ast.Import) else node.module or ""
        for node in ast.walk(ast.parse(source))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert {name for name in imported if name.startswith("visor")} == {"visor.api"}


def test_run_once_gives_the_result_its_report_and_the_seed_it_drew(tmp_path: Path) -> None:
    config = visor.api.RunConfig(device=visor.api.DeviceConfig(runtime="sim"), output=str(tmp_path), no_map=True)
    done = visor.api.run_once(str(SCENARIOS / "fails-on-purpose.yaml"), config)
    assert done.result.word == "fail" and done.reason is None
    assert Path(done.report).is_file() and Path(done.report).parent.name == done.result.run_id
    assert done.source == str(SCENARIOS / "fails-on-purpose.yaml")


def test_is_scenario_file_keeps_a_broken_scenario_and_leaves_other_yaml(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("meta: {name: b\nsteps: [\n")
    other = tmp_path / "other.yaml"
    other.write_text("services: {}\n")
    model = tmp_path / "demo.app.yaml"
    model.write_text("meta: {}\nsteps: []\n")
    assert visor.api.is_scenario_file(str(broken))
    garbled = tmp_path / "garbled.yaml"
    garbled.write_text("a: [\n")
    assert not visor.api.is_scenario_file(str(other)) and not visor.api.is_scenario_file(str(other), named=True)
    assert not visor.api.is_scenario_file(str(garbled)) and visor.api.is_scenario_file(str(garbled), named=True)
    assert not visor.api.is_scenario_file(str(model), named=True)
    assert visor.api.is_scenario_file(str(SCENARIOS / "login.yaml"))
    heading = visor.api.read_heading(str(SCENARIOS / "login.yaml"))
    assert heading.name and isinstance(heading.tags, tuple)
