"""Where selenium's and Appium's exceptions become visor's: nowhere else in visor catches them.

- a lost session (invalid session id, terminated session) becomes `SessionLost`, which the device turns into a
  new session and a `SessionRestarted` for the engine to run the step again;
- an unreachable server becomes a TARGET_ERROR that says how to start Appium;
- a server that does not answer within the request's deadline (`RequestTimeout`), or answers something that is
  not a WebDriver reply (`BadReply`, or any exception the client library raises while reading a reply: a
  non-JSON body, a missing key, a value of the wrong type) becomes a TARGET_ERROR;
- a session that cannot be created (a missing driver, a device that is not there) becomes a TARGET_ERROR;
- a command the driver does not implement becomes `UnsupportedInput` (the step fails, the run goes on);
- an element that is gone, or that refuses the command, becomes `InputRejected`;
- anything else the driver answers becomes an ACTION_ERROR for the step.

Text from the server or the client library is scrubbed of the run's secrets before it is shown.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import TracebackType
from typing import Generic, Protocol, TypeVar

from visor import DISTRIBUTION
from visor.device.protocol import InputRejected, UnsupportedInput
from visor.errors import ActionError, NotInstalled, TargetError, VisorError
from visor.runtimes.appium.capabilities import scrub
from visor.runtimes.appium.deadline import RequestTimeout

_LOST = (
    "invalid session id",
    "session is either terminated or not started",
    "a session is either terminated",
)
#: The driver process behind the server is gone (chromedriver, the UiAutomator2 server killed or crashed): the
#: server cannot reach it (refused, reset as it connects or while it answers, hung up), and the session is as
#: good as lost.
_PROXY_FAILED = "could not proxy command to the remote server. original error: "
_DRIVER_GONE = ("econnrefused", "econnreset", "socket hang up", "epipe")
_UNSUPPORTED = ("not yet been implemented", "unsupported execute method", "unknown command", "unknown method")


#: The operation name under which a session is created.
START = "start a session"
#: Modules whose exceptions, raised while handling a reply, mean the reply was not what the protocol says.
_CLIENT_MODULES = ("selenium", "appium", "urllib3", "http", "json", "base64", "visor.runtimes.appium.transport")
#: How much of a message from the server an error quotes.
QUOTE = 300
#: The install command of the Appium client, for visor's plain install.
INSTALL = f"pip install '{DISTRIBUTION}[appium]'  (from a checkout: pip install -e '.[appium]')"


class SessionLost(Exception):
    """The server no longer knows the session."""


def client_missing(exc: ImportError) -> NotInstalled:
    """Return the error for a machine without the Appium client library."""
    return NotInstalled.from_missing_library(
        "Appium-Python-Client",
        "appium",
        needed_by="the Appium runtime",
        detail=str(exc),
        likely_cause="visor was installed without its `appium` extra (the plain install has only the simulated "
        "device).",
        next_step=f"Install it: {INSTALL}; or run on the simulated device with --runtime sim. `visor doctor` "
        "checks the set-up.",
    )


def no_answer(url: str, operation: str, exc: RequestTimeout) -> TargetError:
    """Return the error for a request that got no complete answer within its deadline."""
    return TargetError(
        f"the Appium server at {url} did not answer within {exc.seconds:g} s while trying to {operation} "
        f"({exc.request})",
        likely_cause="The server or the device behind it hangs, or the network loses or trickles the reply.",
        next_step="Look at the Appium server's log for this request and retry; if the device is only slow, raise "
        "VISOR_WEBDRIVER_CONNECTION_TIMEOUT_MS (milliseconds per request).",
    )


def unreadable(url: str, operation: str, detail: str) -> TargetError:
    """Return the error for a reply that is not what the WebDriver protocol answers."""
    return TargetError(
        f"the server at {url} sent a reply visor cannot read while trying to {operation}: {detail[:QUOTE]}",
        likely_cause="The URL does not point at an Appium server, a proxy in between answered instead (an HTML "
        "error page, say), or the server or its driver is broken.",
        next_step="Check that --server-url is Appium's address (its /status answers JSON) and look at its log; "
        "`visor doctor` checks the server.",
    )


def unreachable(url: str, detail: str, operation: str | None = None) -> TargetError:
    """Return the error for a server that does not answer."""
    doing = f" while trying to {operation}" if operation else ""
    return TargetError(
        f"the Appium server at {url} does not answer ({detail}){doing}",
        likely_cause="Appium is not running, listens on another address or port, or was stopped during the run.",
        next_step=(
            "Start it (npm install -g appium && appium driver install uiautomator2 && appium "
            "--address 127.0.0.1 --port 4723), or pass --server-url; `visor doctor` checks the set-up."
        ),
    )


@contextlib.contextmanager
def mapped(
    operation: str,
    url: str,
    drivers: Callable[[], list[str]] | None = None,
    *,
    secrets: tuple[str, ...] = (),
) -> Iterator[None]:
    """Translate what selenium raises while doing `operation` (a phrase: "read the page source").

    `url` is the server's address as shown (without secrets); `secrets` are scrubbed from quoted messages.
    """
    attempt = _Attempt(operation, url, drivers, secrets)
    # Built before the body runs, so a missing client library shows on entry, not while handling an error.
    rules = _rules(starting=operation == START)
    try:
        yield
    except Exception as exc:
        translated = _translated(exc, attempt, rules)
        if translated is None:
            raise  # already visor's, or visor's own bug: either keeps its traceback
        # Not chained: selenium's messages quote the capabilities and the server's URL, secrets and all, which
        # a traceback would print unscrubbed; `translated` quotes them scrubbed.
        raise translated from None


@dataclass(frozen=True, slots=True)
class _Attempt:
    """What `mapped` knows of the command that failed: what it tried, where, and what must not be shown."""

    operation: str
    url: str
    drivers: Callable[[], list[str]] | None
    secrets: tuple[str, ...]

    def quote(self, exc: BaseException) -> str:
        """Return the message of `exc` on one line, scrubbed of the run's secrets."""
        return scrub(_plain(exc), self.secrets)


