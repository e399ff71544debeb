"""`visor discover` and `visor route` options upstream's scripts give: `--timeout MS`, and `discover --repair`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Cli

#: An app busy (ignoring input) for 4 s whenever its first screen shows; its button leads to a second screen.
BUSY = """\
app: {id: t.busy, name: Busy, start: home}
screens:
  home:
    title: Home
    on_show: [{busy: 4000}]
    elements:
      - {type: button, id: go, text: Go, on_tap: [{go: done}]}
  done:
    title: Done
    elements:
      - {type: text, id: ok, text: All done}
"""
PLAN = {"goal": "Done", "paths": [{"id": "p", "steps": [{"id": "go", "command": "tap", "args": {"target": "text=Go"},
        "safety": "safe", "expect": {"screen": "Done", "selector": "text=All done"}}]}]}  # fmt: skip


@pytest.fixture
def busy(tmp_path: Path) -> Cli:
    (tmp_path / "busy.app.yaml").write_text(BUSY)
    (tmp_path / "plan.json").write_text(json.dumps(PLAN))
    return Cli(tmp_path)


SIM = ("--runtime", "sim", "--app", "busy.app.yaml", "--map-dir", "maps")


def test_discover_waits_for_a_busy_app_as_long_as_its_timeout_says(busy: Cli) -> None:
    """Upstream accepts --timeout on discover (and ignores it); visor refused the option."""
    short = busy.run("discover", *SIM, "--timeout", "1000")
    assert short.exit_code == 0, short.stdout
    assert short.data["settle"] == {"timeout_ms": 1000, "waited_ms": 1000, "settled": False}
    long = busy.run("discover", *SIM, "--timeout", "5000")
    assert long.data["settle"] == {"timeout_ms": 5000, "waited_ms": 4000, "settled": True}
    default = busy.run("discover", *SIM)
    assert default.data["settle"]["timeout_ms"] == 2500  # upstream's default


def test_a_route_steps_action_gets_the_timeout_given(busy: Cli) -> None:
    """The tap waits for the busy app within --timeout: 1 s gives it up, 5 s gets it through."""
    short = busy.run("route", "plan.json", *SIM, "--timeout", "1000")
    steps = short.data["attempts"][0]["steps"]
    assert short.exit_code == 2 and [step["outcome"] for step in steps] == ["runtime_failure"]
    long = busy.run("route", "plan.json", *SIM, "--timeout", "5000")
    steps = long.data["attempts"][0]["steps"]
    assert [step["outcome"] for step in steps] == ["needs_discovery"]  # the tap held; "Done" is not mapped yet
    assert long.data["current_screen"]["screen_id"] == "screen_2"


@pytest.mark.parametrize("command", ["discover", "route"])
@pytest.mark.parametrize("value", ["0", "-5", "nan"])
def test_a_timeout_of_no_time_is_refused_clearly(busy: Cli, command: str, value: str) -> None:
    args = ("route", "plan.json") if command == "route" else ("discover",)
    result = busy.run(*args, *SIM, "--timeout", value)
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert (
        "is not a timeout: give how long each action may wait, in milliseconds, more than 0"
        in (result.envelope["error"]["message"])
    )
    assert not (busy.cwd / "maps").exists()  # refused before any device or map


def test_discover_repair_says_it_repairs_nothing_on_stderr_and_in_data(busy: Cli) -> None:
    """Upstream accepts --repair on discover and silently ignores it; visor refused it. Now: said, not silent."""
    result = busy.run("discover", *SIM, "--timeout", "5000", "--repair")
    assert result.exit_code == 0, result.stdout
    repair = result.data["repair"]
    assert repair["requested"] is True and repair["applied"] is False
    assert "discover --repair repairs nothing" in repair["reason"]
    assert "discover --repair repairs nothing" in result.stderr
    assert "repair" not in busy.run("discover", *SIM, "--timeout", "5000").data
