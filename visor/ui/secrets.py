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
rendered (a page source from a phone, a page) is masked with all its forms. A file visor rendered itself
(junit.xml, report.html, summary.json) is masked again only where it holds data (`mask_rendered`): its text
nodes and attribute values, its JSON strings; a secret that is also a word of its markup (`fail`, `true`)
then leaves the markup whole.

What a field kept of a secret typed into it (a field taking 15 characters, given 16) is a secret too
(`KeptPart`): masked whatever its length, a short one (a field taking 1 to 3 characters) as a whole word.
A secret's text also never reaches a hash visor publishes (the determinism signature, a screen's
fingerprint): it is masked before hashing (`concealer`), or a dictionary would find it by hashing guesses.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
import re
import types
import urllib.parse
from collections.abc import Callable, Collection, Mapping
from typing import Literal, TypeVar, cast

from visor.inputs.suggest import Suggestion
from visor.ui.escapes import printable, xml_text

#: What a secret is shown as (the same mask `act type` uses for a password's value).
MASK = "•••"


#: Texts shorter than this are never masked: they protect nothing, and masking every "x" would garble results.
#: What a field kept of a secret is masked however short (`KeptPart`).
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
#: The metadata of a dataclass field holding visor's own vocabulary (a status, a command's name, a platform):
#: `redact` leaves it as it is, since the code rendering a result decides by it (a secret `fail` would make a
#: failed step neither failed nor passed). The rendered file is masked again where it shows it (`mask_rendered`).
PLAIN: Mapping[str, str] = types.MappingProxyType({"secrets": "plain"})
#: What a suggestion for a value holding a secret says instead ("did you mean …" would say how near it is).
WITHHELD_HINT = "the value holds a --secret value: no name is suggested for it"
#: How a file visor rendered holds its data: plain text, markup (XML, HTML) or JSON (`mask_rendered`).
Rendered = Literal["text", "markup", "json"]


class KeptPart(str):
    """What a field shows of a secret typed into it, when it kept only part of it: masked as a secret is.

    Masking by value cannot find part of a secret, so the step that typed it tells the run (`hide`). A kept
    part of `MIN_SECRET` characters or more is masked everywhere, as a secret; a shorter one (a field taking
    1 to 3 characters) is masked as a whole word only (`cor`, never the `cor` of `correct`, nor a lone `1` of
    `12`), and only when it begins and ends with a letter or digit: a kept `"` or `-` masked wherever it
    stands would garble every file, and a lone punctuation mark says little of a secret.
    """

    __slots__ = ()


def _kept_short(text: str) -> bool:
    return isinstance(text, KeptPart) and 0 < len(text) < MIN_SECRET and text[0].isalnum() and text[-1].isalnum()


def field_texts(arguments: object) -> set[str]:
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
    """Return the secrets to mask, each once, the longest first (a longer one holds a shorter).

    Those of `MIN_SECRET` characters or more, and the shorter parts of a secret a field kept (`KeptPart`).
    """
    chosen = {secret for secret in secrets if len(secret) >= MIN_SECRET or _kept_short(secret)}
    return tuple(sorted(chosen, key=lambda s: (-len(s), s)))


def holds(text: str, secrets: Collection[str]) -> bool:
    """Say whether a text holds one of the secrets, in any of its forms (masking it would change it)."""
    return mask_text(text, secrets) != text


def concealer(secrets: Collection[str], mask: str = MASK) -> Callable[[str], str]:
    """Return a function masking the secrets in a text: for the texts a fingerprint or a signature hashes.

    A published hash of a text holding a secret is an oracle: hashing guesses finds the secret. Masked, the
    hash is the same whatever the secret, and still changes with every other difference.
    """
    maskers = tuple(_masker(secret, mask) for secret in maskable(secrets))

    def conceal(text: str) -> str:
        for masked in maskers:
            text = masked(text)
        return text

    return conceal


T = TypeVar("T")


