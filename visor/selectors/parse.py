"""Selector syntax: what a `target` string means, checked without a device.

A selector is `prefix=value`, or a bare string meaning an accessibility id (upstream-compatible):

==================  =======================================================================  ========
prefix              matches                                                                  platform
==================  =======================================================================  ========
(none)              accessibility id (content-desc on Android, name on iOS)                  both
accessibility=      accessibility id                                                         both
id=                 resource-id on Android (`login` or `com.app:id/login`), name on iOS     both
text=               exact text, content-desc, label, name or value                           both
text~=              those attributes containing the value                                    both
xpath=              an XPath 1.0 expression over the page source                             both
uiautomator=        a UiSelector or UiScrollable expression (`visor.selectors.uiselector`)    android
predicate=          an NSPredicate on element attributes (`visor.selectors.predicate`)        ios
classchain=         an XCUITest class chain (`visor.selectors.classchain`)                    ios
css=                a CSS selector, evaluated by the browser (`document.querySelectorAll`)   web
first-in-section=   the first item under a section heading (needs the app map)               both
match=              text/id patterns, states, relative position, index (JSON; `refine`)      both
==================  =======================================================================  ========

The three native grammars are parsed here (a CSS selector's syntax is checked here with cssselect; the browser
evaluates it), when a scenario is validated: a syntax error, or a construct visor
cannot evaluate, is reported with its position in the selector and the list of what is supported. The platform
column is checked against a scenario's `meta.platform` when validating (`visor.scenario.selector_platforms`).
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from visor.inputs.suggest import closest


class SelectorKind(enum.StrEnum):
    """The kinds of selector, named by their prefix."""

    ACCESSIBILITY = "accessibility"
    ID = "id"
    TEXT = "text"
    TEXT_CONTAINS = "text~"
    XPATH = "xpath"
    UIAUTOMATOR = "uiautomator"
    PREDICATE = "predicate"
    CLASSCHAIN = "classchain"
    CSS = "css"
    FIRST_IN_SECTION = "first-in-section"
    #: Text and id patterns, states, relative position and index together (`visor.selectors.refine`).
    MATCH = "match"


#: Only these kinds work on one platform alone.
PLATFORM_ONLY: dict[SelectorKind, str] = {
    SelectorKind.UIAUTOMATOR: "android",
    SelectorKind.PREDICATE: "ios",
    SelectorKind.CLASSCHAIN: "ios",
    SelectorKind.CSS: "web",
}

#: How messages name the platforms (`meta.platform` values).
PLATFORM_NAMES: dict[str, str] = {"android": "Android", "ios": "iOS", "web": "web pages"}
#: What to write instead of a selector for the other platform.
PLATFORM_HINT = (
    "use predicate= or classchain= on iOS / uiautomator= on Android / css= on the web, or a selector for every "
    "platform such as text= or id="
)

# Longest first, so that `text~=` is not read as `text=` with a value starting with `~`.
_PREFIXES = sorted((kind.value for kind in SelectorKind), key=len, reverse=True)
# Spellings from other tools (Appium, Robot Framework, Maestro) that users reach for.
_ALIASES = {
    "accessibility_id": "accessibility",
    "accessibilityid": "accessibility",
    "accessibility-id": "accessibility",
    "aid": "accessibility",
    "desc": "accessibility",
    "content-desc": "accessibility",
    "resource-id": "id",
    "resource_id": "id",
    "resourceid": "id",
    "android": "uiautomator",
    "ios": "predicate",
    "contains": "text~",
    "partial": "text~",
    "label": "text",
    "name": "text",
}
_PREFIX_LIKE = re.compile(r"^([a-z][a-z0-9_~-]*)=")


@dataclass(frozen=True, slots=True)
class Selector:
    """A parsed selector."""

    kind: SelectorKind
    value: str
    raw: str

    @property
    def platform(self) -> str | None:
        """Return the only platform this selector works on, or None when it works on both."""
        return PLATFORM_ONLY.get(self.kind)


class SelectorSyntaxError(ValueError):
    """A selector string is malformed; `hint` says how to fix it."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def parse_selector(raw: str) -> Selector:
    """Parse a selector string.

    Raises:
        SelectorSyntaxError: an unknown prefix, an empty value or an invalid XPath expression.
    """
    return _parse_cached(raw)


@functools.lru_cache(maxsize=4096)
def _parse_cached(raw: str) -> Selector:
    if not raw.strip():
        raise SelectorSyntaxError("is empty", "write a selector such as text=Log in or id=login")
    for prefix in _PREFIXES:
        if raw.startswith(prefix + "="):
            kind = SelectorKind(prefix)
            value = raw[len(prefix) + 1 :]
            _check_value(kind, value, raw)
            return Selector(kind, value, raw)
    match = _PREFIX_LIKE.match(raw)
    if match:
        raise _unknown_prefix(match.group(1), raw)
    return Selector(SelectorKind.ACCESSIBILITY, raw, raw)


