"""The web platform on a real engine: Chromium in mobile emulation through Appium's Chromium driver.

Real rendering, layout, input events and timing, on pages served from tests/appium/web on 127.0.0.1: the
tree read from the live DOM, taps and typing that change the page, the browser's back, real screenshots,
a scenario that runs and benchmarks at 100, and one made nondeterministic on purpose, caught at its step.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bench.latency_proxy import serve
from tests.conftest import Cli
from tests.runtimes.appium.conftest import WEB_PAGES, AppiumServer, need_browser
from visor.device.protocol import InputRejected, Key, SessionRestarted, UnsupportedInput
from visor.device.video import LONG_SIDE
from visor.errors import ExitCode
from visor.runtimes.appium.device import AppiumDevice
from visor.runtimes.appium.web import processes_with
from visor.selectors.parse import parse_selector
from visor.steps.targets import match_all
from visor.ui.geometry import Point
from visor.ui.hit import aim, located, reaches
from visor.ui.query import QueryError, find
from visor.ui.tree import Node, UiTree

Open = Callable[..., AppiumDevice]


def _one(tree: UiTree, selector: str) -> Node:
    [node] = find(tree, parse_selector(selector), platform="web")
    return node


def test_the_page_is_the_screen_and_its_tree_reads_as_chrome_shows_it_to_accessibility(
    web_device: Open, web_site: str
) -> None:
    device = web_device()
    assert device.info.platform == "web" and (device.info.size.width, device.info.size.height) == (412, 915)
    device.open_url(web_site + "index.html")
    tree = device.observe().tree
    assert tree.platform == "web" and tree.size == device.info.size
    name = _one(tree, "id=name")
    assert (name.class_name, name.hint, name.content_desc, name.editable) == (
        "android.widget.EditText", "Your name", "Name", True)  # fmt: skip
    assert _one(tree, "id=password").password
    submit = _one(tree, "id=submit")  # data-testid
    assert (submit.class_name, submit.text, submit.clickable) == ("android.widget.Button", "Sign in", True)
    menu = _one(tree, "accessibility=Open menu")
    assert menu.resource_id == "menu-button" and menu.clickable
    remember = _one(tree, "id=remember")
    assert (remember.class_name, remember.checkable, remember.checked) == ("android.widget.CheckBox", True, False)
    assert all(tree.screen.contains(Point(n.bounds.left, n.bounds.top)) for n in (name, submit, menu))
    # The drawer is hidden until the menu opens it.
    drawer = next(node for node in tree.nodes() if node.content_desc == "Sections")
    assert not drawer.displayed
    assert "<android.widget.EditText" in device.observe().xml


def test_css_selectors_are_the_browsers_and_map_onto_the_tree_read(web_device: Open, web_site: str) -> None:
    device = web_device()
    device.open_url(web_site + "index.html")
    observation = device.observe()

    def css(selector: str) -> list[Node]:
        return match_all(observation, parse_selector(f"css={selector}"), "web")

    assert [node.resource_id for node in css("form#form input")] == ["name", "password", "remember"]
    assert [node.text for node in css("button.primary[type=submit]")] == ["Sign in"]
    # What the tree does not hold (a script, the head: nothing rendered) is matched by the browser, not the screen.
    assert css("script, head") == [] and css("#nothing-here") == []
    assert css("label:has(> input:not(:checked))")[0].text == "Remember me"
    with pytest.raises(QueryError, match="the browser refused it"):
        css("a:no-such-state")  # past the syntax check (it leaves pseudo-classes to the browser), not the browser


def test_typing_and_taps_change_the_page_and_the_typed_text_reads_back(web_device: Open, web_site: str) -> None:
    device = web_device()
    device.open_url(web_site + "index.html")
    tree = device.observe().tree
    device.type_text("Ada", into=_one(tree, "id=name"))
    assert device.typed_text() == "Ada"  # an input's text is its value
    device.type_text("lovelace", into=_one(tree, "id=password"))
    device.tap(_one(tree, "id=submit").bounds.center)
    tree = device.observe().tree
    assert _one(tree, "id=greeting").text == "Welcome, Ada!"
    assert _one(tree, "id=name").text == "Ada" and _one(tree, "id=password").text == "lovelace"
    assert _one(tree, "id=password").shown_text == "••••••••"
    device.press_key(Key.ENTER)  # the focused password field submits its form again
    with pytest.raises(UnsupportedInput, match="a web page has no volume_up key"):
        device.press_key(Key.VOLUME_UP)


def test_a_screenshot_is_the_real_page_in_device_pixels(web_device: Open, web_site: str) -> None:
    device = web_device("360x640@2")
    assert (device.info.size.width, device.info.size.height) == (360, 640)
    device.open_url(web_site + "index.html")
    image = Image.open(io.BytesIO(device.screenshot()))
    assert image.size == (720, 1280)
    # The header is the page's green, where the page puts it.
    assert image.convert("RGB").getpixel((600, 20)) == (46, 125, 50)


def test_the_browser_goes_back_and_an_element_gone_since_the_read_is_refused(web_device: Open, web_site: str) -> None:
    device = web_device()
    device.open_url(web_site + "index.html")
    old = device.observe().tree
    device.open_url(web_site + "roll.html")
    assert any(node.text == "Roll" for node in device.observe().tree.nodes())
    with pytest.raises(InputRejected, match="not on the page last read"):
        device.type_text("x", into=_one(old, "id=name"))
    device.press_key(Key.BACK)
    assert any(node.resource_id == "name" for node in device.observe().tree.nodes())


def test_a_touch_is_judged_by_the_browsers_hit_test_so_a_banner_painted_above_covers(
    web_device: Open, web_site: str
) -> None:
    device = web_device()
    device.open_url(web_site + "banner.html")
    tree = device.observe().tree
    button, banner = (located(tree, _one(tree, selector)) for selector in ("id=subscribe", "id=banner"))
    assert button is not None and banner is not None and banner.index < button.index  # first in page order
    centre = button.node.bounds.center_within(tree.screen)
    assert reaches(replace(tree, touches=None, touch_at=None), centre, button) is None  # page order alone: free
    blocker = reaches(tree, centre, button)  # the browser paints the banner above it
    assert blocker is not None and blocker.node.resource_id in ("banner", "")
    assert aim(tree, button).point is None and aim(tree, button).covered_by is not None
    accept = located(tree, _one(tree, "id=accept"))
    assert accept is not None and aim(tree, accept).point is not None
    device.tap(aim(tree, accept).point)  # type: ignore[arg-type]
    after = device.observe().tree
    button = located(after, _one(after, "id=subscribe"))
    assert button is not None and aim(after, button).point is not None


def test_a_tap_under_a_banner_waits_and_says_what_covers_it_and_lands_once_it_is_gone(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    need_browser()
    path = _web_scenario(
        tmp_path / "banner.yaml",
        "  - {id: open, command: navigate, args: {to: '${SITE}banner.html'}}",
        "  - {id: early, command: tap, args: {target: 'text=Subscribe'}, optional: true}",
        "  - {id: accept, command: tap, args: {target: 'text=Accept'}}",
        "  - {id: subscribe, command: tap, args: {target: 'text=Subscribe'}}",
        "  - {id: said, command: wait, args: {for: 'text=Subscribed', timeout: 3000}}",
    )
    done = _cli(cli_runner, appium_server, web_site, "run", str(path), "--timeout", "1500",
                "--output", str(tmp_path / "run"))  # fmt: skip
    assert done.exit_code == ExitCode.OK, json.dumps(done.envelope)[:3000]
    early = done.data["run"]["steps"][1]
    assert early["status"] == "skipped" and 'is covered by View "banner"' in early["details"]["missed"]


def test_a_web_app_is_its_site(web_device: Open, web_site: str) -> None:
    device = web_device()
    device.launch_app(web_site + "index.html")
    assert device.app_in_front(web_site)
    device.stop_app(web_site)
    assert not device.app_in_front(web_site)
    with pytest.raises(InputRejected, match="is no web address"):
        device.launch_app("com.example.app")


def _web_scenario(path: Path, *steps: str) -> Path:
    """Write a web scenario of `steps` (YAML lines below `steps:`), its pages at `${SITE}`."""
    name = path.stem
    path.write_text(f"meta: {{name: {name}, version: '1', platform: web}}\nconfig: {{seed: 1}}\nenv: {{SITE: x}}\n"
                    "steps:\n" + "".join(f"{step}\n" for step in steps))  # fmt: skip
    return path


def _scenario(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    path.write_text((WEB_PAGES / name).read_text())
    return path


def _cli(cli_runner: Cli, server: AppiumServer, site: str, *args: str) -> Any:
    return cli_runner.run(*args, "--runtime", "appium", "--server-url", server.url, "-e", f"SITE={site}")


def _passes_and_benchmarks_at_100(
    cli_runner: Cli, server: AppiumServer, site: str, tmp_path: Path, name: str
) -> tuple[Any, dict[str, Any]]:
    """Run the scenario `name` (it must pass), then benchmark it over 20 runs (one signature); return its run
    and its steps by id."""
    need_browser()
    path = _scenario(tmp_path, name)
    done = _cli(cli_runner, server, site, "run", str(path), "--output", str(tmp_path / "run"))
    assert done.exit_code == ExitCode.OK, json.dumps(done.envelope)[:3000]
    bench = _cli(cli_runner, server, site, "benchmark", str(path), "--runs", "20", "--output", str(tmp_path / "bench"))
    assert bench.exit_code == ExitCode.OK, json.dumps(bench.envelope)[:3000]
    assert bench.data["determinismScore"] == 100 and len(bench.data["signatures"]) == 1
    return done, {step["id"]: step for step in done.data["run"]["steps"]}


def test_the_pantry_scenario_passes_and_benchmarks_at_100_over_twenty_runs(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    done, steps = _passes_and_benchmarks_at_100(cli_runner, appium_server, web_site, tmp_path, "pantry.yaml")
    assert set(steps["password"]["details"]["field"]["text"]) == {"•"}  # masked in the envelope
    assert steps["page"]["details"]["context"] == steps["drawer:context"]["details"]["context"] == "CHROMIUM"
    assert "lovelace" not in json.dumps(done.envelope)
    assert appium_server.sessions() == []  # every run ended its session


def test_a_page_nondeterministic_on_purpose_is_caught_at_its_step(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    need_browser()
    path = _web_scenario(
        tmp_path / "roll.yaml",
        "  - {id: open, command: navigate, args: {to: '${SITE}roll.html'}}",
        "  - {id: roll, command: tap, args: {target: 'text=Roll'}}",
        "  - {id: face, command: wait, args: {for: 'text~=Rolled', timeout: 3000}}",
        "  - {id: shown, command: source, args: {}}",
    )
    bench = _cli(cli_runner, appium_server, web_site, "benchmark", str(path), "--runs", "3",
                 "--output", str(tmp_path / "bench"))  # fmt: skip
    assert bench.data["determinismScore"] < 100, json.dumps(bench.envelope)[:2000]
    assert bench.data["divergence"]["id"] == "roll"  # the tap after which the page shows another number


def test_a_web_views_steps_run_on_a_browsers_page_whose_one_context_it_is(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    need_browser()
    path = _web_scenario(
        tmp_path / "hybrid.yaml",
        "  - {id: open, command: navigate, args: {to: '${SITE}index.html'}}",
        "  - id: page\n    context: webview\n    steps:",
        "      - {id: name, command: act, args: {name: type, target: 'css=#name', value: Ada}}",
        "      - {id: remember, command: tap, args: {target: 'css=#remember'}}",
        "  - {id: native, command: switch_context, args: {to: native}}",
    )
    done = _cli(cli_runner, appium_server, web_site, "run", str(path), "--output", str(tmp_path / "run"))
    steps = {step["id"]: step for step in done.data["run"]["steps"]}
    assert [step["status"] for step in done.data["run"]["steps"]] == ["ok"] * 6 + ["fail"]
    assert steps["page:context"]["details"]["context"] == steps["page:context-end"]["details"]["context"] == "CHROMIUM"
    assert steps["name"]["details"]["field"]["text"] == "Ada"
    assert "a web page has no NATIVE_APP context" in steps["native"]["error"]["message"]
    assert done.exit_code == ExitCode.RUN_FAILED and appium_server.sessions() == []


def test_a_page_that_throws_fails_its_step_as_app_crashed_with_the_console_in_the_device_log(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    """The web platform's device log is the page's console: an uncaught error there is the page's crash."""
    need_browser()
    path = _web_scenario(
        tmp_path / "crash.yaml",
        "  - {id: open, command: navigate, args: {to: '${SITE}crash.html'}}",
        "  - {id: pay, command: tap, args: {target: 'text=Pay'}}",
        "  - {id: paid, command: wait, args: {for: 'text=Paid', timeout: 2000}}",
    )
    done = _cli(cli_runner, appium_server, web_site, "run", str(path), "--output", str(tmp_path / "run"))
    assert done.exit_code == ExitCode.RUN_FAILED, json.dumps(done.envelope)[:3000]
    steps = done.data["run"]["steps"]
    # The crash ends the run's steps: what is left would only wait on a page that broke.
    assert [(step["id"], step["status"]) for step in steps] == [("open", "ok"), ("pay", "fail"), ("paid", "skipped")]
    assert steps[-1]["details"]["reason"] == "the app crashed at step 'pay'"
    steps = steps[:2]
    error, crash = steps[-1]["error"], steps[-1]["details"]["crash"]
    assert error["code"] == "APP_CRASHED" and "Uncaught TypeError" in error["message"]
    assert [(line["level"], line["tag"]) for line in crash["log"]][-1] == ("E", "javascript")
    folder = tmp_path / "run" / done.data["run"]["run_id"]
    logged = (folder / "device.log").read_text()
    assert 'I/console-api: "paying"' in logged and "E/javascript: Uncaught TypeError" in logged
    assert appium_server.sessions() == []


