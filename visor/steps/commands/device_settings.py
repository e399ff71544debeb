"""`set_orientation`, `set_permissions`, `clear_keychain`, `set_airplane_mode`, `set_location`: settings, read back.

The device does them (`visor.device.settings.DeviceSettings`: the simulated phone, Appium) and refuses, before
anything changes, what its platform cannot (a keychain on Android, airplane mode on an iPhone). Each step then
reads the setting back: a setting that did not take fails the step, naming what the device says now. Where the
device cannot read it back (a real phone's permissions), the step reports `verified: false` instead of guessing.
"""

from __future__ import annotations

from typing import NoReturn, TypedDict

from visor.scenario.commands import (
    LOCATION_TOLERANCE,
    ClearKeychainArgs,
    SetAirplaneModeArgs,
    SetLocationArgs,
    SetOrientationArgs,
    SetPermissionsArgs,
)
from visor.steps.commands.launch import named_app
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import Volatile
from visor.steps.entry import Entries, entry


class OrientationDetails(TypedDict):
    """The screen turned: how it was before (None: not read), whether it was read back."""

    args: dict[str, object]
    was: str | None
    verified: bool


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


class LocationDetails(TypedDict):
    """The GPS moved: where it was before (None: not read), whether the new place was read back.

    Where it was is kept out of the signature: a real phone's own fix is wherever the phone happens to be.
    """

    args: dict[str, object]
    was: Volatile[list[float] | None]
    verified: bool


def set_orientation(args: SetOrientationArgs, ctx: ActionContext) -> OrientationDetails:
    """Turn the screen, then read the orientation back: a screen turned otherwise fails the step."""
    was = ctx.orientation()
    ctx.set_orientation(args.orientation)
    now = ctx.orientation()
    details: OrientationDetails = {"args": args.as_written(), "was": was, "verified": now is not None}
    if now is not None and now != args.orientation:
        _not_taken(f"the screen is {now} after turning it {args.orientation}", dict(details),
                   "The app or the device locks its orientation (auto-rotate off, an app fixed in portrait).",
                   "Check the device's rotation lock and the app's supported orientations.")  # fmt: skip
    return details


def set_permissions(args: SetPermissionsArgs, ctx: ActionContext) -> PermissionsDetails:
    """Set the app's permissions, then read them back: one the device holds otherwise fails the step."""
    app_id = named_app(args.app_id, ctx, "set_permissions")
    wanted = dict(ctx.set_permissions(app_id, dict(args.permissions)))
    now = ctx.permission_states(app_id)
    details: PermissionsDetails = {"args": args.as_written(), "app_id": app_id, "set": wanted,
                                   "verified": now is not None}  # fmt: skip
    wrong = sorted(name for name, state in wanted.items() if now is not None and now.get(name) != state)
    if wrong and now is not None:
        said = ", ".join(f"{name} is {now.get(name, 'unknown')}, not {wanted[name]}" for name in wrong)
        _not_taken(f"set_permissions did not take: {said}", dict(details),
                   "The device or the app changed them back, or refused the change.",
                   "Check the app's permissions on the device, or set them at launch (launch_app).")  # fmt: skip
    return details


def clear_keychain(args: ClearKeychainArgs, ctx: ActionContext) -> KeychainDetails:
    """Erase the keychain, then count its items: any left fails the step."""
    ctx.clear_keychain()
    left = ctx.keychain_items()
    details: KeychainDetails = {"args": args.as_written(), "verified": left is not None}
    if left:
        _not_taken(f"the keychain still holds {left} item{'s' * (left != 1)} after clearing it", dict(details),
                   "The device did not clear it, or an app wrote to it again at once.",
                   "Stop the app first (manage_app stop), then clear the keychain.")  # fmt: skip
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
        _not_taken(f"airplane mode is still {'on' if now else 'off'} after turning it {'on' if enabled else 'off'}",
                   dict(details), "The device refused the change (a policy, or a driver without the permission to).",
                   "Check the device's quick settings; on Android, the driver needs adb shell access.")  # fmt: skip
    return details


def set_location(args: SetLocationArgs, ctx: ActionContext) -> LocationDetails:
    """Put the GPS at a place, then read it back: a place farther than `LOCATION_TOLERANCE` fails the step."""
    was = ctx.location()
    ctx.set_location(args.latitude, args.longitude)
    now = ctx.location()
    details: LocationDetails = {"args": args.as_written(), "was": None if was is None else list(was),
                                "verified": now is not None}  # fmt: skip
    wanted = (args.latitude, args.longitude)
    if now is not None and any(abs(got - set_) > LOCATION_TOLERANCE for got, set_ in zip(now, wanted, strict=True)):
        _not_taken(f"the location reads {now[0]}, {now[1]} after setting it to {wanted[0]}, {wanted[1]}",
                   dict(details), "The device ignores mock locations (on Android, the driver's helper app is not "
                   "allowed to mock them), or an app moved it again.",
                   "On Android, allow mock locations for Appium Settings (Developer options, Select mock location "
                   "app); on iOS, use a simulator.")  # fmt: skip
    return details


def _not_taken(message: str, details: dict[str, object], likely_cause: str, next_step: str) -> NoReturn:
    """Fail the step: the device reads back another setting than the one it was given."""
    raise StepFailure(message, likely_cause=likely_cause, next_step=next_step, details=details)


ENTRIES: Entries = (
    entry(SetOrientationArgs, set_orientation, OrientationDetails),
    entry(SetPermissionsArgs, set_permissions, PermissionsDetails),
    entry(ClearKeychainArgs, clear_keychain, KeychainDetails),
    entry(SetAirplaneModeArgs, set_airplane_mode, AirplaneDetails),
    entry(SetLocationArgs, set_location, LocationDetails),
)
