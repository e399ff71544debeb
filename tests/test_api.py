"""The front door, `visor.api`: what it exports is pinned, and each member does what the command line does."""

from __future__ import annotations

from pathlib import Path

import visor.api
from visor.run.hooks import map_hook

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


def test_the_exported_members_are_pinned() -> None:
    assert visor.api.__all__ == [
        "DeviceConfig",
        "Environment",
        "RunConfig",
        "Selection",
        "benchmark",
        "load",
        "open_device",
        "plug_map",
        "run",
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
