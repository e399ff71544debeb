"""Which context a scenario's name means among those a session lists."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.scenario.contexts import NATIVE, choose, is_web, names_web

ANDROID = ("NATIVE_APP", "WEBVIEW_chrome", "WEBVIEW_com.example.shop")


@pytest.mark.parametrize(
    ("wanted", "listed", "app", "chosen"),
    [
        ("webview", ANDROID, "com.example.shop", "WEBVIEW_com.example.shop"),  # the app's own, not Chrome's
        ("webview", ANDROID, "", "WEBVIEW_chrome"),  # no app named: the first web view
        ("WebView", ("NATIVE_APP", "WEBVIEW_71.1", "WEBVIEW_71.2"), "com.example.shop", "WEBVIEW_71.1"),  # iOS
        ("webview", ("CHROMIUM",), "", "CHROMIUM"),  # a browser's page
        ("webview", ("NATIVE_APP",), "com.example.shop", None),  # not shown yet
        ("native", ANDROID, "", NATIVE),
        (" WEBVIEW_chrome ", ANDROID, "com.example.shop", "WEBVIEW_chrome"),
        ("WEBVIEW_gone", ANDROID, "", None),
    ],
)
def test_a_name_means_the_apps_own_web_view_first(
    wanted: str, listed: tuple[str, ...], app: str, chosen: str | None
) -> None:
    assert choose(wanted, listed, app) == chosen


def test_what_names_a_web_page() -> None:
    assert names_web("webview") and names_web("WEBVIEW_1") and names_web("CHROMIUM")
    assert not names_web("native") and not names_web("NATIVE_APP") and not is_web("NATIVE_APP")


@given(st.text(max_size=20), st.lists(st.text(max_size=20), max_size=6), st.text(max_size=10))
def test_the_choice_is_always_one_listed(wanted: str, listed: list[str], app: str) -> None:
    chosen = choose(wanted, listed, app)
    assert chosen is None or chosen in listed
