"""`config.observe: on-demand` over Appium: targets found by the driver, a script's requests, the signature kept.

Each step costs what a hand-written script's does (a find and an action; typing adds one read of the field, to
check the text arrived); the screen is read for the last step, a failed one, and what only the tree answers.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli
from tests.runtimes.appium.conftest import FAKE_APP, AppiumServer
from tests.runtimes.appium.test_appium_e2e import scenario

STEPS = (
    '{id: tap, command: tap, args: {target: "text=Log in"}}',
    '{id: type, command: act, args: {name: type, target: "id=username", value: ada}}',
    '{id: again, command: tap, args: {target: "text=Log in"}}',
)


def run(cli_runner: Cli, server: AppiumServer, path: Path, *extra: str) -> tuple[object, list[str]]:
    """Run the scenario on `server`; return the run and the requests it sent (the device log's one aside)."""
    before = len(server.requests())
    result = cli_runner.run("run", str(path), "--server-url", server.url, "--output", str(path.parent / "out"),
                            *extra)  # fmt: skip
    sent = [line.split(" ", 2)[0] + " " + line.split(" ", 2)[1].split("/", 3)[-1] for line in
            server.requests()[before:]]  # fmt: skip
    # The device log is asked for once: the fake driver keeps no logcat, so it is never asked again.
    assert sent.count("POST se/log") == 1
    return result, [line for line in sent if line != "POST se/log"]


def test_steps_cost_a_scripts_requests_and_the_last_screen_is_read(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(tmp_path / "s.yaml", *STEPS)
    result, sent = run(cli_runner, appium_server, path, "--observe", "on-demand")
    assert result.exit_code == 0, result.stderr  # type: ignore[attr-defined]
    steps = [line for line in sent if not line.startswith(("POST session", "DELETE", "GET window"))]
    assert steps == [
        "POST elements", "POST element/1/click",  # tap: a find and a click
        "POST elements", "POST element/2/value", "GET element/2/text",  # type: the keys, then the field read
        "POST elements", "POST element/1/click",
        "GET source",  # the screen the run ends on
    ]  # fmt: skip
    run_data = result.data["run"]  # type: ignore[attr-defined]
    target = run_data["steps"][0]["details"]["target"]
    assert target["native"]["strategy"] == "xpath" and target["matches"] == 1 and "element" not in target
    assert "screen" not in run_data["steps"][0]["details"] and "screen" in run_data["steps"][2]["details"]


def test_each_step_reads_the_screen_by_default(cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path) -> None:
    result, sent = run(cli_runner, appium_server, scenario(tmp_path / "s.yaml", *STEPS))
    assert result.exit_code == 0  # type: ignore[attr-defined]
    assert sent.count("GET source") >= 3
    # The screen is the check; where it does not show the text (the fake driver's page source never shows typed
    # text), the element typed into is read back: the driver has the last word.
    typed = sent.index(next(line for line in sent if line.endswith("/value")))
    assert sent[typed + 1 : typed + 3] == ["GET source", sent[typed].replace("POST", "GET").replace("/value", "/text")]
    type_step = result.data["run"]["steps"][1]["details"]  # type: ignore[attr-defined]
    assert "unverified" not in type_step and type_step["field"]["resource_id"].endswith("username")


def test_a_changed_screen_still_changes_the_signature(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    changed = tmp_path / "changed.fake.xml"
    changed.write_text(FAKE_APP.read_text().replace('text="Welcome back"', 'text="Welcome, new user"'))
    signatures = []
    for app in (FAKE_APP, changed, FAKE_APP):
        path = scenario(tmp_path / "s.yaml", *STEPS)
        path.write_text(path.read_text().replace(str(FAKE_APP), str(app)))
        result, _sent = run(cli_runner, appium_server, path, "--observe", "on-demand")
        signatures.append(result.data["run"]["determinism_signature"])  # type: ignore[attr-defined]
    assert signatures[0] == signatures[2] != signatures[1]


def test_typing_into_what_takes_no_text_fails_the_step(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(tmp_path / "s.yaml", '{id: type, command: act, args: {name: type, target: "text=Log in", '
                                         "value: ada}}")  # fmt: skip
    result, _sent = run(cli_runner, appium_server, path, "--observe", "on-demand")
    assert result.exit_code == 2  # type: ignore[attr-defined]
    assert "could not type into the element" in result.envelope["error"]["message"]  # type: ignore[attr-defined]


def test_a_target_not_found_is_looked_for_on_the_screen_for_its_candidates(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(tmp_path / "s.yaml", '{id: tap, command: tap, args: {target: "text=Log on"}}')
    path.write_text(path.read_text().replace("seed: 1", "seed: 1\n  timeoutMs: 300"))
    result, sent = run(cli_runner, appium_server, path, "--observe", "on-demand")
    assert result.exit_code == 2  # type: ignore[attr-defined]
    details = result.data["run"]["steps"][0]["details"]  # type: ignore[attr-defined]
    assert any(candidate["selector"] == "text=Log in" for candidate in details["candidates"])
    assert "GET source" in sent


def test_a_wait_for_an_element_polls_the_find_not_the_screen(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    path = scenario(
        tmp_path / "s.yaml",
        '{id: here, command: wait, args: {for: "text~=Welcome"}}',
        '{id: tap, command: tap, args: {target: "text=Log in"}}',
    )
    result, sent = run(cli_runner, appium_server, path, "--observe", "on-demand")
    assert result.exit_code == 0, result.stderr  # type: ignore[attr-defined]
    steps = [line for line in sent if not line.startswith(("POST session", "DELETE", "GET window"))]
    assert steps == ["POST elements", "POST elements", "POST element/2/click", "GET source"]
    details = result.data["run"]["steps"][0]["details"]  # type: ignore[attr-defined]
    assert details["target"]["native"]["found"] == 1


def test_on_demand_runs_in_one_session_sign_alike_whatever_is_captured(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    # The app's package is learned from the first page source read: later runs in the session find a short id
    # by its full resource id, the first by its end. How visor asked the driver is not signed; what it found is.
    path = scenario(tmp_path / "s.yaml", *STEPS)
    bench = cli_runner.run("benchmark", str(path), "--runs", "3", "--server-url", appium_server.url,
                           "--observe", "on-demand", "--output", str(tmp_path / "bench"))  # fmt: skip
    assert bench.exit_code == 0, bench.stderr
    assert bench.data["determinismScore"] == 100.0
    plain, _ = run(cli_runner, appium_server, path, "--observe", "on-demand")
    captured, sent = run(cli_runner, appium_server, path, "--observe", "on-demand", "--capture", "steps")
    assert sent.count("GET source") == 3  # every step's screen kept as evidence…
    signature = "determinism_signature"
    assert captured.data["run"][signature] == plain.data["run"][signature]  # type: ignore[attr-defined]
