"""The console escape: what a terminal would act on, or would show as nothing, is shown as an escape."""

from __future__ import annotations

import pytest

from visor.ui.escapes import printable

INVISIBLE = [
    ("\u200b", "\\u200b"),  # zero-width space
    ("\u2060", "\\u2060"),  # word joiner
    ("\u2062", "\\u2062"),  # invisible times
    ("\ufeff", "\\ufeff"),  # byte order mark, zero-width no-break space
    ("\xad", "\\xad"),  # soft hyphen
    ("\u180e", "\\u180e"),  # Mongolian vowel separator
    ("\u206a", "\\u206a"),  # a deprecated format control
    ("\ufff9", "\\ufff9"),  # interlinear annotation anchor
    ("\U000e0001", "\\U000e0001"),  # language tag
    ("\U000e0041", "\\U000e0041"),  # tag letter A: an invisible copy of ASCII
    ("\U000e007f", "\\U000e007f"),  # cancel tag
]


@pytest.mark.parametrize(("char", "escape"), INVISIBLE)
def test_a_character_that_shows_nothing_is_shown_as_an_escape(char: str, escape: str) -> None:
    """Two ids differing only by it would look the same; a run of tag characters hides a whole message."""
    assert printable(f"ok{char}id") == f"ok{escape}id"


def test_ordinary_text_in_any_script_is_shown_as_it_is() -> None:
    """Accents, scripts, emoji, and the joiners emoji and several scripts are written with, are left alone."""
    # Arabic, and Persian with its zero-width non-joiner, written as escapes (a linter takes their letters for Latin).
    for text in (
        "café",
        "Ελληνικά",
        "日本語",
        "\u0645\u0631\u062d\u0628\u0627",
        "नमस्ते",
        "😀",
        "👨\u200d👩\u200d👧",
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        "€ ½ ©",
    ):
        assert printable(text) == text
