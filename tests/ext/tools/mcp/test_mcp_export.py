"""What `visor mcp` lists, as clients nobody here wrote read it: types, titles, annotations, lengths, text values.

- The MCP SDK's own client: every listed property declares a `type`, every description fits an OpenAI-compatible
  endpoint (≤ 1,024 characters; `--seed-descriptions` lists the tools spec's own), each tool's annotations say what
  docs/agent-tools.md decided, and a point sent as text (what a form sends) is read as the point.
- The MCP Inspector's command line (`@modelcontextprotocol/inspector --cli`), when it is installed next to the
  pinned Appium server (tests/appium/node_modules) or named by MCP_INSPECTOR: click, long_press, input_text and
  drag called with `--tool-arg`, the points written as JSON and as text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import ROOT
from tests.ext.tools.mcp.test_mcp import SEED_TOOLS, Agent, Transcript, record
from tests.ext.tools.spec.test_export import untyped

#: What docs/agent-tools.md ("Annotations") decided: read-only, destructive, idempotent, open world.
HINTS = {
    "click": (False, True, False, True),
    "click_sequence": (False, True, False, True),
    "long_press": (False, True, False, True),
    "input_text": (False, True, False, True),
    "swipe": (False, True, False, True),
    "drag": (False, True, False, True),
    "action_sequence": (False, True, False, True),
    "press_key": (False, True, False, True),
    "manage_app": (False, True, False, True),
    "wait_for_delay": (True, False, True, False),
    "pinch": (False, True, False, True),
    "touch_gesture": (False, True, False, True),
    "read_control": (True, False, True, False),
    "control_action": (False, True, False, True),
    "wait_until": (True, False, True, False),
    "scroll_to": (False, False, True, False),
    "observe": (True, False, True, False),
    "screenshot": (True, False, True, False),
    "map_read": (True, False, True, False),
    "route_plan": (True, False, True, False),
    "route_follow": (False, False, False, True),
    "list_apps": (True, False, True, False),
    "list_devices": (True, False, True, False),
    "use_device": (False, True, False, True),
}
INSPECTOR = Path(os.environ.get("MCP_INSPECTOR", ROOT / "tests" / "appium" / "node_modules" / ".bin" / "mcp-inspector"))


async def texts(agent: Agent) -> None:
    """Calls as a form sends them: every value as text."""
    await agent.call("observe", "observe", {"screenshot": False})
    await agent.call("point as text", "click", {"target": "[500, 600]", "target_description": "empty space"})
    await agent.call("index as text", "input_text", {"target": "5", "text": "ada"})
    await agent.call("not json", "click", {"target": "the login button"})


@pytest.fixture(scope="module")
def listed() -> Transcript:
    """The demo app's session: its tools, and calls with text values."""
    return anyio.run(record, ("--turn-ms", "0"), texts)


def test_every_listed_property_declares_a_type(listed: Transcript) -> None:
    for tool in listed.tools:
        assert untyped(tool["inputSchema"]) == [], tool["name"]
        assert tool["outputSchema"]["type"] == "object", tool["name"]


def test_every_listed_description_fits_an_openai_endpoint(listed: Transcript) -> None:
    assert max(len(tool["description"]) for tool in listed.tools) <= 1024


def test_annotations_say_what_each_tool_does(listed: Transcript) -> None:
    found = {}
    for tool in listed.tools:
        hints = tool["annotations"]
        assert hints["title"] == tool["title"] and tool["title"]
        found[tool["name"]] = (
            hints["readOnlyHint"],
            hints["destructiveHint"],
            hints["idempotentHint"],
            hints["openWorldHint"],
        )
    assert found == HINTS
    assert all(found[name][0] == (spec["description"].startswith("[OBSERVE]")) for name, spec in SEED_TOOLS.items()
               if name != "wait_for_delay"), "the spec's [OBSERVE] tools are the read-only ones, and waiting"  # fmt: skip


def test_text_a_form_sends_is_read_as_the_value_it_holds(listed: Transcript) -> None:
    point = listed["point as text"]
    assert not point.is_error and point.result["target"]["point"] == [500, 600]
    typed = listed["index as text"]
    assert not typed.is_error and typed.result["field_text"] == "ada"
    refused = listed["not json"]
    assert refused.code == "VALIDATION_ERROR" and "got string" in refused.result["message"]


def test_seed_descriptions_lists_the_specs_own_text() -> None:
    async def nothing(_agent: Agent) -> None:
        return None

    transcript = anyio.run(record, ("--seed-descriptions",), nothing)
    for tool in transcript.tools[:16]:
        assert tool["description"] == SEED_TOOLS[tool["name"]]["description"]


# -- the MCP Inspector's command line ----------------------------------------------------------------------------


def inspect(tmp_path: Path, tool: str, *arguments: str) -> dict[str, Any]:
    """Call a tool through the Inspector's command line on a fresh `visor mcp`; return the structured result."""
    command = [str(INSPECTOR), "--cli", sys.executable, "-m", "visor", "mcp", "--runtime", "sim", "--seed", "7",
               "--no-observe-after", "--method", "tools/call", "--tool-name", tool]  # fmt: skip
    for argument in arguments:
        command += ["--tool-arg", argument]
    env = {**os.environ, "HOME": str(tmp_path)}  # the Inspector keeps its catalog in the home folder
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=90, check=False)
    assert done.returncode == 0, done.stderr + done.stdout
    result: dict[str, Any] = json.loads(done.stdout)["structuredContent"]
    return result


@pytest.mark.skipif(not INSPECTOR.exists(), reason=f"the MCP Inspector is not installed ({INSPECTOR})")
@pytest.mark.parametrize("written", ["[500,600]", '"[500,600]"'], ids=["json", "text"])
def test_the_inspector_calls_every_tool_with_a_union_typed_argument(tmp_path: Path, written: str) -> None:
    """A point written as JSON, and as text (what the Inspector's form sends: it converts only single types)."""
    assert inspect(tmp_path, "click", f"target={written}", "target_description=x")["status"] == "ok"
    assert inspect(tmp_path, "long_press", f"target={written}", "target_description=x")["status"] == "ok"
    field = written.replace("600", "240")  # the username field of the sign-in screen
    typed = inspect(tmp_path, "input_text", f"target={field}", "target_description=field", "text=ada")
    assert typed["status"] == "ok" and typed["field_text"] == "ada"
    end = written.replace("500", "200")
    dragged = inspect(tmp_path, "drag", "start=[100,600]", f"end={end}", "target_description=x")
    assert dragged["status"] == "ok", dragged["message"]
