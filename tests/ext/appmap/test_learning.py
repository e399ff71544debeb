"""The app map learns from runs and direct actions: edges between screens seen settled, never a moving one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, Cli

SIGN_IN = """\
meta: {name: sign-in, version: "1"}
config: {seed: 7, runtime: sim, app: demo, timeoutMs: 3000}
steps:
  - {id: user, command: act, args: {name: type, target: "id=username", value: ada}}
  - {id: password, command: act, args: {name: type, target: "id=password", value: lovelace}}
  - {id: submit, command: tap, args: {target: "text=Log in"}}
  - {id: feed, command: wait, args: {for: "text=Item 1", timeout: 3000}}
"""

#: Signs in and taps a button of the feed from the sign-in screen: only a map that knows the way gets there.
DETOUR = """\
meta: {name: detour, version: "1"}
config: {seed: 7, runtime: sim, app: demo, timeoutMs: 3000}
steps:
  - {id: user, command: act, args: {name: type, target: "id=username", value: ada}}
  - {id: password, command: act, args: {name: type, target: "id=password", value: lovelace}}
  - {id: settings, command: tap, args: {target: "text=Settings"}}
assertions:
  - {id: there, type: visible, target: "id=dark_mode"}
"""


def _loading(tmp_path: Path, target: str, timeout_ms: int, *more: str) -> str:
    """Write a scenario tapping `target` on the loading fixture (a screen still changing for 1.5 s after Open).

    `more` are further steps, as YAML flow mappings.
    """
    shutil.copy(FIXTURES / "apps" / "loading.app.yaml", tmp_path / "loading.app.yaml")
    tap = f'{{id: tap, command: tap, args: {{target: "{target}"}}}}'
    steps = "".join(f"  - {step}\n" for step in (tap, *more))
    (tmp_path / "loading.yaml").write_text(
        'meta: {name: loading, version: "1"}\n'
        f"config: {{seed: 1, runtime: sim, app: loading.app.yaml, timeoutMs: {timeout_ms}}}\n"
        f"steps:\n{steps}"
    )
    return "loading.yaml"


def _map(folder: Path) -> dict[str, Any]:
    (path,) = (folder / ".visor" / "maps").glob("*.json")
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def _edges(document: dict[str, Any]) -> list[tuple[str, list[str], list[str]]]:
    """Return each edge as (target, the keys of the screen it leaves, the keys of the screen it reaches)."""
    keys = {variant["id"]: variant["element_keys"] for variant in document["variants"]}
    return [(e["target"], keys[e["from_variant_id"]], keys[e["to_variant_id"]]) for e in document["edges"]]


def test_a_run_that_signs_in_teaches_the_edge_and_a_later_run_detours_through_it(
    cli_runner: Cli, tmp_path: Path
) -> None:
    (tmp_path / "sign-in.yaml").write_text(SIGN_IN)
    (tmp_path / "detour.yaml").write_text(DETOUR)
    before = cli_runner.run("run", "detour.yaml", "--output", "out")
    assert before.exit_code == 2  # no map yet: the feed's button is not on the sign-in screen
    assert not (tmp_path / ".visor" / "maps").exists()  # a run that learnt nothing leaves no map
    first = cli_runner.run("run", "sign-in.yaml", "--output", "out")
    assert first.exit_code == 0 and first.data["run"]["map"]["updated"] is True, first.stdout
    ((target, source, reached),) = _edges(_map(tmp_path))
    # Past the 800 ms spinner: the sign-in leads to the feed, not to the sign-in showing its spinner.
    assert target == "text=Log in" and "id=com.visor.demo:id/login" in source
    assert "id=com.visor.demo:id/open_settings" in reached and "id=com.visor.demo:id/loading" not in reached
    detour = cli_runner.run("run", "detour.yaml", "--output", "out")
    assert detour.exit_code == 0, detour.stdout
    routed = detour.data["run"]["steps"][2]["details"]["map"]
    assert routed["routed"] and routed["verified"] and [leg["target"] for leg in routed["route"]] == ["text=Log in"]


def test_learning_does_not_change_a_runs_signature(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "sign-in.yaml").write_text(SIGN_IN)
    signatures = {cli_runner.run("run", "sign-in.yaml", "--output", "out", *extra).data["run"]["determinism_signature"]
                  for extra in ((), (), ("--no-map",), ())}  # fmt: skip
    assert len(signatures) == 1
    assert _map(tmp_path)["edges"][0]["successes"] == 3  # seen again, and again


def test_a_tap_that_changed_nothing_teaches_nothing(cli_runner: Cli, tmp_path: Path) -> None:
    result = cli_runner.run("run", _loading(tmp_path, "text=Nothing", 3000), "--output", "out")
    assert result.exit_code == 0 and result.data["run"]["map"]["updated"] is False
    assert not (tmp_path / ".visor" / "maps").exists()


def test_no_edge_is_learnt_while_the_screen_after_still_changes(cli_runner: Cli, tmp_path: Path) -> None:
    # At the run's end the screen shows "Loading 1"; it changes every 50 ms until 1.5 s after the tap. The
    # learner does not wait for it (on the simulated phone that would move the app's time on): nothing is learnt.
    moving = cli_runner.run("run", _loading(tmp_path, "text=Open", 3000), "--output", "out")
    assert moving.exit_code == 0 and moving.data["run"]["map"]["updated"] is False
    assert not (tmp_path / ".visor" / "maps").exists()
    waited = '{id: done, command: wait, args: {for: "text=All loaded", timeout: 3000}}'
    settled = cli_runner.run("run", _loading(tmp_path, "text=Open", 3000, waited), "--output", "out")
    assert settled.exit_code == 0 and settled.data["run"]["map"]["updated"] is True
    ((target, _, reached),) = _edges(_map(tmp_path))
    assert target == "text=Open" and "all loaded" in reached  # the screen the run saw settled, never the loading one
    assert not any(key.startswith("loading") for key in reached)


def test_learning_moves_no_time_on_the_simulated_phone(cli_runner: Cli, tmp_path: Path) -> None:
    # A Cancel button on the loading screen: tapped before the load ends, it goes home. A learner that waited for
    # the screen to settle after Open would let the load end first, and the run would fail with the map only.
    app = (FIXTURES / "apps" / "loading.app.yaml").read_text()
    cancel = "      - {type: button, id: cancel, text: Cancel, on_tap: [{go: home}]}\n"
    marker = '      - {type: text, id: progress, text: "Loading {p}", style: title}\n'
    assert marker in app
    scenario = _loading(tmp_path, "text=Open", 3000, '{id: cancel, command: tap, args: {target: "text=Cancel"}}')
    (tmp_path / "loading.app.yaml").write_text(app.replace(marker, marker + cancel))
    runs = [cli_runner.run("run", scenario, "--output", "out", *extra) for extra in (("--no-map",), ())]
    assert [run.exit_code for run in runs] == [0, 0], runs[1].stdout
    assert len({run.data["run"]["determinism_signature"] for run in runs}) == 1


TWO_SCREENS = """\
app: {id: com.visor.two, name: Two, start: first}
screens:
  first:
    title: First
    elements: [{type: button, id: next, text: Next, on_tap: [{go: second}]}]
  second:
    title: Second
    elements: [{type: text, id: here, text: Second screen, style: title}]
