"""A hybrid app's contexts: its native screen, and the web views it shows (driven as web pages).

An Appium session of a hybrid app lists its contexts: `NATIVE_APP`, and one per web view a debugger can reach
(`WEBVIEW_<package>` on Android, `WEBVIEW_<id>` on iOS; `CHROMIUM` for a browser). A device that can switch
between them is a `ContextSwitcher`; in a web view its screen is the page's, read as the web platform reads a
page (`visor.runtimes.appium.web`). A scenario names a context by what it is (`webview`, `native`) or exactly
(`WEBVIEW_com.example.shop`): `visor.scenario.contexts` says which context a name means.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from visor.device.protocol import Device, UnsupportedInput


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
