"""A directional swipe without a target, through a real MCP client: it scrolls the list, keeping ~40% of it in view.

The fixture's list is shorter than the screen (a picture takes the top of the page). A swipe computed over the
whole screen moved the list by 60% of the *screen*, more than the list shows: rows went by unseen. Over the list,
it moves by 60% of the list, and the 40% overlap the tools spec promises holds.
"""

from __future__ import annotations

from typing import Any

import anyio

from tests.ext.tools.mcp.test_mcp import Agent, Transcript, record

SHORT_LIST = ("--turn-ms", "0", "--app", "tests/fixtures/apps/short-list.app.yaml")
ROW_HEIGHT = 168  # the sim's default list item height, in pixels


def offset(elements: list[dict[str, Any]], viewport: list[int]) -> int:
    """The list's scroll offset in pixels, read from a row wholly in view ("Review n" is row n - 1)."""
    for element in elements:
        _, top, _, bottom = element["native_selector"].get("bounds", [0, 0, 0, 0])
        if element["text"].startswith("Review ") and bottom - top == 72 and viewport[1] < top < viewport[3] - 100:
            row = int(element["text"].split()[1]) - 1
            return row * ROW_HEIGHT - (top - 20 - viewport[1])  # a row's title sits 20 px below the row's top
    raise AssertionError("no whole row in view")


async def swipes(agent: Agent) -> None:
    await agent.call("before", "observe", {"screenshot": False})
    await agent.call("list", "read_control", {"selector": {"resource_id": "com.example.shortlist:id/reviews"}})
    await agent.call("up", "swipe", {"direction": "up"})
    await agent.call("down", "swipe", {"direction": "down"})


def test_a_swipe_without_target_scrolls_the_list_keeping_40_percent_in_view() -> None:
    transcript: Transcript = anyio.run(record, SHORT_LIST, swipes)
    before, up, down = transcript["before"], transcript["up"], transcript["down"]
    reviews = before.element("reviews")
    viewport = transcript["list"].result["control"]["bounds"]  # pixels
    height = viewport[3] - viewport[1]
    assert height < 1920 * 0.6, "the list is shorter than a screen-sized swipe"

    assert not up.is_error, up.result["message"]
    moved = offset(up.elements, viewport) - offset(before.elements, viewport)
    overlap = 1 - moved / height
    assert 0.38 <= overlap <= 0.42, f"the list moved {moved} px of {height}: {overlap:.0%} stayed in view"
    assert up.result["from"][1] - up.result["to"][1] == moved, "the list follows the finger"
    assert up.result["scope"]["resource_id"] == reviews["resource_id"], "the result names the list it scrolled"

    assert not down.is_error and offset(down.elements, viewport) == 0, "down brings the same rows back"
