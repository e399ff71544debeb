"""The agent tools' definitions: the tools spec's 16 tools, shipped verbatim in `visor/schemas/agent-tools.json`.

The file is the contract: `visor tools` exports it, `visor mcp` lists it, and every call is validated against
its parameter schemas before visor's own rules run. A test keeps it equal to the tools spec. Each tool's record (its
typed arguments, rules and this definition) is a `ToolSpec` in `registry.py`; this module reads only the file,
never the tools' models, so that start-up and scenarios without tool steps do not load them.
"""

from __future__ import annotations

import json
import pkgutil
from functools import cache
from typing import Any, Literal

DEFINITIONS_FILE = "agent-tools.json"
Kind = Literal["action", "observe"]


@cache
def _load() -> dict[str, dict[str, Any]]:
    # pkgutil rather than importlib.resources: the same file, without importing zipfile on every start-up.
    data = pkgutil.get_data("visor.schemas", DEFINITIONS_FILE)
    assert data is not None, "visor.schemas is a regular package"
    raw: dict[str, dict[str, Any]] = json.loads(data.decode("utf-8"))
    return {entry["function"]["name"]: entry for entry in raw.values()}


@cache
def tool_names() -> tuple[str, ...]:
    """Return the tools' names, in the tools spec's order (the registry's specs are exactly these: a test holds it)."""
    return tuple(_load())


def openai_definition(name: str) -> dict[str, Any]:
    """Return a tool's definition in OpenAI function format, exactly as the seed has it."""
    return _load()[name]


def parameters(name: str) -> dict[str, Any]:
    """Return a tool's JSON Schema for its arguments."""
    schema: dict[str, Any] = _load()[name]["function"]["parameters"]
    return schema


def description(name: str) -> str:
    """Return a tool's description."""
    text: str = _load()[name]["function"]["description"]
    return text


def kind(name: str) -> Kind:
    """Return whether a tool acts (sends input) or only observes, from its description's tag."""
    return "observe" if description(name).startswith("[OBSERVE]") else "action"


def is_tool(name: object) -> bool:
    """Return True when `name` names an agent tool."""
    return isinstance(name, str) and name in _load()


#: Tools visor adds for agents: looking at the screen. Element indices refer to the last `observe`.
OBSERVATION_TOOLS: dict[str, dict[str, Any]] = {
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


def mcp_definition(definition: dict[str, Any]) -> dict[str, Any]:
    """Return an OpenAI-format definition as an MCP tool: name, description, inputSchema."""
    function = definition["function"]
    return {"name": function["name"], "description": function["description"], "inputSchema": function["parameters"]}


def all_definitions() -> list[dict[str, Any]]:
    """Return every tool an agent gets, in OpenAI format: the 16 seed tools, then the observation tools."""
    return [openai_definition(name) for name in tool_names()] + list(OBSERVATION_TOOLS.values())
