"""`visor route PLAN`: paths tried in order, every step verified and checkpointed, the map taught (upstream's
appMap e2e route tests, on the crawled demo app)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)

DEMO = "id=com.visor.demo:id/"


def step(name: str, command: str, args: dict[str, Any], screen: str, selector: str, **expect: Any) -> dict[str, Any]:
    return {"id": name, "command": command, "args": args, "safety": "safe",
            "expect": {"screen": screen, "selector": selector, **expect}}  # fmt: skip


SIGN_IN = [
    step("user", "act", {"name": "type", "target": DEMO + "username", "value": "ada"}, "Sign in", DEMO + "password"),
    step(
        "password", "act", {"name": "type", "target": DEMO + "password", "value": "lovelace"}, "Sign in", DEMO + "login"
    ),
    step("login", "tap", {"target": DEMO + "login"}, "screen_4", "text=Feed"),
    step("settings", "tap", {"target": DEMO + "open_settings"}, "screen_2", "text=Notifications"),
]


@pytest.fixture
def crawled(cli_runner: Cli, tmp_path: Path) -> Path:
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    return tmp_path / "maps"


def route(cli: Cli, folder: Path, plan: dict[str, Any], *extra: str) -> Any:
    (folder.parent / "plan.json").write_text(json.dumps(plan))
    return cli.run("route", "plan.json", "--runtime", "sim", "--seed", "7", "--map-dir", "maps", *extra)


def the_map(folder: Path) -> dict[str, Any]:
    return json.loads(next(folder.glob("*.json")).read_text())


def edge(document: dict[str, Any], target: str) -> dict[str, Any]:
    return next(item for item in document["edges"] if item["target"] == target)


def outcomes(data: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    return [(a["path_id"], a["status"], [s["outcome"] for s in a["steps"]]) for a in data["attempts"]]


def test_a_skipped_path_then_a_completed_one(cli_runner: Cli, crawled: Path) -> None:
    before = edge(the_map(crawled), DEMO + "open_settings")
    plan = {"goal": "Open the settings", "paths": [
        {"id": "from-feed", "from": {"selector": "text=Feed"}, "steps": [SIGN_IN[-1]]},
        {"id": "sign-in", "steps": SIGN_IN},
    ]}  # fmt: skip
    result = route(cli_runner, crawled, plan)
    assert result.exit_code == 0, result.stdout
    data = result.data
    assert data["status"] == "completed" and data["selected_path"] == "sign-in"
    assert outcomes(data) == [("from-feed", "skipped", []), ("sign-in", "completed", ["success"] * 4)]
    assert data["attempts"][0]["reason"] == "Current screen does not match 'text=Feed'"
    assert data["current_screen"]["screen_id"] == "screen_2"
    assert data["current_screen"]["observation_token"].startswith(data["current_screen"]["variant_id"] + ".")
    checkpoint = json.loads(Path(data["checkpoint_path"]).read_text())
    assert checkpoint["schema"] == "visor.route-checkpoint.v1" and checkpoint["status"] == "completed"
    assert checkpoint["resume"] == {"complete": True} and checkpoint["selected_path"] == "sign-in"
    assert checkpoint["plan"]["paths"][1]["steps"][0]["expect"]["timeout_ms"] == 30000  # the defaults applied
    after = edge(the_map(crawled), DEMO + "open_settings")
    assert after["successes"] == before["successes"] + 1 and after["confidence"] > before["confidence"]
    assert Path(data["map"]["agent_path"]).is_file()


def test_an_alternate_path_after_the_preferred_one_fails_at_runtime(cli_runner: Cli, crawled: Path) -> None:
    broken = step("open", "tap", {"target": "text=Nowhere"}, "screen_4", "text=Feed", timeout_ms=500)
    plan = {"goal": "Sign in", "paths": [{"id": "broken", "steps": [broken]}, {"id": "sign-in", "steps": SIGN_IN[:3]}]}
    result = route(cli_runner, crawled, plan)
    assert result.exit_code == 0, result.stdout
    assert outcomes(result.data) == [
        ("broken", "failed", ["runtime_failure"]),
        ("sign-in", "completed", ["success"] * 3),
    ]
    assert "no element matches text=Nowhere" in result.data["attempts"][0]["reason"]


def test_a_step_must_reach_the_screen_it_expects(cli_runner: Cli, crawled: Path) -> None:
    """Upstream never checks `expect.screen`: a selector found on the wrong screen is not success."""
    wrong = [*SIGN_IN[:2], step("login", "tap", {"target": DEMO + "login"}, "screen_2", "text=Feed")]
    result = route(
        cli_runner, crawled, {"goal": "Sign in", "rediscover": False, "paths": [{"id": "p", "steps": wrong}]}
    )
    assert result.exit_code == 2
    assert result.envelope["error"]["code"] == "ACTION_ERROR"
    assert result.envelope["error"]["message"] == "Route failed: All supplied route paths failed or were skipped"
    last = result.data["attempts"][0]["steps"][-1]
    assert last["outcome"] == "verification_failure" and last["observed_screen_id"] == "screen_4"
    assert last["error"] == "expected screen 'screen_2', reached screen_4 (variant_4)"
    checkpoint = json.loads(Path(result.data["checkpoint_path"]).read_text())
    assert checkpoint["status"] == "failed" and checkpoint["resume"] == {"exhausted": True}


def test_a_tap_with_no_visible_effect_demotes_the_known_edge(cli_runner: Cli, crawled: Path) -> None:
    path = next(crawled.glob("*.json"))
    document = the_map(crawled)
    known = {**edge(document, DEMO + "open_settings"), "id": "edge_99", "from_variant_id": "variant_1",
             "target": DEMO + "welcome", "args": {"target": DEMO + "welcome"}, "confidence": 0.9}  # fmt: skip
    document["edges"].append(known)
    path.write_text(json.dumps(document))
    noop = step("welcome", "tap", {"target": DEMO + "welcome"}, "screen_2", "text=Notifications", timeout_ms=300)
    result = route(cli_runner, crawled, {"goal": "Settings", "paths": [{"id": "p", "steps": [noop]}]})
    assert result.exit_code == 2 and result.data["status"] == "needs_discovery"
    assert outcomes(result.data) == [("p", "failed", ["verification_failure"])]
    demoted = edge(the_map(crawled), DEMO + "welcome")
    assert demoted["confidence"] == 0.65 and demoted["failures"] == 1


def test_an_unexpected_destination_is_a_candidate_and_strengthens_nothing(cli_runner: Cli, crawled: Path) -> None:
    edges = len(the_map(crawled)["edges"])
    surprise = [*SIGN_IN[:3], step("item", "tap", {"target": "text=Item 3"}, "screen_2", "text=Notifications",
                                   timeout_ms=300)]  # fmt: skip
    result = route(cli_runner, crawled, {"goal": "Settings", "paths": [{"id": "p", "steps": surprise}]})
    assert result.exit_code == 2
    assert result.data["attempts"][0]["steps"][-1]["observed_screen_id"] == "screen_5"
    document = the_map(crawled)
    assert len(document["edges"]) == edges + 1
    learnt = edge(document, "text=Item 3")
    assert learnt["candidate"] is True and learnt["confidence"] == 0.45 and learnt["to_variant_id"] == "variant_5"


def test_needs_discovery_gives_what_an_agent_needs_to_annotate_the_screen(cli_runner: Cli, crawled: Path) -> None:
    plan = {"goal": "Feed", "paths": [{"id": "p", "from": {"selector": "text=Player"}, "steps": [SIGN_IN[2]]}]}
    result = route(cli_runner, crawled, plan)
    assert result.exit_code == 2
    assert result.envelope["error"]["message"].startswith("Route needs discovery: No supplied route path matches")
    found = result.data["rediscovery"]
    assert found["next_action"] == "annotate_current" and found["schema"] == "visor.agent-memory.v1"
    assert found["observation_token"] == result.data["current_screen"]["observation_token"]
    assert found["current_screen"]["label"] == "Sign in" and Path(found["agent_path"]).is_file()
    checkpoint = json.loads(Path(result.data["checkpoint_path"]).read_text())
    assert checkpoint["status"] == "needs_discovery" and checkpoint["resume"] == {"requires_discovery": True}
    assert checkpoint["current"]["screen_id"] == "screen_1"


def test_resume_goes_on_from_the_checkpoint(cli_runner: Cli, crawled: Path, tmp_path: Path) -> None:
    plan = {"goal": "Settings", "paths": [{"id": "first", "steps": [SIGN_IN[2]]}, {"id": "sign-in", "steps": SIGN_IN}]}
    saved = {"schema": "visor.route-checkpoint.v1", "goal": "Settings", "status": "failed", "plan": plan,
             "resume": {"next_path_id": "sign-in"}, "attempts": []}  # fmt: skip
    (tmp_path / "checkpoint.json").write_text(json.dumps(saved))
    args = ("route", "--resume", "checkpoint.json", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    result = cli_runner.run(*args)
    assert result.exit_code == 0, result.stdout
    assert outcomes(result.data) == [("sign-in", "completed", ["success"] * 4)]
    assert result.data["checkpoint_path"] == str(tmp_path / "checkpoint.json")
    assert json.loads((tmp_path / "checkpoint.json").read_text())["status"] == "completed"
    again = cli_runner.run(*args)
    assert again.exit_code == 1 and "this route was completed" in again.envelope["error"]["message"]
    saved["resume"] = {"path_id": "sign-in", "next_step_index": 1}  # mid-path: its start is not checked again
    (tmp_path / "checkpoint.json").write_text(json.dumps(saved))
    midway = cli_runner.run(*args)
    assert [s["id"] for s in midway.data["attempts"][0]["steps"]] == ["password", "login"]


def test_a_step_expecting_a_screen_not_yet_discovered_ends_the_route_needing_discovery(
    cli_runner: Cli, crawled: Path, tmp_path: Path
) -> None:
    """Upstream runs such a plan (it never checks the screen); visor refused it up front, as if a typo."""
    unknown = {**SIGN_IN[2], "expect": {"screen": "Home feed", "selector": "text=Feed"}}
    plan = {"goal": "Settings", "rediscover": False, "paths": [{"id": "p", "steps": [*SIGN_IN[:2], unknown,
                                                                                    SIGN_IN[3]]}]}  # fmt: skip
    result = route(cli_runner, crawled, plan)
    assert result.exit_code == 2 and result.envelope["error"]["code"] == "ACTION_ERROR"
    message = result.envelope["error"]["message"]
    assert message.startswith("Route needs discovery: Step p/login reached screen_4 (variant_4), expecting screen "
                              "'Home feed', which the app map does not know yet"), message  # fmt: skip
    assert result.data["status"] == "needs_discovery"
    assert outcomes(result.data) == [("p", "needs_discovery", ["success", "success", "needs_discovery"])]
    token = result.data["rediscovery"]["observation_token"]
    assert token == result.data["current_screen"]["observation_token"] and token.startswith("variant_4.")
    assert f"--observation-token {token}" in result.envelope["error"]["next_step"]
    checkpoint = json.loads(Path(result.data["checkpoint_path"]).read_text())
    assert checkpoint["status"] == "needs_discovery"
    assert checkpoint["resume"] == {"path_id": "p", "next_step_index": 3, "requires_discovery": True}
    # Annotated with the plan's name (the token the route gave), the screen is known: the plan gets there.
    (tmp_path / "note.json").write_text(json.dumps({"screen": {"label": "Home feed", "purpose": "Read the feed"}}))
    noted = cli_runner.run("discover", "--observation-token", token, "--annotate-current", "note.json",
                           "--map-dir", "maps")  # fmt: skip
    assert noted.exit_code == 0, noted.stdout
    again = route(cli_runner, crawled, plan)
    assert again.exit_code == 0, again.stdout
    assert outcomes(again.data) == [("p", "completed", ["success"] * 4)]


def test_a_plan_of_screens_none_discovered_runs_on_an_empty_map(cli_runner: Cli, tmp_path: Path) -> None:
    """A map with no screens yet refused every plan; the first step now runs, and the route asks for discovery."""
    plan = {"goal": "Sign in", "paths": [{"id": "p", "steps": [{**SIGN_IN[0], "expect": {
        "screen": "Login", "selector": DEMO + "password"}}]}]}  # fmt: skip
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    result = cli_runner.run("route", "plan.json", "--runtime", "sim", "--seed", "7", "--map-dir", "fresh")
    assert result.exit_code == 2, result.stdout
    assert result.envelope["error"]["message"].startswith("Route needs discovery: Step p/user reached screen_1")
    assert result.data["rediscovery"]["current_screen"]["id"] == "screen_1"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"args": {"target": DEMO + "logout"}}, f"taps {DEMO}logout, which is risky"),
        ({"args": {"target": "text=Delete account"}}, "which is risky"),
    ],
)
def test_risky_taps_are_refused_before_any_action(
    cli_runner: Cli, crawled: Path, change: dict[str, Any], message: str
) -> None:
    bad = {**SIGN_IN[2], **change}
    result = route(cli_runner, crawled, {"goal": "x", "paths": [{"id": "p", "steps": [SIGN_IN[0], bad]}]})
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert message in result.envelope["error"]["message"]
    assert not (crawled / "checkpoints").exists()  # nothing ran


def test_an_invalid_plan_is_refused_before_the_device(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text(json.dumps({"goal": "x", "paths": [{"id": "p", "steps": [
        {**SIGN_IN[0], "safety": "risky"}]}]}))  # fmt: skip
    result = cli_runner.run("route", "plan.json", "--runtime", "appium", "--server-url", "http://127.0.0.1:9")
    assert result.exit_code == 1 and result.envelope["error"]["message"].startswith("Invalid route plan: ")
    assert "safety must be 'safe'" in result.envelope["error"]["message"]


def test_a_plan_from_standard_input_and_without_a_map(cli_runner: Cli, crawled: Path) -> None:
    plan = json.dumps({"goal": "Sign in", "paths": [{"id": "p", "steps": SIGN_IN[:3]}]})
    result = cli_runner.run("route", "-", "--runtime", "sim", "--seed", "7", "--map-dir", "maps", input=plan)
    assert result.exit_code == 0, result.stdout
    off = cli_runner.run("route", "-", "--runtime", "sim", "--no-map", input=plan)
    assert off.exit_code == 2 and off.data["reason"] == "Deterministic routes require app-map persistence"


def test_a_route_needs_one_of_a_plan_to_or_resume(cli_runner: Cli) -> None:
    none = cli_runner.run("route", "--runtime", "sim")
    assert none.exit_code == 1 and "Route requires a plan file path or - for standard input" in none.stdout
    both = cli_runner.run("route", "plan.json", "--to", "Feed", "--runtime", "sim")
    assert both.exit_code == 1 and "not PLAN and --to" in both.envelope["error"]["message"]


def many(paths: int, steps: int = 1, **expect: Any) -> dict[str, Any]:
    """A plan of `paths` paths of `steps` sign-in taps each, every step expecting what `expect` says."""
    tap = step("login", "tap", {"target": DEMO + "login"}, "screen_4", "text=Feed", **expect)
    return {"goal": "g", "rediscover": False,
            "paths": [{"id": f"p{n}", "steps": [{**tap, "id": f"s{k}"} for k in range(steps)]} for n in range(paths)]}  # fmt: skip


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (many(1000, timeout_ms=300_000), "the plan is 188,931 bytes, over the bound of 64 KiB"),
        (many(1, 51, timeout_ms=1000), "a path of 51 steps is over the bound of 50"),
        (many(6, 10, timeout_ms=1000), "the plan's paths hold 60 steps in all, over the bound of 50"),
        (many(3, timeout_ms=300_000), "may wait 900,000 ms in all for their expectations"),
        (many(21), "21 paths are over the bound of 20"),
        ({"goal": "g", "paths": []}, "paths must not be empty"),
        ({"goal": "g", "paths": [{"id": "p", "steps": []}]}, "steps must not be empty"),
        ({**many(1), "goal": "x" * 70_000}, "over the bound of 64 KiB"),
    ],
    ids=["1000-paths", "51-steps", "60-steps-in-all", "900-s-wait", "21-paths", "no-paths", "no-steps", "70-kb"],
)
def test_a_plan_past_its_bounds_is_refused_saying_them(
    cli_runner: Cli, tmp_path: Path, plan: dict[str, Any], message: str
) -> None:
    """1,000 paths whose steps wait 5 minutes each held the device for hours; their checkpoint grew quadratically."""
    (tmp_path / "plan.json").write_text(json.dumps(plan))
    result = cli_runner.run("route", "plan.json", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert result.exit_code == 1 and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert message in result.envelope["error"]["message"], result.envelope["error"]["message"]
    if "bound" in message:
        assert "at most 20 paths and 50 steps" in result.envelope["error"]["next_step"]
    assert not (tmp_path / "maps").exists(), "refused before the device and the map"