"""


def test_a_direct_action_teaches_the_map(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "two.app.yaml").write_text(TWO_SCREENS)
    tapped = cli_runner.run("tap", "--runtime", "sim", "--app", "two.app.yaml", "--target", "text=Next")
    assert tapped.exit_code == 0 and tapped.data["map"]["updated"] is True, tapped.stdout
    ((target, _, reached),) = _edges(_map(tmp_path))
    assert target == "text=Next" and "second screen" in reached


@pytest.mark.parametrize("off", ["--no-map", "VISOR_NO_MAP=1", "VISOR_NO_MAP=yes"])
def test_no_map_writes_nothing(cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, off: str) -> None:
    (tmp_path / "sign-in.yaml").write_text(SIGN_IN)
    extra = [off] if off.startswith("--") else []
    if not extra:
        monkeypatch.setenv(*off.split("="))
    result = cli_runner.run("run", "sign-in.yaml", "--output", "out", *extra)
    assert result.exit_code == 0 and result.data["run"].get("map", {"enabled": False})["enabled"] is False
    tapped = cli_runner.run("tap", "--runtime", "sim", "--target", "text=Log in", *extra)
    assert tapped.data["map"]["enabled"] is False
    discovered = cli_runner.run("discover", "--runtime", "sim", *extra)  # the variable reaches every map command
    assert discovered.exit_code == 0 and discovered.data["map"]["enabled"] is False
    if not extra:  # --to and --observation-token refuse --no-map as a flag; the variable they heed
        routed = cli_runner.run("route", "--to", "Settings", "--runtime", "sim")
        assert routed.exit_code == 2 and routed.data["reason"] == "Deterministic routes require app-map persistence"
        (tmp_path / "note.json").write_text('{"screen": {"label": "Sign in", "purpose": "Sign in"}}')
        noted = cli_runner.run("discover", "--observation-token", "variant_1.0123456789abcdef",
                               "--annotate-current", "note.json")  # fmt: skip
        assert noted.exit_code == 1 and "VISOR_NO_MAP" in noted.envelope["error"]["message"]
    assert not (tmp_path / ".visor").exists()


def test_a_benchmarks_runs_start_from_the_same_map_and_its_lessons_are_written_once(
    cli_runner: Cli, tmp_path: Path
) -> None:
    (tmp_path / "sign-in.yaml").write_text(SIGN_IN)
    result = cli_runner.run("benchmark", "sign-in.yaml", "--runs", "3", "--output", "out", "--compare-map")
    assert result.exit_code == 0 and result.data["determinismScore"] == 100.0, result.stdout
    # Each run learnt the edge against the map as the benchmark found it (none): no run saw another's lesson.
    assert [len(run["edges_added"]) for run in result.data["map_drift"]["runs"]] == [1, 1, 1]
    ((edge),) = _map(tmp_path)["edges"]
    assert edge["successes"] == 3 and edge["target"] == "text=Log in"


#: A child visor whose map write waits, once it has run, for the test to say go: both runs have read the map
#: before either writes it.
CHILD = """\
import os, sys, time
from visor.ext.appmap import learning as map_learning
real = map_learning.persist
ready, go, scenario = sys.argv[1:4]
def held(*args, **kwargs):
    open(ready, "w").close()
    while not os.path.exists(go):
        time.sleep(0.01)
    return real(*args, **kwargs)
