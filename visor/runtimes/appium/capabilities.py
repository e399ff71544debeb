"""W3C capabilities for UiAutomator2 (Android), XCUITest (iOS) and Chromium (the web), from options and scenario.

Precedence: what visor derives (platform, automation name, device, app, attach mode, timeouts), then the
scenario's `config.capabilities` on top (they win), every key that is not a W3C standard one prefixed with
`appium:`. docs/runtimes.md lists the sets.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from visor.errors import InputError
from visor.runtimes.appium.web import web_capabilities
from visor.scenario.capability_check import W3C_CAPABILITIES
from visor.ui.secrets import MIN_SECRET, mask_text

DEFAULT_SERVER_URL = "http://127.0.0.1:4723"
#: The longest one request to the server may take, all included (`VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS`).
DEFAULT_REQUEST_TIMEOUT_MS = 120_000
#: The longest opening a connection to the server may take (`VISOR_APPIUM_CONNECT_TIMEOUT_MS`).
DEFAULT_CONNECT_TIMEOUT_MS = 10_000
#: Names of URL query parameters and capabilities whose values are hidden in output (a substring match).
SECRET_WORDS = ("key", "token", "password", "passwd", "pwd", "secret", "auth", "credential", "signature", "sig")
#: Capabilities W3C defines; every other one needs a vendor prefix (validation warns by the same list).
W3C_KEYS = W3C_CAPABILITIES
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
    #: The total deadline of one request: connecting, sending, the whole reply, retries and redirects.
    connection_timeout_s: float = DEFAULT_REQUEST_TIMEOUT_MS / 1000
    #: The deadline of opening a connection (within the request's).
    connect_timeout_s: float = DEFAULT_CONNECT_TIMEOUT_MS / 1000
    capabilities: Mapping[str, object] = field(default_factory=dict)
    username: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)

    @property
    def public_url(self) -> str:
        """Return the server URL without credentials or secret query values: the only form shown in output."""
        return redact_url(self.server_url)

    @property
    def secrets(self) -> tuple[str, ...]:
        """Return the values that must never appear in output (to scrub foreign error messages with)."""
        values = [self.password or "", *_secret_query_values(self.server_url), *secret_values(self.capabilities)]
        return tuple(sorted({value for value in values if len(value) >= 3}, key=len, reverse=True))


def settings_from(
    *,
    server_url: str | None,
    device: str | None,
    app_id: str | None,
    attach: bool,
    platform: str | None,
    capabilities: Mapping[str, object] | None,
    environ: Mapping[str, str] | None = None,
) -> AppiumSettings:
    """Combine the command line with the environment (upstream's variables, plus server credentials).

    Options win over environment variables. Credentials come from `VISOR_SERVER_USERNAME` and
    `VISOR_SERVER_ACCESS_KEY`, or from the URL's user part, and never appear in output.
    """
    env = os.environ if environ is None else environ
    url = (server_url or env.get("VISOR_SERVER_URL") or DEFAULT_SERVER_URL).strip()
    username, password = check_server_url(url)
    caps = dict(capabilities or {})
    chosen = platform or platform_of(caps)
    ios = chosen == "ios"
    app = app_id or (env.get("VISOR_IOS_BUNDLE_ID") if ios else env.get("VISOR_ANDROID_APP_PACKAGE"))
    return AppiumSettings(
        server_url=without_credentials(url),
        platform=chosen,
        device=device,
        app_id=app,
        app_activity=env.get("VISOR_ANDROID_APP_ACTIVITY"),
        attach=attach or env.get("VISOR_ATTACH_TO_RUNNING", "").lower() in ("1", "true", "yes"),
        new_command_timeout_s=_int(env, "VISOR_APPIUM_NEW_COMMAND_TIMEOUT_SECONDS", 60),
        connection_timeout_s=positive_ms(env, "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS", DEFAULT_REQUEST_TIMEOUT_MS)
        / 1000,
        connect_timeout_s=positive_ms(env, "VISOR_APPIUM_CONNECT_TIMEOUT_MS", DEFAULT_CONNECT_TIMEOUT_MS) / 1000,
        capabilities=caps,
        username=env.get("VISOR_SERVER_USERNAME") or username,
        password=env.get("VISOR_SERVER_ACCESS_KEY") or password,
    )


def check_server_url(url: str) -> tuple[str | None, str | None]:
    """Check that `url` can address an Appium server; return the user name and password written in it.

    Raises:
        InputError: not an http(s) URL with a host and a port in 1..65535 (the URL shown without its secrets).
    """
    shown = redact_url(url)
    example = "Give the Appium server's URL, e.g. http://127.0.0.1:4723 (or a device farm's hub URL)."

    def bad(problem: str) -> InputError:
        return InputError(f"--server-url {shown!r} {problem}", next_step=example)

    try:
        parts = urlsplit(url)
        port = parts.port
        host = parts.hostname
    except ValueError as exc:  # a port out of range or not a number, a malformed [IPv6] host
        reason = "has a port that is not a number from 1 to 65535" if "port" in str(exc).lower() else "is malformed"
        raise bad(reason) from exc
    if parts.scheme.lower() not in ("http", "https"):
        raise bad("is not an http(s) URL")
    if not host:
        raise bad("has no host")
    if port == 0:
        raise bad("has a port that is not a number from 1 to 65535")
    if any(character.isspace() for character in url):
        raise bad("contains spaces")
    return parts.username, parts.password


def positive_ms(env: Mapping[str, str], name: str, default: int) -> int:
    """Read a duration in milliseconds from the environment (`default` when unset).

    Raises:
        InputError: it is set but not a whole number above 0.
    """
    value = env.get(name)
    if value is None or not value.strip():
        return default
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise InputError(
            f"{name}={value!r} is not a whole number above 0", next_step=f"Set {name} to a positive number."
        )
    return number


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    value = env.get(name)
    if value is None:
        return default
    try:
        return int(value)
    except ValueError as exc:
        raise InputError(f"{name}={value!r} is not a whole number", next_step=f"Set {name} to a number.") from exc


def platform_of(capabilities: Mapping[str, object]) -> str | None:
    """Return the platform the capabilities' platformName names (`fake`: the fake driver's Android), if any."""
    name = str(capabilities.get("platformName", "")).lower()
    if str(capabilities.get("appium:automationName", capabilities.get("automationName", ""))).lower() == "chromium":
        return "web"
    return {"android": "android", "ios": "ios", "fake": "android"}.get(name)


def build_capabilities(settings: AppiumSettings) -> dict[str, object]:
    """Return the W3C capabilities for a new session."""
    caps: dict[str, object] = {}
    if settings.platform == "web":
        caps.update(web_capabilities(settings.device, local=is_loopback(settings.server_url)))
    if settings.platform in AUTOMATION:
        caps["platformName"] = "iOS" if settings.platform == "ios" else "Android"
        caps["appium:automationName"] = AUTOMATION[settings.platform]
    if settings.device and settings.platform != "web":  # the web's device is the phone emulated
        caps["appium:udid"] = settings.device
    caps["appium:newCommandTimeout"] = settings.new_command_timeout_s
    if settings.platform == "android":
        caps.update(_android(settings))
    elif settings.platform == "ios":
        caps.update(_ios(settings))
    for key, value in settings.capabilities.items():
        caps[key if key in W3C_KEYS or ":" in key else f"appium:{key}"] = value
    return caps


def _android(settings: AppiumSettings) -> dict[str, object]:
    caps: dict[str, object] = {}
    if settings.app_id:
        caps["appium:appPackage"] = settings.app_id
        caps["appium:appActivity"] = settings.app_activity or ".MainActivity"
    if settings.attach:
        caps.update({"appium:noReset": True, "appium:autoLaunch": False, "appium:dontStopAppOnReset": True})
    return caps


def _ios(settings: AppiumSettings) -> dict[str, object]:
    caps: dict[str, object] = {}
    if settings.app_id:
        caps["appium:bundleId"] = settings.app_id
    if settings.attach:
        caps.update({"appium:noReset": True, "appium:shouldTerminateApp": False, "appium:forceAppLaunch": False})
    return caps


def is_loopback(url: str) -> bool:
    """Say whether `url` names a server on this machine (127.0.0.0/8, ::1 or localhost)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return host in ("localhost", "::1") or host.startswith("127.")


