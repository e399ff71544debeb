"""`set_orientation`, `set_permissions`, `clear_keychain`, `set_airplane_mode`, `set_location` as Appium commands.

The orientation is WebDriver's (`PORTRAIT`, `LANDSCAPE`: landscape left, the phone turned counter-clockwise), on
both drivers, and read back the same way; landscape right and upside down have no value there, and the rotation
endpoint that turns a phone further is not proved here, so they are refused before anything is sent.

Permissions are `launching.permission_calls` (the commands `launch_app` sends too), after their names are checked
against what the platform's driver knows: Android's friendly names (`launching.ANDROID_PERMISSIONS`) or a
permission id holding a dot; XCUITest's services (`IOS_SERVICES_KNOWN`). The keychain is XCUITest's
`mobile: clearKeychains` (simulators only); an Android phone has none. Airplane mode is UiAutomator2's
`mobile: setConnectivity` / `mobile: getConnectivity` (`airplaneMode`); XCUITest has no command for it. The
location is WebDriver's location endpoint on both (a mock location on Android, the simulated one on iOS); its
answer is read here. Everything is planned or read, pure: the device sends.
"""

from __future__ import annotations

from collections.abc import Mapping

from visor.device.apps import ALL_PERMISSIONS, PermissionChoice
from visor.device.protocol import UnsupportedInput
from visor.runtimes.appium.launching import ANDROID_PERMISSIONS, permission_calls
from visor.runtimes.appium.native import ScriptCall

#: The services XCUITest's `mobile: setPermission` sets on a simulator (Maestro's names, lower case).
IOS_SERVICES_KNOWN = ("calendar", "camera", "contacts", "faceid", "health", "homekit", "location", "medialibrary",
                      "microphone", "motion", "notifications", "photos", "reminders", "siri", "speech",
                      "usertracking")  # fmt: skip


#: The orientations WebDriver's orientation endpoint sets, and back.
WEBDRIVER_ORIENTATIONS = {"portrait": "PORTRAIT", "landscape_left": "LANDSCAPE"}


def orientation_value(orientation: str) -> str:
    """Return WebDriver's orientation for `orientation`.

    Raises:
        UnsupportedInput: landscape right or upside down (WebDriver's orientation has no value for them).
    """
    value = WEBDRIVER_ORIENTATIONS.get(orientation)
    if value is None:
        raise UnsupportedInput(
            f"set_orientation {orientation} over Appium is not supported",
            likely_cause="WebDriver's orientation is PORTRAIT or LANDSCAPE only; the drivers' rotation endpoint, "
            "which turns a phone further, is not proved by visor.",
            next_step="Use portrait or landscape_left, or run the step on the simulated phone.",
        )
    return value


def orientation_name(value: object) -> str | None:
    """Return the orientation a driver reported (None: not one visor knows)."""
    found = {webdriver: name for name, webdriver in WEBDRIVER_ORIENTATIONS.items()}
    return found.get(value.upper()) if isinstance(value, str) else None


def permissions_plan(platform: str, app_id: str, permissions: Mapping[str, PermissionChoice]) -> list[ScriptCall]:
    """Return the commands setting `app_id`'s permissions.

    Raises:
        UnsupportedInput: a name the platform's driver does not know (nothing is sent).
    """
    unknown = sorted(name for name in permissions if not _known(platform, name))
    if unknown:
        known = IOS_SERVICES_KNOWN if platform == "ios" else tuple(ANDROID_PERMISSIONS)
        raise UnsupportedInput(
            f"set_permissions: {platform} has no permission {', '.join(unknown)}",
            likely_cause="Permissions are named as Maestro names them"
            + ("." if platform == "ios" else ", or by Android's own id (android.permission.CAMERA)."),
            next_step=f"Use all or one of: {', '.join(known)}",
        )
    return permission_calls(platform, app_id, permissions)


def _known(platform: str, name: str) -> bool:
    if name == ALL_PERMISSIONS:
        return True
    if platform == "ios":
        return name.lower() in IOS_SERVICES_KNOWN
    return name in ANDROID_PERMISSIONS or "." in name


def keychain_plan(platform: str) -> ScriptCall:
    """Return the command clearing the keychain.

    Raises:
        UnsupportedInput: on Android, which has no keychain.
    """
    if platform != "ios":
        raise UnsupportedInput(
            "clear_keychain: an Android phone has no keychain",
            likely_cause="The keychain is iOS's; Android apps keep their secrets in their own data.",
            next_step="Clear the app's data instead (launch_app clear_state), or run the step on iOS only.",
        )
    return ScriptCall("mobile: clearKeychains")


def airplane_plan(platform: str, enabled: bool | None) -> ScriptCall:
    """Return the command setting airplane mode (`enabled`), or reading it (None).

    Raises:
        UnsupportedInput: on iOS, where XCUITest has no command for it (and simulators have no airplane mode).
    """
    if platform == "ios":
        raise UnsupportedInput(
            "set_airplane_mode: an iPhone's airplane mode cannot be set over Appium",
            likely_cause="XCUITest has no command for it, and iOS simulators have no airplane mode.",
            next_step="Run the step on Android only (a when: {platform: android} block).",
        )
    if enabled is None:
        return ScriptCall("mobile: getConnectivity", {"services": ["airplaneMode"]})
    return ScriptCall("mobile: setConnectivity", {"airplaneMode": enabled})


def location_read(answer: object) -> tuple[float, float] | None:
    """Return the latitude and longitude of a driver's location answer (None: not both as numbers)."""
    if not isinstance(answer, dict):
        return None
    latitude, longitude = _degrees(answer.get("latitude")), _degrees(answer.get("longitude"))
    return None if latitude is None or longitude is None else (latitude, longitude)


def _degrees(value: object) -> float | None:
    """Return a coordinate a driver answered, as a number (None: it is not one; a bool is not)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
