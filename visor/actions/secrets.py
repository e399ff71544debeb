"""Secrets typed during a run never reach a result: the envelope, the artifacts, the signature or an agent's log.

A text a tool call types, sets or expects a field to show is shown in results only when the call saw that
field and it is not a password field. Every other such text is masked: one typed into a password field, and
one whose field was never reached (a login screen that did not appear, a point that hit no field), since it
may well be a password too. Results are redacted after the fact, wherever the text appears in them, so no
code path that echoes arguments, receipts or messages can leak it.

A secret is masked by value in every form an output gives it, not only as it was typed: a rendered text holds
`pa"ss` as `pa\\"ss` (JSON), `pa&quot;ss` (HTML, XML), `pa%22ss` (a URL), `'pa\\'ss'` (a message quoting it
with `repr`), and as any of these inside another (the JSON of a step's details inside report.html). Every
such encoding maps each character on its own, so a secret's forms are found character by character: each
character of the secret matches any of its encodings, up to `DEPTH` encodings deep (`mask_text`). Data is
best masked before it is rendered (`redact`), which keeps the rendered file well formed; a text already
rendered (a page source from a phone, a page) is masked with all its forms.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
import re
import urllib.parse
from collections.abc import Callable, Collection, Mapping
from typing import Any

from visor.ui.escapes import printable, xml_text

#: What a secret is shown as (the same mask `act type` uses for a password's value).
MASK = "•••"


#: Texts shorter than this are never masked: they protect nothing, and masking every "x" would garble results.
MIN_SECRET = 4
#: How many encodings deep a secret is looked for (report.html shows the JSON of a message quoting it: three).
DEPTH = 3
#: A text longer than this (prose an agent typed, not a password or a key) is looked for one encoding deep:
#: the expression for all its forms three deep would take a third of a second to build for 500 characters.
LONG_SECRET = 64
#: Keys whose values are texts typed or expected of a field, at any depth of a call's arguments.
_FIELD_TEXTS = frozenset({"text", "expected_text"})
#: Keys holding selectors, whose `text` names an element instead of typing into it.
_SELECTORS = frozenset({"selector", "container", "target", "feedback"})
#: Characters every encoding below keeps as they are: a secret's longest run of them is in each of its forms.
_KEPT = re.compile(r"[A-Za-z0-9]+")


def field_texts(arguments: Any) -> set[str]:
    """Return the texts a call's arguments type, set, or expect a field to show (selectors left out)."""
    found: set[str] = set()
    if isinstance(arguments, Mapping):
        for key, value in arguments.items():
            if key in _FIELD_TEXTS and isinstance(value, str) and len(value) >= MIN_SECRET:
                found.add(value)
            elif key not in _SELECTORS:
                found |= field_texts(value)
    elif isinstance(arguments, list | tuple):
        for item in arguments:
            found |= field_texts(item)
    return found


def maskable(secrets: Collection[str]) -> tuple[str, ...]:
    """Return the secrets long enough to be masked, each once, the longest first (a longer one holds a shorter)."""
    return tuple(sorted({secret for secret in secrets if len(secret) >= MIN_SECRET}, key=lambda s: (-len(s), s)))


def redact(value: Any, secrets: Collection[str]) -> Any:
    """Return `value` (JSON-like data, or frozen dataclasses of it) with every secret masked in every string.

    Each string is masked in all its forms (`mask_text`): a string in data may itself be a rendered text (a page
    source, a URL, a message quoting a value).
    """
    ordered = maskable(secrets)
    if not ordered:
        return value
    return _walk(value, ordered)


def mask_text(text: str, secrets: Collection[str], mask: str = MASK) -> str:
    """Return a rendered text with every secret replaced by `MASK`, in each form an output may give it.

    The forms: as typed; JSON-escaped (`\\"`, `\\\\`, `\\u00e9`, `\\/`); HTML- and XML-escaped (`&amp;`, `&lt;`,
    `&quot;`, `&#x27;`, `&#39;`, `&apos;`, `&#10;`, `&#233;`); URL-encoded (`%22`, `+`); as Python's `repr`
    and the console show it (`\\'`, `\\x1b`, `\\u202e`); as junit.xml writes a control character; and any of
    these inside another, `DEPTH` deep (one deep for a text longer than `LONG_SECRET`).
    """
    for secret in maskable(secrets):
        text = _masker(secret, mask)(text)
    return text


