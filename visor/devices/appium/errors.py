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
from types import TracebackType

from visor import DISTRIBUTION
from visor.actions.device import InputRejected, UnsupportedInput
from visor.devices.appium.capabilities import scrub
from visor.devices.appium.deadline import RequestTimeout
from visor.errors import ActionError, TargetError, VisorError

_LOST = ("invalid session id", "session is either terminated or not started", "a session is either terminated")
_UNSUPPORTED = ("not yet been implemented", "unsupported execute method", "unknown command", "unknown method")


#: The operation name under which a session is created.
START = "start a session"
#: Modules whose exceptions, raised while handling a reply, mean the reply was not what the protocol says.
_CLIENT_MODULES = ("selenium", "appium", "urllib3", "http", "json", "base64", "visor.devices.appium.transport")
#: How much of a message from the server an error quotes.
QUOTE = 300
#: The install command of the Appium client, for visor's plain install.
INSTALL = f"pip install '{DISTRIBUTION}[appium]'  (from a checkout: pip install -e '.[appium]')"


class SessionLost(Exception):
    """The server no longer knows the session."""


def client_missing(exc: ImportError) -> TargetError:
    """Return the error for a machine without the Appium client library."""
    return TargetError(
        f"the Appium runtime needs Appium-Python-Client, which is not installed ({exc})",
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
    from selenium.common import exceptions as selenium_errors
    from urllib3 import exceptions as http_errors

    from visor.devices.appium.transport import BadReply

    def _text(exc: BaseException) -> str:
        return scrub(_plain(exc), secrets)

    try:
        try:
            yield
        except selenium_errors.WebDriverException as exc:
            if operation != START:
                raise
            # No session yet, so nothing a step could retry: whatever the server said, it did not start one.
            if _NOT_W3C in str(exc):
                raise unreadable(url, operation, _text(exc)) from None
            raise _not_created(url, _text(exc), drivers) from None
    except VisorError:
        raise
    except RequestTimeout as exc:
        raise no_answer(url, operation, exc) from None
    except BadReply as exc:
        raise unreadable(url, operation, _text(exc)) from None
    except selenium_errors.InvalidSessionIdException as exc:
        raise SessionLost(_text(exc)) from None
    except selenium_errors.UnknownMethodException as exc:
        raise _unsupported(operation, _text(exc)) from None
    except (selenium_errors.NoSuchElementException, selenium_errors.StaleElementReferenceException):
        raise InputRejected(
            f"could not {operation}: the element is no longer on the screen",
            likely_cause="The screen changed since it was last read.",
            next_step="Read the screen again and retarget the element.",
        ) from None
    except selenium_errors.InvalidElementStateException as exc:
        raise InputRejected(
            f"could not {operation}: the element refuses it ({_text(exc)[:200]})",
            likely_cause="The element is disabled, hidden, or does not take this kind of input.",
            next_step="Check the element's state in the step's page source, and use an input it accepts.",
        ) from None
    except selenium_errors.WebDriverException as exc:
        message = _text(exc)
        lowered = message.lower()
        if any(marker in lowered for marker in _LOST):
            raise SessionLost(message) from None
        if any(marker in lowered for marker in _UNSUPPORTED):
            raise _unsupported(operation, message) from None
        raise ActionError(
            f"could not {operation}: {message[:QUOTE]}",
            likely_cause="The Appium driver refused the command for the current screen or app state.",
            next_step="Look at the Appium server log for this command, and at the step's screenshot.",
        ) from None
    except (http_errors.HTTPError, ConnectionError, TimeoutError, OSError) as exc:
        raise unreachable(url, _reason(exc), operation) from None
    except Exception as exc:
        if not _from_client(exc.__traceback__):
            raise  # visor's own bug: a SYSTEM_ERROR with its traceback, not a server problem
        raise unreadable(url, operation, f"{type(exc).__name__}: {_text(exc)}") from None


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
    missing = "could not find a driver" in message.lower()
    installed = drivers() if (missing and drivers is not None) else []
    listing = f" Installed drivers: {', '.join(installed)}." if installed else ""
    return TargetError(
        f"Appium at {url} could not start a session: {message[:QUOTE]}",
        likely_cause=(
            "No installed Appium driver matches the capabilities."
            if missing
            else "The device is not connected or booted, or the app is not installed on it."
        ),
        next_step=(
            f"Install the driver (appium driver install uiautomator2, or xcuitest).{listing} "
            "`visor doctor` checks the set-up."
            if missing
            else "Check the device with `visor devices` and the app id; `visor doctor` checks the set-up."
        ),
    )
