"""UTF-16 offsets as Android and the agent tools count them: selections never split a character or an emoji.

A "character" is an extended grapheme cluster (UAX #29): emoji sequences, but also a letter with its combining
marks, a Hangul syllable spelt in jamo, an Indic conjunct and CR LF.
"""

from __future__ import annotations

import re

import pytest
import regex
from hypothesis import example, given
from hypothesis import strategies as st

from visor.ui.utf16 import OffsetError, from_utf16, grapheme_clusters, to_utf16, utf16_length

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

E_ACUTE = "e\u0301"  # é spelt as e + COMBINING ACUTE ACCENT
A_MARKS = "a\u0323\u0302"  # ậ: a + dot below + circumflex
HANGUL_LVT = "\u1100\u1161\u11a8"  # 각 spelt in jamo: leading consonant, vowel, trailing consonant
HANGUL_LV = "\u1112\u1161"  # 하 spelt in jamo
KSSI = "\u0915\u094d\u0937\u093f"  # क्षि: ka + virama + ssa + vowel sign i, one Devanagari cluster
TAMIL_NI = "\u0ba8\u0bbf"  # நி: na + vowel sign i (a spacing mark)
THAI_KAM = "\u0e01\u0e33"  # กำ: ko kai + sara am (a spacing mark)
CRLF = "\r\n"

#: Characters of several code points that are not emoji, with their length in UTF-16 units.
CLUSTERS = {E_ACUTE: 2, A_MARKS: 3, HANGUL_LVT: 3, HANGUL_LV: 2, KSSI: 4, TAMIL_NI: 2, THAI_KAM: 2, CRLF: 2}

#: Code points that form or join clusters, so that generated text meets them often.
JOINERS = [
    *"\u0301\u0323\u0302\u200d\u200c\ufe0e\ufe0f\u20e3\U0001f3fb\U0001f3ff\U000e0067\U000e007f",
    *"\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea",  # regional indicators
    *"\u1100\u1161\u11a8\uac00",  # Hangul L, V, T and an LV syllable
    *"\u0915\u094d\u0937\u093f\u0600\u0e33",  # Devanagari, a prepended mark, Thai sara am
    *"\r\n",
    "\U0001f468",
    "\U0001f469",
    "\u2764",
    "e",
    "#",
    "1",
    "日",
]
texts = st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from(JOINERS)), max_size=30)

#: Characters that stand alone whatever surrounds them in the token test below (letters, digits, CJK, astral).
single = st.one_of(
    st.sampled_from("abcxyzABC019 .,!?-_"),
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),  # CJK
    st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3),  # precomposed Hangul
    st.characters(min_codepoint=0x0410, max_codepoint=0x044F),  # Cyrillic
    st.characters(min_codepoint=0x1D400, max_codepoint=0x1D44F),  # mathematical letters: astral, not emoji
    st.just(GRIN),
)


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


def grapheme_offsets(text: str) -> list[int]:
    """The UTF-16 offset of every grapheme boundary, by the `regex` module's own segmentation (the oracle)."""
    offsets, units = [0], 0
    for cluster in regex.findall(r"\X", text):
        units += len(cluster.encode("utf-16-le", "surrogatepass")) // 2
        offsets.append(units)
    return offsets


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
        *CLUSTERS.items(),
        (f"hi {THUMBS_MEDIUM}, {FRANCE}!", 3 + 4 + 2 + 4 + 1),
    ],
)
def test_utf16_length(text: str, length: int) -> None:
    assert utf16_length(text) == length
    assert utf16_length(text) == len(text.encode("utf-16-le")) // 2


@given(texts)
def test_utf16_length_agrees_with_the_codec(text: str) -> None:
    assert utf16_length(text) == len(text.encode("utf-16-le")) // 2


@pytest.mark.parametrize(("text", "length"), [("\ud800", 1), ("a\udfff", 2), ("\ud83d\ude00", 2)])
def test_a_lone_surrogate_counts_one_unit(text: str, length: int) -> None:
    # JSON input can carry lone surrogates ("\ud800"); Java counts each as one unit rather than failing.
    assert utf16_length(text) == length
    assert to_utf16(text, len(text)) == length
    assert from_utf16(text, length) == len(text)


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


# -- characters of several code points ----------------------------------------------------------------------------


def test_an_offset_may_not_split_a_letter_from_its_combining_mark() -> None:
    text = f"Caf{E_ACUTE}!"  # units: C=0, a=1, f=2, é=3..4, !=5
    assert to_utf16(text, 4) == 4  # a code-point index is still counted, as before
    message = re.escape(f"offset at character 4 splits the character {E_ACUTE!r} (U+0065 U+0301)")
    with pytest.raises(OffsetError, match=message):
        from_utf16(text, 4)
    assert allowed_offsets(text, 7) == [0, 1, 2, 3, 5, 6]
    assert from_utf16(text, 5) == 5


