"""`navigate`: open a deep link or URL."""

from __future__ import annotations

from typing import TypedDict

from visor.scenario.commands import NavigateArgs
from visor.steps.context import ActionContext
from visor.steps.entry import Entries, entry


class NavigateDetails(TypedDict):
    """A deep link opened."""

    args: dict[str, object]
    url: str


def navigate(args: NavigateArgs, ctx: ActionContext) -> NavigateDetails:
    """Open a deep link."""
    ctx.wait_idle()
    ctx.open_url(args.to)
    return {"args": args.as_written(), "url": args.to}


ENTRIES: Entries = (entry(NavigateArgs, navigate, NavigateDetails),)
