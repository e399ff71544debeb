"""`set_permissions`, `clear_keychain`, `set_airplane_mode`: the phone's settings changed, and read back.

The device does them (`visor.device.settings.DeviceSettings`: the simulated phone, Appium) and refuses, before
anything changes, what its platform cannot (a keychain on Android, airplane mode on an iPhone). Each step then
reads the setting back: a setting that did not take fails the step, naming what the device says now. Where the
device cannot read it back (a real phone's permissions), the step reports `verified: false` instead of guessing.
"""

from __future__ import annotations

from typing import TypedDict

from visor.scenario.commands import ClearKeychainArgs, SetAirplaneModeArgs, SetPermissionsArgs
from visor.steps.context import ActionContext, StepFailure
from visor.steps.entry import Entries, entry


class PermissionsDetails(TypedDict):
    """Permissions set: the app, each permission the device set and its state, whether they were read back."""

    args: dict[str, object]
    app_id: str
    set: dict[str, str]
    verified: bool


class KeychainDetails(TypedDict):
    """The keychain cleared: whether it was read back empty."""

    args: dict[str, object]
    verified: bool


class AirplaneDetails(TypedDict):
    """Airplane mode set: to what, what it was before (None: not read), whether it was read back."""

    args: dict[str, object]
    enabled: bool
    was: bool | None
    verified: bool


def set_permissions(args: SetPermissionsArgs, ctx: ActionContext) -> PermissionsDetails:
    """Set the app's permissions, then read them back: one the device holds otherwise fails the step."""
    app_id = args.app_id or ctx.info.app_id
    if not app_id:
        raise StepFailure(
            "set_permissions needs an app id: none was given and the run names no app under test",
            likely_cause="Neither args.app_id nor the run's app (config.app, --app-id) names one.",
            next_step="Give args.app_id (a package or bundle id).",
        )
    wanted = dict(ctx.set_permissions(app_id, dict(args.permissions)))
    now = ctx.permission_states(app_id)
    details: PermissionsDetails = {"args": args.as_written(), "app_id": app_id, "set": wanted,
                                   "verified": now is not None}  # fmt: skip
    wrong = sorted(name for name, state in wanted.items() if now is not None and now.get(name) != state)
    if wrong and now is not None:
        said = ", ".join(f"{name} is {now.get(name, 'unknown')}, not {wanted[name]}" for name in wrong)
        raise StepFailure(
            f"set_permissions did not take: {said}",
            likely_cause="The device or the app changed them back, or refused the change.",
            next_step="Check the app's permissions on the device; set them at launch (launch_app permissions).",
            details=dict(details),
        )
    return details


def clear_keychain(args: ClearKeychainArgs, ctx: ActionContext) -> KeychainDetails:
    """Erase the keychain, then count its items: any left fails the step."""
    ctx.clear_keychain()
    left = ctx.keychain_items()
    details: KeychainDetails = {"args": args.as_written(), "verified": left is not None}
    if left:
        raise StepFailure(
            f"the keychain still holds {left} item{'s' * (left != 1)} after clearing it",
            likely_cause="The device did not clear it, or an app wrote to it again at once.",
            next_step="Stop the app first (manage_app stop), then clear the keychain.",
            details=dict(details),
        )
    return details


def set_airplane_mode(args: SetAirplaneModeArgs, ctx: ActionContext) -> AirplaneDetails:
    """Turn airplane mode on or off (a toggle reads it first), then read it back."""
    was = ctx.airplane_mode()
    if args.toggle and was is None:
        raise StepFailure(
            "set_airplane_mode cannot toggle: this device does not say whether airplane mode is on",
            likely_cause="Its driver can set airplane mode but not read it.",
            next_step="Say the state you want: set_airplane_mode {enabled: true} or {enabled: false}.",
        )
    enabled = not was if args.toggle else bool(args.enabled)
    ctx.set_airplane_mode(enabled)
    now = ctx.airplane_mode()
    details: AirplaneDetails = {"args": args.as_written(), "enabled": enabled, "was": was,
                                "verified": now is not None}  # fmt: skip
    if now is not None and now != enabled:
        raise StepFailure(
            f"airplane mode is still {'on' if now else 'off'} after turning it {'on' if enabled else 'off'}",
            likely_cause="The device refused the change (a policy, or a driver without the permission to).",
            next_step="Check the device's quick settings; on Android, the driver needs adb shell access.",
            details=dict(details),
        )
    return details


ENTRIES: Entries = (
    entry(SetPermissionsArgs, set_permissions, PermissionsDetails),
    entry(ClearKeychainArgs, clear_keychain, KeychainDetails),
    entry(SetAirplaneModeArgs, set_airplane_mode, AirplaneDetails),
)
