"""UiSelector and UiScrollable expressions (`uiautomator=`), read as UiAutomator2 reads them.

An expression is one statement, or several separated by `;` (their matches together, in page order):

- `new UiSelector()` and method calls; at the top level `new UiSelector()` may be left out (`.text("OK")`);
- `new UiScrollable(new UiSelector()…)`, setters, and one method naming the element to bring into view.

UiSelector methods (Android's names and meanings):

- text: `text`, `textContains`, `textStartsWith`, `textMatches` (a regular expression, whole text)
- content-desc: `description`, `descriptionContains`, `descriptionStartsWith`, `descriptionMatches`
- resource-id: `resourceId`, `resourceIdMatches`; class: `className`, `classNameMatches`; package:
  `packageName`, `packageNameMatches`
- state: `checkable`, `checked`, `clickable`, `enabled`, `focusable`, `focused`, `longClickable`, `scrollable`,
  `selected` (boolean)
- position: `index` (among its siblings), `instance` (the n-th match, from 0)
- structure: `childSelector(UiSelector)` (a descendant of a match), `fromParent(UiSelector)` (a descendant of a
  match's parent: the match itself, its siblings and what they hold)

UiScrollable methods: `setAsVerticalList()`, `setAsHorizontalList()`, `setMaxSearchSwipes(int)` (30 unless set,
as on Android; at most `MAX_SEARCH_SWIPES`), `setSwipeDeadZonePercentage(double)`; then one of
`scrollIntoView(UiSelector)`, `scrollTextIntoView(String)`, `scrollDescriptionIntoView(String)`,
`getChildByText(UiSelector, String[, boolean])`, `getChildByDescription(UiSelector, String[, boolean])`,
`getChildByInstance(UiSelector, int)`. Scrolling actions (`scrollToEnd`, `flingForward`, …) are not selectors and
are refused, as is anything else, with the position (`at character N`) and the list of what is supported.

Strings are Java string literals (double quotes; `\\"`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\b`, `\\f`, `\\'`,
`\\uXXXX`); a regular expression's backslash is written twice, as in Java (`"Item \\\\d+"`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from visor.inputs.suggest import closest
from visor.selectors.patterns import PatternError, compile_pattern
from visor.selectors.predicate import GrammarError, quoted

STRING_METHODS = frozenset(
    {
        "text", "textContains", "textStartsWith", "textMatches",
        "description", "descriptionContains", "descriptionStartsWith", "descriptionMatches",
        "resourceId", "resourceIdMatches", "className", "classNameMatches", "packageName", "packageNameMatches",
    }
)  # fmt: skip
BOOLEAN_METHODS = frozenset(
    {"checkable", "checked", "clickable", "enabled", "focusable", "focused", "longClickable", "scrollable", "selected"}
)
INTEGER_METHODS = frozenset({"index", "instance"})
SELECTOR_METHODS = frozenset({"childSelector", "fromParent"})
METHODS = STRING_METHODS | BOOLEAN_METHODS | INTEGER_METHODS | SELECTOR_METHODS
#: UiScrollable's setters: they change how it scrolls and return it.
SCROLLABLE_SETTERS = frozenset(
    {"setAsVerticalList", "setAsHorizontalList", "setMaxSearchSwipes", "setSwipeDeadZonePercentage"}
)
#: UiScrollable's methods that name an element (the expression's result).
SCROLLABLE_TARGETS = (
    "scrollIntoView",
    "scrollTextIntoView",
    "scrollDescriptionIntoView",
    "getChildByText",
    "getChildByDescription",
    "getChildByInstance",
)
#: UiScrollable's actions: they scroll and return a boolean, so they name no element.
SCROLLABLE_ACTIONS = frozenset(
    {
        "scrollForward", "scrollBackward", "scrollToBeginning", "scrollToEnd",
        "flingForward", "flingBackward", "flingToBeginning", "flingToEnd",
    }
)  # fmt: skip
#: Android's default (UiScrollable.setMaxSearchSwipes): how many swipes a search may make in each direction.
DEFAULT_MAX_SWIPES = 30
#: The most swipes `setMaxSearchSwipes` may ask for: a search must end.
MAX_SEARCH_SWIPES = 100
#: Android's default: the part of the container left untouched at each end of a swipe.
DEFAULT_DEAD_ZONE = 0.1
#: How deep UiSelectors may nest in childSelector/fromParent arguments.
MAX_NESTING = 16

Value = str | bool | int

_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<string>"(?:[^"\\\n\r]|\\.)*")
      | (?P<number>-?\d+(?:\.\d+)?(?![\w.]))
      | (?P<name>[A-Za-z_$][\w$]*)
      | (?P<punct>[().,;])""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


class UiSelectorError(GrammarError):
    """The expression is malformed or outside what visor supports."""


@dataclass(frozen=True, slots=True)
class UiSelectorSpec:
    """A parsed UiSelector: criteria every match meets, which match to take, and where to look next.

    `child` is `childSelector`: the result is what it matches among the descendants of this level's matches.
    `parent` is `fromParent`: what it matches among the descendants of the parent of this level's matches.
    """

    criteria: tuple[tuple[str, Value], ...] = ()
    instance: int | None = None
    child: UiSelectorSpec | None = None
    parent: UiSelectorSpec | None = None

    def source(self) -> str:
        """Return the expression in canonical Java form (it parses back to an equal spec)."""
        calls = [f".{method}({java_literal(value)})" for method, value in self.criteria]
        if self.instance is not None:
            calls.append(f".instance({self.instance})")
        if self.child is not None:
            calls.append(f".childSelector({self.child.source()})")
        if self.parent is not None:
            calls.append(f".fromParent({self.parent.source()})")
        return "new UiSelector()" + "".join(calls)


@dataclass(frozen=True, slots=True)
class ScrollTarget:
    """The UiScrollable method that names the element: its name and arguments."""

    method: str
    selector: UiSelectorSpec | None = None
    text: str | None = None
    instance: int | None = None
    #: getChildByText/getChildByDescription's third argument: whether to scroll to the text first.
    allow_scroll: bool = True

    @property
    def seek(self) -> UiSelectorSpec | None:
        """Return what must come into view inside the container for scrolling to stop; None: no scrolling."""
        if self.method == "scrollIntoView":
            return self.selector
        if self.text is None or not self.allow_scroll:
            return None
        by_text = self.method in ("scrollTextIntoView", "getChildByText")
        return UiSelectorSpec(((("text" if by_text else "description"), self.text),))

    def source(self) -> str:
        """Return the call in canonical Java form."""
        args: list[str] = []
        if self.selector is not None:
            args.append(self.selector.source())
        if self.text is not None:
            args.append(java_literal(self.text))
        if self.instance is not None:
            args.append(str(self.instance))
        if not self.allow_scroll:
            args.append("false")
        return f".{self.method}({', '.join(args)})"


@dataclass(frozen=True, slots=True)
class ScrollableSpec:
    """A parsed UiScrollable: its container, how it scrolls, and the element it names (None: the container)."""

    container: UiSelectorSpec
    vertical: bool = True
    max_swipes: int = DEFAULT_MAX_SWIPES
    dead_zone: float = DEFAULT_DEAD_ZONE
    target: ScrollTarget | None = None

    @property
    def scrolls(self) -> bool:
        """Return True when finding the target may need scrolling the container."""
        return self.target is not None and self.target.seek is not None

    @property
    def direction(self) -> str:
        """Return `vertical` or `horizontal`: the axis it scrolls along."""
        return "vertical" if self.vertical else "horizontal"

    def source(self) -> str:
        """Return the expression in canonical Java form (it parses back to an equal spec)."""
        calls = "" if self.vertical else ".setAsHorizontalList()"
        if self.max_swipes != DEFAULT_MAX_SWIPES:
            calls += f".setMaxSearchSwipes({self.max_swipes})"
        if self.dead_zone != DEFAULT_DEAD_ZONE:
            calls += f".setSwipeDeadZonePercentage({self.dead_zone!r})"
        target = self.target.source() if self.target is not None else ""
        return f"new UiScrollable({self.container.source()}){calls}{target}"


Statement = UiSelectorSpec | ScrollableSpec


@dataclass(frozen=True, slots=True)
class UiExpression:
    """A parsed `uiautomator=` value: its statements, whose matches are taken together."""

    statements: tuple[Statement, ...]

    @property
    def scrollable(self) -> ScrollableSpec | None:
        """Return the statement that scrolls to find its element, if any (at most one may)."""
        return next((s for s in self.statements if isinstance(s, ScrollableSpec) and s.scrolls), None)

    def source(self) -> str:
        """Return the expression in canonical Java form."""
        return "; ".join(statement.source() for statement in self.statements)


def java_literal(value: Value | float) -> str:
    """Write a value as a Java literal: a string in double quotes (escaped), a number, `true` or `false`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return quoted(value)


