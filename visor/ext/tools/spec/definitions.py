"""The agent tools' definitions: the tools spec's 16 tools, shipped verbatim in `visor/schemas/agent-tools.json`.

The file is the contract: `visor tools` exports it, `visor mcp` lists it, and every call is validated against
its parameter schemas before visor's own rules run. A test keeps it equal to the tools spec. Each tool's record (its
typed arguments, rules and this definition) is a `ToolSpec` in `registry.py`; this module reads only the file,
never the tools' models, so that start-up and scenarios without tool steps do not load them.
"""

from __future__ import annotations

import json
import pkgutil
from collections.abc import Mapping
from functools import cache
from typing import Literal

from visor.jsontypes import JsonObject, JsonValue

DEFINITIONS_FILE = "agent-tools.json"
Kind = Literal["action", "observe"]


@cache
def _load() -> dict[str, JsonObject]:
    # pkgutil rather than importlib.resources: the same file, without importing zipfile on every start-up.
    data = pkgutil.get_data("visor.schemas", DEFINITIONS_FILE)
    assert data is not None, "visor.schemas is a regular package"
    raw: dict[str, JsonObject] = json.loads(data.decode("utf-8"))
    return {text_of(function_of(entry), "name"): entry for entry in raw.values()}


def function_of(definition: Mapping[str, JsonValue]) -> JsonObject:
    """Return the `function` of a definition in OpenAI function format (its name, description and parameters)."""
    function = definition["function"]
    assert isinstance(function, dict), "a definition's function is an object"
    return function


def text_of(node: Mapping[str, JsonValue], key: str) -> str:
    """Return a text a definition holds (a function's `name`, `description`)."""
    text = node[key]
    assert isinstance(text, str), f"a definition's {key} is a text"
    return text


def object_of(node: Mapping[str, JsonValue], key: str) -> JsonObject:
    """Return an object a definition holds (a function's `parameters`, a schema's `properties`)."""
    found = node[key]
    assert isinstance(found, dict), f"a definition's {key} is an object"
    return found


@cache
def tool_names() -> tuple[str, ...]:
    """Return the tools' names, in the tools spec's order (the registry's specs are exactly these: a test holds it)."""
    return tuple(_load())


def openai_definition(name: str) -> JsonObject:
    """Return a tool's definition in OpenAI function format, exactly as the seed has it."""
    return _load()[name]


def parameters(name: str) -> JsonObject:
    """Return a tool's JSON Schema for its arguments."""
    return object_of(function_of(_load()[name]), "parameters")


def description(name: str) -> str:
    """Return a tool's description."""
    return text_of(function_of(_load()[name]), "description")


def kind(name: str) -> Kind:
    """Return whether a tool acts (sends input) or only observes, from its description's tag."""
    return "observe" if description(name).startswith("[OBSERVE]") else "action"


def is_tool(name: object) -> bool:
    """Return True when `name` names an agent tool."""
    return isinstance(name, str) and name in _load()


#: Tools visor adds for agents: looking at the screen. Element indices refer to the last `observe`.
OBSERVATION_TOOLS: dict[str, JsonObject] = {
    "observe": {
        "type": "function",
        "function": {
            "name": "observe",
            "description": (
                "[OBSERVE] Look at the screen: a compact indexed element list (index, class, text, resource_id, "
                "content_desc, normalized 0..1000 bounds, state flags, native_selector) and a screenshot. Element "
                "indices in click, long_press, input_text and swipe refer to the latest observation; copy "
                "native_selector objects unchanged into read_control, control_action, wait_until and scroll_to."
            ),
            "parameters": {
                "type": "object",
                "properties": {
                    "screenshot": {
                        "type": "boolean",
                        "default": True,
                        "description": "Attach a PNG screenshot (default true).",
                    }
                },
                "additionalProperties": False,
            },
        },
    },
    "screenshot": {
        "type": "function",
        "function": {
            "name": "screenshot",
            "description": "[OBSERVE] Take a PNG screenshot of the current screen (no element list).",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
}


def mcp_definition(definition: JsonObject) -> JsonObject:
    """Return an OpenAI-format definition as an MCP tool: name, description, inputSchema."""
    function = function_of(definition)
    return {"name": function["name"], "description": function["description"], "inputSchema": function["parameters"]}


def all_definitions() -> list[JsonObject]:
    """Return every tool an agent gets, in OpenAI format: the 16 seed tools, then the observation tools."""
    return [openai_definition(name) for name in tool_names()] + list(OBSERVATION_TOOLS.values())
