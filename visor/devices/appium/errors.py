"""Where selenium's and Appium's exceptions become visor's: nowhere else in visor catches them.

- a lost session (invalid session id, terminated session) becomes `SessionLost`, which the device turns into a
  new session and a `SessionRestarted` for the engine to run the step again;
- an unreachable server becomes a TARGET_ERROR that says how to start Appium;
- a session that cannot be created (a missing driver, a device that is not there) becomes a TARGET_ERROR;
- a command the driver does not implement becomes `UnsupportedInput` (the step fails, the run goes on);
- an element that is gone, or that refuses the command, becomes `InputRejected`;
- anything else the driver answers becomes an ACTION_ERROR for the step.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from visor.actions.device import InputRejected, UnsupportedInput
from visor.errors import ActionError, TargetError

_LOST = ("invalid session id", "session is either terminated or not started", "a session is either terminated")
_UNSUPPORTED = ("not yet been implemented", "unsupported execute method", "unknown command", "unknown method")


#: The operation name under which a session is created.
START = "start a session"


class SessionLost(Exception):
    """The server no longer knows the session."""


def unreachable(url: str, detail: str) -> TargetError:
    """Return the error for a server that does not answer."""
    return TargetError(
        f"the Appium server at {url} does not answer ({detail})",
        likely_cause="Appium is not running, listens on another address or port, or was stopped during the run.",
        next_step=(
            "Start it (npm install -g appium && appium driver install uiautomator2 && appium "
            "--address 127.0.0.1 --port 4723), or pass --server-url; `visor doctor` checks the set-up."
        ),
    )


@contextlib.contextmanager
def mapped(operation: str, url: str, drivers: Callable[[], list[str]] | None = None) -> Iterator[None]:
    """Translate what selenium raises while doing `operation` (a phrase: "read the page source")."""
    from selenium.common import exceptions as selenium_errors
    from urllib3 import exceptions as http_errors

    try:
        yield
    except selenium_errors.InvalidSessionIdException as exc:
        raise SessionLost(_text(exc)) from None
    except selenium_errors.SessionNotCreatedException as exc:
        raise _not_created(_text(exc), drivers) from None
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
        if operation == START:
            raise _not_created(message, drivers) from None
        if any(marker in lowered for marker in _UNSUPPORTED):
            raise _unsupported(operation, message) from None
        raise ActionError(
            f"could not {operation}: {message}",
            likely_cause="The Appium driver refused the command for the current screen or app state.",
            next_step="Look at the Appium server log for this command, and at the step's screenshot.",
        ) from None
    except (http_errors.HTTPError, ConnectionError, TimeoutError, OSError) as exc:
        raise unreachable(url, type(exc).__name__) from None


def _text(exc: Exception) -> str:
    message = str(getattr(exc, "msg", None) or exc)
    for cut in ("Stacktrace:", "; For documentation on this error"):
        message = message.split(cut)[0]
    return " ".join(message.split())


def _unsupported(operation: str, message: str) -> UnsupportedInput:
    return UnsupportedInput(
        f"this Appium driver cannot {operation}: {message[:200]}",
        likely_cause="The automation driver in use does not implement this command.",
        next_step="Use another step for this, or a driver that supports it (UiAutomator2 on Android, XCUITest on iOS).",
    )


def _not_created(message: str, drivers: Callable[[], list[str]] | None) -> TargetError:
    missing = "could not find a driver" in message.lower()
    installed = drivers() if (missing and drivers is not None) else []
    listing = f" Installed drivers: {', '.join(installed)}." if installed else ""
    return TargetError(
        f"Appium could not start a session: {message[:300]}",
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
