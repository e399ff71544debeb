"""action_sequence (R4-R12, rule 21): one call, members in order, receipts, no replay, feedback at the end."""

from __future__ import annotations

from typing import Any

from tests.ext.tools.agent import agent, failed, ok, refused, rid

OPEN = {
    "action": "ensure_visible",
    "target": rid("speed"),
    "opener": rid("show_controls"),
    "target_description": "playback panel",
}
FASTER = {"action": "click", "target": rid("speed_up"), "target_description": "faster"}
READOUT = {"selector": {"resource_id": rid("speed_value")}, "value_format": "number", "tolerance": 0}


def statuses(result: dict[str, Any]) -> list[str]:
    return [member["status"] for member in result["members"]]


def test_open_the_auto_hiding_panel_and_operate_it_in_one_call() -> None:
    player = agent()
    result = ok(player.call("action_sequence", steps=[OPEN, FASTER | {"times": 2}]))
    assert statuses(result) == ["completed", "completed"]
    assert result["members"][0]["opener_taps"] == 1 and result["members"][1]["completed_taps"] == 2
    assert player.text("speed_value") == "150"


def test_an_open_panel_is_not_tapped_again() -> None:
    """ensure_visible skips a visible panel: tapping the opener would toggle it closed."""
    player = agent()
    ok(player.call("action_sequence", steps=[OPEN]))
    result = ok(player.call("action_sequence", steps=[OPEN, FASTER]))
    assert statuses(result) == ["skipped", "completed"] and result["inputs"] == 1
    assert player.text("speed_value") == "125"


def test_a_panel_that_hid_itself_is_opened_again() -> None:
    player = agent()
    ok(player.call("action_sequence", steps=[OPEN]))
    player.clock.sleep_us(3_000_000)  # a model turn: the panel hides itself after 2.5 s
    assert not player.shown("speed")
    refused(player.call("action_sequence", steps=[FASTER]), "NOT_FOUND")  # a split turn fails
    result = ok(player.call("action_sequence", steps=[OPEN, FASTER]))
    assert statuses(result) == ["completed", "completed"]


def test_ensure_visible_taps_the_opener_once_then_fails_when_the_target_never_comes() -> None:
    player = agent()
    wrong = OPEN | {"opener": rid("bookmark"), "timeout_ms": 400}
    start = player.now_ms()
    result = failed(player.call("action_sequence", steps=[wrong, FASTER]), "TIMEOUT", "partial")
    assert statuses(result) == ["failed", "unexecuted"]
    assert result["members"][0]["opener_taps"] == 1 and result["inputs"] == 1
    assert player.now_ms() - start >= 400


def test_unless_visible_skips_the_opener_when_its_panel_is_open() -> None:
    opener = {
        "action": "click",
        "target": rid("show_controls"),
        "target_description": "controls",
        "unless_visible": rid("speed"),
    }
    player = agent()
    first = ok(player.call("action_sequence", steps=[opener]))
    assert statuses(first) == ["completed"] and player.shown("speed")
    second = ok(player.call("action_sequence", steps=[opener, FASTER]))
    assert statuses(second) == ["skipped", "completed"] and player.shown("speed")


def test_require_visible_refuses_a_drag_over_a_hidden_panel() -> None:
    player = agent()
    drag = {
        "action": "drag",
        "start": [300, 750],
        "end": [600, 750],
        "target_description": "speed",
        "require_visible": rid("speed"),
    }
    result = refused(player.call("action_sequence", steps=[drag]), "NOT_VISIBLE")
    assert statuses(result) == ["refused"]  # nothing was sent: the member says what the call says
    assert result["message"].startswith("member 0 (drag) refused: require_visible:")


def test_every_member_is_planned_before_any_input() -> None:
    """Member 2's pixel point is off this screen: member 0's opener is not tapped either."""
    player = agent()
    off = {"action": "click", "target": [5000, 10], "coordinate_space": "pixel", "target_description": "beyond"}
    result = refused(player.call("action_sequence", steps=[OPEN, FASTER, off]), "OFF_SCREEN")
    assert statuses(result) == ["unexecuted", "unexecuted", "refused"]
    assert "member 2 (click)" in result["message"] and not player.shown("speed")


def test_an_invalid_member_sends_nothing() -> None:
    player = agent()
    result = refused(player.call("action_sequence", steps=[OPEN, FASTER | {"target": 3}]), "VALIDATION_ERROR")
    assert result["problems"][0]["message"] == "element indices are not accepted in action_sequence"
    assert not player.shown("speed")


def test_the_first_failure_stops_the_rest_and_receipts_say_what_ran() -> None:
    player = agent()
    missing = {"action": "click", "target": rid("no_such_button"), "target_description": "ghost"}
    result = failed(player.call("action_sequence", steps=[OPEN, missing, FASTER]), "NOT_FOUND", "partial")
    # The call sent input (the opener), so the member that stopped it failed, as the call did (docs/agent-tools.md).
    assert statuses(result) == ["completed", "failed", "unexecuted"]
    assert result["message"].startswith("member 1 (click) failed: no element with resource id")
    assert "1 member(s) not run" in result["message"]
    assert result["hint"].startswith("Copy the resource id verbatim (with ':id/');")
    assert player.text("speed_value") == "100"  # the later member did not run, and nothing was replayed