def _check_value(kind: SelectorKind, value: str, raw: str) -> None:
    if not value.strip():
        raise SelectorSyntaxError(
            f"has an empty {kind.value}= value", f"write what to match after '{kind.value}=', e.g. {kind.value}=Login"
        )
    if kind is SelectorKind.XPATH:
        problem = xpath_problem(value)
        if problem is not None:
            raise SelectorSyntaxError(
                f"is not a valid XPath 1.0 expression ({problem})", "check brackets, quotes and axis names"
            )
    if kind in _GRAMMARS:
        _check_grammar(kind, value, len(raw) - len(value))
    if kind is SelectorKind.CSS:
        _check_css(value, len(raw) - len(value))
    if kind is SelectorKind.MATCH:
        from visor.selectors.refine import MatchError, parse_match  # lazy: most scenarios use none

        try:
            parse_match(value)
        except MatchError as exc:
            raise SelectorSyntaxError(
                f"is not a match= selector visor can use: {exc}",
                'e.g. match={"text": "Log.*", "below": "id=email", "enabled": true}',
            ) from exc


def _check_grammar(kind: SelectorKind, value: str, start: int) -> None:
    """Parse a native grammar's value; a problem's position is counted in the whole selector, from 1."""
    from visor.selectors import classchain, predicate, uiselector  # lazy: most scenarios use none of them

    grammars: dict[SelectorKind, tuple[str, str, Callable[[str], object], Callable[[], str]]] = {
        SelectorKind.UIAUTOMATOR: (
            "a UiSelector expression",
            'uiautomator=new UiSelector().text("Log in")',
            uiselector.parse_uiselector,
            uiselector.supported,
        ),
        SelectorKind.PREDICATE: (
            "an NSPredicate",
            "predicate=label == 'Log in' AND visible == 1",
            predicate.parse_predicate,
            predicate.supported,
        ),
        SelectorKind.CLASSCHAIN: (
            "a class chain",
            "classchain=**/XCUIElementTypeButton[`label == 'OK'`]",
            classchain.parse_classchain,
            classchain.supported,
        ),
    }
    name, example, parse, supported = grammars[kind]
    try:
        parse(value)
    except predicate.GrammarError as exc:
        where = f" (at character {start + exc.position + 1})" if exc.position is not None else ""
        raise SelectorSyntaxError(
            f"is not {name} visor can use{where}: {exc.reason}", f"e.g. {example}; supported: {supported()}"
        ) from exc


def _check_css(value: str, start: int) -> None:
    """Check a CSS selector's syntax (cssselect's parser: the browser itself judges pseudo-classes' names)."""
    import cssselect  # lazy: only scenarios with css= selectors need it

    try:
        cssselect.parse(value)
    except cssselect.SelectorSyntaxError as exc:
        token = _CSS_TOKEN.search(str(exc))
        at = f" (at character {start + int(token.group(3)) + 1})" if token else ""
        met = "the end" if token and token.group(1) == "EOF" else repr(token.group(2)) if token else ""
        reason = _CSS_TOKEN.sub(lambda _: met, str(exc)).strip().lower() or "syntax error"
        raise SelectorSyntaxError(
            f"is not a CSS selector{at}: {reason}",
            "e.g. css=form#login button[type=submit], css=[data-testid='save'], css=ul.items > li:nth-child(2)",
        ) from exc


#: The token cssselect met where it failed (`<DELIM ',' at 2>`, `<EOF at 5>`: a 0-based offset in the selector).
_CSS_TOKEN = re.compile(r"<(\w+)(?: '(.*)')? at (\d+)>")

#: The selector kinds whose values are a grammar of their own, parsed when validating.
_GRAMMARS = frozenset({SelectorKind.UIAUTOMATOR, SelectorKind.PREDICATE, SelectorKind.CLASSCHAIN})


def _unknown_prefix(prefix: str, raw: str) -> SelectorSyntaxError:
    value = raw[len(prefix) + 1 :]
    suggestion = _ALIASES.get(prefix) or closest(prefix, [kind.value for kind in SelectorKind])
    literal = f"to match an accessibility id that contains '=', write accessibility={raw}"
    if suggestion is not None:
        hint = f"did you mean {suggestion}={value}? ({literal})"
    else:
        known = ", ".join(f"{kind.value}=" for kind in SelectorKind)
        hint = f"known prefixes: {known}; {literal}"
    return SelectorSyntaxError(f"has an unknown selector prefix '{prefix}='", hint)


@functools.lru_cache(maxsize=1024)
def xpath_problem(expression: str) -> str | None:
    """Return why `expression` is not valid XPath 1.0, or None when it compiles."""
    from lxml import etree  # lazy: only scenarios that use xpath= pay for lxml

    try:
        etree.XPath(expression)
    except etree.XPathSyntaxError as exc:
        return str(exc).lower() or "syntax error"
    except etree.XPathError as exc:  # e.g. an undefined namespace prefix
        return str(exc).lower() or "invalid expression"
    return None
