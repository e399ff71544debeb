"""read_control, control_action, wait_until and scroll_to (R16-R20) on live native controls."""

from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.ext.tools.agent import Agent, agent, failed, ok, refused, rid
from tests.simkit import Passthrough, sim_device
from visor.device.protocol import NativeAction
from visor.errors import TargetError
from visor.ext.tools.call_context import ToolSettings
from visor.ui.geometry import Rect
from visor.ui.tree import Node

SPEED = {"resource_id": rid("speed")}
COMMENT = {"resource_id": rid("comment")}


def panel(player: Agent) -> None:
    ok(player.call("click", target=player.index("show_controls")))


# -- read_control (R19) --------------------------------------------------------------------------------------------


def test_read_control_reports_range_actions_token_and_signature() -> None:
    player = agent()
    panel(player)
    control = ok(player.call("read_control", selector=SPEED))["control"]
    assert control["range"] == {"min": 25.0, "max": 200.0, "current": 100.0}
    assert control["actions"] == ["click", "set_progress", "scroll_forward", "scroll_backward"]
    assert len(control["token"]) == 64 and int(control["token"], 16) >= 0
    assert len(control["content_signature"]) == 64 and control["native_selector"] == SPEED
    assert ok(player.call("read_control", selector=SPEED))["control"]["token"] == control["token"]


def test_read_control_reports_selections_in_utf16_units() -> None:
    player = agent()
    ok(player.call("control_action", selector=COMMENT, action="set_text", text="a👋b"))
    control = ok(player.call("read_control", selector=COMMENT))["control"]
    assert control["selection"] == {"start": 4, "end": 4} and control["text_length_utf16"] == 4


def test_read_control_of_a_field_holding_a_runs_secret_publishes_no_hash_or_length_of_it() -> None:
    """Its content signature is the same whatever the secret (hashing guesses finds nothing), its length unsaid."""
    from visor.ext.tools.call_context import ToolContext
    from visor.ext.tools.dispatch import call_tool

    seen = []
    for secret in ("summer2024", "a-longer-secret-1"):
        player = agent()
        assert player.device is not None
        context = ToolContext(player.device, player.clock, player.state, player.settings, withheld=[secret])
        ok(call_tool("control_action", {"selector": COMMENT, "action": "set_text", "text": secret}, context).to_dict())
        context = ToolContext(player.device, player.clock, player.state, player.settings, withheld=[secret])
        control = ok(call_tool("read_control", {"selector": COMMENT}, context).to_dict())["control"]
        assert player.text("comment") == secret and control["text_length_utf16"] is None
        seen.append(control["content_signature"])
    assert seen[0] == seen[1]
    plain = ok(agent().call("read_control", selector=COMMENT))["control"]["content_signature"]
    assert plain != seen[0]  # an empty field is another content


def test_a_custom_canvas_exposes_no_native_actions() -> None:
    control = ok(agent().call("read_control", selector={"resource_id": rid("position")}))["control"]
    assert control["actions"] == [] and control["range"] is None


def test_missing_and_ambiguous_controls_fail_explicitly() -> None:
    feed = agent("demo://feed")
    refused(feed.call("read_control", selector={"resource_id": rid("nothing")}), "NOT_FOUND")
    result = refused(feed.call("read_control", selector={"resource_id": rid("feed_item")}), "AMBIGUOUS")
    assert result["matches"] > 1


# -- control_action (R16, R20) -------------------------------------------------------------------------------------


def test_a_stale_token_refuses_the_action() -> None:
    login = agent(url=None)
    token = ok(login.call("read_control", selector={"resource_id": rid("login")}))["control"]["token"]
    ok(login.call("click", target=[500, 416], target_description="log in"))  # the error pushes the button down
    result = refused(
        login.call("control_action", selector={"resource_id": rid("login")}, action="click", expected_token=token),
        "STALE",
    )
    assert result["token"] != token