def test_a_target_that_vanishes_stops_the_taps_and_keeps_completed_taps() -> None:
    """Refresh hides its own panel: the second of three taps finds nothing and stops."""
    feed = agent("demo://feed")
    panel = {
        "action": "ensure_visible",
        "target": rid("refresh"),
        "opener": rid("open_actions"),
        "target_description": "quick actions",
    }
    refresh = {"action": "click", "target": rid("refresh"), "target_description": "refresh", "times": 3}
    result = failed(feed.call("action_sequence", steps=[panel, refresh]), "NOT_FOUND", "partial")
    assert result["members"][1]["completed_taps"] == 1 and statuses(result) == ["completed", "failed"]
    assert result["inputs"] == 2 and "Feed refreshed" in feed.texts()


def test_a_wait_is_a_member_and_feedback_is_read_after_it() -> None:
    player = agent()
    start = player.now_ms()
    steps = [OPEN, FASTER | {"times": 2}, {"action": "wait", "time_in_ms": 700}]
    result = ok(player.call("action_sequence", steps=steps, feedback=READOUT | {"target_value": 150}))
    assert statuses(result) == ["completed", "completed", "completed"]
    feedback = result["feedback"]
    assert feedback["actual"] == 150 and feedback["within_tolerance"] and feedback["waited_ms"] >= 1000
    assert player.now_ms() - start >= 50 + 2 * 50 + 100 + 700 + 1000


def test_a_missed_target_value_fails_with_the_residual() -> None:
    player = agent()
    result = failed(
        player.call("action_sequence", steps=[OPEN, FASTER], feedback=READOUT | {"target_value": 150}),
        "FEEDBACK_MISMATCH",
        "all",
    )
    assert result["feedback"]["residual"] == -25 and statuses(result) == ["completed", "completed"]


def test_the_third_ineffective_strategy_is_refused() -> None:
    """At the maximum, another '+' changes nothing: twice is allowed, the third time nothing is sent."""
    player = agent()
    ok(player.call("action_sequence", steps=[OPEN]))
    ok(player.call("control_action", selector={"resource_id": rid("speed")}, action="set_progress", value=200))
    beyond = READOUT | {"target_value": 300}
    for _ in range(2):
        failed(player.call("action_sequence", steps=[OPEN, FASTER], feedback=beyond), "FEEDBACK_MISMATCH", "all")
    blocked = refused(player.call("action_sequence", steps=[OPEN, FASTER], feedback=beyond), "STRATEGY_BLOCKED")
    assert "Zoom in or increase the meaningful movement" in blocked["hint"]
    # A different strategy (more taps) may still be tried.
    failed(
        player.call("action_sequence", steps=[OPEN, FASTER | {"times": 4}], feedback=beyond), "FEEDBACK_MISMATCH", "all"
    )


def test_a_control_action_member_writes_once_and_a_wait_until_member_observes() -> None:
    player = agent()
    loop = {
        "action": "control_action",
        "request": {"selector": {"resource_id": rid("loop")}, "action": "click", "ensure_state": {"state": "checked"}},
    }
    settled = {"action": "wait_until", "selector": {"resource_id": rid("loop")}, "state": "checked"}
    first = ok(player.call("action_sequence", steps=[OPEN, loop, settled]))
    assert statuses(first) == ["completed", "completed", "completed"]
    second = ok(player.call("action_sequence", steps=[OPEN, loop]))
    assert statuses(second) == ["skipped", "skipped"] and second["dispatched"] == "none"
    assert player.node("loop").checked


def test_the_same_calls_give_the_same_results() -> None:
    def script() -> list[dict[str, Any]]:
        player = agent(seed=9)
        return [
            player.call(
                "action_sequence", steps=[OPEN, FASTER | {"times": 3}], feedback=READOUT | {"target_value": 175}
            ),
            player.call("read_control", selector={"resource_id": rid("speed")}),
        ]

    assert script() == script()


def test_an_ineffective_strategy_is_counted_even_when_its_panel_had_hidden() -> None:
    """Each call opens the panel itself, so its readout cannot be read before the input: the value the previous
    call left is the baseline. The first call has none (its progress is unknown); the next two get no closer."""
    player = agent()
    ok(player.call("action_sequence", steps=[OPEN]))
    ok(player.call("control_action", selector={"resource_id": rid("speed")}, action="set_progress", value=200))
    beyond = READOUT | {"target_value": 300}
    for _ in range(3):
        player.clock.sleep_us(3_000_000)  # a model turn: the panel hides itself
        result = failed(
            player.call("action_sequence", steps=[OPEN, FASTER], feedback=beyond), "FEEDBACK_MISMATCH", "all"
        )
        assert statuses(result) == ["completed", "completed"]
    player.clock.sleep_us(3_000_000)
    refused(player.call("action_sequence", steps=[OPEN, FASTER], feedback=beyond), "STRATEGY_BLOCKED")


def test_on_ios_the_not_found_hint_names_a_bare_identifier() -> None:
    from tests.ext.tools.agent import Agent
    from tests.simkit import DEMO
    from visor.clock import VirtualClock
    from visor.ext.tools.call_context import ToolSettings
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import load_app

    phone = SimDevice(load_app(DEMO), clock=VirtualClock(), seed=42, platform="ios")
    phone.open_url("demo://player")
    player = Agent(phone, ToolSettings())
    ghost = {"action": "click", "target": "no_such_button", "target_description": "ghost"}
    result = refused(player.call("action_sequence", steps=[ghost]), "NOT_FOUND")
    assert statuses(result) == ["refused"]
    assert result["hint"].startswith("Copy the resource id verbatim (a bare accessibility identifier, no ':id/');")
