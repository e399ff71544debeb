"""Text offsets in UTF-16 code units, as Android and the agent tools count them.

Python indexes strings by code point; Android's selections count UTF-16 code units, so a character outside
the Basic Multilingual Plane (most emoji) is two units. An offset may only fall between two user-perceived
characters: the extended grapheme clusters of Unicode's text segmentation (UAX #29). So it never splits a
surrogate pair, a letter from its combining marks ("e" + U+0301), a Hangul syllable spelt in jamo, an Indic
conjunct ("क्षि"), CR LF, or an emoji sequence (ZWJ sequences, skin tones, keycaps, flags, tag sequences).

Lengths are counted by the UTF-16 codec, in C: layouts ask for them on every step, so they must stay cheap
however long a field grows. Segmentation comes from the `regex` module (imported when first needed: only
offsets given by a caller are checked, and most runs never do).
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate
from operator import methodcaller

from visor.selectors.patterns import compile_pattern

#: Lone surrogates (which JSON input can carry) encode as one unit each instead of failing, as Java counts them.
_ENCODE = methodcaller("encode", "utf-16-le", "surrogatepass")
#: Code points that make a grapheme cluster an emoji sequence (for the wording of errors only).
_EMOJI = "[\\p{Extended_Pictographic}\\p{Regional_Indicator}\u20e3\ufe0f]"
#: How many code points of a cluster an error message shows (a base may carry any number of marks).
_SHOWN = 12


class OffsetError(ValueError):
    """An offset that is out of range or splits a character or an emoji."""


def utf16_length(text: str) -> int:
    """Return the length of `text` in UTF-16 code units."""
    if text.isascii():  # O(1): CPython flags ASCII strings
        return len(text)
    return len(_ENCODE(text)) // 2


def to_utf16(text: str, index: int) -> int:
    """Return the UTF-16 offset of code-point index `index`.

    Raises:
        OffsetError: the index is negative or past the end (a slice would silently wrap or clamp it).
    """
    if not 0 <= index <= len(text):
        raise OffsetError(f"index {index} is outside the text (0..{len(text)} code points)")
    return index if text.isascii() else utf16_length(text[:index])


def from_utf16(text: str, offset: int) -> int:
    """Return the code-point index at UTF-16 `offset`.

    Raises:
        OffsetError: the offset is negative, past the end, inside a surrogate pair, or inside a character made
            of several code points (a grapheme cluster: an emoji sequence, a letter and its marks, CR LF...).
    """
    if offset < 0:
        raise OffsetError(f"offset {offset} is negative")
    length = utf16_length(text)
    if offset > length:
        raise OffsetError(f"offset {offset} is past the end of the text ({length} UTF-16 units)")
    if offset == 0:
        return 0
    if offset == length:
        return len(text)
    if text.isascii():  # every code point is one unit and one character, except CR LF
        if text[offset - 1 : offset + 1] == "\r\n":
            raise _split("\r\n", offset)
        return offset
    clusters = grapheme_clusters(text)
    # Where each cluster ends in UTF-16 units: C-level iteration, however long the text.
    unit_ends = list(accumulate(map(len, map(_ENCODE, clusters))))
    at = bisect_left(unit_ends, 2 * offset)
    start = sum(map(len, clusters[:at]))
    if unit_ends[at] == 2 * offset:
        return start + len(clusters[at])
    # Inside cluster `at`: walk its code points to tell a split surrogate pair from a split cluster.
    cluster, wanted = clusters[at], offset - (unit_ends[at - 1] // 2 if at else 0)
    position = units = 0
    while units < wanted:
        units += 2 if ord(cluster[position]) > 0xFFFF else 1
        position += 1
    if units > wanted:
        char = cluster[position - 1]
        raise OffsetError(f"offset {offset} falls inside the surrogate pair of {char!r} (U+{ord(char):04X})")
    raise _split(cluster, start + position)


def grapheme_clusters(text: str) -> list[str]:
    """Split `text` into its user-perceived characters (Unicode extended grapheme clusters, UAX #29)."""
    return compile_pattern(r"\X").findall(text)


def _split(cluster: str, index: int) -> OffsetError:
    """Return the error for an offset at code point `index` that falls inside `cluster`."""
    shown = cluster[:_SHOWN]
    more = "…" if len(cluster) > _SHOWN else ""
    if compile_pattern(_EMOJI).search(cluster) is not None:
        return OffsetError(f"offset at character {index} splits the emoji sequence {shown!r}{more}")
    points = " ".join(f"U+{ord(char):04X}" for char in shown)
    return OffsetError(f"offset at character {index} splits the character {shown!r}{more} ({points}{more})")