def test_an_unsupported_action_fails_without_a_fallback() -> None:
    player = agent()
    result = refused(
        player.call("control_action", selector={"resource_id": rid("show_controls")}, action="set_progress", value=3),
        "UNSUPPORTED",
    )
    assert result["actions"] == ["click"]
    refused(
        player.call("control_action", selector={"resource_id": rid("position")}, action="scroll_forward"), "UNSUPPORTED"
    )
    assert not player.shown("speed")


def test_set_progress_needs_a_value_in_the_controls_range() -> None:
    player = agent()
    panel(player)
    result = refused(
        player.call("control_action", selector=SPEED, action="set_progress", value=250), "VALIDATION_ERROR"
    )
    assert "outside the control's range 25..200" in result["message"]
    assert [problem["path"] for problem in result["problems"]] == ["value"]
    done = ok(
        player.call("control_action", selector=SPEED, action="set_progress", value=175, ensure_state={"state": "value"})
    )
    assert done["verified"] and done["control"]["range"]["current"] == 175 and player.text("speed_value") == "175"


def test_a_selection_never_splits_an_emoji() -> None:
    player = agent()
    ok(player.call("control_action", selector=COMMENT, action="set_text", text="a👋b"))
    result = refused(
        player.call("control_action", selector=COMMENT, action="set_selection", selection_start=1, selection_end=2),
        "VALIDATION_ERROR",
    )
    assert "surrogate pair" in result["message"] and result["problems"][0]["path"] == "selection_end"
    ok(player.call("control_action", selector=COMMENT, action="set_selection", selection_start=1, selection_end=3))
    ok(player.call("control_action", selector=COMMENT, action="replace_selection", text="-"))
    assert player.text("comment") == "a-b"
    assert player.node("comment").selection == (2, 2)


def test_set_text_keeps_whitespace_and_accepts_empty_text() -> None:
    player = agent()
    ok(player.call("control_action", selector=COMMENT, action="set_text", text="  two  spaces "))
    assert player.text("comment") == "  two  spaces "
    ok(player.call("control_action", selector=COMMENT, action="set_text", text="", ensure_state={"state": "text"}))
    assert player.text("comment") == ""


def test_ime_enter_submits_the_field() -> None:
    player = agent()
    ok(player.call("control_action", selector=COMMENT, action="set_text", text="nice"))
    ok(player.call("control_action", selector=COMMENT, action="ime_enter"))
    assert "Comment sent" in player.texts()


def test_ensure_state_skips_a_satisfied_state_and_writes_an_unsatisfied_one_once() -> None:
    player = agent()
    panel(player)
    loop = {"resource_id": rid("loop")}
    first = ok(player.call("control_action", selector=loop, action="click", ensure_state={"state": "checked"}))
    assert (first["dispatched"], first["inputs"], first["verified"]) == ("all", 1, True)
    second = ok(player.call("control_action", selector=loop, action="click", ensure_state={"state": "checked"}))
    assert (second["dispatched"], second["inputs"], second["skipped"]) == ("none", 0, True)
    assert player.node("loop").checked
    ok(player.call("control_action", selector=loop, action="click", ensure_state={"state": "unchecked"}))
    assert not player.node("loop").checked


def test_a_failed_postcondition_is_reported_and_not_written_again() -> None:
    player = agent()
    panel(player)
    result = failed(
        player.call(
            "control_action",
            selector={"resource_id": rid("speed_up")},
            action="click",
            ensure_state={"state": "text", "expected_text": "Fastest"},
            verify_timeout_ms=600,
        ),
        "POSTCONDITION_FAILED",
        "all",
    )
    assert result["inputs"] == 1 and player.text("speed_value") == "125"  # one tap, never a second


def test_a_state_the_control_does_not_expose_is_never_inferred() -> None:
    player = agent()
    result = refused(
        player.call(
            "control_action",
            selector={"resource_id": rid("bookmark")},
            action="click",
            ensure_state={"state": "checked"},
        ),
        "STATE_UNREADABLE",
    )
    assert "not checkable" in result["message"]


