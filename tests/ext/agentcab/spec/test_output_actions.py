"""Reading an agent's output actions: all 31 types, every problem with its JSON path, unsafe ones refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from visor.errors import InputError
from visor.ext.agentcab.spec.output_actions import ACTIONS, MAX_DEPTH, read_actions
from visor.ext.agentcab.spec.policy import read_policy

ROOT = "/storage/emulated/0"


def problems(actions: Any) -> list[tuple[str, str]]:
    plan, issues = read_actions({"actions": actions} if isinstance(actions, list) else actions)
    assert (plan is None) == bool(issues)
    return [(".".join(str(part) for part in issue.path), issue.message) for issue in issues]


def test_the_seeds_31_actions_and_their_confirm_column() -> None:
    assert len(ACTIONS) == 31
    confirmed = sorted(name for name, model in ACTIONS.items() if model.confirm)
    assert confirmed == sorted(["delete_file", "delete_files", "move_file", "delete_event", "send_sms", "make_call",
                                "uninstall_app", "set_wallpaper", "click_text", "set_text", "long_press",
                                "confirm_actions"])  # fmt: skip


@pytest.mark.parametrize(
    ("action", "path", "says"),
    [
        ({"type": "delete_file", "path": f"{ROOT}/../../data/x"}, "actions.0.path", "shared storage"),
        ({"type": "delete_file", "path": "/sdcard/x"}, "actions.0.path", "shared storage"),
        ({"type": "delete_files", "paths": [f"{ROOT}/a", "relative/b"]}, "actions.0.paths.1", "shared storage"),
        ({"type": "open_url", "url": "file:///etc/passwd"}, "actions.0.url", "http or https"),
        ({"type": "open_url", "url": "javascript:alert(1)"}, "actions.0.url", "http or https"),
        ({"type": "download_file", "url": "ftp://x/y", "filename": "y"}, "actions.0.url", "http or https"),
        ({"type": "download_file", "url": "https://x/y", "filename": "../y"}, "actions.0.filename", "file name"),
        ({"type": "open_deeplink", "uri": "intent://scan#Intent;end"}, "actions.0.uri", "app link"),
        ({"type": "send_sms", "number": "call me", "text": "x"}, "actions.0.number", "phone number"),
        ({"type": "set_alarm", "hour": 24, "minute": 0}, "actions.0.hour", "23"),
        ({"type": "set_wallpaper", "url": "https://x/y", "path": f"{ROOT}/a.jpg"}, "actions.0", "exactly one"),
        ({"type": "create_event", "calendarId": "1", "title": "t", "startTime": "tomorrow",
          "endTime": "2026-01-01T00:00:00Z"}, "actions.0.startTime", "ISO 8601"),
        ({"type": "scroll", "direction": "sideways"}, "actions.0.direction", "'up', 'down', 'left' or 'right'"),
        ({"type": "sequence", "actions": [], "delay_ms": 10}, "actions.0.actions", "at least one"),
        ({"type": "delete_fil", "path": f"{ROOT}/a"}, "actions.0.type", "unknown action type"),
        ({"path": f"{ROOT}/a"}, "actions.0", "an object with a `type`"),
    ],
)  # fmt: skip
def test_an_invalid_or_unsafe_action_is_named(action: dict[str, Any], path: str, says: str) -> None:
    found = problems([action])
    assert found and found[0][0] == path and says in found[0][1], found


def test_every_problem_is_reported_and_nothing_is_planned() -> None:
    found = problems([{"type": "notify", "title": "ok", "body": "ok"},
                      {"type": "confirm_actions", "message": "m", "actions": [{"type": "make_call", "number": "x"}]},
                      {"type": "open_url", "url": "data:text/html,hi"}])  # fmt: skip
    assert [path for path, _ in found] == ["actions.1.actions.0.number", "actions.2.url"]


def test_composites_nest_only_so_deep() -> None:
    nested: dict[str, Any] = {"type": "notify", "title": "t", "body": "b"}
    for _ in range(MAX_DEPTH):
        nested = {"type": "sequence", "actions": [nested]}
    assert "nest at most" in problems([nested])[0][1]


def test_an_output_without_actions() -> None:
    assert problems({"report": "x"}) == [("actions", "the output has no `actions` array")]
    assert problems({"actions": []}) == []


def test_a_policy_file_is_read_and_its_errors_located(tmp_path: Path) -> None:
    good = tmp_path / "policy.yaml"
    good.write_text(
        f"default: deny\nrules:\n  - {{type: delete_file, paths: ['{ROOT}/Download/*'], decision: approve}}\n"
    )
    policy = read_policy(str(good))
    assert policy.decide("delete_file", (f"{ROOT}/Download/a/b.zip",)) == "approve"
    assert policy.decide("delete_file", (f"{ROOT}/DCIM/x.jpg",)) == "deny"
    assert policy.decide("send_sms", ()) == "deny"
    assert read_policy("approve").decide("x", ()) == "approve" and read_policy("ask").decide("x", ()) is None
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules:\n  - {type: delete_file, decision: perhaps}\n")
    with pytest.raises(InputError, match=r"bad.yaml:2:\d+: confirmation policy"):
        read_policy(str(bad))


def test_an_output_holds_at_most_2000_actions_in_all() -> None:
    # 20 sequences of 500: each array within its cap, 10,020 actions in all, each of which could show a dialog.
    many = {"actions": [{"type": "sequence", "actions": [{"type": "press_back"}] * 500}] * 20}
    plan, issues = read_actions(many)
    assert plan is None and len(issues) == 1
    assert issues[0].message == "the output holds more than 2,000 actions (composites and what they hold counted)"
    few = {"actions": [{"type": "sequence", "actions": [{"type": "press_back"}] * 499}] * 4}
    assert read_actions(few)[0] is not None  # 4 + 1,996


def test_a_bare_array_output_names_its_actions_from_their_index() -> None:
    """A bare array's path starts at an index: messages said "0].path must be…" (the `$[` cut off)."""
    _plan, issues = read_actions([{"type": "notify", "title": "t", "body": "b"}, {"type": "delete_file", "path": "/x"}])
    assert issues[0].message.startswith("[1].path must be a path in the phone's shared storage")


def test_an_empty_list_of_paths_says_it_is_empty(tmp_path: Path) -> None:
    assert problems([{"type": "delete_files", "paths": []}]) == [
        ("actions.0.paths", "actions[0].paths must not be empty: give at least one")
    ]
    policy = tmp_path / "policy.yaml"
    policy.write_text("rules:\n  - {type: delete_file, paths: [], decision: approve}\n")
    with pytest.raises(InputError, match=r"rules\[0\]\.paths must not be empty: give at least one$"):
        read_policy(str(policy))