def test_a_phones_own_commands_are_refused_on_a_page_before_anything_is_sent_and_the_location_is_set(
    web_device: Open, web_site: str, appium_server: AppiumServer
) -> None:
    device = web_device()
    before = len(appium_server.commands(device))
    with pytest.raises(UnsupportedInput, match="a web page cannot read airplane mode: that is a phone's"):
        device.airplane_mode()
    with pytest.raises(UnsupportedInput, match=r"a web page cannot add a\.png to the photo library"):
        device.add_media("a.png", b"\x89PNG")
    with pytest.raises(UnsupportedInput, match="a web page cannot"):
        device.set_permissions("http://x/", {"camera": "allow"})
    assert not [line for line in appium_server.commands(device)[before:] if "/execute/" in line]
    device.set_location(48.150636, 17.111754)  # Chromium's geolocation, read back
    assert device.location() == (48.150636, 17.111754)


def test_swagger_ui_a_real_app_runs_its_try_it_out_and_benchmarks_at_100_over_twenty_runs(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    _, steps = _passes_and_benchmarks_at_100(cli_runner, appium_server, web_site, tmp_path, "swagger-ui.yaml")
    # The app sent the request to the test server's API and shows its answer, found by scrolling to it.
    assert steps["to-the-body"]["details"]["target"]["element"]["text"] == '[ "Flour", "Rice", "Lentils" ]'


def test_a_material_for_mkdocs_site_drawer_and_search_run_and_benchmark_at_100_over_twenty_runs(
    cli_runner: Cli, appium_server: AppiumServer, handbook: str, web_site: str, tmp_path: Path
) -> None:
    _, steps = _passes_and_benchmarks_at_100(cli_runner, appium_server, web_site, tmp_path, "handbook.yaml")
    # The drawer's link was tapped where the drawer shows it (the closed drawer's copy is off the screen).
    assert steps["recipes"]["details"]["target"]["element"]["bounds"] == "[0,161][242,209]"


def _alive(pid: int) -> bool:
    """Say whether a process runs (a zombie, ended but not yet reaped by its new parent, does not)."""
    with contextlib.suppress(OSError):
        return " Z " not in Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1][:4] + " "
    return False