class Flaky(Passthrough):
    """The simulated phone, whose connection drops during the next native action."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(agent.sim)
        self.drop = True

    def perform(self, node: Node, action: NativeAction) -> None:
        if self.drop:
            self.drop = False
            self.inner.perform(node, action)  # it reached the phone, but the answer is lost
            raise TargetError("the connection to the device was reset")
        self.inner.perform(node, action)


def test_an_unknown_write_is_never_resent_until_the_agent_looks() -> None:
    player = agent()
    panel(player)
    player.device = Flaky(player)
    faster = {"selector": {"resource_id": rid("speed_up")}, "action": "click"}
    result = failed(player.call("control_action", **faster), "UNKNOWN_OUTCOME", "unknown")
    assert "never resent" in result["hint"]
    refused(player.call("control_action", **faster), "UNKNOWN_WRITE_PENDING")
    assert player.text("speed_value") == "125"  # it had applied: resending would have made it 150
    ok(player.call("read_control", selector={"resource_id": rid("speed_value")}))
    ok(player.call("control_action", **faster))
    assert player.text("speed_value") == "150"


# -- wait_until (R17) ---------------------------------------------------------------------------------------------


def test_wait_until_polls_without_input() -> None:
    login = agent(url=None)
    ok(login.call("input_text", target=[500, 240], target_description="user", text="ada"))
    ok(login.call("input_text", target=[500, 330], target_description="password", text="lovelace"))
    ok(login.call("click", target=[500, 416], target_description="log in"))
    start = login.now_ms()
    result = ok(
        login.call("wait_until", selector={"resource_id": rid("toolbar_title")}, state="text", expected_text="Feed")
    )
    assert (result["dispatched"], result["inputs"]) == ("none", 0)
    assert 700 <= login.now_ms() - start <= 1000 and result["observations"] >= 4


def test_wait_until_absent_and_visible() -> None:
    player = agent()
    refused(player.call("wait_until", selector=SPEED, state="visible", timeout_ms=300), "TIMEOUT")
    panel(player)
    ok(player.call("wait_until", selector=SPEED, state="visible", timeout_ms=300))
    result = ok(player.call("wait_until", selector=SPEED, state="absent", timeout_ms=3000))
    assert result["waited_ms"] >= 2000  # the panel hid itself 2.5 s after it was shown


def test_ambiguity_never_counts_as_absent() -> None:
    feed = agent("demo://feed")
    result = refused(
        feed.call("wait_until", selector={"resource_id": rid("feed_item")}, state="absent", timeout_ms=400), "AMBIGUOUS"
    )
    assert result["matches"] > 1


def test_stable_needs_two_equal_observations_across_stable_ms() -> None:
    player = agent()
    result = ok(
        player.call(
            "wait_until", selector={"resource_id": rid("clock")}, state="stable", stable_ms=500, poll_interval_ms=100
        )
    )
    assert result["observations"] >= 2 and result["waited_ms"] >= 500
    zero = ok(
        player.call(
            "wait_until", selector={"resource_id": rid("clock")}, state="stable", stable_ms=0, poll_interval_ms=50
        )
    )
    assert zero["observations"] == 2


def test_value_and_text_states() -> None:
    player = agent()
    panel(player)
    ok(player.call("wait_until", selector=SPEED, state="value", expected_value=100, timeout_ms=100))
    ok(
        player.call(
            "wait_until",
            selector={"resource_id": rid("speed_value")},
            state="value",
            expected_value=99,
            tolerance=1,
            timeout_ms=100,
        )
    )
    refused(
        player.call(
            "wait_until", selector={"resource_id": rid("speed_value")}, state="text", expected_text="10", timeout_ms=100
        ),
        "TIMEOUT",
    )


# -- scroll_to (R18) ------------------------------------------------------------------------------------------------

LIST = {"resource_id": rid("feed")}


def test_scroll_to_scrolls_natively_until_the_target_is_visible() -> None:
    feed = agent("demo://feed")
    result = ok(feed.call("scroll_to", container=LIST, target={"text": "Item 30"}))
    scrolls = result["scrolls"]
    assert len(scrolls) == 3 and all(s["status"] == "acknowledged" and s["progress"] for s in scrolls)
    assert result["target"]["text"] == "Item 30"
    again = ok(feed.call("scroll_to", container=LIST, target={"text": "Item 30"}))
    assert again["scrolls"] == [] and again["dispatched"] == "none"


def test_scroll_to_stops_at_max_scrolls_and_keeps_every_receipt() -> None:
    feed = agent("demo://feed")
    result = failed(
        feed.call("scroll_to", container=LIST, target={"text": "Item 999"}, max_scrolls=4), "MAX_SCROLLS", "all"
    )
    assert [s["scroll"] for s in result["scrolls"]] == [1, 2, 3, 4]


def test_scroll_to_stops_when_the_content_no_longer_moves() -> None:
    feed = agent("demo://feed")
    result = failed(
        feed.call("scroll_to", container=LIST, target={"text": "Item 999"}, max_scrolls=20), "NO_PROGRESS", "all"
    )
    assert result["scrolls"][-1]["progress"] is False and result["scrolls"][-2]["progress"] is True


def test_scroll_to_refuses_a_direction_the_container_cannot_scroll() -> None:
    refused(
        agent("demo://feed").call("scroll_to", container=LIST, target={"text": "Item 9"}, direction="left"),
        "UNSUPPORTED",
    )


def test_scroll_to_stops_at_its_timeout() -> None:
    feed = agent("demo://feed")
    result = failed(
        feed.call("scroll_to", container=LIST, target={"text": "Item 999"}, timeout_ms=700, settle_ms=300),
        "TIMEOUT",
        "all",
    )
    assert 1 <= len(result["scrolls"]) <= 3


@pytest.mark.parametrize("direction", ["down", "forward"])
def test_scroll_to_never_clicks_what_it_found(direction: str) -> None:
    feed = agent("demo://feed")
    ok(feed.call("scroll_to", container=LIST, target={"text": "Item 12"}, direction=direction))
    assert feed.shown("feed")  # still on the feed: the item was found, not opened


# -- readouts that never settle -----------------------------------------------------------------------------------


def ticker() -> Agent:
    return Agent(sim_device(str(ROOT / "tests" / "fixtures" / "apps" / "ticker.app.yaml")), ToolSettings())


COUNT = {"resource_id": "com.visor.ticker:id/count"}


def test_stable_is_not_reached_while_the_control_keeps_changing() -> None:
    agent_ = ticker()
    result = refused(
        agent_.call("wait_until", selector=COUNT, state="stable", stable_ms=500, timeout_ms=2000), "TIMEOUT"
    )
    assert result["observations"] >= 10
    settled = ok(agent_.call("wait_until", selector=COUNT, state="stable", stable_ms=500, timeout_ms=3000))
    assert settled["control"]["text"] == "15"


def test_feedback_waits_for_a_stable_value_and_gives_up_at_its_timeout() -> None:
    agent_ = ticker()
    feedback = {
        "selector": COUNT,
        "value_format": "number",
        "target_value": 15,
        "tolerance": 0,
        "stable_ms": 500,
        "timeout_ms": 1000,
    }
    tap = {"action": "click", "target": [500, 500], "target_description": "anywhere"}
    result = failed(agent_.call("action_sequence", steps=[tap], feedback=feedback), "TIMEOUT", "all")
    assert "did not hold still for 500 ms" in result["message"]
    late = ok(agent_.call("action_sequence", steps=[tap], feedback=feedback | {"timeout_ms": 3000}))
    assert late["feedback"]["actual"] == 15


def test_a_page_that_went_away_never_counts_as_absence() -> None:
    player = agent()
    ok(player.call("press_key", key="HOME"))
    # The launcher is in front: the player's clock is unavailable, not absent.
    result = refused(
        player.call("wait_until", selector={"resource_id": rid("clock")}, state="absent", timeout_ms=300), "TIMEOUT"
    )
    assert "the page is not available (com.visor.launcher is in front)" in result["message"]
    assert result["foreground"] == "com.visor.launcher"


def test_package_name_on_ios_is_refused_not_waited_out() -> None:
    # XCUITest's page source names no app: a wait for a control of a named package would time out as if the
    # app were gone. It is refused at once, saying what to do.
    from tests.simkit import DEMO
    from visor.clock import VirtualClock
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import load_app

    phone = SimDevice(load_app(DEMO), clock=VirtualClock(), seed=42, platform="ios")
    phone.open_url("demo://login")
    player = Agent(phone, ToolSettings())
    selector = {"package_name": "com.visor.demo", "resource_id": "username"}
    result = refused(player.call("wait_until", selector=selector, state="visible", timeout_ms=5000), "VALIDATION_ERROR")
    assert result["message"] == "package_name cannot be checked on iOS: XCUITest's page source names no app"
    assert [problem["path"] for problem in result["problems"]] == ["selector.package_name"]
    assert player.now_ms() < 100
    ok(player.call("wait_until", selector={"resource_id": "username"}, state="visible", timeout_ms=5000))
    refused(player.call("read_control", selector=selector), "VALIDATION_ERROR")


# -- password fields: compared by length, never by their text -----------------------------------------------------


def _ios_login() -> Agent:
    from tests.simkit import DEMO
    from visor.clock import VirtualClock
    from visor.runtimes.sim.device import SimDevice
    from visor.runtimes.sim.load import load_app

    phone = SimDevice(load_app(DEMO), clock=VirtualClock(), seed=42, platform="ios")
    phone.open_url("demo://login")
    return Agent(phone, ToolSettings())


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_a_password_fields_text_is_checked_by_its_length(platform: str) -> None:
    login = agent(url=None) if platform == "android" else _ios_login()
    field = {"resource_id": rid("password") if platform == "android" else "password"}
    done = ok(
        login.call("control_action", selector=field, action="set_text", text="lovelace", ensure_state={"state": "text"})
    )
    assert done["verified"] and done["control"]["text"] == "•" * 8
    held = ok(login.call("wait_until", selector=field, state="text", expected_text="lovelace", timeout_ms=300))
    assert held["waited_ms"] == 0
    missed = refused(
        login.call("wait_until", selector=field, state="text", expected_text="lovelace!", timeout_ms=300), "TIMEOUT"
    )
    assert "lovelace" not in str(missed)
    skipped = ok(
        login.call("control_action", selector=field, action="set_text", text="ada12345", ensure_state={"state": "text"})
    )
    assert skipped["skipped"] is True  # same length: a masked field cannot tell them apart


def test_a_password_field_showing_neither_bullets_nor_the_text_is_unreadable() -> None:
    from visor.ext.tools.native_controls import text_holds
    from visor.ext.tools.result import ToolProblem

    box = Rect(0, 0, 10, 10)
    field = Node(class_name="android.widget.EditText", bounds=box, text="hidden", password=True)
    assert text_holds(field, "hidden") and text_holds(Node("android.widget.EditText", box, password=True), "")
    assert not text_holds(Node("android.widget.EditText", box, password=True), "secret")
    with pytest.raises(ToolProblem) as caught:
        text_holds(field, "secret")
    assert caught.value.code.value == "STATE_UNREADABLE" and "secret" not in str(caught.value.message)


def test_a_plain_text_is_not_clickable_and_the_hint_names_what_is() -> None:
    player = agent()
    result = refused(
        player.call("control_action", selector={"resource_id": rid("clock")}, action="click"), "UNSUPPORTED"
    )
    assert (
        result["message"]
        == "'08:30:00' is not clickable (it takes no actions); nothing was sent (no coordinate fallback)"
    )
    assert "custom canvas" not in result["message"] and "index from observe" in result["hint"]
    feed = agent("demo://feed")
    title = {"resource_id": rid("feed_title"), "text": "Item 1"}
    result = refused(feed.call("control_action", selector=title, action="click"), "UNSUPPORTED")
    assert result["message"].startswith("'Item 1' is not clickable (it takes only show_on_screen)")
    assert result["hint"].startswith(
        'Use control_action on its clickable parent {"resource_id": "com.visor.demo:id/feed_item"'
    )


def test_wait_until_says_which_state_was_not_reached() -> None:
    player = agent()
    result = refused(player.call("wait_until", selector=SPEED, state="visible", timeout_ms=300), "TIMEOUT")
    assert result["message"].startswith(f"resource_id={rid('speed')} did not reach state 'visible' within 300 ms (")
