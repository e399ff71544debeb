"""Text offsets in UTF-16 code units, as Android and the agent tools count them.

Python indexes strings by code point; Android's selections count UTF-16 code units, so a character outside
the Basic Multilingual Plane (most emoji) is two units. An offset may never fall inside such a pair, nor
inside an emoji sequence (a zero-width joiner, a variation selector, a skin-tone modifier, a keycap mark or a
tag character binds to the character before it, and flags are pairs of regional indicators).
"""

from __future__ import annotations

#: Characters that bind to the one before them: an offset just before one would split an emoji.
#: Tag characters (U+E0020..U+E007F) spell the subdivision flags (🏴 + tags + cancel tag, e.g. England's).
_BINDING = frozenset({0x200D, 0xFE0E, 0xFE0F, 0x20E3, *range(0x1F3FB, 0x1F400), *range(0xE0020, 0xE0080)})
_ZWJ = 0x200D
_REGIONAL = range(0x1F1E6, 0x1F200)


class OffsetError(ValueError):
    """An offset that is out of range or splits a character or an emoji."""


def utf16_length(text: str) -> int:
    """Return the length of `text` in UTF-16 code units."""
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text)


def to_utf16(text: str, index: int) -> int:
    """Return the UTF-16 offset of code-point index `index`.

    Raises:
        OffsetError: the index is negative or past the end (a slice would silently wrap or clamp it).
    """
    if not 0 <= index <= len(text):
        raise OffsetError(f"index {index} is outside the text (0..{len(text)} code points)")
    return utf16_length(text[:index])


def from_utf16(text: str, offset: int) -> int:
    """Return the code-point index at UTF-16 `offset`.

    Raises:
        OffsetError: the offset is negative, past the end, inside a surrogate pair, or inside an emoji sequence.
    """
    if offset < 0:
        raise OffsetError(f"offset {offset} is negative")
    units = 0
    for index, char in enumerate(text):
        if units == offset:
            _check_boundary(text, index)
            return index
        units += 2 if ord(char) > 0xFFFF else 1
        if units > offset:
            raise OffsetError(f"offset {offset} falls inside the surrogate pair of {char!r} (U+{ord(char):04X})")
    if units == offset:
        return len(text)
    raise OffsetError(f"offset {offset} is past the end of the text ({units} UTF-16 units)")


def _check_boundary(text: str, index: int) -> None:
    if index == 0:
        return
    if ord(text[index]) in _BINDING or ord(text[index - 1]) == _ZWJ or _inside_flag(text, index):
        raise OffsetError(
            f"offset at character {index} splits the emoji sequence {text[max(0, index - 2) : index + 2]!r}"
        )


def _inside_flag(text: str, index: int) -> bool:
    """Return True when `index` falls between the two regional indicators of a flag."""
    if ord(text[index]) not in _REGIONAL:
        return False
    run = 0
    while index - run - 1 >= 0 and ord(text[index - run - 1]) in _REGIONAL:
        run += 1
    return run % 2 == 1
