"""`launch_app`: start an app (stopped first, its data cleared, its permissions and arguments set), checked in front.

The device does what it can of the options (`visor.device.apps.AppLauncher`: the simulated phone, Appium) and
refuses, before anything changes, what it cannot. The step then checks the app is the one in front: a launch
that left another app (or the launcher, or the lock screen) showing fails, naming what the device said.
"""

from __future__ import annotations

from typing import TypedDict

from visor.device.apps import LaunchOptions
from visor.scenario.commands import LaunchAppArgs
from visor.steps.context import ActionContext, StepFailure
from visor.steps.entry import Entries, entry


class LaunchDetails(TypedDict):
    """An app launched: which, and that it was found in front afterwards."""

    args: dict[str, object]
    app_id: str
    in_front: bool


def named_app(app_id: str | None, ctx: ActionContext, command: str) -> str:
    """Return the app a step names (`args.app_id`), else the run's app under test; fail when there is neither."""
    if app_id or ctx.info.app_id:
        return app_id or ctx.info.app_id
    raise StepFailure(
        f"{command} needs an app id: none was given and the run names no app under test",
        likely_cause="Neither args.app_id nor the run's app (config.app, --app-id) names one.",
        next_step="Give args.app_id (a package or bundle id).",
    )


def launch_app(args: LaunchAppArgs, ctx: ActionContext) -> LaunchDetails:
    """Launch the app as the arguments say, then check it is in front."""
    app_id = named_app(args.app_id, ctx, "launch_app")
    options = LaunchOptions(
        stop_first=args.stop_first,
        clear_state=args.clear_state,
        clear_keychain=args.clear_keychain,
        permissions=dict(args.permissions),
        arguments=dict(args.arguments),
    )
    ctx.launch_with(app_id, options)
    details: LaunchDetails = {"args": args.as_written(), "app_id": app_id, "in_front": ctx.app_in_front(app_id)}
    if not details["in_front"]:
        raise StepFailure(
            f"{app_id} was launched but is not the app in front",
            likely_cause="The app crashed on start, or something else (a dialog, another app) took the screen.",
            next_step="Check the failure screenshot; launch it again, or wait for it (wait: {stable: true}).",
            details=dict(details),
        )
    return details


ENTRIES: Entries = (entry(LaunchAppArgs, launch_app, LaunchDetails),)
