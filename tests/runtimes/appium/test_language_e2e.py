"""The scenario language on a real Appium server with the fake driver: what the walk decides is the device's."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Cli
from tests.runtimes.appium.conftest import AppiumServer
from tests.runtimes.appium.test_appium_e2e import FAKE_CAPS

FLOW = """meta: {name: tap-it, version: '1'}
config: {}
steps:
  - {id: tap, command: tap, args: {target: {text: "${LABEL}"}}}
"""

SCENARIO = """meta: {name: language, version: '1'}
config:
  seed: 5
  runtime: appium
CAPS
steps:
  - {id: label, command: eval_script, args: {script: "var times = 2; output.label = 'Log' + ' in'"}}
  - {id: tap-label, command: tap, args: {target: {text: "${output.label}"}}}
  - id: maybe
    optional: true
    steps:
      - {id: nowhere, command: tap, args: {target: "text=Nowhere"}}
  - {id: when-seen, command: wait, args: {ms: 1}, when: {visible: "id=username", within_ms: 1000}}
  - {id: when-not, command: wait, args: {ms: 1}, when: {visible: "text=Nowhere"}}
  - id: twice
    repeat: {times: "${(times)}"}
    steps:
      - {id: pause, command: wait, args: {ms: 1}}
  - {id: flow, command: run_flow, args: {file: flow.yaml, env: {LABEL: Log in}}}
teardown:
  - {id: last, command: wait, args: {ms: 1}}
"""


def test_the_languages_decisions_on_the_fake_driver_and_one_signature(
    cli_runner: Cli, appium_server: AppiumServer, tmp_path: Path
) -> None:
    (tmp_path / "visor.toml").write_text("")
    (tmp_path / "flow.yaml").write_text(FLOW)
    scenario = tmp_path / "language.yaml"
    scenario.write_text(SCENARIO.replace("CAPS\n", FAKE_CAPS))
    signatures = set()
    for run in range(2):
        done = cli_runner.run("run", str(scenario), "--server-url", appium_server.url, "--timeout", "1500",
                              "--output", str(tmp_path / f"o{run}"))  # fmt: skip
        assert done.exit_code == 0, done.envelope.get("error")
        steps = {step["id"]: step for step in done.data["run"]["steps"]}
        assert steps["tap-label"]["details"]["filled"] == {"target.text": "Log in"}
        assert steps["nowhere"]["status"] == "skipped" and steps["maybe"]["details"]["optional"] is True
        assert steps["when-seen"]["status"] == "ok" and steps["when-not"]["status"] == "skipped"
        assert steps["twice"]["details"]["count"] == 2 and "pause#2" in steps
        assert steps["flow/tap"]["status"] == "ok" and steps["last"]["details"]["teardown"] is True
        signatures.add(done.data["run"]["determinism_signature"])
    assert len(signatures) == 1
