"""`switch_context`: into a hybrid app's web view, or back to its native screen; waited for, checked, said."""

from __future__ import annotations

from typing import TypedDict

from visor.scenario.commands import SwitchContextArgs
from visor.scenario.contexts import NATIVE, NATIVE_WORD, choose, names_web
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import Volatile
from visor.steps.entry import Entries, entry


class SwitchContextDetails(TypedDict):
    """The context switched to and the one left (signed), and every context the session had then."""

    args: dict[str, object]
    context: str
    #: The context the step began in.
    left: str
    #: Web views come and go as pages load: which were listed when the step looked is timing, unsigned.
    contexts: Volatile[list[str]]


def switch_context(args: SwitchContextArgs, ctx: ActionContext) -> SwitchContextDetails:
    """Switch to the context `to` names once the session lists it (within the step's timeout), and check it did.

    A web view is waited for (it shows once its page loads); a native context the session does not list is asked
    for all the same, so that the device says why it has none.
    """
    ctx.wait_idle()
    left = ctx.current_context()
    while True:
        listed = ctx.contexts()
        chosen = choose(args.to, listed, ctx.info.app_id)
        if chosen is not None:
            break
        if not names_web(args.to):
            # Only web views come and go: a native context not listed now never will be, as the device says.
            chosen = NATIVE if args.to.strip().lower() == NATIVE_WORD else args.to.strip()
            break
        if not ctx.pause():
            raise StepFailure(
                f"the session has no {args.to} context after {ctx.timeout_ms} ms: it has {', '.join(listed) or 'none'}",
                likely_cause="The app had not shown its web view yet, or the web view cannot be debugged "
                "(Android: WebView.setWebContentsDebuggingEnabled(true) in a debug build; iOS 16.4+: "
                "isInspectable), or the name is not one the driver lists.",
                next_step="Wait for the screen that holds the web view first, or name a context the session lists.",
                details={"contexts": list(listed)},
            )
    if chosen != left:
        ctx.switch_context(chosen)
    now = ctx.current_context()
    if now != chosen:
        raise StepFailure(
            f"switched to {chosen}, but the session is in {now or 'no context'}",
            likely_cause="The web view went away as it was switched to.",
            next_step="Check the failure screenshot: the app may have left the screen with the web view.",
        )
    return {"args": args.as_written(), "context": chosen, "left": left, "contexts": list(listed)}


ENTRIES: Entries = (entry(SwitchContextArgs, switch_context, SwitchContextDetails),)
