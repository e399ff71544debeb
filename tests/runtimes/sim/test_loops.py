"""The simulated app always ends: loops are refused when the model is read, or stopped while it runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.runtimes.sim.guards import app_file, deadline
from tests.simkit import find_node, sim_device, the_node
from visor.device.protocol import Key
from visor.errors import ExitCode, InputError
from visor.runtimes.sim.load import AppModelError, load_app
from visor.runtimes.sim.model import (
    MAX_ACTIONS_PER_INSTANT,
    MAX_ACTIONS_PER_SECOND,
    MAX_BACK_STACK,
    MAX_CHAIN_DEPTH,
    MAX_TIMERS,
)
from visor.runtimes.sim.state import AppRuntimeError

# -- refused when the model is read -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("screens", "line", "column", "words"),
    [
        (  # two screens opening each other as they show
            """
            a: {on_show: [{go: b}]}
            b: {on_show: [{go: a}]}
            """,
            4,
            18,
            "a -> b -> a",
        ),
        ("a: {on_show: [{replace: a}]}", 3, 18, "a -> a"),
        ("a: {on_show: [{toast: hi}, {restart: {screen: a, params: {k: v}}}]}", 3, 31, "a -> a"),
        # a zero-delay timer is the next tick of the same instant: still no time passes
        ("a: {on_show: [{after: {ms: 0, do: [{go: a}]}}]}", 3, 39, "a -> a"),
        (
            """
            a: {on_show: [{go: b}]}
            b: {on_show: [{after: {ms: 0, do: [{set: {x: 1}}, {go: c}]}}]}
            c: {on_show: [{replace: b}]}
            """,
            5,
            18,
            "b -> c -> b",
        ),
    ],
)
def test_on_show_cycles_are_refused_with_line_and_column(
    tmp_path: Path, screens: str, line: int, column: int, words: str
) -> None:
    body = "\n".join("  " + row.strip() for row in screens.strip().splitlines())
    path = app_file(tmp_path, f"app: {{id: com.example.loop, name: Loop, start: a}}\nscreens:\n{body}\n")
    with deadline(10), pytest.raises(AppModelError) as caught:
        load_app(path)
    issue = next(i for i in caught.value.issues if "loop" in i.message)
    assert (issue.line, issue.column) == (line, column)
    assert words in issue.message and "without any input" in issue.message


@pytest.mark.parametrize(
    "on_show",
    [
        "[{after: {ms: 1, do: [{replace: a}]}}]",  # a ticker: time moves between the openings
        "[{if: {var: again}, then: [{set: {again: false}}, {go: a}]}]",  # ends once the condition does
        "[{go: b}]",  # b does not come back
    ],
)
def test_on_show_chains_that_can_end_are_accepted(tmp_path: Path, on_show: str) -> None:
    path = app_file(
        tmp_path,
        f"""\
        app: {{id: com.example.ok, name: Ok, start: a}}
        vars: {{again: true}}
        screens:
          a: {{on_show: {on_show}}}
          b: {{on_show: [{{back: true}}]}}
        """,
    )
    with deadline(10):
        device = sim_device(path)
        device.clock.sleep_us(5_000_000)
        device.observe()


def test_a_slider_nudging_itself_when_it_changes_is_refused(tmp_path: Path) -> None:
    path = app_file(
        tmp_path,
        """\
        app: {id: com.example.slide, name: Slide, start: a}
        screens:
          a:
            elements:
              - {type: slider, id: s, max: 1000, on_change: [{nudge: {t: 1}}]}
              - {type: slider, id: t, max: 1000, on_change: [{nudge: {s: -1}}]}
        """,
    )
    with pytest.raises(AppModelError) as caught:
        load_app(path)
    issue = next(i for i in caught.value.issues if "loop" in i.message)
    assert (issue.line, issue.column) == (6, 63) and "s -> t -> s" in issue.message


# -- stopped while it runs --------------------------------------------------------------------------------------

# Loops behind conditions cannot be told from ones that end until the app runs: the device stops them.
GUARDED = """\
app: {id: com.example.guarded, name: Guarded, start: home}
vars: {on: false}
screens:
  home:
    title: Home
    elements:
      - {type: button, id: ping, text: Ping, on_tap: [{set: {on: true}}, {go: a}]}
      - {type: button, id: tick, text: Tick, on_tap: [{set: {on: true}}, {go: t}]}
      - {type: button, id: calm, text: Calm, on_tap: [{toast: calm}]}
      - {type: slider, id: s, max: 1000000, on_change: [{if: {var: on}, then: [{nudge: {s: 1}}]}]}
      - {type: button, id: arm, text: Arm, on_tap: [{set: {on: true}}]}
      - {type: field, id: f, on_submit: [{set: {on: true}}, {go: a}]}
  a:
    title: A
    on_show: [{if: {var: on}, then: [{go: b}]}]
  b:
    title: B
    on_show: [{if: {var: on}, then: [{go: a}]}]
  t:
    title: T
    on_show: [{if: {var: on}, then: [{after: {ms: 0, do: [{replace: t}]}}]}]