def supported() -> str:
    """Return what visor reads in a `uiautomator=` expression, for hints."""
    return (
        "UiSelector: " + ", ".join(sorted(METHODS, key=str.lower)) + "; UiScrollable: "
        f"{', '.join(sorted(SCROLLABLE_SETTERS))}, then one of {', '.join(SCROLLABLE_TARGETS)}"
    )


@functools.lru_cache(maxsize=1024)
def parse_uiselector(expression: str) -> UiExpression:
    """Parse a `uiautomator=` expression (cached: the same text is read on every look at the screen).

    Raises:
        UiSelectorError: the expression is malformed or uses something visor does not support.
    """
    return _Parser(expression).expression()


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # string, number, name, a punctuation character, or end
    text: str
    at: int


@dataclass(frozen=True, slots=True)
class _Call:
    name: str
    args: tuple[Value | float | UiSelectorSpec, ...]
    at: int


def _tokens(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise UiSelectorError(_unreadable(text, position), position)
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(_Token(match.group() if kind == "punct" else kind, match.group(), position))
        position = match.end()
    tokens.append(_Token("end", "", len(text)))
    return tokens


def _unreadable(text: str, position: int) -> str:
    char = text[position]
    if char == '"':
        return "a string is not closed (or holds a line break: write \\n)"
    if char == "'":
        return "strings are written in double quotes, as in Java"
    return f"cannot read {text[position : position + 12]!r}: expected .method(literal)"


class _Parser:
    """Recursive descent over the tokens, building specs as it goes."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.next = 0
        self.depth = 0

    def peek(self) -> _Token:
        return self.tokens[self.next]

    def take(self) -> _Token:
        token = self.tokens[self.next]
        self.next += min(1, len(self.tokens) - 1 - self.next)
        return token

    def expect(self, kind: str, what: str) -> _Token:
        token = self.take()
        if token.kind != kind:
            found = "the end" if token.kind == "end" else repr(token.text)
            raise UiSelectorError(f"expected {what}, found {found}", token.at)
        return token

    def expression(self) -> UiExpression:
        statements = [self.statement()]
        while self.peek().kind == ";":
            self.take()
            if self.peek().kind == "end":
                break
            statements.append(self.statement())
        end = self.peek()
        if end.kind != "end":
            raise UiSelectorError(f"expected '.', ';' or the end, found {end.text!r}", end.at)
        if sum(isinstance(s, ScrollableSpec) and s.scrolls for s in statements) > 1:
            raise UiSelectorError("holds more than one UiScrollable that scrolls: write one per selector")
        return UiExpression(tuple(statements))

    def statement(self) -> Statement:
        start = self.peek()
        if start.kind == ".":
            calls = self.calls()
            return _selector(calls, start.at, top=True)
        if start.kind == "name" and start.text == "new":
            self.take()
            name = self.expect("name", "UiSelector or UiScrollable after 'new'")
            if name.text == "UiScrollable":
                self.expect("(", "'(' after UiScrollable")
                container = self.nested()
                self.expect(")", "')' after the UiScrollable's UiSelector")
                return _scrollable(container, self.calls())
            self.constructor(name)
            return _selector(self.calls(), start.at, top=True)
        raise UiSelectorError(
            f"expected new UiSelector(), new UiScrollable(…) or .method(…), found {start.text or 'nothing'!r}", start.at
        )

    def constructor(self, name: _Token) -> None:
        if name.text != "UiSelector":
            raise UiSelectorError(
                f"new {name.text}(…) is not supported: use new UiSelector() or new UiScrollable(…)", name.at
            )
        self.expect("(", "'(' after UiSelector")
        self.expect(")", "')': new UiSelector() takes no arguments")

    def nested(self) -> UiSelectorSpec:
        self.depth += 1
        try:
            return self._nested()
        finally:
            self.depth -= 1

    def _nested(self) -> UiSelectorSpec:
        start = self.expect("name", "new UiSelector() as the argument")
        if self.depth > MAX_NESTING:
            raise UiSelectorError(f"nests UiSelectors more than {MAX_NESTING} deep", start.at)
        if start.text != "new":
            raise UiSelectorError(f"expected new UiSelector() as the argument, found {start.text!r}", start.at)
        name = self.expect("name", "UiSelector after 'new'")
        if name.text == "UiScrollable":
            raise UiSelectorError("a UiScrollable cannot be an argument: pass a new UiSelector()", name.at)
        self.constructor(name)
        return _selector(self.calls(), start.at, top=False)

    def calls(self) -> list[_Call]:
        calls: list[_Call] = []
        while self.peek().kind == ".":
            self.take()
            name = self.expect("name", "a method name after '.'")
            self.expect("(", f"'(' after {name.text}")
            args: list[Value | float | UiSelectorSpec] = []
            if self.peek().kind != ")":
                args.append(self.argument())
                while self.peek().kind == ",":
                    self.take()
                    args.append(self.argument())
            self.expect(")", f"')' to close {name.text}(")
            calls.append(_Call(name.text, tuple(args), name.at))
        return calls

    def argument(self) -> Value | float | UiSelectorSpec:
        token = self.peek()
        if token.kind == "string":
            self.take()
            return _unescape(token.text[1:-1], token.at + 1)
        if token.kind == "number":
            self.take()
            if len(token.text) > 20:
                raise UiSelectorError("a number has more than 20 characters", token.at)
            return float(token.text) if "." in token.text else int(token.text)
        if token.kind == "name" and token.text in ("true", "false"):
            self.take()
            return token.text == "true"
        if token.kind == "name" and token.text == "new":
            return self.nested()
        found = "nothing" if token.kind == "end" else repr(token.text)
        raise UiSelectorError(f'expected a literal ("text", 3, true) or new UiSelector(), found {found}', token.at)


def _unescape(body: str, at: int) -> str:
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char != "\\":
            out.append(char)
            index += 1
            continue
        code = body[index + 1]
        if code == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", body[index + 2 : index + 6]):
            out.append(chr(int(body[index + 2 : index + 6], 16)))
            index += 6
            continue
        if code not in _ESCAPES:
            raise UiSelectorError(
                f'\\{code} is not a Java escape: write a backslash as \\\\ (a regex digit is "\\\\d")', at + index
            )
        out.append(_ESCAPES[code])
        index += 2
    joined = "".join(out)
    try:  # two \u escapes may make one character (a surrogate pair), as in Java
        return joined.encode("utf-16", "surrogatepass").decode("utf-16")
    except UnicodeDecodeError as exc:
        raise UiSelectorError("a \\u escape is half of a surrogate pair", at) from exc


def _selector(calls: list[_Call], at: int, *, top: bool) -> UiSelectorSpec:
    criteria: list[tuple[str, Value]] = []
    instance: int | None = None
    child = parent = None
    seen: set[str] = set()
    for call in calls:
        _check_selector_method(call)
        if call.name in seen:
            raise UiSelectorError(
                f".{call.name}() is called twice: UiAutomator keeps only the last one, so write it once", call.at
            )
        seen.add(call.name)
        (value,) = call.args
        if call.name == "instance":
            instance = _whole(call, value)
        elif call.name == "childSelector":
            child = _nested_arg(call, value)
        elif call.name == "fromParent":
            parent = _nested_arg(call, value)
        else:
            criteria.append((call.name, _typed(call, value)))
    if child is not None and parent is not None:
        raise UiSelectorError(
            "a UiSelector takes childSelector or fromParent, not both (UiAutomator would ignore fromParent)", at
        )
    if top and not calls:
        raise UiSelectorError('selects nothing: add a method such as .text("Log in")', at)
    return UiSelectorSpec(tuple(criteria), instance, child, parent)


def _check_selector_method(call: _Call) -> None:
    if call.name in METHODS:
        if len(call.args) != 1:
            raise UiSelectorError(f".{call.name}() takes one argument, not {len(call.args)}", call.at)
        return
    if call.name in SCROLLABLE_SETTERS or call.name in SCROLLABLE_TARGETS or call.name in SCROLLABLE_ACTIONS:
        raise UiSelectorError(
            f".{call.name}() is a UiScrollable method: write new UiScrollable(new UiSelector()…).{call.name}(…)",
            call.at,
        )
    raise UiSelectorError(_unknown(call.name, METHODS, "UiSelector"), call.at)


def _unknown(name: str, known: frozenset[str], owner: str) -> str:
    guess = closest(name, known)
    return f"{owner} has no method {name!r} that visor reads" + (f" (did you mean {guess!r}?)" if guess else "")


def _typed(call: _Call, value: Value | float | UiSelectorSpec) -> Value:
    if call.name in STRING_METHODS:
        text = _string(call, value)
        if call.name.endswith("Matches"):
            _check_regex(text, call.at)
        return text
    if call.name in BOOLEAN_METHODS:
        if not isinstance(value, bool):
            raise UiSelectorError(f".{call.name}() takes true or false", call.at)
        return value
    return _whole(call, value)


def _string(call: _Call, value: Value | float | UiSelectorSpec) -> str:
    if not isinstance(value, str):
        raise UiSelectorError(f'.{call.name}() takes a string in double quotes, e.g. .{call.name}("OK")', call.at)
    return value


def _whole(call: _Call, value: Value | float | UiSelectorSpec, upper: int | None = None) -> int:
    if type(value) is not int or value < 0 or (upper is not None and value > upper):
        bound = f"from 0 to {upper}" if upper is not None else "0 or more"
        raise UiSelectorError(f".{call.name}() takes a whole number {bound}", call.at)
    return value


def _nested_arg(call: _Call, value: Value | float | UiSelectorSpec) -> UiSelectorSpec:
    if not isinstance(value, UiSelectorSpec):
        raise UiSelectorError(f".{call.name}() takes a new UiSelector()…", call.at)
    return value


def _check_regex(pattern: str, at: int) -> None:
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        raise UiSelectorError(f"has an invalid regular expression {pattern!r} ({exc})", at) from exc


def _scrollable(container: UiSelectorSpec, calls: list[_Call]) -> ScrollableSpec:
    spec = ScrollableSpec(container)
    for call in calls:
        if spec.target is not None:
            raise UiSelectorError(
                f".{call.name}() comes after .{spec.target.method}(), which already named the element", call.at
            )
        if call.name in SCROLLABLE_ACTIONS:
            raise UiSelectorError(
                f".{call.name}() scrolls but names no element; use scrollIntoView(…) to find one, or the scroll "
                "command to scroll",
                call.at,
            )
        if call.name in SCROLLABLE_SETTERS:
            spec = _set(spec, call)
        elif call.name in SCROLLABLE_TARGETS:
            spec = ScrollableSpec(spec.container, spec.vertical, spec.max_swipes, spec.dead_zone, _target(call))
        elif call.name in METHODS:
            raise UiSelectorError(
                f".{call.name}() is a UiSelector method: put it inside new UiScrollable(new UiSelector()…)", call.at
            )
        else:
            known = SCROLLABLE_SETTERS | frozenset(SCROLLABLE_TARGETS)
            raise UiSelectorError(_unknown(call.name, known, "UiScrollable"), call.at)
    return spec


def _set(spec: ScrollableSpec, call: _Call) -> ScrollableSpec:
    if call.name in ("setAsVerticalList", "setAsHorizontalList"):
        _arity(call, 0)
        return ScrollableSpec(spec.container, call.name == "setAsVerticalList", spec.max_swipes, spec.dead_zone)
    _arity(call, 1)
    (value,) = call.args
    if call.name == "setMaxSearchSwipes":
        swipes = _whole(call, value, MAX_SEARCH_SWIPES)
        return ScrollableSpec(spec.container, spec.vertical, swipes, spec.dead_zone)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 0.5:
        raise UiSelectorError(f".{call.name}() takes a number from 0 up to (not including) 0.5", call.at)
    return ScrollableSpec(spec.container, spec.vertical, spec.max_swipes, float(value))


def _arity(call: _Call, *counts: int) -> None:
    if len(call.args) not in counts:
        wanted = " or ".join(str(count) for count in counts)
        raise UiSelectorError(f".{call.name}() takes {wanted} argument(s), not {len(call.args)}", call.at)


def _target(call: _Call) -> ScrollTarget:
    if call.name == "scrollIntoView":
        _arity(call, 1)
        return ScrollTarget(call.name, selector=_nested_arg(call, call.args[0]))
    if call.name in ("scrollTextIntoView", "scrollDescriptionIntoView"):
        _arity(call, 1)
        return ScrollTarget(call.name, text=_string(call, call.args[0]))
    if call.name == "getChildByInstance":
        _arity(call, 2)
        return ScrollTarget(call.name, _nested_arg(call, call.args[0]), instance=_whole(call, call.args[1]))
    _arity(call, 2, 3)
    allow = call.args[2] if len(call.args) == 3 else True
    if not isinstance(allow, bool):
        raise UiSelectorError(f".{call.name}()'s third argument (allowScrollSearch) is true or false", call.at)
    return ScrollTarget(call.name, _nested_arg(call, call.args[0]), _string(call, call.args[1]), allow_scroll=allow)