_E = TypeVar("_E", bound=Exception)


@dataclass(frozen=True, slots=True)
class _Rule(Generic[_E]):
    """Exceptions of these kinds become what `build` returns for them; None lets them go on unchanged."""

    kinds: tuple[type[_E], ...]
    build: Callable[[_E, _Attempt], Exception | None]

    def translate(self, exc: Exception, attempt: _Attempt) -> tuple[bool, Exception | None]:
        """Return whether this rule takes `exc`, and what it becomes (None: it goes on unchanged)."""
        if isinstance(exc, self.kinds):
            return True, self.build(exc, attempt)
        return False, None


class _Translation(Protocol):
    """A rule of any kind of exception, as `_translated` tries it."""

    def translate(self, exc: Exception, attempt: _Attempt) -> tuple[bool, Exception | None]:
        """Return whether the rule takes `exc`, and what it becomes (None: it goes on unchanged)."""
        ...


def _rules(*, starting: bool) -> tuple[_Translation, ...]:
    """Return the translations in the order they are tried: the first rule whose kinds match decides.

    Selenium's specific exceptions come before `WebDriverException`, their base, and the system's connection
    errors before `Exception`. The client library is imported here because the plain install does not have it.
    """
    # lazy: selenium comes with the optional Appium client; only an Appium session meets its errors
    from selenium.common import exceptions as selenium_errors
    from urllib3 import exceptions as http_errors  # lazy: as selenium, it comes with the Appium client

    from visor.runtimes.appium.transport import BadReply  # lazy: as selenium, it is built on the Appium client

    # No session yet, so nothing a step could retry: whatever the server said, it did not start one.
    start = (_Rule((selenium_errors.WebDriverException,), _not_started),) if starting else ()
    return (
        *start,
        _Rule((VisorError,), _unchanged),
        _Rule((RequestTimeout,), _timed_out),
        _Rule((BadReply,), _bad_reply),
        _Rule((selenium_errors.InvalidSessionIdException,), _session_lost),
        _Rule((selenium_errors.UnknownMethodException,), _not_implemented),
        _Rule((selenium_errors.NoSuchElementException, selenium_errors.StaleElementReferenceException), _element_gone),
        _Rule((selenium_errors.InvalidElementStateException,), _element_refuses),
        _Rule((selenium_errors.InvalidSelectorException,), _selector_refused),
        _Rule((selenium_errors.WebDriverException,), _driver_refused),
        _Rule((http_errors.HTTPError, ConnectionError, TimeoutError, OSError), _connection_failed),
        _Rule((Exception,), _reply_or_bug),
    )