"""


def guarded(tmp_path: Path):  # type: ignore[no-untyped-def]
    return sim_device(app_file(tmp_path, GUARDED, "guarded.app.yaml"))


def test_an_on_show_cycle_behind_a_condition_is_stopped_and_the_tap_undone(tmp_path: Path) -> None:
    device = guarded(tmp_path)
    with deadline(10), pytest.raises(AppRuntimeError) as caught:
        device.tap(the_node(device, "text=Ping").bounds.center)
    error = caught.value
    assert isinstance(error, InputError)
    assert "com.example.guarded" in error.message and "guarded.app.yaml" in error.message
    assert f"more than {MAX_CHAIN_DEPTH} nested" in error.message
    assert "screen 'a' on_show -> screen 'b' on_show -> screen 'a' on_show" in error.message
    assert error.details["screen"] in ("a", "b") and len(error.details["chain"]) <= 12
    # The tap is undone: the device is where it was, and works.
    app = device.apps[device.target]
    assert [s.name for s in app.stack] == ["home"] and app.vars["on"] is False
    assert find_node(device, "text=Ping") is not None
    device.tap(the_node(device, "text=Calm").bounds.center)
    assert find_node(device, "text=calm") is not None


def test_a_zero_delay_timer_loop_is_stopped_within_the_instant_budget(tmp_path: Path) -> None:
    device = guarded(tmp_path)
    device.tap(the_node(device, "text=Tick").bounds.center)  # schedules the first timer, due at once
    with deadline(10), pytest.raises(AppRuntimeError) as caught:
        device.observe()
    assert f"more than {MAX_ACTIONS_PER_INSTANT:,} actions at one instant" in caught.value.message
    assert "timer (after 0 ms) of screen 't'" in caught.value.message
    # The runaway work is dropped: nothing is due any more, and time moves on normally.
    app = device.apps[device.target]
    due = app.due()
    assert due is None or due > device.now()
    with deadline(10):
        device.clock.sleep_us(1_000_000)
        assert find_node(device, "text=T") is not None


def test_a_timer_rearming_every_millisecond_with_work_is_stopped_within_the_second_budget(tmp_path: Path) -> None:
    # 200 actions a millisecond, each instant well under its budget: a loop all the same, stopped within a second
    # of device time (in well under the test's deadline) rather than left to run at the device's full cost.
    work = ", ".join(["{set: {x: '1'}}"] * 199)
    device = sim_device(app_file(tmp_path, f"""
        app: {{id: com.example.busy, name: Busy, start: t}}
        vars: {{x: '0'}}
        screens:
          t:
            on_show: [{{after: {{ms: 1, do: [{work}, {{replace: t}}]}}}}]
            elements: [{{type: text, text: T}}]
        """))  # fmt: skip
    with deadline(10), pytest.raises(AppRuntimeError) as caught:
        device.clock.sleep_us(1_000_000)
        device.observe()
    assert f"more than {MAX_ACTIONS_PER_SECOND:,} actions in one second of device time" in caught.value.message


def test_a_slider_that_keeps_nudging_itself_is_stopped(tmp_path: Path) -> None:
    device = guarded(tmp_path)
    device.tap(the_node(device, "text=Arm").bounds.center)
    slider = the_node(device, "id=s")
    with deadline(10), pytest.raises(AppRuntimeError) as caught:
        device.tap(slider.bounds.center)
    assert "slider 's' on_change -> slider 's' on_change" in caught.value.message
    assert device.apps[device.target].vars["s"] == 0


def test_on_submit_into_a_cycle_is_stopped(tmp_path: Path) -> None:
    device = guarded(tmp_path)
    device.tap(the_node(device, "id=f").bounds.center)
    with deadline(10), pytest.raises(AppRuntimeError):
        device.press_key(Key.ENTER)
    assert [s.name for s in device.apps[device.target].stack] == ["home"]


def test_timers_that_multiply_are_stopped(tmp_path: Path) -> None:
    path = app_file(
        tmp_path,
        """\
        app: {id: com.example.fork, name: Fork, start: a}
        screens:
          a:
            on_show: [{after: {ms: 1, do: [{replace: a}]}}, {after: {ms: 1, do: [{replace: a}]}}]
        """,
    )
    device = sim_device(path)
    with deadline(10), pytest.raises(AppRuntimeError) as caught:
        device.clock.sleep_us(1_000_000)
        device.observe()
    assert f"more than {MAX_TIMERS:,} timers" in caught.value.message or "actions at one instant" in (
        caught.value.message
    )


def test_a_back_stack_that_only_grows_is_stopped(tmp_path: Path) -> None:
    path = app_file(
        tmp_path,
        """\
        app: {id: com.example.deep, name: Deep, start: a}
        screens:
          a:
            on_show: [{after: {ms: 10, do: [{go: a}]}}]
        """,
    )
    device = sim_device(path)
    with deadline(10), pytest.raises(AppRuntimeError) as caught:
        device.clock.sleep_us(60_000_000)
        device.observe()
    assert f"more than {MAX_BACK_STACK} screens" in caught.value.message
    assert len(device.apps[device.target].stack) <= MAX_BACK_STACK


@pytest.mark.parametrize(
    "step",
    [
        "{id: a, command: tap, args: {target: 'text=Ping'}}",
        # An agent tool's input was undone, so its outcome is known: not UNKNOWN_OUTCOME, but the model's error.
        "{id: a, command: control_action, args: {selector: {text: Ping}, action: click}}",
    ],
)
def test_a_loop_in_a_run_is_an_input_error_not_a_crash(cli_runner: Cli, tmp_path: Path, step: str) -> None:
    (tmp_path / "apps").mkdir()
    app_file(tmp_path / "apps", GUARDED, "guarded.app.yaml")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "meta: {name: x, version: '1'}\nconfig: {seed: 1, runtime: sim, app: apps/guarded.app.yaml}\n"
        f"steps:\n  - {step}\n"
    )
    with deadline(30):
        result = cli_runner.run("run", str(scenario))
    error = result.envelope["error"]
    assert result.exit_code == ExitCode.ERROR and error["code"] == "INPUT_ERROR"
    assert "nested" in error["message"] and "com.example.guarded" in error["message"]
    assert "UNKNOWN_OUTCOME" not in result.stdout
