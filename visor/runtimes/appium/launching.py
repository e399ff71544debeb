"""`launch_app`'s options and `add_media`'s files as Appium commands: planned, pure, before anything is sent.

Android (UiAutomator2): `mobile: terminateApp` to stop, `mobile: clearApp` (`pm clear`) to erase the app's data,
`mobile: changePermissions` (grant, or revoke for deny and unset) with Android's permission names,
`mobile: activateApp` to start; media is pushed (`push_file`) to shared storage's `Pictures/` or `Movies/`, where
the media scanner finds it. Launch arguments and a keychain have no UiAutomator2 command: refused.

iOS (XCUITest): `mobile: terminateApp`, `mobile: clearApp` and `mobile: clearKeychains` (simulators only),
`mobile: setPermission` (`yes`, `no`, `unset`; simulators only), `mobile: launchApp` with `arguments` (each
`-key value`, as an app's UserDefaults read them). Adding media to an iPhone's library is refused: XCUITest's
way (a simulator's `addmedia`) is not proved here.

Whether an app is in front is `mobile: queryAppState` (4: running in the foreground) on both.
"""

from __future__ import annotations

from collections.abc import Mapping

from visor.device.apps import ALL_PERMISSIONS, LaunchOptions, PermissionChoice, ordered
from visor.device.protocol import UnsupportedInput
from visor.runtimes.appium.native import ScriptCall

#: `mobile: queryAppState`'s answer for an app running in the foreground.
RUNNING_IN_FRONT = 4
#: Friendly permission names -> Android's (a name holding a dot is Android's own, sent as it is).
ANDROID_PERMISSIONS: Mapping[str, tuple[str, ...]] = {
    "camera": ("android.permission.CAMERA",),
    "location": ("android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"),
    "contacts": ("android.permission.READ_CONTACTS", "android.permission.WRITE_CONTACTS"),
    "calendar": ("android.permission.READ_CALENDAR", "android.permission.WRITE_CALENDAR"),
    "microphone": ("android.permission.RECORD_AUDIO",),
    "notifications": ("android.permission.POST_NOTIFICATIONS",),
    "photos": ("android.permission.READ_MEDIA_IMAGES", "android.permission.READ_MEDIA_VIDEO"),
    "medialibrary": ("android.permission.READ_MEDIA_AUDIO",),
    "sms": ("android.permission.READ_SMS", "android.permission.SEND_SMS"),
    "phone": ("android.permission.CALL_PHONE",),
    "bluetooth": ("android.permission.BLUETOOTH_CONNECT", "android.permission.BLUETOOTH_SCAN"),
    "storage": ("android.permission.READ_EXTERNAL_STORAGE", "android.permission.WRITE_EXTERNAL_STORAGE"),
}
#: XCUITest's `mobile: setPermission` services, for `all`; other names are sent as written.
IOS_SERVICES = ("calendar", "camera", "contacts", "location", "medialibrary", "microphone", "photos", "reminders")
_IOS_ACCESS = {"allow": "yes", "deny": "no", "unset": "unset"}
#: Android's folders of shared storage where the media scanner finds pictures and videos.
ANDROID_MEDIA = "/sdcard/Pictures", "/sdcard/Movies"
VIDEO_SUFFIXES = (".mp4", ".mov", ".3gp", ".webm")


def launch_plan(platform: str, app_id: str, options: LaunchOptions) -> tuple[ScriptCall, ...]:
    """Return the commands that launch `app_id` as `options` say, in order.

    Raises:
        UnsupportedInput: the platform has no command for an option (nothing is sent).
    """
    if platform == "ios":
        return _ios(app_id, options)
    return _android(app_id, options)


def _android(app_id: str, options: LaunchOptions) -> tuple[ScriptCall, ...]:
    if options.clear_keychain:
        raise UnsupportedInput("clear_keychain: an Android phone has no keychain", next_step="Use clear_state.")
    if options.arguments:
        raise UnsupportedInput(
            "launch arguments on Android: UiAutomator2's activateApp takes none",
            likely_cause="Passing them needs the app's activity (mobile: startActivity with extras).",
            next_step="Drop args.arguments, or open a deep link carrying them (navigate).",
        )
    calls: list[ScriptCall] = []
    if options.stop_first or options.clear_state:
        calls.append(ScriptCall("mobile: terminateApp", {"appId": app_id}))
    if options.clear_state:
        calls.append(ScriptCall("mobile: clearApp", {"appId": app_id}))
    calls.extend(permission_calls("android", app_id, options.permissions))
    calls.append(ScriptCall("mobile: activateApp", {"appId": app_id}))
    return tuple(calls)


