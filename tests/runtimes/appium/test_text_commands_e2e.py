"""Text, key, wait, scroll, touch and location steps on a real Appium server with the fake driver, each saying what it did."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import Cli
from tests.runtimes.appium.conftest import AppiumServer
from tests.runtimes.appium.test_appium_e2e import scenario

STEPS = (
    '{id: type, command: act, args: {name: type, target: "id=username", value: adam}}',
    '{id: erase, command: erase_text, args: {chars: 1, target: "id=username"}}',
    '{id: copy, command: copy_text_from, args: {target: "id=hint"}}',
    '{id: paste, command: paste_text, args: {target: "id=username"}}',
    '{id: random, command: input_random, args: {kind: number, length: 4, target: "id=username"}}',
    '{id: gone, command: wait, args: {gone: "text=Nowhere", timeout: 500}}',
    '{id: scroll, command: scroll_until_visible, args: {target: "text=Log in"}}',
    '{id: long, command: long_tap, args: {target: "text=Log in"}}',
    '{id: hold-point, command: long_tap, args: {point: "10,10", duration_ms: 200}}',
    '{id: twice, command: tap, args: {target: "id=username", count: 2}}',
    "{id: where, command: set_location, args: {latitude: 1.5, longitude: -2.5}}",
    '{id: script, command: eval_script, args: {script: "output.n = 1"}}',
    '{id: holds, command: assert_true, args: {condition: "output.n === 1"}}',
)


def _run(cli_runner: Cli, server: AppiumServer, path: Path, output: Path) -> dict[str, Any]:
    done = cli_runner.run("run", str(path), "--server-url", server.url, "--timeout", "1500", "--output", str(output))
    return done.data["run"]  # type: ignore[no-any-return]


def test_text_wait_scroll_and_script_steps_on_the_fake_driver_each_say_what_they_did_with_one_signature(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(tmp_path / "s.yaml", *STEPS)
    (tmp_path / "visor.toml").write_text("")
    signatures = set()
    for run in range(2):
        done = _run(cli_runner, appium_server, path, tmp_path / f"o{run}")
        steps = {step["id"]: step for step in done["steps"]}
        assert {name: step["status"] for name, step in steps.items()} == dict.fromkeys(steps, "ok"), done
        assert steps["copy"]["details"]["text"] == steps["paste"]["details"]["text"] == "Demo account: ada / lovelace"
        assert steps["random"]["details"]["text"].isdigit() and len(steps["random"]["details"]["text"]) == 4
        assert steps["gone"]["details"]["matched_at_start"] == 0
        assert (steps["scroll"]["details"]["outcome"], steps["scroll"]["details"]["swipes"]) == ("found", 0)
        assert steps["long"]["details"]["duration_ms"] == 1000 and steps["holds"]["details"]["holds"] is True
        assert steps["hold-point"]["details"]["point"] == [10, 10]
        assert steps["where"]["details"]["verified"] is True
        signatures.add(done["determinism_signature"])
    assert len(signatures) == 1  # the random number is the seed's, the same every run


def test_what_the_fake_driver_cannot_do_fails_saying_so_never_a_blind_ok(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    # The fake driver types only into an element it is given: typing into the focused field is refused by it.
    path = scenario(
        tmp_path / "s.yaml",
        '{id: focus, command: tap, args: {target: "id=username"}}',
        "{id: type, command: act, args: {name: type, value: ada}}",
    )
    (tmp_path / "visor.toml").write_text("")
    done = _run(cli_runner, appium_server, path, tmp_path / "o")
    steps = {step["id"]: step for step in done["steps"]}
    assert steps["focus"]["status"] == "ok"
    assert steps["type"]["status"] == "fail"
    assert "this Appium driver cannot type into the focused element" in steps["type"]["error"]["message"]
    assert appium_server.sessions() == []  # the run ended its session