def redact(value: T, secrets: Collection[str]) -> T:
    """Return `value` (JSON-like data, or frozen dataclasses of it) with every secret masked in every string.

    Each string is masked in all its forms (`mask_text`): a string in data may itself be a rendered text (a page
    source, a URL, a message quoting a value).
    """
    ordered = maskable(secrets)
    if not ordered:
        return value
    return cast(T, _walk(value, ordered))


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


def mask_rendered(text: str, secrets: Collection[str], form: Rendered) -> str:
    """Return a file visor rendered from masked data with the secrets masked again where it holds data only.

    Markup (junit.xml, report.html): in text, attribute values, comments and CDATA; JSON: in strings. Its
    markup is left whole, so a secret that is also one of its words (`fail` of `failures=`, `true`) cannot
    break it. Where masking would leave a value no longer well formed (a cut escape), the whole value is masked.
    """
    if not maskable(secrets):
        return text
    if form == "markup":
        return _MARKUP.sub(lambda found: _markup_token(found[0], secrets), text)
    if form == "json":
        return _JSON_STRING.sub(lambda found: _json_string(found[0], secrets), text)
    return mask_text(text, secrets)


#: A JSON string, its quotes included.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
#: Markup's pieces: comments, CDATA sections, tags; the text between them is data.
_MARKUP = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<[^<>]*>|[^<]+|<", re.DOTALL)
#: An attribute's quoted value in a tag, its quotes included.
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
#: What markup's data may not hold: a `<`, or a `&` that begins no character or entity reference.
_BROKEN_MARKUP = re.compile(r"<|&(?!#[0-9]+;|#x[0-9A-Fa-f]+;|[A-Za-z][A-Za-z0-9]*;)")


def _markup_token(token: str, secrets: Collection[str]) -> str:
    for opening, closing in (("<!--", "-->"), ("<![CDATA[", "]]>")):
        if token.startswith(opening) and token.endswith(closing) and len(token) >= len(opening) + len(closing):
            inside = mask_text(token[len(opening) : -len(closing)], secrets)
            return opening + (MASK if closing in inside else inside) + closing
    if token.startswith("<"):
        return _QUOTED.sub(lambda found: _quoted_value(found[0], secrets), token)
    return _markup_data(token, secrets, "")


def _quoted_value(quoted: str, secrets: Collection[str]) -> str:
    quote = quoted[0]
    return quote + _markup_data(quoted[1:-1], secrets, quote) + quote


def _markup_data(data: str, secrets: Collection[str], quote: str) -> str:
    masked = mask_text(data, secrets)
    if masked == data:
        return data
    broken = _BROKEN_MARKUP.search(masked) is not None or (quote != "" and quote in masked)
    return MASK if broken else masked


def _json_string(literal: str, secrets: Collection[str]) -> str:
    masked = mask_text(literal[1:-1], secrets)
    try:
        json.loads(f'"{masked}"')
    except ValueError:
        return f'"{MASK}"'
    return f'"{masked}"'


def _walk(value: object, secrets: tuple[str, ...]) -> object:
    if isinstance(value, Suggestion) and holds(value.word, secrets):
        return WITHHELD_HINT
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
        masked = {
            field.name: _walk(getattr(value, field.name), secrets)
            for field in dataclasses.fields(value)
            if field.init and field.metadata.get("secrets") != PLAIN["secrets"]
        }
        return dataclasses.replace(value, **masked)
    return value


@functools.lru_cache(maxsize=256)
def _masker(secret: str, mask: str) -> Callable[[str], str]:
    """Return a function putting `mask` for one secret, in all its forms, in a text (made once per secret).

    A secret shorter than `MIN_SECRET` (a short part a field kept, `KeptPart`) is masked as a whole word.
    """
    depth = DEPTH if len(secret) <= LONG_SECRET else 1
    body = "".join(_alternatives(char_forms(char, depth)) for char in secret)
    pattern = re.compile(rf"(?<!\w){body}(?!\w)" if len(secret) < MIN_SECRET else body)
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