def permission_calls(platform: str, app_id: str, permissions: Mapping[str, PermissionChoice]) -> list[ScriptCall]:
    """Return the commands that set `app_id`'s permissions (`launch_app`'s and `set_permissions`'), in order.

    Android: `mobile: changePermissions` once per choice (grant; deny and unset both revoke). iOS:
    `mobile: setPermission` with every service's access (`all` is each of `IOS_SERVICES`; simulators only).
    """
    if platform == "ios":
        access: dict[str, str] = {}
        for name, choice in ordered(permissions):
            for service in IOS_SERVICES if name == ALL_PERMISSIONS else (name,):
                access[service] = _IOS_ACCESS[choice]
        return [ScriptCall("mobile: setPermission", {"bundleId": app_id, "access": access})] if access else []
    return [
        ScriptCall("mobile: changePermissions", {"permissions": names, "appPackage": app_id,
                                                 "action": "grant" if choice == "allow" else "revoke"})
        for choice, names in _android_permissions(permissions).items()
    ]  # fmt: skip


def _android_permissions(permissions: Mapping[str, PermissionChoice]) -> dict[str, list[str] | str]:
    """Group permissions by choice (allow; deny and unset both revoke); `all` is UiAutomator2's own `all`."""
    grouped: dict[str, list[str] | str] = {}
    for name, choice in ordered(permissions):
        key = "allow" if choice == "allow" else "deny"
        if name == ALL_PERMISSIONS:
            grouped[key] = ALL_PERMISSIONS
            continue
        listed = grouped.setdefault(key, [])
        if isinstance(listed, list):
            listed.extend(ANDROID_PERMISSIONS.get(name, (name,)))
    return grouped


def _ios(app_id: str, options: LaunchOptions) -> tuple[ScriptCall, ...]:
    calls: list[ScriptCall] = []
    if options.stop_first or options.clear_state:
        calls.append(ScriptCall("mobile: terminateApp", {"bundleId": app_id}))
    if options.clear_state:
        calls.append(ScriptCall("mobile: clearApp", {"bundleId": app_id}))
    if options.clear_keychain:
        calls.append(ScriptCall("mobile: clearKeychains"))
    calls.extend(permission_calls("ios", app_id, options.permissions))
    launch: dict[str, object] = {"bundleId": app_id}
    if options.arguments:
        launch["arguments"] = launch_arguments(options.arguments)
    calls.append(ScriptCall("mobile: launchApp", launch))
    return tuple(calls)


def launch_arguments(arguments: Mapping[str, str | int | float | bool]) -> list[str]:
    """Return arguments as an iOS app's command line: `-key value` each (what UserDefaults reads), in order."""
    shown = {True: "YES", False: "NO"}
    return [part for key, value in arguments.items()
            for part in (f"-{key}", shown[value] if isinstance(value, bool) else str(value))]  # fmt: skip


def app_state_query(platform: str, app_id: str) -> ScriptCall:
    """Return the command asking in what state an app is (`RUNNING_IN_FRONT` when in front)."""
    return ScriptCall("mobile: queryAppState", {"bundleId" if platform == "ios" else "appId": app_id})


def media_destination(platform: str, name: str) -> str:
    """Return where `push_file` puts a picture or a video on Android (`Pictures/` or `Movies/`).

    Raises:
        UnsupportedInput: on iOS (XCUITest's media import is not proved here).
    """
    if platform == "ios":
        raise UnsupportedInput(
            "add_media on an iPhone over Appium is not supported yet",
            likely_cause="XCUITest adds media to a simulator's library with its own command, not proved by visor.",
            next_step="Add the media before the run (xcrun simctl addmedia), or use the simulated phone.",
        )
    pictures, movies = ANDROID_MEDIA
    return f"{movies if name.lower().endswith(VIDEO_SUFFIXES) else pictures}/{name}"