def redact_url(url: str) -> str:
    """Return `url` fit for output: no user name or password, and secret-looking query values as `***`.

    Works on anything given as a URL, valid or not: `user:pass@host:4723` (no scheme) loses its credentials
    too, and `?key=…&token=…` keep their names but not their values.
    """
    scheme, separator, rest = url.partition("://")
    if not separator:
        scheme, rest = "", url
    # Shown text errs on the safe side: everything up to the last "@" before the query goes, in case a
    # password holds a "/" that was not percent-encoded.
    head = re.split(r"[?#]", rest, maxsplit=1)[0]
    if "@" in head:
        rest = rest[head.rindex("@") + 1 :]
    before, mark, query = rest.partition("?")
    if mark:
        query, hash_mark, fragment = query.partition("#")
        rest = f"{before}?{_redact_query(query)}{hash_mark}{fragment}"
    return f"{scheme}{separator}{rest}"


def without_credentials(url: str) -> str:
    """Return a checked server URL without its user part (`user:password@`): the address visor connects to."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _secret_name(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in SECRET_WORDS)


def _redact_query(query: str) -> str:
    pairs = parse_qsl(query, keep_blank_values=True)
    if not any(_secret_name(name) for name, _ in pairs):
        return query
    return urlencode([(name, "***" if _secret_name(name) else value) for name, value in pairs], safe="*")


def _secret_query_values(url: str) -> list[str]:
    query = re.split(r"#", url.partition("?")[2], maxsplit=1)[0]
    return [value for name, value in parse_qsl(query, keep_blank_values=True) if _secret_name(name)]


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """Return `text` (a message from the server or a client library) with every secret replaced by `***`.

    A server quotes what it was sent as it likes (JSON-escaped, percent-encoded in a URL): each secret is
    masked in all those forms (`visor.ui.secrets.mask_text`); one too short for that, as it is.
    """
    text = mask_text(text, secrets, mask="***")
    for secret in secrets:
        if secret and len(secret) < MIN_SECRET:
            text = text.replace(secret, "***")
    return text


def secret_values(capabilities: Mapping[str, object]) -> frozenset[str]:
    """Return the texts of the capabilities whose names look secret (`redact_capabilities`), at any depth.

    A vendor's options nest them (`{"bstack:options": {"accessKey": …}}`); everything under a secret-looking
    name is secret, objects and arrays included.
    """
    hidden = redact_capabilities(capabilities)
    found: set[str] = set()
    for key, value in capabilities.items():
        if hidden[key] is not value:
            found |= _texts(value)
        elif isinstance(value, Mapping):
            found |= secret_values(value)
        elif isinstance(value, list):
            found |= {text for item in value if isinstance(item, Mapping) for text in secret_values(item)}
    return frozenset(found)


def _texts(value: object) -> set[str]:
    """Return every text in a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, Mapping):
        return {text for item in value.values() for text in _texts(item)}
    if isinstance(value, list):
        return {text for item in value for text in _texts(item)}
    return set()


def redact_capabilities(caps: Mapping[str, object]) -> dict[str, object]:
    """Return capabilities fit for output: values of keys that look like secrets are hidden."""
    return {k: ("***" if _secret_name(k) else v) for k, v in caps.items()}
