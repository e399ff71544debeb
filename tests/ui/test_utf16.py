"""UTF-16 offsets as Android and the agent tools count them: selections never split a character or an emoji."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.ui.utf16 import OffsetError, from_utf16, to_utf16, utf16_length

GRIN = "\U0001f600"  # 😀, outside the BMP: two UTF-16 units
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: man ZWJ woman ZWJ girl
THUMBS_MEDIUM = "\U0001f44d\U0001f3fd"  # 👍🏽: thumbs up + a skin-tone modifier
HEART = "\u2764\ufe0f"  # ❤️: a BMP symbol + the emoji variation selector
HEART_TEXT = "\u2764\ufe0e"  # ❤︎: the same with the text variation selector
KEYCAP_ONE = "1\ufe0f\u20e3"  # 1️⃣: digit + variation selector + combining enclosing keycap
KEYCAP_HASH = "#\u20e3"  # #⃣: the older keycap form, without a variation selector
FRANCE = "\U0001f1eb\U0001f1f7"  # 🇫🇷: two regional indicators
GERMANY = "\U0001f1e9\U0001f1ea"  # 🇩🇪
ENGLAND = "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f"  # 🏴 + tags g b e n g + cancel
WAVE_DARK = "\U0001f44b\U0001f3ff"  # 👋🏿
TECHNOLOGIST = "\U0001f469\U0001f3fd\u200d\U0001f4bb"  # 👩🏽‍💻: skin tone inside a ZWJ sequence

#: Every emoji sequence above, with its length in UTF-16 units.
SEQUENCES = {
    GRIN: 2,
    FAMILY: 8,
    THUMBS_MEDIUM: 4,
    HEART: 2,
    HEART_TEXT: 2,
    KEYCAP_ONE: 3,
    KEYCAP_HASH: 2,
    FRANCE: 4,
    GERMANY: 4,
    ENGLAND: 14,
    WAVE_DARK: 4,
    TECHNOLOGIST: 7,
}

#: Characters that join an emoji sequence (or form flags): kept out of "plain" generated text.
_SEQUENCE_PARTS = {0x200D, 0xFE0E, 0xFE0F, 0x20E3, *range(0x1F3FB, 0x1F400), *range(0x1F1E6, 0x1F200)}
_SEQUENCE_PARTS |= set(range(0xE0020, 0xE0080))
plain_chars = st.characters().filter(  # (surrogates are never drawn)
    lambda char: ord(char) not in _SEQUENCE_PARTS
)
plain_texts = st.text(plain_chars, max_size=30)


def allowed_offsets(text: str, limit: int) -> list[int]:
    """Every offset in 0..limit that `from_utf16` accepts."""
    found = []
    for offset in range(limit + 1):
        try:
            from_utf16(text, offset)
        except OffsetError:
            continue
        found.append(offset)
    return found


# -- lengths -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "length"),
    [
        ("", 0),
        ("abc", 3),
        ("héllo wörld", 11),
        ("日本語", 3),  # CJK: one unit each (BMP)
        ("\uffff", 1),  # the last BMP code point
        ("\U00010000", 2),  # the first supplementary one
        (f"a{GRIN}b", 4),
        *SEQUENCES.items(),
        (f"hi {THUMBS_MEDIUM}, {FRANCE}!", 3 + 4 + 2 + 4 + 1),
    ],
)
def test_utf16_length(text: str, length: int) -> None:
    assert utf16_length(text) == length
    assert utf16_length(text) == len(text.encode("utf-16-le")) // 2


@given(st.text())
def test_utf16_length_agrees_with_the_codec(text: str) -> None:
    assert utf16_length(text) == len(text.encode("utf-16-le")) // 2


# -- BMP text and surrogate pairs --------------------------------------------------------------------------------


def test_bmp_text_offsets_are_code_point_indices() -> None:
    text = "héllo"
    for index in range(len(text) + 1):
        assert to_utf16(text, index) == index
        assert from_utf16(text, index) == index


def test_a_surrogate_pair_counts_two_units_and_is_never_split() -> None:
    text = f"a{GRIN}b"  # units: a=0, 😀=1..2, b=3
    assert [to_utf16(text, index) for index in range(4)] == [0, 1, 3, 4]
    assert from_utf16(text, 1) == 1
    assert from_utf16(text, 3) == 2
    assert from_utf16(text, 4) == 3
    with pytest.raises(OffsetError, match=r"inside the surrogate pair .*U\+1F600"):
        from_utf16(text, 2)


def test_adjacent_astral_characters() -> None:
    text = GRIN * 3
    assert allowed_offsets(text, 6) == [0, 2, 4, 6]
    assert [from_utf16(text, offset) for offset in (0, 2, 4, 6)] == [0, 1, 2, 3]


def test_non_emoji_combining_marks_may_be_split() -> None:
    # Only emoji sequences are protected: "e" + COMBINING ACUTE is two units, both boundaries are offsets.
    text = "e\u0301"
    assert allowed_offsets(text, 2) == [0, 1, 2]


# -- emoji sequences ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sequence", list(SEQUENCES), ids=lambda text: "-".join(f"{ord(c):X}" for c in text))
def test_an_emoji_sequence_is_only_entered_at_its_ends(sequence: str) -> None:
    length = SEQUENCES[sequence]
    text = f"a{sequence}b"
    assert allowed_offsets(text, length + 2) == [0, 1, length + 1, length + 2]
    assert from_utf16(text, length + 1) == 1 + len(sequence)
    assert to_utf16(text, 1 + len(sequence)) == length + 1


@pytest.mark.parametrize(
    ("text", "offset"),
    [
        pytest.param(FAMILY, 2, id="before a zero-width joiner"),
        pytest.param(FAMILY, 3, id="just after a zero-width joiner"),
        pytest.param(THUMBS_MEDIUM, 2, id="before a skin-tone modifier"),
        pytest.param(HEART, 1, id="before an emoji variation selector"),
        pytest.param(HEART_TEXT, 1, id="before a text variation selector"),
        pytest.param(KEYCAP_ONE, 1, id="before the keycap's variation selector"),
        pytest.param(KEYCAP_ONE, 2, id="before the combining keycap"),
        pytest.param(KEYCAP_HASH, 1, id="before a bare combining keycap"),
        pytest.param(FRANCE, 2, id="between a flag's regional indicators"),
        pytest.param(ENGLAND, 2, id="before a subdivision flag's tags"),
        pytest.param(ENGLAND, 8, id="between a subdivision flag's tags"),
        pytest.param(ENGLAND, 12, id="before the cancel tag"),
        pytest.param(TECHNOLOGIST, 2, id="before a skin tone inside a ZWJ sequence"),
    ],
)
def test_offsets_splitting_an_emoji_are_refused(text: str, offset: int) -> None:
    with pytest.raises(OffsetError, match="splits the emoji sequence"):
        from_utf16(text, offset)


def test_flags_pair_up_from_the_start_of_a_run_of_regional_indicators() -> None:
    text = f"x{FRANCE}{GERMANY}y"  # units: x=0, 🇫=1, 🇷=3, 🇩=5, 🇪=7, y=9
    assert allowed_offsets(text, 10) == [0, 1, 5, 9, 10]
    assert from_utf16(text, 5) == 3  # between the two flags: after 🇫🇷, before 🇩🇪


def test_an_unpaired_regional_indicator_ends_a_run_of_flags() -> None:
    lone = "\U0001f1fa"  # 🇺 with no partner
    text = f"{FRANCE}{lone}"
    assert allowed_offsets(text, 6) == [0, 4, 6]


def test_a_sentence_with_every_kind_of_emoji() -> None:
    text = f"Hi {WAVE_DARK}{FAMILY} {KEYCAP_ONE}{FRANCE}!"
    starts = [0, 1, 2, 3, 7, 15, 16, 19, 23]  # H, i, space, 👋🏿, family, space, 1️⃣, 🇫🇷, !
    assert allowed_offsets(text, utf16_length(text) + 3) == [*starts, 24]
    assert [from_utf16(text, offset) for offset in starts] == [0, 1, 2, 3, 5, 10, 11, 14, 16]


# -- out of range ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("offset", [-1, -2, -1000])
def test_negative_offsets_are_refused(offset: int) -> None:
    with pytest.raises(OffsetError, match="negative"):
        from_utf16("abc", offset)
    with pytest.raises(OffsetError, match="negative"):
        from_utf16("", offset)


@pytest.mark.parametrize(("text", "offset"), [("", 1), ("abc", 4), (f"a{GRIN}", 4), (FAMILY, 9), ("abc", 10**6)])
def test_offsets_past_the_end_are_refused(text: str, offset: int) -> None:
    with pytest.raises(OffsetError, match="past the end"):
        from_utf16(text, offset)


def test_the_end_of_the_text_is_an_offset() -> None:
    assert from_utf16("", 0) == 0
    assert from_utf16(FAMILY, 8) == len(FAMILY)
    assert to_utf16("", 0) == 0


@pytest.mark.parametrize(("text", "index"), [("abc", -1), ("abc", -3), ("abc", 4), ("", 1), (GRIN, 2)])
def test_code_point_indices_outside_the_text_are_refused(text: str, index: int) -> None:
    # A slice would wrap a negative index (text[:-1]) or clamp a large one: neither is an offset.
    with pytest.raises(OffsetError, match="outside the text"):
        to_utf16(text, index)


def test_offset_error_is_a_value_error() -> None:
    assert issubclass(OffsetError, ValueError)


# -- properties --------------------------------------------------------------------------------------------------


@given(plain_texts)
def test_round_trip_at_every_code_point_boundary(text: str) -> None:
    for index in range(len(text) + 1):
        assert from_utf16(text, to_utf16(text, index)) == index


@given(plain_texts)
def test_without_emoji_sequences_exactly_the_code_point_boundaries_are_offsets(text: str) -> None:
    boundaries = [to_utf16(text, index) for index in range(len(text) + 1)]
    assert allowed_offsets(text, utf16_length(text) + 2) == boundaries
    assert boundaries[-1] == utf16_length(text)


@given(st.text(), st.integers(-3, 70))
def test_any_offset_either_maps_back_exactly_or_is_refused(text: str, offset: int) -> None:
    try:
        index = from_utf16(text, offset)
    except OffsetError:
        return
    assert to_utf16(text, index) == offset
    # The text before the offset encodes to exactly `offset` units: no surrogate pair was cut.
    assert len(text[:index].encode("utf-16-le")) == 2 * offset


tokens = st.one_of(plain_chars, st.sampled_from(list(SEQUENCES)))


@given(st.lists(tokens, max_size=12))
def test_offsets_are_exactly_the_boundaries_between_characters_and_emoji(parts: list[str]) -> None:
    text = "".join(parts)
    boundaries = [0]
    for part in parts:
        boundaries.append(boundaries[-1] + utf16_length(part))
    assert allowed_offsets(text, utf16_length(text) + 1) == boundaries
    index = 0
    for part, offset in zip(parts, boundaries, strict=False):
        assert from_utf16(text, offset) == index
        index += len(part)
