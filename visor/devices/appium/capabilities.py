"""W3C capabilities for UiAutomator2 (Android) and XCUITest (iOS), from options, environment and the scenario.

Precedence: what visor derives (platform, automation name, device, app, attach mode, timeouts), then the
scenario's `config.capabilities` on top (they win), every key that is not a W3C standard one prefixed with
`appium:`. docs/runtimes.md lists the sets.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from visor.errors import InputError

DEFAULT_SERVER_URL = "http://127.0.0.1:4723"
#: Capabilities W3C defines; every other one needs a vendor prefix.
W3C_KEYS = frozenset(
    {
        "platformName", "browserName", "browserVersion", "acceptInsecureCerts", "pageLoadStrategy", "proxy",
        "setWindowRect", "timeouts", "strictFileInteractability", "unhandledPromptBehavior", "webSocketUrl",
    }
)  # fmt: skip
AUTOMATION = {"android": "UiAutomator2", "ios": "XCUITest"}


@dataclass(frozen=True, slots=True)
class AppiumSettings:
    """Everything the Appium runtime is told, from the command line, the environment and the scenario."""

    #: Without credentials: they are kept apart (`username`, `password`) and sent as HTTP basic auth.
    server_url: str = DEFAULT_SERVER_URL
    platform: str | None = None
    device: str | None = None
    app_id: str | None = None
    app_activity: str | None = None
    attach: bool = False
    new_command_timeout_s: int = 60
    connection_timeout_s: float = 120.0
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    @property
    def public_url(self) -> str:
        """Return the server URL without credentials: the only form that appears in output."""
        return redact_url(self.server_url)


def settings_from(
    *,
    server_url: str | None,
    device: str | None,
    app_id: str | None,
    attach: bool,
    platform: str | None,
    capabilities: Mapping[str, Any] | None,
    environ: Mapping[str, str] | None = None,
) -> AppiumSettings:
    """Combine the command line with the environment (upstream's variables, plus server credentials).

    Options win over environment variables. Credentials come from `VISOR_SERVER_USERNAME` and
    `VISOR_SERVER_ACCESS_KEY`, or from the URL's user part, and never appear in output.
    """
    env = os.environ if environ is None else environ
    url = server_url or env.get("VISOR_SERVER_URL") or DEFAULT_SERVER_URL
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(
            f"--server-url {redact_url(url)!r} is not an http(s) URL",
            next_step="Give the Appium server's URL, e.g. http://127.0.0.1:4723 (or a device farm's hub URL).",
        )
    caps = dict(capabilities or {})
    chosen = platform or _platform_of(caps)
    ios = chosen == "ios"
    app = app_id or (env.get("VISOR_IOS_BUNDLE_ID") if ios else env.get("VISOR_ANDROID_APP_PACKAGE"))
    return AppiumSettings(
        server_url=redact_url(url),
        platform=chosen,
        device=device,
        app_id=app,
        app_activity=env.get("VISOR_ANDROID_APP_ACTIVITY"),
        attach=attach or env.get("VISOR_ATTACH_TO_RUNNING", "").lower() in ("1", "true", "yes"),
        new_command_timeout_s=_int(env, "VISOR_APPIUM_NEW_COMMAND_TIMEOUT_SECONDS", 60),
        connection_timeout_s=_int(env, "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS", 120_000) / 1000,
        capabilities=caps,
        username=env.get("VISOR_SERVER_USERNAME") or parts.username,
        password=env.get("VISOR_SERVER_ACCESS_KEY") or parts.password,
    )


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError:
        raise InputError(f"{name}={value!r} is not a whole number", next_step=f"Set {name} to a number.") from None


def _platform_of(capabilities: Mapping[str, Any]) -> str | None:
    name = str(capabilities.get("platformName", "")).lower()
    return {"android": "android", "ios": "ios", "fake": "android"}.get(name)


def build_capabilities(settings: AppiumSettings) -> dict[str, Any]:
    """Return the W3C capabilities for a new session."""
    caps: dict[str, Any] = {}
    if settings.platform in AUTOMATION:
        caps["platformName"] = "iOS" if settings.platform == "ios" else "Android"
        caps["appium:automationName"] = AUTOMATION[settings.platform]
    if settings.device:
        caps["appium:udid"] = settings.device
    caps["appium:newCommandTimeout"] = settings.new_command_timeout_s
    if settings.platform == "android":
        caps.update(_android(settings))
    elif settings.platform == "ios":
        caps.update(_ios(settings))
    for key, value in settings.capabilities.items():
        caps[key if key in W3C_KEYS or ":" in key else f"appium:{key}"] = value
    return caps


def _android(settings: AppiumSettings) -> dict[str, Any]:
    caps: dict[str, Any] = {}
    if settings.app_id:
        caps["appium:appPackage"] = settings.app_id
        caps["appium:appActivity"] = settings.app_activity or ".MainActivity"
    if settings.attach:
        caps.update({"appium:noReset": True, "appium:autoLaunch": False, "appium:dontStopAppOnReset": True})
    return caps


def _ios(settings: AppiumSettings) -> dict[str, Any]:
    caps: dict[str, Any] = {}
    if settings.app_id:
        caps["appium:bundleId"] = settings.app_id
    if settings.attach:
        caps.update({"appium:noReset": True, "appium:shouldTerminateApp": False, "appium:forceAppLaunch": False})
    return caps


def redact_url(url: str) -> str:
    """Return `url` without a user name or password."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def redact_capabilities(caps: Mapping[str, Any]) -> dict[str, Any]:
    """Return capabilities fit for output: values of keys that look like secrets are hidden."""
    secret = ("key", "token", "password", "secret", "auth")
    return {k: ("***" if any(word in k.lower() for word in secret) else v) for k, v in caps.items()}
