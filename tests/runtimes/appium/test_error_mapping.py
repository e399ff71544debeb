"""Every translation `mapped` makes, without a server: each kind of exception becomes its visor error.

The end-to-end tests reach most translations through a real or scripted server; the ones a server cannot easily
provoke (a lost session or a missing command told only by the message, visor's own bug) are held here too.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable

import pytest
from selenium.common import exceptions as selenium_errors
from urllib3 import exceptions as http_errors

from visor.device.protocol import InputRejected, UnsupportedInput
from visor.errors import ActionError, TargetError
from visor.runtimes.appium.deadline import RequestTimeout
from visor.runtimes.appium.error_mapping import START, SessionLost, mapped
from visor.runtimes.appium.transport import BadReply

URL = "http://127.0.0.1:4723"
CLICK = "perform click on Button"
SECRET = "s3cr3t-key"
#: What selenium appends to a server's message: never shown.
TRAILER = "\nStacktrace:\n  at click (driver.js:1)"


def translated(
    exc: BaseException, operation: str = CLICK, drivers: Callable[[], list[str]] | None = None
) -> BaseException:
    """Return what `mapped` raises when `exc` is raised inside it."""
    with pytest.raises(BaseException) as caught, mapped(operation, URL, drivers, secrets=(SECRET,)):
        raise exc
    return caught.value


class _Conn:
    """Stands for the urllib3 connection an exception names."""


@pytest.mark.parametrize(
    ("exc", "kind", "message"),
    [
        (RequestTimeout("GET /source", 1.5), TargetError, f"the Appium server at {URL} did not answer within 1.5 s"),
        (BadReply(f"not JSON {SECRET}"), TargetError, f"the server at {URL} sent a reply visor cannot read while"),
        (selenium_errors.InvalidSessionIdException(f"invalid session id {SECRET}{TRAILER}"), SessionLost, ""),
        (selenium_errors.UnknownMethodException("Unsupported execute method"), UnsupportedInput, ""),
        (selenium_errors.NoSuchElementException("no such element"), InputRejected, f"could not {CLICK}: the"),
        (selenium_errors.StaleElementReferenceException("stale"), InputRejected, f"could not {CLICK}: the"),
        (selenium_errors.ElementNotInteractableException("hidden"), InputRejected, f"could not {CLICK}: the"),
        (selenium_errors.WebDriverException(f"no {SECRET}{TRAILER}"), ActionError, f"could not {CLICK}: no ***"),
        (selenium_errors.TimeoutException("slow"), ActionError, f"could not {CLICK}: slow"),
        (ConnectionRefusedError(111, "refused"), TargetError, f"the Appium server at {URL} does not answer"),
        (TimeoutError("timed out"), TargetError, f"the Appium server at {URL} does not answer (TimeoutError)"),
        (OSError(5, "io"), TargetError, f"the Appium server at {URL} does not answer (OSError) while"),
        (http_errors.ProtocolError("aborted"), TargetError, f"the Appium server at {URL} does not answer (the connection closed"),
    ],
    ids=[
        "timeout", "bad-reply", "invalid-session", "unknown-method", "no-such-element", "stale", "not-interactable",
        "webdriver", "selenium-timeout", "refused", "timeout-error", "os-error", "protocol",
    ],
)  # fmt: skip
def test_each_kind_of_exception_becomes_its_visor_error(exc: Exception, kind: type, message: str) -> None:
    error = translated(exc)
    assert type(error) is kind
    assert str(error).startswith(message)
    assert SECRET not in str(error) and "Stacktrace" not in str(error)
    assert error.__suppress_context__ and error.__cause__ is None


def test_the_elements_errors_say_what_to_do() -> None:
    gone = translated(selenium_errors.NoSuchElementException("no such element"))
    assert isinstance(gone, InputRejected)
    assert gone.message == f"could not {CLICK}: the element is no longer on the screen"
    assert gone.next_step == "Read the screen again and retarget the element."
    refused = translated(selenium_errors.InvalidElementStateException("disabled " + "x" * 300))
    assert isinstance(refused, InputRejected) and refused.message.endswith(f"(disabled {'x' * 191})")


@pytest.mark.parametrize(
    "text",
    [
        "Invalid Session ID",
        "A session is either terminated or not started",
        "session is either terminated or not started",
        "invalid session id; unknown command",
        # chromedriver gone: refusing connections, hanging up, or dying while it answered
        "Could not proxy command to the remote server. Original error: connect ECONNREFUSED 127.0.0.1:9515",
        "Could not proxy command to the remote server. Original error: socket hang up",
        "Could not proxy command to the remote server. Original error: read ECONNRESET",
        "Could not proxy command to the remote server. Original error: connect ECONNRESET 127.0.0.1:36047",
    ],
)
def test_a_lost_session_told_only_by_the_message(text: str) -> None:
    error = translated(selenium_errors.WebDriverException(f"{text} {SECRET}{TRAILER}"))
    assert type(error) is SessionLost and str(error) == f"{text} ***"


@pytest.mark.parametrize(
    "text",
    [
        "Method has not yet been implemented",
        "Unsupported execute method 'mobile: x'",
        "Unknown command",
        "unknown method",
    ],
)
def test_a_missing_command_told_only_by_the_message(text: str) -> None:
    error = translated(selenium_errors.WebDriverException(f"{text}{TRAILER}"))
    assert type(error) is UnsupportedInput
    assert error.message == f"this Appium driver cannot {CLICK}: {text}"
    assert error.likely_cause == "The automation driver in use does not implement this command."


def test_the_reason_a_connection_failed_is_named_without_its_url() -> None:
    refused = http_errors.MaxRetryError(None, f"http://u:{SECRET}@h/", http_errors.NewConnectionError(_Conn(), "no"))
    error = translated(refused)
    assert isinstance(error, TargetError)
    assert error.message == (
        f"the Appium server at {URL} does not answer (connection refused: NewConnectionError) while trying to {CLICK}"
    )
    unknown = http_errors.NameResolutionError("h", _Conn(), socket.gaierror("x"))
    assert "(unknown host: NameResolutionError)" in str(translated(http_errors.MaxRetryError(None, "/", unknown)))
    assert "(too many redirects or retries: MaxRetryError)" in str(translated(http_errors.MaxRetryError(None, "/")))


def test_whatever_a_new_session_request_raises_is_a_failed_start() -> None:
    for exc in (
        selenium_errors.SessionNotCreatedException("Device emulator-5554 was not in the list"),
        selenium_errors.InvalidSessionIdException("invalid session id"),
        selenium_errors.NoSuchElementException("no such element"),
        selenium_errors.WebDriverException("unknown command"),
    ):
        error = translated(exc, START)
        assert type(error) is TargetError and error.message.startswith(f"Appium at {URL} could not start a session: ")
        assert error.likely_cause.startswith("The device is not connected or booted")
    not_appium = translated(selenium_errors.WebDriverException("A valid W3C session creation response must..."), START)
    assert isinstance(not_appium, TargetError) and f"the server at {URL} sent a reply" in not_appium.message
    timeout = translated(RequestTimeout("POST /session", 30), START)
    assert isinstance(timeout, TargetError) and "did not answer within 30 s while trying to start a session" in str(
        timeout
    )


def test_a_missing_driver_lists_the_installed_ones() -> None:
    calls: list[int] = []

    def installed() -> list[str]:
        calls.append(1)
        return ["uiautomator2", "xcuitest"]

    missing = selenium_errors.SessionNotCreatedException("Could not find a driver for automationName 'Fake'")
    error = translated(missing, START, installed)
    assert (
        isinstance(error, TargetError) and error.likely_cause == "No installed Appium driver matches the capabilities."
    )
    assert "Installed drivers: uiautomator2, xcuitest." in error.next_step and calls == [1]
    without = translated(missing, START)
    assert isinstance(without, TargetError) and "Installed drivers" not in without.next_step
    translated(selenium_errors.SessionNotCreatedException("no device"), START, installed)
    assert calls == [1], "the drivers are listed only when one is missing"


def test_what_the_client_library_raises_while_reading_a_reply_is_an_unreadable_reply() -> None:
    with pytest.raises(TargetError) as caught, mapped(CLICK, URL, secrets=(SECRET,)):
        json.loads(f"{{not json {SECRET}")
    assert caught.value.message.startswith(f"the server at {URL} sent a reply visor cannot read while trying to ")
    assert "JSONDecodeError: " in caught.value.message and SECRET not in caught.value.message


@pytest.mark.parametrize(
    "exc",
    [
        TargetError("already visor's"),
        InputRejected("already visor's"),
        KeyError("visor's own bug"),
        RuntimeError("visor's own bug"),
        KeyboardInterrupt(),
    ],
    ids=["target-error", "input-rejected", "key-error", "runtime-error", "keyboard-interrupt"],
)
def test_visor_errors_and_visor_bugs_go_on_unchanged(exc: BaseException) -> None:
    """An exception raised by visor's own code, not the client library's, is a bug to show with its traceback."""
    assert translated(exc) is exc
    assert translated(exc, START) is exc


def test_nothing_raised_nothing_translated() -> None:
    with mapped(CLICK, URL):
        pass