def _translated(exc: Exception, attempt: _Attempt, rules: tuple[_Translation, ...]) -> Exception | None:
    """Return visor's error for `exc` by the first rule that matches it, or None to let `exc` go on unchanged."""
    for rule in rules:
        taken, translated = rule.translate(exc, attempt)
        if taken:
            return translated
    return None


def _not_started(exc: Exception, attempt: _Attempt) -> TargetError:
    """Return the error for a server that answered a new-session request without a session."""
    if _NOT_W3C in str(exc):
        return unreadable(attempt.url, attempt.operation, attempt.quote(exc))
    return _not_created(attempt.url, attempt.quote(exc), attempt.drivers)


def _unchanged(exc: Exception, attempt: _Attempt) -> None:
    """Let an error that is already visor's go on as it is."""
    return None


def _timed_out(exc: RequestTimeout, attempt: _Attempt) -> TargetError:
    """Return the error for a request that got no complete answer within its deadline."""
    return no_answer(attempt.url, attempt.operation, exc)


def _bad_reply(exc: Exception, attempt: _Attempt) -> TargetError:
    """Return the error for a reply the transport found not to be a WebDriver reply."""
    return unreadable(attempt.url, attempt.operation, attempt.quote(exc))


def _session_lost(exc: Exception, attempt: _Attempt) -> SessionLost:
    """Return the signal that the server no longer knows the session (the device starts a new one)."""
    return SessionLost(attempt.quote(exc))


def _not_implemented(exc: Exception, attempt: _Attempt) -> UnsupportedInput:
    """Return the error for a command the driver does not implement."""
    return _unsupported(attempt.operation, attempt.quote(exc))


def _element_gone(exc: Exception, attempt: _Attempt) -> InputRejected:
    """Return the error for an element that is no longer there."""
    return InputRejected(
        f"could not {attempt.operation}: the element is no longer on the screen",
        likely_cause="The screen changed since it was last read.",
        next_step="Read the screen again and retarget the element.",
    )


def _element_refuses(exc: Exception, attempt: _Attempt) -> InputRejected:
    """Return the error for an element that will not take the command."""
    return InputRejected(
        f"could not {attempt.operation}: the element refuses it ({attempt.quote(exc)[:200]})",
        likely_cause="The element is disabled, hidden, or does not take this kind of input.",
        next_step="Check the element's state in the step's page source, and use an input it accepts.",
    )


def _selector_refused(exc: Exception, attempt: _Attempt) -> InputRejected:
    """Return the error for a locator expression the driver's own engine refuses."""
    return InputRejected(
        f"could not {attempt.operation}: the driver refuses the expression ({attempt.quote(exc)[:200]})",
        likely_cause="The expression is not valid in the driver's grammar.",
        next_step="Fix the expression; the driver's documentation gives its grammar.",
    )


def _driver_refused(exc: Exception, attempt: _Attempt) -> Exception:
    """Return the error for any other WebDriver error: its message tells a lost session or a missing command.

    Selenium has no class for some of these (an `unknown command`, a lost session a driver reports as an
    `unknown error`), so only the message shows them; anything else fails the step.
    """
    message = attempt.quote(exc)
    lowered = message.lower()
    proxied = lowered.partition(_PROXY_FAILED)[2]
    if any(marker in lowered for marker in _LOST) or any(marker in proxied for marker in _DRIVER_GONE):
        return SessionLost(message)
    if any(marker in lowered for marker in _UNSUPPORTED):
        return _unsupported(attempt.operation, message)
    return ActionError(
        f"could not {attempt.operation}: {message[:QUOTE]}",
        likely_cause="The Appium driver refused the command for the current screen or app state.",
        next_step="Look at the Appium server log for this command, and at the step's screenshot.",
    )


