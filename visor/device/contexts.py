"""A hybrid app's contexts: its native screen, and the web views it shows (driven as web pages).

An Appium session of a hybrid app lists its contexts: `NATIVE_APP`, and one per web view a debugger can reach
(`WEBVIEW_<package>` on Android, `WEBVIEW_<id>` on iOS; `CHROMIUM` for a browser). A device that can switch
between them is a `ContextSwitcher`; in a web view its screen is the page's, read as the web platform reads a
page (`visor.runtimes.appium.web`). A scenario names a context by what it is (`webview`, `native`) or exactly
(`WEBVIEW_com.example.shop`); `choose` picks the one a name means among those listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from visor.device.protocol import Device, UnsupportedInput

#: The context of an app's own (native) screen, as every Appium driver names it.
NATIVE = "NATIVE_APP"
#: What a scenario writes for "the app's web view" and "the app's native screen".
WEBVIEW_WORD = "webview"
NATIVE_WORD = "native"
#: How drivers name the contexts that are web pages (a web view's, a browser's).
_WEB_PREFIXES = ("WEBVIEW", "CHROMIUM")


@runtime_checkable
class ContextSwitcher(Protocol):
    """A device whose session has contexts: the native screen and the web views it can drive."""

    def contexts(self) -> tuple[str, ...]:
        """Return the contexts the session has now, as the driver names them."""
        ...

    def current_context(self) -> str:
        """Return the context input goes to and the screen is read from, as the driver says it."""
        ...

    def switch_context(self, name: str) -> None:
        """Make `name` (one `contexts()` listed) the context input goes to and the screen is read from.

        Raises:
            InputRejected: the driver refused (the context went away, its web view's debugger is not reachable).
        """
        ...


def switcher(device: Device) -> ContextSwitcher:
    """Return `device` as a `ContextSwitcher`, or refuse, sending nothing."""
    if isinstance(device, ContextSwitcher):
        return device
    raise UnsupportedInput(
        f"this device ({device.info.runtime}) shows no web views to switch to",
        likely_cause="Only an Appium session has contexts: a hybrid app's web views, or a browser's page.",
        next_step="Run the scenario with --runtime appium on the hybrid app, or drop the context switch.",
    )


def is_web(context: str) -> bool:
    """Say whether a context is a web page (a web view's or a browser's), read and driven as one."""
    return context.upper().startswith(_WEB_PREFIXES)


def names_web(wanted: str) -> bool:
    """Say whether a scenario's context (`webview`, `native`, an exact name) is a web page's."""
    word = wanted.strip()
    return word.lower() == WEBVIEW_WORD or is_web(word)


def choose(wanted: str, available: Sequence[str], app_id: str = "") -> str | None:
    """Return the context `wanted` names among `available` (None: none of them is it, yet).

    `native` is the app's own screen; `webview` the app's web view: its own (`WEBVIEW_<app id>`) first, else
    the first web context listed (a browser's page is `CHROMIUM`). Any other name is a context's exact name.
    """
    word = wanted.strip()
    if word.lower() == NATIVE_WORD:
        return NATIVE if NATIVE in available else None
    if word.lower() != WEBVIEW_WORD:
        return word if word in available else None
    own = f"WEBVIEW_{app_id}"
    if app_id and own in available:
        return own
    return next((name for name in available if is_web(name)), None)