@pytest.mark.parametrize("cluster", list(CLUSTERS), ids=lambda text: "-".join(f"{ord(c):X}" for c in text))
def test_a_character_of_several_code_points_is_only_entered_at_its_ends(cluster: str) -> None:
    length = CLUSTERS[cluster]
    text = f"a{cluster}b"
    assert allowed_offsets(text, length + 2) == [0, 1, length + 1, length + 2]
    assert from_utf16(text, length + 1) == 1 + len(cluster)
    for inside in range(2, length + 1):
        with pytest.raises(OffsetError, match="splits the character"):
            from_utf16(text, inside)


@pytest.mark.parametrize(
    ("text", "offset", "cluster", "index"),
    [
        pytest.param(HANGUL_LVT, 1, HANGUL_LVT, 1, id="Hangul jamo L|V"),
        pytest.param(HANGUL_LVT, 2, HANGUL_LVT, 2, id="Hangul jamo V|T"),
        pytest.param(KSSI, 1, KSSI, 1, id="before a virama"),
        pytest.param(KSSI, 2, KSSI, 2, id="after a virama"),
        pytest.param(KSSI, 3, KSSI, 3, id="before a vowel sign"),
        pytest.param(f"{GRIN}{A_MARKS}", 4, A_MARKS, 3, id="between two marks, after an astral character"),
        pytest.param("x\r\ny", 2, CRLF, 2, id="CR|LF"),
    ],
)
def test_offsets_splitting_a_character_are_refused(text: str, offset: int, cluster: str, index: int) -> None:
    with pytest.raises(
        OffsetError, match=re.escape(f"offset at character {index} splits the character {cluster!r} (U+")
    ):
        from_utf16(text, offset)


def test_a_character_with_very_many_marks_is_shown_cut_short() -> None:
    text = "a" + "\u0301" * 100
    shown = text[:12]
    points = " ".join(["U+0061", *["U+0301"] * 11])
    with pytest.raises(OffsetError, match=re.escape(f"splits the character {shown!r}… ({points}…)")):
        from_utf16(text, 50)
    assert allowed_offsets(text, 101) == [0, 101]


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


@given(texts)
@example(f"Caf{E_ACUTE}!")
@example(f"{HANGUL_LVT}{KSSI}{FAMILY}{FRANCE}{GERMANY}{THUMBS_MEDIUM}")
def test_the_offsets_are_exactly_the_grapheme_boundaries(text: str) -> None:
    assert allowed_offsets(text, utf16_length(text) + 2) == grapheme_offsets(text)


@given(st.text(st.one_of(st.characters(), st.sampled_from(JOINERS)), max_size=20))
@example("\ud83d\ude00")  # two lone surrogates: two characters of one unit each, as Java counts them
def test_lone_surrogates_are_characters_of_their_own(text: str) -> None:
    assert allowed_offsets(text, utf16_length(text) + 2) == grapheme_offsets(text)


@given(texts)
@example(f"Caf{E_ACUTE}!")
@example(f"{GRIN}{HANGUL_LV}\u11a8{ENGLAND}\r\n")
def test_round_trip_between_code_points_and_utf16_units(text: str) -> None:
    ends = [0]
    for cluster in grapheme_clusters(text):
        ends.append(ends[-1] + len(cluster))
    assert "".join(grapheme_clusters(text)) == text
    for index in range(len(text) + 1):
        offset = to_utf16(text, index)
        assert offset == len(text[:index].encode("utf-16-le")) // 2
        if index in ends:
            assert from_utf16(text, offset) == index
        else:
            with pytest.raises(OffsetError, match="splits the"):
                from_utf16(text, offset)


@given(texts, st.integers(-3, 70))
def test_any_offset_either_maps_back_exactly_or_is_refused(text: str, offset: int) -> None:
    try:
        index = from_utf16(text, offset)
    except OffsetError:
        return
    assert to_utf16(text, index) == offset
    # The text before the offset encodes to exactly `offset` units: no surrogate pair was cut.
    assert len(text[:index].encode("utf-16-le")) == 2 * offset


tokens = st.one_of(single, st.sampled_from([*SEQUENCES, *CLUSTERS]))


@given(st.lists(tokens, max_size=12))
def test_offsets_are_exactly_the_boundaries_between_characters_and_emoji(parts: list[str]) -> None:
    # Independent of any segmentation library: every token is one character, and none joins its neighbours.
    text = "".join(parts)
    boundaries = [0]
    for part in parts:
        boundaries.append(boundaries[-1] + utf16_length(part))
    assert allowed_offsets(text, utf16_length(text) + 1) == boundaries
    index = 0
    for part, offset in zip(parts, boundaries, strict=False):
        assert from_utf16(text, offset) == index
        index += len(part)