def _connection_failed(exc: Exception, attempt: _Attempt) -> TargetError:
    """Return the error for a connection to the server that failed."""
    return unreachable(attempt.url, _reason(exc), attempt.operation)


def _reply_or_bug(exc: Exception, attempt: _Attempt) -> TargetError | None:
    """Return the error for anything else the client library raised while reading a reply.

    An exception that never passed through the client library is visor's own bug: it goes on unchanged, to be a
    SYSTEM_ERROR with its traceback rather than blamed on the server.
    """
    if not _from_client(exc.__traceback__):
        return None
    return unreadable(attempt.url, attempt.operation, f"{type(exc).__name__}: {attempt.quote(exc)}")


#: What selenium says when a new-session reply has no session in it (a server that is not Appium).
_NOT_W3C = "A valid W3C session creation response"


def _plain(exc: BaseException) -> str:
    message = str(getattr(exc, "msg", None) or exc)
    for cut in ("Stacktrace:", "; For documentation on this error"):
        message = message.split(cut)[0]
    return " ".join(message.split())


#: What went wrong on a connection, in words, by the exception urllib3 or the system raised.
_REASONS = {
    "NewConnectionError": "connection refused",
    "ConnectionRefusedError": "connection refused",
    "NameResolutionError": "unknown host",
    "ConnectTimeoutError": "no connection within the connect timeout",
    "ProtocolError": "the connection closed without a complete reply",
    "SSLError": "TLS failed",
    "MaxRetryError": "too many redirects or retries",
}


def _reason(exc: BaseException) -> str:
    """Name what went wrong on the connection, without quoting URLs (they could carry secrets)."""
    inner = getattr(exc, "reason", None)
    cause = inner if isinstance(inner, BaseException) else exc
    name = type(cause).__name__
    return f"{_REASONS[name]}: {name}" if name in _REASONS else name


def _from_client(trace: TracebackType | None) -> bool:
    """Whether an exception passed through the client library (so it comes from reading a reply)."""
    while trace is not None:
        module = str(trace.tb_frame.f_globals.get("__name__", ""))
        if any(module == name or module.startswith(f"{name}.") for name in _CLIENT_MODULES):
            return True
        trace = trace.tb_next
    return False


def _unsupported(operation: str, message: str) -> UnsupportedInput:
    return UnsupportedInput(
        f"this Appium driver cannot {operation}: {message[:200]}",
        likely_cause="The automation driver in use does not implement this command.",
        next_step="Use another step for this, or a driver that supports it (UiAutomator2 on Android, XCUITest on iOS).",
    )


def _not_created(url: str, message: str, drivers: Callable[[], list[str]] | None) -> TargetError:
    lowered = message.lower()
    if "could not find a driver" in lowered:
        installed = drivers() if drivers is not None else []
        listing = f" Installed drivers: {', '.join(installed)}." if installed else ""
        cause = "No installed Appium driver matches the capabilities."
        fix = f"Install the driver (appium driver install uiautomator2, or xcuitest).{listing} "
        fix += "`visor doctor` checks the set-up."
    elif "requested resource could not be found" in lowered:
        cause = "The server serves no WebDriver sessions at this path: Appium 2 and later serve them at the root "
        cause += "unless started with --base-path; Appium 1 and many grids serve them at /wd/hub."
        fix = (
            "Drop /wd/hub from --server-url (or start Appium with --base-path /wd/hub)."
            if url.rstrip("/").endswith("/wd/hub")
            else "Check the server's base path (add it to --server-url, e.g. /wd/hub for a grid)."
        )
    else:
        cause = "The device is not connected or booted, or the app is not installed on it."
        fix = "Check the device with `visor devices` and the app id; `visor doctor` checks the set-up."
    return TargetError(
        f"Appium at {url} could not start a session: {message[:QUOTE]}", likely_cause=cause, next_step=fix
    )
