"""input_text, press_key, manage_app and wait_for_delay, and how results account for what was sent."""

from __future__ import annotations

from tests.ext.tools.agent import agent, failed, ok, refused, rid


def test_input_text_replaces_the_whole_text_by_default() -> None:
    login = agent(url=None)
    user = login.index("username")
    ok(login.call("input_text", target=user, text="grace"))
    result = ok(login.call("input_text", target=user, text="ada"))
    assert (result["mode"], result["field_text"]) == ("replace", "ada")


def test_input_text_can_append_and_keeps_new_lines() -> None:
    player = agent()
    comment = player.index("comment")
    ok(player.call("input_text", target=comment, text="first"))
    result = ok(player.call("input_text", target=comment, text="\nsecond 👋", clear_exist=False))
    assert result["field_text"] == "first\nsecond 👋"


def test_input_text_into_a_password_field_is_checked_by_length_and_never_shown() -> None:
    """Checked by its bullets, but neither the text nor its length is said: the mask is fixed."""
    login = agent(url=None)
    result = ok(login.call("input_text", target=[500, 330], target_description="password", text="lovelace"))
    assert result["field_text"] == "•••"
    assert result["message"] == "typed the masked text into 'password'" and "8" not in result["message"]


def test_input_text_needs_a_text_field() -> None:
    player = agent()
    result = refused(player.call("input_text", target=player.index("bookmark"), text="x"), "UNSUPPORTED")
    assert "is not a text field: it takes no typing" in result["message"]
    missed = failed(
        player.call("input_text", target=[500, 100], target_description="title", text="x"), "INPUT_REJECTED", "partial"
    )
    assert missed["inputs"] == 1  # the tap went out; no field took focus, so nothing was typed


def test_press_key_back_closes_the_panel_and_home_leaves_the_app() -> None:
    player = agent()
    ok(player.call("click", target=player.index("show_controls")))
    ok(player.call("press_key", key="BACK"))
    assert not player.shown("speed") and player.shown("clock")
    ok(player.call("press_key", key="HOME"))
    assert "Apps" in player.texts()
    ok(player.call("press_key", key="APP_SWITCH"))
    assert "Recent apps" in player.texts()


def test_press_key_enter_submits_the_focused_field() -> None:
    player = agent()
    ok(player.call("input_text", target=player.index("comment"), text="hello"))
    ok(player.call("press_key", key="ENTER"))
    assert "Comment sent" in player.texts()


def test_manage_app_by_display_name_or_package() -> None:
    player = agent()
    stopped = ok(player.call("manage_app", action="stop", app_name="demo"))
    assert stopped["app_id"] == "com.visor.demo" and "Apps" in player.texts()
    launched = ok(player.call("manage_app", action="launch", app_name="com.visor.demo"))
    assert launched["app_id"] == "com.visor.demo" and "Sign in" in player.texts()  # a fresh start


def test_manage_app_names_the_apps_it_knows_when_one_is_missing() -> None:
    result = refused(agent().call("manage_app", action="launch", app_name="Calculator"), "APP_NOT_FOUND")
    assert "Demo (com.visor.demo)" in result["hint"]


def test_wait_for_delay_lets_exactly_that_much_time_pass() -> None:
    player = agent()
    start = player.now_ms()
    result = ok(player.call("wait_for_delay", time_in_ms=180_000))
    assert player.now_ms() - start == 180_000 and (result["dispatched"], result["inputs"]) == ("none", 0)


def test_results_say_how_much_input_went_out() -> None:
    player = agent()
    assert ok(player.call("read_control", selector={"resource_id": rid("clock")}))["dispatched"] == "none"
    assert ok(player.call("click", target=player.index("bookmark"), times=2))["inputs"] == 2


def test_a_click_on_an_element_under_a_dialog_is_refused_and_names_the_dialog() -> None:
    settings = agent("demo://settings")
    dark_mode = settings.index("dark_mode")
    ok(settings.call("click", target=settings.index("logout"), target_description="log out"))
    assert settings.shown("logout")  # the dialog opened over the screen; its elements keep their places
    settings.observe()
    result = refused(settings.call("click", target=dark_mode, target_description="dark mode"), "NOT_VISIBLE")
    assert 'is covered by LinearLayout "parentPanel"' in result["message"] and "nothing was sent" in result["message"]
    assert settings.node("dark_mode").checked is False


def test_a_swipe_of_a_list_under_a_dialog_is_refused() -> None:
    feed = agent("demo://feed", seed=1)  # with seed 1 the promotion dialog shows when the feed opens
    assert "Special offer" in feed.texts()
    result = refused(feed.call("swipe", direction="up", target=rid("feed"), target_description="feed"), "NOT_VISIBLE")
    assert "covered by FrameLayout" in result["message"]


def test_input_text_of_a_runs_secret_into_a_plain_field_reports_it_as_a_password() -> None:
    """A scenario's --secret value: neither its text nor its length is said, and the field is remembered."""
    from visor.ext.tools.call_context import ToolContext
    from visor.ext.tools.dispatch import call_tool

    login = agent(url=None)
    user = login.index("username")
    assert login.device is not None
    context = ToolContext(login.device, login.clock, login.state, login.settings, withheld=["summer2024"])
    result = call_tool("input_text", {"target": user, "text": "summer2024"}, context).to_dict()
    assert (result["status"], result["field_text"]) == ("ok", "•••")
    assert "summer2024" not in str(result) and "10" not in result["message"]
    assert [node.resource_id for node in context.secret_fields] == [rid("username")]
    assert login.text("username") == "summer2024"  # the field really holds it
