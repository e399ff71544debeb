"""An annotation applied to the map: actions kept by identity, safety marks the crawl obeys, required targets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import ANNOTATION, account  # noqa: F401 (account: the demo's sign-in, for each test)

LOGIN = "id=com.visor.demo:id/login"
MARK = {"command": "tap", "args": {"target": LOGIN}, "label": "Log in", "intent": "authenticate", "safety": "safe"}


def discover(cli: Cli, folder: Path, note: dict[str, Any], *extra: str) -> Any:
    (folder / "note.json").write_text(json.dumps(note))
    return cli.run("discover", "--runtime", "sim", "--seed", "7", "--map-dir", "maps", "--annotate-current",
                   "note.json", *extra)  # fmt: skip


def the_map(folder: Path) -> dict[str, Any]:
    return json.loads(next((folder / "maps").glob("*.json")).read_text())


def counts(inserted: int = 0, updated: int = 0, merged: int = 0, unchanged: int = 0, screen: bool = False) -> Any:
    return {"screen_applied": screen, "actions_inserted": inserted, "actions_updated": updated,
            "actions_merged": merged, "actions_unchanged": unchanged}  # fmt: skip


def test_actions_are_kept_once_by_identity(cli_runner: Cli, tmp_path: Path) -> None:
    # The log-in button suggested an action of its own (the screen's default): the annotation's replaces it.
    first = discover(cli_runner, tmp_path, {"actions": [MARK]})
    assert first.data["annotation"] == counts(merged=1)
    same = discover(cli_runner, tmp_path, {"actions": [MARK]})
    assert same.data["annotation"] == counts(unchanged=1)
    typed = {"command": "act", "args": {"name": "type", "target": "id=com.visor.demo:id/username", "value": "ada"},
             "label": "User", "intent": "sign in as ada@example.com", "safety": "needs-input"}  # fmt: skip
    changed = discover(cli_runner, tmp_path, {"actions": [{**MARK, "label": "Sign in"}, typed]})
    assert changed.data["annotation"] == counts(inserted=1, updated=1)
    named = discover(cli_runner, tmp_path, {"screen": {"label": "Sign in", "purpose": "Authenticate"}})
    assert named.data["annotation"] == counts(screen=True)
    actions = the_map(tmp_path)["variants"][0]["actions"]
    assert [action["label"] for action in actions] == ["Sign in", "User"]
    assert actions[1]["args"] == {"name": "type", "target": "id=com.visor.demo:id/username"}  # no typed value
    assert actions[1]["intent"] == "sign in as <redacted-email>"
    assert "ada" not in json.dumps(actions)
    memory = changed.data["memory"]
    screen = next(entry for entry in json.loads(Path(changed.data["map"]["agent_path"]).read_text())["screens"])
    assert screen["actions"][0] == {"command": "tap", "target": LOGIN, "label": "Sign in", "intent": "authenticate",
                                    "safety": "safe", "source": "annotation"}  # fmt: skip
    # The annotated control is not suggested again; the other controls of the screen are, from the screen.
    assert [a["target"] for a in screen["actions"]].count(LOGIN) == 1
    assert memory["current_screen"]["id"] == "screen_1"


def test_a_control_marked_risky_is_never_crawled(cli_runner: Cli, tmp_path: Path) -> None:
    inputs = {"inputs": {"username": "DEMO_USER", "password": "DEMO_PASSWORD"}}
    risky = discover(cli_runner, tmp_path, {**inputs, "actions": [{**MARK, "safety": "risky"}]}, "--crawl")
    assert LOGIN in risky.data["crawl"]["skipped_risky"] and risky.data["crawl"]["actions"] == 0
    document = the_map(tmp_path)
    assert not document["edges"]
    login = next(element for element in document["variants"][0]["elements"] if element["selector"] == LOGIN)
    assert login["safety"] == "risky"  # and it stays so when the screen is observed again
    route = cli_runner.run("route", "--to", "screen_1", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert route.exit_code == 0
    assert next(e for e in the_map(tmp_path)["variants"][0]["elements"] if e["selector"] == LOGIN)["safety"] == "risky"


def test_required_targets_join_the_contract_of_edges_to_the_screen(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "annotation.yaml").write_text(ANNOTATION)
    crawled = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--crawl", "--crawl-depth", "3",
                             "--crawl-limit", "80", "--annotate-current", "annotation.yaml", "--map-dir", "maps")  # fmt: skip
    assert crawled.exit_code == 0
    hint = "id=com.visor.demo:id/hint"
    noted = discover(cli_runner, tmp_path, {"required_targets": [hint]})
    assert noted.exit_code == 0
    document = the_map(tmp_path)
    into = [edge for edge in document["edges"] if edge["to_variant_id"] == "variant_1"]
    assert into and all(edge["destination_contract"]["required_targets"][0] == hint for edge in into)
    assert document["variants"][0]["required_targets"] == [hint]


def test_an_observation_token_is_annotated_without_the_device(cli_runner: Cli, tmp_path: Path) -> None:
    seen = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    token = seen.data["observation_token"]
    (tmp_path / "note.json").write_text(json.dumps({"screen": {"label": "Sign in", "purpose": "Authenticate"}}))
    # No runtime is given, and none would be opened: an unreachable Appium server is never contacted.
    noted = cli_runner.run("discover", "--observation-token", token, "--annotate-current", "note.json",
                           "--map-dir", "maps", "--runtime", "appium", "--server-url", "http://127.0.0.1:9")  # fmt: skip
    assert noted.exit_code == 0, noted.stdout
    assert noted.data["screen"]["variant_id"] == "variant_1" and noted.data["memory"]["current_screen"]["label"] == (
        "Sign in"
    )
    assert the_map(tmp_path)["screens"][0]["label"] == "Sign in"
    cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--map-dir", "maps", "--crawl", "--crawl-limit", "1")
    stale = cli_runner.run("discover", "--observation-token", "variant_1.0000000000000000", "--annotate-current",
                           "note.json", "--map-dir", "maps")  # fmt: skip
    assert stale.exit_code == 1 and "is stale" in stale.envelope["error"]["message"]
    unknown = cli_runner.run("discover", "--observation-token", "variant_9.0000000000000000", "--annotate-current",
                             "note.json", "--map-dir", "maps")  # fmt: skip
    assert unknown.exit_code == 1 and "has the screen of observation token" in unknown.envelope["error"]["message"]
    bare = cli_runner.run("discover", "--observation-token", token, "--map-dir", "maps")
    assert bare.exit_code == 1 and "takes --annotate-current" in bare.envelope["error"]["message"]
