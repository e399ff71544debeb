"""How a text from data is shown where some of its characters would act instead of showing: terminals and XML.

Ids, names, paths and messages come from scenario files, apps, maps and agents, so any of them may hold control
characters: an id like `ok\\x1b[2K\\r✓ passed` would erase its line and fake a green one in a CI log, and a
U+202E would show the rest of a line reversed. Such characters are shown as visible escapes (`printable`):
C0 and C1 controls, DEL, the line and paragraph separators, the bidirectional controls, lone surrogates
(which cannot be encoded; one standing for an undecodable byte of a file name shows that byte, `\\xe9`), and
the characters that show nothing: zero-width space, word joiner and the invisible operators, the byte order
mark, the soft hyphen, the Mongolian vowel separator, the deprecated format controls, the interlinear
annotation marks and the tag characters (U+E0000-U+E007F: an invisible copy of ASCII, able to carry a hidden
message). Two ids differing only by one of these would look the same. Every other character, ordinary
non-ASCII text included, is shown as it is (the zero-width joiner and non-joiner are kept: emoji and several
scripts are written with them).

XML 1.0 cannot carry most C0 controls at all, not even as character references (`xml_text`): junit.xml writes
each as its Unicode control picture (U+2400 + code: BEL is `␇`, ESC `␛`, DEL `␡`), readable, valid in every
parser and distinct from a text that holds a backslash; C1 controls, lone surrogates, U+FFFE and U+FFFF, which
have no picture, become U+FFFD, the replacement character. Tab, newline and carriage return are kept.

These rules live below every layer that writes text (the console, the envelope, JUnit) and the secrets' masker,
which must know every form a secret can take in an output.
"""

from __future__ import annotations

import re

#: What a terminal would act on instead of showing, or could not encode.
UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ud800-\udfff\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)
#: What XML 1.0 cannot carry (C0 controls but tab, newline, carriage return; surrogates; U+FFFE, U+FFFF) or
#: discourages (DEL, C1 controls).
UNWRITABLE_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
#: Where Python puts the bytes it could not decode (PEP 383 "surrogateescape"): U+DC80-U+DCFF for 0x80-0xFF.
_ESCAPED_BYTES = range(0xDC80, 0xDD00)
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
#: The control picture of DEL (C0 controls have theirs at U+2400 + their code).
_DEL_PICTURE = "\u2421"
_REPLACEMENT = "\ufffd"


def shown(char: str) -> str:
    """Return the visible escape of a character that must not be printed as itself: `\\x1b`, `\\n`, `\\u202e`.

    A lone surrogate standing for an undecodable byte (PEP 383) shows that byte (`\\xe9`); a character beyond
    U+FFFF has eight digits (`\\U000e0041`), as in Python.
    """
    code = ord(char)
    if code in _ESCAPED_BYTES:
        return f"\\x{code - 0xDC00:02x}"
    if char in _NAMED:
        return _NAMED[char]
    if code > 0xFFFF:
        return f"\\U{code:08x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """Return `text` with every character a terminal would act on (or cannot encode) shown as an escape."""
    if UNPRINTABLE.search(text) is None:
        return text
    return UNPRINTABLE.sub(lambda match: shown(match.group()), text)


def xml_char(char: str) -> str:
    """Return what XML 1.0 text holds for a character it cannot carry: its control picture, else U+FFFD."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    return _DEL_PICTURE if code == 0x7F else _REPLACEMENT


def xml_text(text: str) -> str:
    """Return `text` with the characters XML 1.0 cannot carry (or discourages) replaced as `xml_char` says."""
    if UNWRITABLE_XML.search(text) is None:
        return text
    return UNWRITABLE_XML.sub(lambda match: xml_char(match.group()), text)