map_learning.persist = held
from visor.cli import main
sys.argv = ["visor", "run", scenario, "--output", "out"]
main()
"""

FEED_SETTINGS = """\
meta: {name: feed-settings, version: "1"}
config: {seed: 42, runtime: sim, app: demo, timeoutMs: 3000}
steps:
  - {id: feed, command: navigate, args: {to: "demo://feed"}}
  - {id: settings, command: tap, args: {target: "id=open_settings"}}
"""


def test_two_runs_at_once_keep_each_others_edges(tmp_path: Path) -> None:
    (tmp_path / "sign-in.yaml").write_text(SIGN_IN)
    (tmp_path / "feed-settings.yaml").write_text(FEED_SETTINGS)
    children = []
    for name in ("sign-in", "feed-settings"):
        argv = [sys.executable, "-c", CHILD, str(tmp_path / f"{name}.ready"), str(tmp_path / "go"), f"{name}.yaml"]
        children.append(subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, env={**os.environ}))
    deadline = time.monotonic() + 120
    while not all((tmp_path / f"{name}.ready").exists() for name in ("sign-in", "feed-settings")):
        assert time.monotonic() < deadline and all(child.poll() is None for child in children)
        time.sleep(0.05)
    (tmp_path / "go").touch()  # both read the map (there was none) before either writes it
    for child in children:
        out, _ = child.communicate(timeout=120)
        assert child.returncode == 0, out
    targets = sorted(target for target, _, _ in _edges(_map(tmp_path)))
    assert targets == ["id=open_settings", "text=Log in"]


def test_runs_learn_where_a_look_is_cheap_never_through_a_phones_round_trips() -> None:
    """The simulated phone learns; a device that reads its screen by a round trip (Appium) is not looked at."""
    from visor.device.protocol import Capabilities, DeviceInfo
    from visor.ext.appmap.learning import learns_on
    from visor.ui.geometry import Size

    def info(**capabilities: bool) -> DeviceInfo:
        return DeviceInfo("android", "d", "r", Size(1080, 1920), capabilities=Capabilities(**capabilities))

    assert learns_on(info()) and not learns_on(info(element_handles=True)) and not learns_on(info(ui_tree=False))


def test_a_tap_whose_selector_this_platform_cannot_use_fails_the_step_with_the_map_on(
    cli_runner: Cli, tmp_path: Path
) -> None:
    """The map's check for a detour met the selector first, and crashed on it; the step says what is wrong."""
    (tmp_path / "pred.yaml").write_text("meta: {name: pred, version: '1'}\nconfig: {runtime: sim, seed: 1, app: demo, "
                                        "timeoutMs: 300}\nsteps:\n  - {id: ios, command: tap, args: {target: "
                                        "\"predicate=label == 'x'\"}}\n")  # fmt: skip
    result = cli_runner.run("run", "pred.yaml", "--output", "out")
    step = result.data["run"]["steps"][0]
    assert result.exit_code == 2 and step["error"]["message"].endswith("predicate= selectors are iOS only; this "
                                                                       "device is android")  # fmt: skip


@pytest.mark.parametrize(("quiet_us", "looks"), [(150_000, 1), (20_000, 3), (None, 3)])
def test_a_screen_its_device_saw_quiet_long_enough_needs_no_second_look(quiet_us: int | None, looks: int) -> None:
    """A web page says how long its DOM had not changed when read: quiet for a poll's time is settled already."""
    from tests.simkit import demo_device
    from visor.clock import VirtualClock
    from visor.device.protocol import Observation
    from visor.ext.appmap.learning import Learner
    from visor.ext.appmap.model import AppMap, MapPlace

    tree = demo_device().observe().tree
    seen: list[int] = []

    class Page:
        info = demo_device().info

        def observe(self) -> Observation:
            seen.append(1)
            return Observation(tree, quiet_us=quiet_us)

    clock = VirtualClock()
    app_map = AppMap.new(MapPlace.of("web", "http://x/", "/tmp/unused"), "t")
    learner = Learner(app_map, Page(), clock, clock, 5_000_000)  # type: ignore[arg-type]
    assert learner._look() is tree and len(seen) == looks
