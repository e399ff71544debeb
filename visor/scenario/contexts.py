"""What a scenario's context names mean: `webview`, `native`, or a context's exact name, as a driver lists them.

An Appium session of a hybrid app lists its contexts: `NATIVE_APP`, and one per web view a debugger can reach
(`WEBVIEW_<package>` on Android, `WEBVIEW_<id>` on iOS; `CHROMIUM` for a browser). `choose` picks the one a
scenario's name means among those listed; `names_web` says whether a step under that name is on a web page.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The context of an app's own (native) screen, as every Appium driver names it.
NATIVE = "NATIVE_APP"
#: What a scenario writes for "the app's web view" and "the app's native screen".
WEBVIEW_WORD = "webview"
NATIVE_WORD = "native"
#: How drivers name the contexts that are web pages (a web view's, a browser's).
_WEB_PREFIXES = ("WEBVIEW", "CHROMIUM")


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