@pytest.mark.parametrize("killed", ["chromedriver", "the browser"])
def test_a_killed_driver_or_browser_loses_the_session_which_is_recreated_once_and_nothing_is_left_running(
    web_device: Open, web_site: str, killed: str
) -> None:
    device = web_device()
    device.open_url(web_site + "index.html")
    device.observe()
    profile = f"--user-data-dir={device._profile}"
    port = f"--port={device.capabilities['appium:chromedriverPort']}"
    victims = processes_with(profile) if killed == "the browser" else processes_with(port)
    assert victims, f"no {killed} process found"
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    with pytest.raises(SessionRestarted, match="was lost while trying to read the page and was recreated"):
        device.observe()
    assert device.sessions == 2
    device.open_url(web_site + "index.html")  # the new session works
    assert any(node.resource_id == "name" for node in device.observe().tree.nodes())
    device.close()
    assert not [pid for pid in processes_with(profile) if _alive(pid)]  # the orphaned browser was ended too
    assert not Path(profile.split("=", 1)[1]).exists()


def test_a_page_that_never_loads_fails_its_step_within_the_page_load_time_and_ends_the_session(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need_browser()
    monkeypatch.setenv("VISOR_WEB_PAGE_LOAD_MS", "2000")
    path = tmp_path / "never.yaml"
    path.write_text("meta: {name: never, version: '1', platform: web}\nconfig: {seed: 1}\nenv: {SITE: x}\nsteps:\n"
                    "  - {id: open, command: navigate, args: {to: '${SITE}never'}}\n")  # fmt: skip
    done = _cli(cli_runner, appium_server, web_site, "run", str(path), "--output", str(tmp_path / "out"))
    assert done.exit_code == ExitCode.RUN_FAILED
    [step] = done.data["run"]["steps"]
    assert step["error"]["message"].endswith(f"the page {web_site}never did not load within 2000 ms")
    assert "VISOR_WEB_PAGE_LOAD_MS" in step["error"]["next_step"]
    assert appium_server.sessions() == []


def test_a_page_that_breaks_the_tree_script_says_so_at_once(web_device: Open, web_site: str) -> None:
    device = web_device()
    device.open_url(web_site + "broken.html")
    # Not the script timeout 30 s later: the page's own error, as soon as the walk meets it.
    with pytest.raises(InputRejected, match=r"the page broke visor's script \(TypeError: no styles on this page"):
        device.observe()


def test_a_driver_that_answers_slowly_ends_the_run_within_the_request_time_and_leaves_nothing_running(
    cli_runner: Cli,
    appium_server: AppiumServer,
    web_site: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    need_browser()
    # Every read of the page takes 60 s to come back, past the 10 s each request may take (a session's start too).
    proxy, slow = serve(appium_server.url, 0, lambda method, path: 60_000 if path.endswith("/execute/async") else 0)
    request.addfinalizer(proxy.stop)  # the read it still holds is let go unanswered, its socket closed
    monkeypatch.setenv("VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS", "10000")
    path = _scenario(tmp_path, "pantry.yaml")
    before = set(processes_with("--user-data-dir="))
    started = time.monotonic()
    done = cli_runner.run("run", str(path), "--runtime", "appium", "--server-url", slow, "-e", f"SITE={web_site}",
                          "--output", str(tmp_path / "out"))  # fmt: skip
    assert time.monotonic() - started < 120  # a hang bounded generously, not a speed
    # The device is unusable, not the app wrong: a TARGET_ERROR, naming the request and the step it stopped.
    assert done.exit_code == ExitCode.ERROR, done.stdout + done.stderr
    error = done.envelope["error"]
    assert error["code"] == "TARGET_ERROR" and "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS" in error["next_step"]
    assert "did not answer within 10 s while trying to read the page (POST /session/" in error["message"]
    assert error["message"].endswith("(in step 'open', navigate)")  # the first step that reads the page
    assert appium_server.sessions() == []  # deleted on the server, past the slow proxy
    assert not [pid for pid in set(processes_with("--user-data-dir=")) - before if _alive(pid)]


def test_a_failed_web_run_keeps_a_video_of_the_page_a_picture_each_time_it_was_read(
    cli_runner: Cli, appium_server: AppiumServer, web_site: str, tmp_path: Path
) -> None:
    """The web platform's video: Chromium's driver records nothing, so the page is photographed as it is read."""
    import av  # lazy: only this test reads a video

    need_browser()
    path = _web_scenario(
        tmp_path / "banner.yaml",
        "  - {id: open, command: navigate, args: {to: '${SITE}banner.html'}}",
        "  - {id: accept, command: tap, args: {target: 'text=Accept'}}",
        "  - {id: subscribe, command: tap, args: {target: 'text=Subscribe'}}",
        "  - {id: never, command: wait, args: {for: 'text=Unsubscribed', timeout: 500}}",
    )
    done = _cli(cli_runner, appium_server, web_site, "run", str(path), "--output", str(tmp_path / "run"),
                "--record-video")  # fmt: skip
    assert done.exit_code == ExitCode.RUN_FAILED, json.dumps(done.envelope)[:3000]
    folder = tmp_path / "run" / done.data["run"]["run_id"]
    with av.open(str(folder / "video.webm")) as container:
        stream = container.streams.video[0]
        frames = list(container.decode(stream))
        # The page's screenshots in device pixels, their long side scaled to the video's.
        assert (stream.codec_context.name, stream.height) == ("vp9", LONG_SIDE)
    assert len(frames) >= 3  # the page opened, the banner gone, subscribed (and the end)
    chapters = (folder / "video.vtt").read_text()
    assert chapters.startswith("WEBVTT") and "never (wait): fail" in chapters
    report = (folder / "report.html").read_text()
    assert "<video controls" in report and "▶ the video at this step" in report
    assert appium_server.sessions() == []
