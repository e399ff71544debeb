"""Element indices, coordinates and descriptions (R1-R3): resolved live before any input, never clamped."""

from __future__ import annotations

from tests.ext.tools.agent import agent, failed, ok, refused, rid


def test_an_index_taps_the_live_element_it_names() -> None:
    player = agent()
    index = player.index("show_controls")
    result = ok(player.call("click", target=index))
    assert result["target"]["element"]["resource_id"] == rid("show_controls")
    assert result["dispatched"] == "all" and result["inputs"] == 1
    assert player.shown("speed")


def test_an_index_needs_an_observation_to_refer_to() -> None:
    refused(agent().call("click", target=3), "NO_OBSERVATION")


def test_an_index_outside_the_last_observation_is_not_found() -> None:
    player = agent()
    count = len(player.observe())
    result = refused(player.call("click", target=count + 1), "NOT_FOUND")
    assert f"(1..{count})" in result["message"]


def test_a_moved_target_refuses_the_tap() -> None:
    """The login error appears above the button and pushes it down: the observed index is stale."""
    login = agent(url=None)
    button = login.index("login")
    ok(login.call("click", target=button))  # empty form: the error text appears, the button moves
    result = refused(login.call("click", target=button), "TARGET_MOVED")
    assert "moved from" in result["message"]


def test_a_missing_target_refuses_the_tap() -> None:
    player = agent()
    index = player.index("show_controls")
    player.sim.open_url("demo://settings")
    refused(player.call("click", target=index), "NOT_FOUND")


def test_scenario_steps_index_the_screen_at_their_start() -> None:
    player = agent(index_from_step_start=True)
    elements = player.observe()
    index = next(e["index"] for e in elements if e["resource_id"] == rid("show_controls"))
    player.state.elements = ()  # nothing remembered: the step observes for itself
    ok(player.call("click", target=index))
    assert player.shown("speed")


def test_a_normalized_point_is_tapped_where_it_maps_on_screen() -> None:
    player = agent()
    result = ok(player.call("click", target=[0, 1000], target_description="bottom-left corner"))
    assert result["point"] == [0, 1919]
    assert ok(player.call("click", target=[1000, 0], target_description="top-right corner"))["point"] == [1079, 0]


def test_a_point_out_of_range_is_off_the_screen_refused_not_clamped() -> None:
    result = refused(agent().call("click", target=[1001, 5], target_description="x"), "OFF_SCREEN")
    assert result["problems"][0]["path"] == "target[0]" and result["problems"][0]["code"] == "OFF_SCREEN"
    assert result["message"] == (
        "target[0]: [1001, 5] is off the screen: normalized coordinates run from 0 to 1000, got 1001; nothing was sent"
    )


def test_a_point_without_a_description_sends_nothing() -> None:
    result = refused(agent().call("long_press", target=[500, 500]), "VALIDATION_ERROR")
    assert "target_description is required" in result["message"]


def test_times_taps_the_same_place_with_the_delay_between() -> None:
    player = agent()
    ok(player.call("click", target=player.index("show_controls")))
    start = player.now_ms()
    result = ok(player.call("click", target=player.index("speed_up"), times=3, delay_ms=200))
    assert result["taps"] == 3 and result["inputs"] == 3
    assert player.text("speed_value") == "175"
    assert player.now_ms() - start == 3 * 50 + 2 * 200  # three 50 ms touches, two pauses


def test_a_busy_app_stops_a_click_sequence_after_the_first_tap() -> None:
    settings = agent("demo://settings", idle_budget_ms=1000)
    sync = settings.node("sync").bounds.center
    switch = settings.node("notifications").bounds.center
    points = [[round(p.x * 1000 / 1079), round(p.y * 1000 / 1919)] for p in (sync, switch)]
    result = failed(
        settings.call("click_sequence", sequence=points, target_descriptions=["sync", "notifications"]),
        "BUSY",
        "partial",
    )
    assert result["completed_taps"] == 1
    assert [tap["status"] for tap in result["taps"]] == ["completed", "failed"]
    assert settings.node("notifications").checked  # the second tap never happened


def test_click_sequence_taps_in_order_and_checks_every_point_first() -> None:
    player = agent()
    controls = player.node("show_controls").bounds.center
    opener = [round(controls.x * 1000 / 1079), round(controls.y * 1000 / 1919)]
    refused(
        player.call("click_sequence", sequence=[opener, [500, 1001]], target_descriptions=["controls", "off"]),
        "OFF_SCREEN",
    )
    assert not player.shown("speed")  # the first point was not tapped either
    ok(player.call("click_sequence", sequence=[opener], target_descriptions=["controls"]))
    assert player.shown("speed")