def _walk(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            value = _masker(secret, MASK)(value)
        return value
    if isinstance(value, Mapping):
        return {key: _walk(item, secrets) for key, item in value.items()}
    if isinstance(value, tuple):
        return tuple(_walk(item, secrets) for item in value)
    if isinstance(value, list):
        return [_walk(item, secrets) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {field.name: _walk(getattr(value, field.name), secrets) for field in dataclasses.fields(value)}
        return dataclasses.replace(value, **{name: item for name, item in fields.items() if _init(value, name)})
    return value


def _init(value: Any, name: str) -> bool:
    return next(field.init for field in dataclasses.fields(value) if field.name == name)


@functools.lru_cache(maxsize=256)
def _masker(secret: str, mask: str) -> Callable[[str], str]:
    """Return a function putting `mask` for one secret, in all its forms, in a text (made once per secret)."""
    depth = DEPTH if len(secret) <= LONG_SECRET else 1
    pattern = re.compile("".join(_alternatives(char_forms(char, depth)) for char in secret))
    # A text without the secret's longest letter-and-digit run cannot hold it: most texts are skipped at once.
    anchor = max(_KEPT.findall(secret), key=len, default="")

    def masked(text: str) -> str:
        if anchor and anchor not in text:
            return text
        return pattern.sub(lambda _found: mask, text)

    return masked


def _alternatives(forms: Collection[str]) -> str:
    """Return a regular expression matching any of `forms`, the longest first.

    Longest first, so that an escape is taken whole: masking only the backslash of `\\\\` would leave JSON
    text whose next quote is escaped.
    """
    if len(forms) == 1:
        return re.escape(next(iter(forms)))
    return "(?:" + "|".join(re.escape(form) for form in sorted(forms, key=lambda f: (-len(f), f))) + ")"


@functools.lru_cache(maxsize=4096)
def char_forms(char: str, depth: int = DEPTH) -> frozenset[str]:
    """Return every form one character takes in an output: itself and its encodings, up to `depth` deep."""
    seen = {char}
    level = {char}
    for _ in range(depth):
        level = {encode(form) for form in level for encode in ENCODINGS} - seen
        seen |= level
    return frozenset(seen)


def _json(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _json_ascii(text: str) -> str:
    return json.dumps(text)[1:-1]


def _json_ascii_upper(text: str) -> str:
    return re.sub(r"\\u([0-9a-f]{4})", lambda found: "\\u" + found[1].upper(), _json_ascii(text))


def _json_slash(text: str) -> str:
    """JSON as some writers give it (PHP's, older Java's): `/` escaped too."""
    return _json_ascii(text).replace("/", "\\/")


def _html(text: str) -> str:
    return html.escape(text, quote=True)


def _html_text(text: str) -> str:
    return html.escape(text, quote=False)


def _html_decimal(text: str) -> str:
    return _html_text(text).replace('"', "&#34;").replace("'", "&#39;")


def _xml_named(text: str) -> str:
    return _html_text(text).replace('"', "&quot;").replace("'", "&apos;")


def _xml_attribute(text: str) -> str:
    """Escape as ElementTree writes an attribute: line ends and tabs as character references too."""
    escaped = _html_text(text).replace('"', "&quot;")
    return escaped.replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#09;")


def _xml_decimal(text: str) -> str:
    """XML with character references, as some writers give them (lxml's `&#9;`, XML in ASCII's `&#233;`)."""
    return "".join(char if char.isascii() and char.isalnum() else f"&#{ord(char)};" for char in text)


def _xml_hex(text: str) -> str:
    return "".join(char if char.isascii() and char.isalnum() else f"&#x{ord(char):x};" for char in text)


def _url(text: str) -> str:
    return urllib.parse.quote(text, safe="/", errors="surrogatepass")


def _url_all(text: str) -> str:
    return urllib.parse.quote(text, safe="", errors="surrogatepass")


def _url_lower(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda found: found[0].lower(), _url_all(text))


def _url_plus(text: str) -> str:
    return urllib.parse.quote_plus(text, errors="surrogatepass")


def _repr_quoted(text: str) -> str:
    """`repr` of a text holding both quotes: its `'` escaped (a message quoting the secret with `!r`)."""
    return repr("'\"" + text)[4:-1]


def _repr_plain(text: str) -> str:
    """`repr` of a text holding only `'`, which is then not escaped."""
    return _repr_quoted(text).replace("\\'", "'")


def _ascii(text: str) -> str:
    return ascii("'\"" + text)[4:-1]


def _junit(text: str) -> str:
    """As junit.xml writes the characters XML 1.0 cannot carry (control pictures)."""
    return xml_text(text)


#: Each encoding an output applies to a text, character by character.
ENCODINGS: tuple[Callable[[str], str], ...] = (
    _json,
    _json_ascii,
    _json_ascii_upper,
    _json_slash,
    _html,
    _html_text,
    _html_decimal,
    _xml_named,
    _xml_attribute,
    _xml_decimal,
    _xml_hex,
    _url,
    _url_all,
    _url_lower,
    _url_plus,
    _repr_quoted,
    _repr_plain,
    _ascii,
    printable,
    _junit,
)
