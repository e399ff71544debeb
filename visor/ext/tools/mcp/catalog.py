"""What `visor mcp` says about each tool beyond its input schema: a title, behaviour hints and its result's schema.

**Annotations** (MCP's `ToolAnnotations`) tell a client what a call can do before it makes one, so that it can ask
the user first, or not. visor's answers, per tool, are in `HINTS` and docs/agent-tools.md ("Annotations"):

- `readOnlyHint`: the tool sends no input to the device and changes nothing (observing, reading a control,
  waiting, listing, reading the map).
- `destructiveHint` (for the others): a tap, a key, text or a gesture can do anything the app does with it
  (delete, send, pay), so every input-sending tool may destroy; `scroll_to` only scrolls a container by its native
  scroll action and `route_follow` follows only the steps the map marks safe, so they do not.
- `idempotentHint`: calling again with the same arguments changes nothing more. True for the read-only tools and
  `scroll_to` (a visible target is found with no scroll); false for every input, which acts again.
- `openWorldHint`: an input reaches the app, and through it whatever the app talks to (a server, a message's
  recipient); `use_device` may open a session on a remote server or a device farm. Reading the screen, the map or
  this host's device list does not.

**Output schemas** (`outputSchema`): every tool's structured result is an object with the five common keys
(`tool`, `status`, `dispatched`, `code`, `message`); the 16 tools' are made from their result shapes
(`visor.ext.tools.outputs`), with the screen an action's result carries. Refused and failed calls take the
same schema. The schemas stay open to keys a later visor adds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from visor.ext.tools.outputs import codes, envelope, result_schema
from visor.ext.tools.spec.definitions import is_tool, object_of, text_of
from visor.jsontypes import JsonObject

#: The code of a call made while no device is in use (`visor.ext.tools.mcp.devices`).
NO_DEVICE = "NO_DEVICE"


@dataclass(frozen=True, slots=True)
class Hints:
    """A tool's title and behaviour hints, as MCP's `ToolAnnotations` names them."""

    title: str
    read_only: bool
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False

    def annotations(self) -> JsonObject:
        """Return the hints in MCP's JSON form."""
        return {
            "title": self.title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


def _reads(title: str) -> Hints:
    """Describe a tool that sends no input and changes nothing (so calling it again changes nothing either)."""
    return Hints(title, read_only=True, idempotent=True)


def _inputs(title: str) -> Hints:
    """Describe a tool that sends input: it may do anything the app does with it, and acts again when called."""
    return Hints(title, read_only=False, destructive=True, open_world=True)


HINTS: dict[str, Hints] = {
    "click": _inputs("Click"),
    "click_sequence": _inputs("Click a sequence of points"),
    "long_press": _inputs("Long press"),
    "input_text": _inputs("Type text"),
    "swipe": _inputs("Swipe"),
    "drag": _inputs("Drag a slider or timeline"),
    "action_sequence": _inputs("Run an action sequence"),
    "press_key": _inputs("Press a system key"),
    "manage_app": _inputs("Launch or stop an app"),
    "wait_for_delay": _reads("Wait"),
    "pinch": _inputs("Pinch or rotate"),
    "touch_gesture": _inputs("Multi-finger touch gesture"),
    "read_control": _reads("Read a control"),
    "control_action": _inputs("Act on a control"),
    "wait_until": _reads("Wait until a control's state"),
    "scroll_to": Hints("Scroll a container to a control", read_only=False, idempotent=True),
    "observe": _reads("Observe the screen"),
    "screenshot": _reads("Take a screenshot"),
    "map_read": _reads("Read the app map"),
    "route_plan": _reads("Plan a route through the app map"),
    "route_follow": Hints("Follow a route through the app map", read_only=False, open_world=True),
    "list_apps": _reads("List the device's apps"),
    "list_devices": _reads("List devices"),
    "use_device": Hints("Use a device", read_only=False, destructive=True, open_world=True),
}

_OBJECT: JsonObject = {"type": "object"}
_TEXT: JsonObject = {"type": "string"}
#: What `observe` shows, and what an action's result carries as the screen after it.
_SCREEN: JsonObject = {"screen": _OBJECT, "elements": {"type": "array", "items": _OBJECT}, "coordinates": _TEXT}
#: The screen an action's result (or use_device's) carries after it, or why it could not be read.
_AFTER: JsonObject = {"observation": {"type": ["object", "null"]}, "observation_error": _TEXT}
#: What a refusal of arguments that break a rule lists (as the 16 tools' refusals do).
_PROBLEMS: JsonObject = {"problems": {"type": "array", "items": _OBJECT}}
#: The result data of the tools not made from the tools' shapes.
_OWN_DATA: dict[str, JsonObject] = {
    "observe": _SCREEN | _PROBLEMS,
    "screenshot": _PROBLEMS,
    "list_apps": {"apps": {"type": "array", "items": _OBJECT}, "complete": {"type": "boolean"}, **_PROBLEMS},
    "list_devices": {
        "devices": {"type": "array", "items": _OBJECT},
        "in_use": {"type": ["string", "null"]},
        **_PROBLEMS,
    },
    "use_device": {
        **_PROBLEMS,
        "device": _OBJECT,
        "closed": _TEXT,
        "close_error": _TEXT,
        "in_use": {"type": ["string", "null"]},
        "likely_cause": {"type": ["string", "null"]},
        **_AFTER,
    },
}
#: The app map's tools answer with the map's data beside the common keys (docs/app-map.md): their own to list.
MAP_TOOLS = frozenset({"map_read", "route_plan", "route_follow"})


@cache
def output_schema(name: str) -> JsonObject | None:
    """Return the JSON Schema of a tool's structured result (None: a tool this catalog does not know)."""
    if is_tool(name):
        schema = result_schema(name, NO_DEVICE)
        return {**schema, "properties": {**object_of(schema, "properties"), **_AFTER}}
    if name in _OWN_DATA:
        return envelope(name, codes(NO_DEVICE), **_OWN_DATA[name])
    if name in MAP_TOOLS:
        schema = envelope(name, codes(NO_DEVICE), **_AFTER)
        return {**schema, "properties": {**object_of(schema, "properties"), "code": {"type": ["string", "null"]}}}
    return None


def described(definition: JsonObject) -> JsonObject:
    """Return an MCP tool definition with its title, annotations and output schema (where the catalog has them)."""
    name = text_of(definition, "name")
    out = dict(definition)
    hints = HINTS.get(name)
    if hints is not None:
        out |= {"title": hints.title, "annotations": hints.annotations()}
    schema = output_schema(name)
    if schema is not None:
        out["outputSchema"] = schema
    return out
