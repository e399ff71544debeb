"""Warnings for `config.capabilities` keys that look misspelt, before a session request fails on them.

The rule follows what the Appium runtime does with the keys (visor/runtimes/appium/capabilities.py): a W3C standard
capability is sent as written, a key with a vendor prefix (`appium:`, `bstack:`, …) too, and any other key gets
`appium:` put in front of it. So an unprefixed Appium capability (`deviceName`) is fine; warned about are:

- an unprefixed key that is neither W3C's nor an Appium capability listed here: Appium 2+ requires non-standard
  capabilities to carry a vendor prefix, and the one visor adds may not be the one meant (a typo, another
  vendor's capability);
- an `appium:` key that is a near miss of a listed one (`appium:automatonName`).

Warnings, not errors: vendors and drivers have capabilities of their own, and the lists here cannot be complete.
"""

from __future__ import annotations

from collections.abc import Mapping

from visor.inputs.issues import Issue, IssueCode, warning
from visor.inputs.suggest import closest

#: The capabilities the W3C WebDriver spec defines; every other one needs a vendor prefix. The Appium runtime sends
#: these as written (its `W3C_KEYS` is this list).
W3C_CAPABILITIES = frozenset(
    {
        "acceptInsecureCerts", "browserName", "browserVersion", "pageLoadStrategy", "platformName", "proxy",
        "setWindowRect", "strictFileInteractability", "timeouts", "unhandledPromptBehavior", "webSocketUrl",
    }
)  # fmt: skip
#: Appium capabilities (base driver, UiAutomator2, XCUITest) common enough to know, named without their prefix.
APPIUM_CAPABILITIES = frozenset(
    {
        # base driver
        "app", "automationName", "deviceName", "eventTimings", "fullReset", "language", "locale",
        "newCommandTimeout", "noReset", "options", "orientation", "platformVersion", "printPageSourceOnFindFailure",
        "udid",
        # UiAutomator2
        "adbExecTimeout", "allowTestPackages", "androidInstallTimeout", "appActivity", "appPackage",
        "appWaitActivity", "appWaitDuration", "appWaitForLaunch", "appWaitPackage", "autoGrantPermissions",
        "autoLaunch", "avd", "chromedriverExecutable", "chromedriverExecutableDir", "disableWindowAnimation",
        "dontStopAppOnReset", "enforceAppInstall", "ignoreHiddenApiPolicyError", "ignoreUnimportantViews",
        "mjpegServerPort", "nativeWebScreenshot", "otherApps", "skipDeviceInitialization", "skipServerInstallation",
        "skipUnlock", "systemPort", "uiautomator2ServerInstallTimeout", "uiautomator2ServerLaunchTimeout",
        "uiautomator2ServerReadTimeout", "unlockKey", "unlockType",
        # XCUITest
        "autoAcceptAlerts", "autoDismissAlerts", "bundleId", "connectHardwareKeyboard", "derivedDataPath",
        "forceAppLaunch", "includeSafariInWebviews", "isHeadless", "processArguments", "shouldTerminateApp",
        "showXcodeLog", "simulatorStartupTimeout", "updatedWDABundleId", "useNewWDA", "usePrebuiltWDA",
        "wdaConnectionTimeout", "wdaLaunchTimeout", "wdaLocalPort", "wdaStartupRetries", "webviewConnectTimeout",
        "xcodeOrgId", "xcodeSigningId",
    }
)  # fmt: skip
APPIUM_PREFIX = "appium:"
#: A misspelling differs from what was meant by a letter or two; a longer name is another capability
#: (`appWaitActivity` is not `appActivity` misspelt).
_MAX_LENGTH_DIFFERENCE = 2


def capability_issues(data: Mapping[str, object]) -> list[Issue]:
    """Return an `UNKNOWN_FIELD` warning for every `config.capabilities` key that looks unintended."""
    config = data.get("config")
    capabilities = config.get("capabilities") if isinstance(config, dict) else None
    if not isinstance(capabilities, dict):
        return []  # the model reports a value that is not an object
    found = (_check(key) for key in capabilities if isinstance(key, str))
    return [issue for issue in found if issue is not None]


def _check(key: str) -> Issue | None:
    path = ("config", "capabilities", key)
    if key in W3C_CAPABILITIES:
        return None
    if key.startswith(APPIUM_PREFIX):
        name = key[len(APPIUM_PREFIX) :]
        meant = _meant(name)
        if meant is None:
            return None  # one visor does not know, or a driver's own: Appium says if it is wrong
        message = f"Unknown capability '{key}': not an Appium capability visor knows"
        return warning(IssueCode.UNKNOWN_FIELD, message, path, f"did you mean '{meant}'?")
    if ":" in key or key in APPIUM_CAPABILITIES:
        return None  # another vendor's (sent as written), or an Appium one visor prefixes itself
    message = (
        f"Unknown capability '{key}': not a W3C capability, and without a vendor prefix visor sends it as "
        f"'{APPIUM_PREFIX}{key}'"
    )
    meant = _meant(key)
    hint = f"did you mean '{meant}'?" if meant is not None else _prefix_hint(key)
    return warning(IssueCode.UNKNOWN_FIELD, message, path, hint)


def _meant(name: str) -> str | None:
    """Return the capability `name` misspells, written as a scenario should write it, or None."""
    match = closest(name, W3C_CAPABILITIES | APPIUM_CAPABILITIES)
    if match is None or match == name or abs(len(match) - len(name)) > _MAX_LENGTH_DIFFERENCE:
        return None
    return match if match in W3C_CAPABILITIES else f"{APPIUM_PREFIX}{match}"


def _prefix_hint(key: str) -> str:
    return (
        f"Appium 2+ requires non-standard capabilities to carry a vendor prefix: write '{APPIUM_PREFIX}{key}' "
        "if it is Appium's, or its vendor's prefix, such as 'bstack:'"
    )
