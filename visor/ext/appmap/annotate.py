"""Applying an annotation to the app map: a screen's name, what can be done on it and how safe, what proves it.

As upstream applies one (docs/app-map.md): the screen's semantics (redacted) go on the variant observed, and onto
its screen when no other variant of that screen says otherwise; each action is kept once per identity (its
command and arguments, a typed value left out): a new one is inserted, the same semantics change nothing, other
semantics replace the old (`updated`), and an action on a control whose suggested action (upstream's
source-derived one, `agent_memory.suggested_label`) had no annotation yet replaces those defaults (`merged`).
`screen_applied` says whether the screen's semantics were applied. visor also applies what upstream only
stores: an action's `safety` is the safety of the control it taps, over visor's reading of its labels (a crawl
never taps one marked risky, and taps one marked safe), and `required_targets` join the screen's destination
contract, on every edge leading to it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from visor.ext.appmap.memory import suggested_label
from visor.ext.appmap.model import AppMap, apply_marks, contract_targets
from visor.ui.screens import redact

_SEMANTICS = ("label", "intent", "safety", "description", "notes")


def annotate(app_map: AppMap, variant: dict[str, Any], note: Mapping[str, Any]) -> dict[str, Any]:
    """Apply an annotation (its model dumped) to the variant observed; return `data.annotation`.

    That is upstream's `{screen_applied, actions_inserted, actions_updated, actions_merged}`, with visor's
    `actions_unchanged` (the same semantics again).
    """
    app_map.changed = True
    screen_note = note.get("screen")
    if screen_note:
        _name(app_map, variant, screen_note)
    counts: dict[str, Any] = {"screen_applied": bool(screen_note), "actions_inserted": 0, "actions_updated": 0,
                              "actions_merged": 0, "actions_unchanged": 0}  # fmt: skip
    # The controls whose actions are still the screen's defaults: suggested, and no annotation names them yet.
    annotated = {action.get("target") for action in variant.get("actions", [])}
    suggested = {target for element in variant["elements"] if suggested_label(element) is not None
                 for target in (element["selector"], *element["targets"]) if target not in annotated}  # fmt: skip
    for action in note.get("actions") or []:
        counts[_keep(variant, action, suggested)] += 1
    if note.get("required_targets"):
        variant["required_targets"] = list(dict.fromkeys(note["required_targets"]))
        contract = contract_targets(variant)
        for edge in app_map.document["edges"]:
            if edge["to_variant_id"] == variant["id"]:
                edge["destination_contract"]["required_targets"] = contract
    apply_marks(variant)
    return counts


def _name(app_map: AppMap, variant: dict[str, Any], screen_note: Mapping[str, Any]) -> None:
    fields = {key: _redacted(screen_note[key]) for key in ("label", "purpose", "description", "notes")
              if key in screen_note}  # fmt: skip
    variant.update(fields)
    screen = next(item for item in app_map.document["screens"] if item["id"] == variant["screen_id"])
    siblings = [other for other in app_map.document["variants"]
                if other["screen_id"] == screen["id"] and other is not variant and "label" in other]  # fmt: skip
    named = (fields.get("label"), fields.get("purpose"))
    if all((other["label"], other.get("purpose")) == named for other in siblings):
        screen.update({key: fields[key] for key in ("label", "purpose") if key in fields})


def _keep(variant: dict[str, Any], action: Mapping[str, Any], suggested: set[str]) -> str:
    """Insert or update one action by its identity; return which count it adds to.

    A new tap on a control in `suggested` (its screen suggested an action for it) is `merged`: its semantics
    replace the defaults the control suggested.
    """
    args = {key: value for key, value in action["args"].items() if key != "value"}  # a typed value is never kept
    identity = json.dumps({"command": action["command"], "args": args}, sort_keys=True)
    semantics = {key: _redacted(action[key]) for key in _SEMANTICS if action.get(key) is not None}
    actions: list[dict[str, Any]] = variant.setdefault("actions", [])
    known = next((item for item in actions if item.get("identity") == identity), None)
    if known is None:
        target = args.get("target")
        actions.append({"identity": identity, "command": action["command"], "args": args,
                        "target": target if isinstance(target, str) else None, **semantics})  # fmt: skip
        merged = action["command"] == "tap" and isinstance(target, str) and target in suggested
        return "actions_merged" if merged else "actions_inserted"
    if all(known.get(key) == value for key, value in semantics.items()):
        return "actions_unchanged"
    for key in _SEMANTICS:
        known.pop(key, None)
    known.update(semantics)
    return "actions_updated"


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact(item) if isinstance(item, str) else item for item in value]
    return value
