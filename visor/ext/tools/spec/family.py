"""The agent tools as a command family of scenarios (`visor.scenario.families`): named, checked and described here.

Light to import: names come from the shipped definitions file; the tools' models load only when a call is checked.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import get_args

from visor.ext.tools.result import Status, ToolCode
from visor.ext.tools.spec.definitions import parameters, tool_names
from visor.inputs.issues import Issue
from visor.jsontypes import JsonObject, JsonValue
from visor.scenario.families import FamilyCall

#: Agent tools that need no element: they start an app, or let time pass.
TREE_FREE_TOOLS = frozenset({"manage_app", "wait_for_delay"})
#: The attributes of a tool's selector: one of them at least must be given (an empty selector matches everything).
_SELECTOR_KEYS = ("resource_id", "text", "content_desc", "class_name", "package_name", "bounds")
#: drag takes exactly one of these (visor.ext.tools.spec.models).
_DRAG_ENDS = ("end", "calibration")


class ToolFamily:
    """The 16 agent tools, as scenario steps."""

    noun = "agent tool"

    def names(self) -> Sequence[str]:
        """Return the tools' names, in the tools spec's order."""
        return tool_names()

    def check(self, name: str, raw: Mapping[str, object]) -> FamilyCall | list[Issue]:
        """Check a call with the tool's own schema and rules (docs/agent-tools.md)."""
        from visor.ext.tools.spec.check import check_call  # jsonschema and the models: only for tool steps

        return check_call(name, raw)

    def parameters(self, name: str) -> JsonObject:
        """Return the tool's parameter schema as scenarios check it: no unknown argument, and its rules added."""
        return tool_rules({**copy.deepcopy(parameters(name)), "additionalProperties": False})

    def tree_need(self, name: str) -> str | None:
        """Say why the tool needs the UI tree: every tool but those that start an app or let time pass."""
        return None if name in TREE_FREE_TOOLS else f"the agent tool {name} works on elements"

    def words(self) -> Iterable[str]:
        """Return the tools' names, result codes and statuses."""
        return (*tool_names(), *(str(code) for code in ToolCode), *get_args(Status))


def tool_rules(schema: JsonObject) -> JsonObject:
    """Add to a tool's parameter schema the argument rules a schema can say, so editors flag them as visor does.

    Every selector names an attribute; a drag (the tool, or a member of a sequence) gives `end` or `calibration`,
    never both. The tools' own definitions stay the spec's; these are added where scenarios are checked.
    """
    stack: list[JsonValue] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        properties = node.get("properties")
        if isinstance(properties, dict):
            if {"resource_id", "class_name"} <= properties.keys():
                node["anyOf"] = [_given(key) for key in _SELECTOR_KEYS if key in properties]
            elif set(_DRAG_ENDS) <= properties.keys() and "start" in properties:
                node["oneOf"] = [_given(key) for key in _DRAG_ENDS]
        stack.extend(node.values())
    return schema


def _given(key: str) -> JsonObject:
    """Return the schema rule "`key` is given, and not null"."""
    return {"required": [key], "properties": {key: {"not": {"type": "null"}}}}
