"""The annotation document: upstream's schema and its rejections (appMapAnnotations.test.ts), and visor's fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from visor.errors import InputError, SourceError
from visor.ext.appmap.annotation_file import read_annotation

FULL = {
    "screen": {"label": "Settings", "purpose": "Change preferences", "description": "Toggles", "notes": ["No ads"]},
    "actions": [
        {"command": "tap", "args": {"target": "text=Sync now"}, "label": "Sync", "intent": "sync", "safety": "safe",
         "description": "Syncs the account", "notes": ["Slow on 3G"]},
        {"command": "act", "args": {"name": "type", "target": "id=search"}, "label": "Search", "intent": "search",
         "safety": "needs-input"},
        {"command": "scroll", "args": {"direction": "down"}, "label": "More", "intent": "scroll", "safety": "unknown"},
    ],
    "required_targets": ["id=com.example:id/settings_list"],
}  # fmt: skip


def read(tmp_path: Path, data: Any) -> Any:
    path = tmp_path / "note.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return read_annotation(str(path))


def test_a_full_document_parses_into_the_same_object(tmp_path: Path) -> None:
    note = read(tmp_path, FULL)
    assert note.model_dump(exclude_none=True, exclude={"inputs", "entries"}) == FULL


ACTION = FULL["actions"][0]


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ("null", "Annotation must contain"),
        ({}, "Annotation must contain"),
        ({"screen": {"label": "A", "purpose": "B", "unsupported": 1}}, "Unknown field 'unsupported'"),
        ({"screen": {"label": 3, "purpose": "B"}}, "screen.label"),
        ({"actions": {"0": ACTION}}, "actions"),
        ({"actions": [{**ACTION, "command": "launch"}]}, "command must be"),
        ({"actions": [{**ACTION, "args": ["text=A"]}]}, "args"),
        ({"actions": [{**ACTION, "args": {}}]}, "tap requires args.target or args.x/args.y"),
        ({"actions": [{**ACTION, "command": "scroll", "args": {"direction": 3}}]}, "direction"),
        ({"actions": [{**ACTION, "command": "navigate", "args": {}}]}, "args.to"),
        ({"actions": [{**ACTION, "command": "act", "args": {"name": "type", "startX": 1}}]}, "startX"),
        ({"actions": [{**ACTION, "command": "act", "args": {"name": "back", "value": "x"}}]}, "value"),
        ({"actions": [{**ACTION, "command": "wait", "args": {}}]}, "exactly one"),
        ({"actions": [{**ACTION, "command": "wait", "args": {"ms": 5, "stable": True}}]}, "exactly one"),
        ({"actions": [{**ACTION, "safety": "dangerous"}]}, "safety must be"),
        ({"required_targets": ["bogus=x"]}, "unknown selector prefix"),
    ],
)
def test_upstreams_rejections(tmp_path: Path, data: Any, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        read(tmp_path, data)
    assert caught.value.message.startswith("Invalid discovery annotation: ")
    assert fragment in caught.value.message, caught.value.message


def test_an_empty_or_malformed_document_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="the file is empty"):
        read(tmp_path, "")
    with pytest.raises(SourceError):
        read(tmp_path, '{"screen": ')


def test_an_action_problem_is_located_in_the_document(tmp_path: Path) -> None:
    data = {"actions": [ACTION, {**ACTION, "args": {"target": "text=B", "x": 1}}]}
    path = tmp_path / "note.json"
    path.write_text(json.dumps(data, indent=1))
    with pytest.raises(InputError) as caught:
        read_annotation(str(path))
    issue = caught.value.details["issues"][0]
    assert issue["path"].startswith("$.actions[1].args") and issue["line"] > 10
