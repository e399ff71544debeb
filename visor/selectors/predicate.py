"""NSPredicate strings (`predicate=`, and inside class chains): the subset visor evaluates on an iOS UI tree.

Comparisons on an element's attributes, combined with `AND`/`&&`, `OR`/`||`, `NOT`/`!` and parentheses
(`NOT` binds tighter than `AND`, `AND` tighter than `OR`); `TRUEPREDICATE` and `FALSEPREDICATE`.

- attributes: `type`, `name`, `label`, `value` (text); `enabled`, `visible`, `selected`, `focused` (booleans);
  `rect.x`, `rect.y`, `rect.width`, `rect.height`, `elementType` (numbers). WebDriverAgent's spellings
  `wdType`, `wdName`, `wdLabel`, `wdValue`, `wdEnabled`, `wdVisible`, `wdSelected`, `wdRect.x`… and `hasFocus`
  mean the same.
- operators: `==` (`=`), `!=` (`<>`), `<`, `>`, `<=` (`=<`), `>=` (`=>`), `BEGINSWITH`, `ENDSWITH`, `CONTAINS`,
  `LIKE` (wildcards `*` and `?`), `MATCHES` (a regular expression, whole text; time-bounded), `IN {…}`,
  `BETWEEN {low, high}`; `[c]` (case-insensitive) and `[d]` (diacritic-insensitive) after an operator.
- values: strings in double or single quotes (`\\"`, `\\'`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\uXXXX`; any other
  backslash is kept, so `MATCHES "\\d+"` is a regex digit), numbers, `TRUE`/`YES`, `FALSE`/`NO`, `NIL`/`NULL`.
  Keywords are case-insensitive; attribute names are not.

Booleans compare with `TRUE`/`FALSE` or `1`/`0`; a text attribute compared with a number compares as a number
(`value == 1` holds for a switch whose value is "1"); `nil` is an absent (empty) text. Anything else —
`SUBQUERY`, `ANY`/`ALL`/`SOME`/`NONE`, `$variables`, `%@` arguments, `@count`, functions, arithmetic, other
key paths — is refused with its position and the list above. Parsing and evaluation are pure: the evaluator
reads attributes through a function, so it knows nothing of trees.
"""

from __future__ import annotations

import enum
import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from visor.inputs.suggest import closest
from visor.selectors.patterns import PatternError, compile_pattern, full_match


class KeyType(enum.StrEnum):
    """What an attribute holds."""

    TEXT = "text"
    NUMBER = "number"
    BOOLEAN = "boolean"


#: The attributes a predicate may compare, and what each holds.
KEYS: dict[str, KeyType] = {
    "type": KeyType.TEXT,
    "name": KeyType.TEXT,
    "label": KeyType.TEXT,
    "value": KeyType.TEXT,
    "enabled": KeyType.BOOLEAN,
    "visible": KeyType.BOOLEAN,
    "selected": KeyType.BOOLEAN,
    "focused": KeyType.BOOLEAN,
    "rect.x": KeyType.NUMBER,
    "rect.y": KeyType.NUMBER,
    "rect.width": KeyType.NUMBER,
    "rect.height": KeyType.NUMBER,
    "elementType": KeyType.NUMBER,
}
#: Other spellings of the same attributes (WebDriverAgent's).
ALIASES = {
    **{f"wd{key[0].upper()}{key[1:]}": key for key in KEYS if key != "elementType"},
    "hasFocus": "focused",
}
#: XCUIElementType's cases in order: `elementType` is the position in this list.
_TYPE_NAMES = (
    "Any", "Other", "Application", "Group", "Window", "Sheet", "Drawer", "Alert", "Dialog", "Button", "RadioButton",
    "RadioGroup", "CheckBox", "DisclosureTriangle", "PopUpButton", "ComboBox", "MenuButton", "ToolbarButton",
    "Popover", "Keyboard", "Key", "NavigationBar", "TabBar", "TabGroup", "Toolbar", "StatusBar", "Table",
    "TableRow", "TableColumn", "Outline", "OutlineRow", "Browser", "CollectionView", "Slider", "PageIndicator",
    "ProgressIndicator", "ActivityIndicator", "SegmentedControl", "Picker", "PickerWheel", "Switch", "Toggle",
    "Link", "Image", "Icon", "SearchField", "ScrollView", "ScrollBar", "StaticText", "TextField", "SecureTextField",
    "DatePicker", "TextView", "Menu", "MenuItem", "MenuBar", "MenuBarItem", "Map", "WebView", "IncrementArrow",
    "DecrementArrow", "Timeline", "RatingIndicator", "ValueIndicator", "SplitGroup", "Splitter",
    "RelevanceIndicator", "ColorWell", "HelpTag", "Matte", "DockItem", "Ruler", "RulerMarker", "Grid",
    "LevelIndicator", "Cell", "LayoutArea", "LayoutItem", "Handle", "Stepper", "Tab", "TouchBar", "StatusItem",
)  # fmt: skip
ELEMENT_TYPES = tuple("XCUIElementType" + name for name in _TYPE_NAMES)
#: How deep NOT and parentheses may nest (a predicate is read and evaluated recursively).
MAX_NESTING = 32
#: The longest number literal read.
MAX_NUMBER_LENGTH = 40
COMPARISONS = ("==", "!=", "<", ">", "<=", ">=")
STRING_OPERATORS = ("BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES")
OPERATORS = (*COMPARISONS, *STRING_OPERATORS, "IN", "BETWEEN")
_SPELLINGS = {"=": "==", "<>": "!=", "=<": "<=", "=>": ">="}
_REFUSED_WORDS = {
    "SUBQUERY": "SUBQUERY (a query over an element's children) is not supported; in a class chain, "
    "[$…$] matches an element by a descendant",
    "ANY": "ANY (a collection operator) is not supported: an element's attributes are single values",
    "SOME": "SOME (a collection operator) is not supported: an element's attributes are single values",
    "ALL": "ALL (a collection operator) is not supported: an element's attributes are single values",
    "NONE": "NONE (a collection operator) is not supported: an element's attributes are single values",
    "FUNCTION": "FUNCTION(…) is not supported",
    "SELF": "SELF is not supported: compare an attribute (label, name, value…)",
    "CAST": "CAST(…) is not supported",
    "FIRST": "FIRST (an index into a collection) is not supported",
    "LAST": "LAST (an index into a collection) is not supported",
    "SIZE": "SIZE is not supported",
    "UTI": "UTI-CONFORMS-TO and UTI-EQUALS are not supported",
}
_LITERAL_WORDS = {"TRUE": True, "YES": True, "FALSE": False, "NO": False, "NIL": None, "NULL": None}
_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
      | (?P<number>-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
      | (?P<word>[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*)
      | (?P<op>==|!=|<>|<=|=<|>=|=>|&&|\|\||[=<>!(){},\[\]])""",
    re.VERBOSE | re.DOTALL,
)
_QUOTED = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


class GrammarError(ValueError):
    """A selector grammar's expression is malformed or outside what visor evaluates.

    `position` is where (0-based), when known.
    """

    def __init__(self, reason: str, position: int | None = None) -> None:
        super().__init__(reason if position is None else f"{reason} (at character {position + 1})")
        self.reason = reason
        self.position = position


class PredicateError(GrammarError):
    """A predicate is malformed or outside what visor evaluates."""


@dataclass(frozen=True, slots=True)
class Key:
    """An attribute of the element (its canonical name, one of `KEYS`)."""

    name: str

    @property
    def kind(self) -> KeyType:
        """Return what the attribute holds."""
        return KEYS[self.name]


@dataclass(frozen=True, slots=True)
class Constant:
    """A literal: text, a number, a boolean, or nil (None)."""

    value: str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Aggregate:
    """A `{…}` list of literals (after IN or BETWEEN)."""

    items: tuple[Constant, ...]


Operand = Key | Constant | Aggregate


@dataclass(frozen=True, slots=True)
class Comparison:
    """`left op[modifiers] right`; modifiers are `c` (case-insensitive) and/or `d` (diacritic-insensitive)."""

    left: Operand
    op: str
    right: Operand
    modifiers: str = ""


@dataclass(frozen=True, slots=True)
class Not:
    """`NOT operand`."""

    operand: Predicate


@dataclass(frozen=True, slots=True)
class Both:
    """`a AND b AND …` (two or more operands; a parenthesized conjunction inside stays one operand)."""

    operands: tuple[Predicate, ...]


@dataclass(frozen=True, slots=True)
class Either:
    """`a OR b OR …` (two or more operands; a parenthesized disjunction inside stays one operand)."""

    operands: tuple[Predicate, ...]


@dataclass(frozen=True, slots=True)
class Truth:
    """`TRUEPREDICATE` or `FALSEPREDICATE`."""

    value: bool


Predicate = Comparison | Not | Both | Either | Truth
#: What an element's attribute reads as: text, a number, a boolean, or None (no such value).
AttributeValue = str | int | float | bool | None
#: Reads an attribute (a canonical key name) of the element being tested.
Attributes = Callable[[str], AttributeValue]


def supported() -> str:
    """Return what visor evaluates in a predicate, for hints."""
    return (
        f"attributes {', '.join(KEYS)}; operators {', '.join(OPERATORS)} with [c] and [d]; "
        "AND/&&, OR/||, NOT/!, parentheses, TRUEPREDICATE, FALSEPREDICATE"
    )


@functools.lru_cache(maxsize=1024)
def parse_predicate(text: str, offset: int = 0) -> Predicate:
    """Parse an NSPredicate string; error positions are counted from `offset` (where the text starts).

    Raises:
        PredicateError: the text is malformed or uses something visor does not evaluate.
    """
    parser = _Parser(text, offset)
    predicate = parser.disjunction()
    end = parser.peek()
    if end.kind != "end":
        raise PredicateError(f"expected AND, OR or the end, found {end.text!r}", end.at)
    return predicate


def evaluate(predicate: Predicate, attribute: Attributes) -> bool:
    """Return whether an element whose attributes `attribute` reads satisfies the predicate.

    Raises:
        PatternTimeout: a MATCHES pattern took too long on one text (see `visor.selectors.patterns`).
    """
    if isinstance(predicate, Truth):
        return predicate.value
    if isinstance(predicate, Not):
        return not evaluate(predicate.operand, attribute)
    if isinstance(predicate, Both):
        return all(evaluate(operand, attribute) for operand in predicate.operands)
    if isinstance(predicate, Either):
        return any(evaluate(operand, attribute) for operand in predicate.operands)
    return _compare(predicate, attribute)


def render(predicate: Predicate) -> str:
    """Write a predicate in canonical form (it parses back to an equal predicate)."""
    if isinstance(predicate, Truth):
        return "TRUEPREDICATE" if predicate.value else "FALSEPREDICATE"
    if isinstance(predicate, Not):
        return "NOT " + _wrapped(predicate.operand, not isinstance(predicate.operand, Comparison | Truth | Not))
    if isinstance(predicate, Both):
        return " AND ".join(_wrapped(operand, isinstance(operand, Both | Either)) for operand in predicate.operands)
    if isinstance(predicate, Either):
        return " OR ".join(_wrapped(operand, isinstance(operand, Either)) for operand in predicate.operands)
    modifiers = f"[{predicate.modifiers}]" if predicate.modifiers else ""
    return f"{_operand_text(predicate.left)} {predicate.op}{modifiers} {_operand_text(predicate.right)}"


def _wrapped(predicate: Predicate, parenthesize: bool) -> str:
    return f"({render(predicate)})" if parenthesize else render(predicate)


def _operand_text(operand: Operand) -> str:
    if isinstance(operand, Key):
        return operand.name
    if isinstance(operand, Aggregate):
        return "{" + ", ".join(_operand_text(item) for item in operand.items) + "}"
    value = operand.value
    if value is None:
        return "NIL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int | float):
        return repr(value)
    return quoted(value)


def quoted(text: str) -> str:
    """Write a string literal in double quotes, backslash-escaped: NSPredicate's and Java's spelling alike."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t") + '"'


# -- reading -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # string, number, word, an operator or punctuation, or end
    text: str
    at: int


def _tokens(text: str, offset: int) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            # Read on: the parser may meet a construct it names better first (`SUBQUERY(…, $x, …)`).
            tokens.append(_Token("bad", _unreadable(text[position:]), offset + position))
            break
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(_Token(match.group() if kind == "op" else kind, match.group(), offset + position))
        position = match.end()
    tokens.append(_Token("end", "", offset + len(text)))
    return tokens


def _unreadable(rest: str) -> str:
    first = rest[0]
    if first in "\"'":
        return "a string is not closed"
    if first == "$":
        return "variables ($name) are not supported: write the value itself"
    if first == "%":
        return "format arguments (%@, %K) are not supported: write the value or the attribute itself"
    if first == "@" or rest.startswith(".@"):
        return "@count and other collection operators are not supported"
    if first in "+-*/^":
        return "arithmetic is not supported: compare an attribute with a value"
    if first == "#":
        return "#-escaped names are not supported: use an attribute's plain name"
    return f"cannot read {rest[:12]!r}"


class _Parser:
    """Recursive descent over the tokens: OR over AND over NOT over comparisons."""

    def __init__(self, text: str, offset: int) -> None:
        self.tokens = _tokens(text, offset)
        self.next = 0
        self.depth = 0

    def peek(self) -> _Token:
        token = self.tokens[self.next]
        if token.kind == "bad":
            raise PredicateError(token.text, token.at)
        return token

    def take(self) -> _Token:
        token = self.peek()
        self.next += min(1, len(self.tokens) - 1 - self.next)
        return token

    def word(self, token: _Token | None = None) -> str:
        """Return the token's keyword spelling (upper case) when it is a word, else ''."""
        token = token or self.peek()
        return token.text.upper() if token.kind == "word" else ""

    def disjunction(self) -> Predicate:
        operands = [self.conjunction()]
        while self.peek().kind == "||" or self.word() == "OR":
            self.take()
            operands.append(self.conjunction())
        return operands[0] if len(operands) == 1 else Either(tuple(operands))

    def conjunction(self) -> Predicate:
        operands = [self.negation()]
        while self.peek().kind == "&&" or self.word() == "AND":
            self.take()
            operands.append(self.negation())
        return operands[0] if len(operands) == 1 else Both(tuple(operands))

    def negation(self) -> Predicate:
        if self.peek().kind == "!" or self.word() == "NOT":
            self.nest(self.take())
            inner = self.negation()
            self.depth -= 1
            return Not(inner)
        return self.primary()

    def nest(self, token: _Token) -> None:
        """Count one more level of NOT or parentheses; refuse more than `MAX_NESTING`."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise PredicateError(f"is nested more than {MAX_NESTING} levels deep (NOT and parentheses)", token.at)

    def primary(self) -> Predicate:
        token = self.peek()
        if token.kind == "(":
            self.nest(self.take())
            inner = self.disjunction()
            self.depth -= 1
            closing = self.take()
            if closing.kind != ")":
                raise PredicateError(f"expected ')' to close the '(' at character {token.at + 1}", closing.at)
            return inner
        if self.word() in ("TRUEPREDICATE", "FALSEPREDICATE"):
            self.take()
            return Truth(self.word(token) == "TRUEPREDICATE")
        return self.comparison()

    def comparison(self) -> Comparison:
        left = self.operand()
        token = self.take()
        op = _SPELLINGS.get(token.text, token.text) if token.kind != "word" else token.text.upper()
        if op in _REFUSED_WORDS:
            raise PredicateError(_REFUSED_WORDS[op], token.at)
        if op not in OPERATORS:
            found = "the end" if token.kind == "end" else repr(token.text)
            raise PredicateError(f"expected an operator ({', '.join(OPERATORS)}), found {found}", token.at)
        modifiers = self.modifiers()
        comparison = Comparison(left, op, self.operand(), modifiers)
        _check(comparison, token.at)
        return comparison

    def modifiers(self) -> str:
        if self.peek().kind != "[":
            return ""
        opening = self.take()
        flags = self.take()
        closing = self.take()
        letters = flags.text.lower() if flags.kind == "word" else ""
        if closing.kind != "]" or not letters or set(letters) - set("cd") or len(set(letters)) != len(letters):
            raise PredicateError("an operator's options are [c], [d] or [cd]", opening.at)
        return "".join(sorted(letters))

    def operand(self) -> Operand:
        token = self.take()
        if token.kind == "string":
            return Constant(_unquote(token.text[1:-1]))
        if token.kind == "number":
            if len(token.text) > MAX_NUMBER_LENGTH:
                raise PredicateError(f"a number has more than {MAX_NUMBER_LENGTH} characters", token.at)
            number = float(token.text)
            return Constant(int(token.text) if re.fullmatch(r"-?\d+", token.text) else number)
        if token.kind == "{":
            return self.aggregate(token)
        if token.kind == "word":
            return self.named(token)
        found = "the end" if token.kind == "end" else repr(token.text)
        raise PredicateError(f"expected an attribute or a value, found {found}", token.at)

    def named(self, token: _Token) -> Operand:
        upper = token.text.upper()
        if upper in _LITERAL_WORDS:
            return Constant(_LITERAL_WORDS[upper])
        if upper in _REFUSED_WORDS:
            raise PredicateError(_REFUSED_WORDS[upper], token.at)
        name = ALIASES.get(token.text, token.text)
        if name not in KEYS:
            raise PredicateError(_unknown_key(token.text), token.at)
        follow = self.peek()
        if follow.kind == "(":
            raise PredicateError("functions are not supported", follow.at)
        if follow.kind == "[":
            raise PredicateError("subscripts (name[0]) are not supported: compare the attribute itself", follow.at)
        return Key(name)

    def aggregate(self, opening: _Token) -> Aggregate:
        items: list[Constant] = []
        if self.peek().kind == "}":
            self.take()
            return Aggregate(())
        while True:
            item = self.operand()
            if not isinstance(item, Constant):
                raise PredicateError("a {…} list holds values (strings, numbers, booleans)", opening.at)
            items.append(item)
            separator = self.take()
            if separator.kind == "}":
                return Aggregate(tuple(items))
            if separator.kind != ",":
                where = f"the list opened at character {opening.at + 1}"
                raise PredicateError(f"expected ',' or '}}' in {where}", separator.at)


def _unknown_key(word: str) -> str:
    names = [*KEYS, *ALIASES]
    guess = closest(word, names)
    if guess is not None:
        return f"unknown attribute {word!r} (did you mean {guess!r}?)"
    return f'unknown attribute {word!r} (attributes: {", ".join(KEYS)}; to compare with the text, quote it: "{word}")'


def _unquote(body: str) -> str:
    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code in _QUOTED:
            return _QUOTED[code]
        if code.startswith("u"):
            return chr(int(code[1:], 16))
        return match.group(0)  # an unknown escape keeps its backslash: "\d" reaches MATCHES as a regex digit

    return re.sub(r"\\(u[0-9a-fA-F]{4}|.)", replace, body, flags=re.DOTALL)


# -- checking ------------------------------------------------------------------------------------------------------


def _check(comparison: Comparison, at: int) -> None:
    """Refuse comparisons that can never be evaluated meaningfully, naming what to write instead."""
    left, op, right = comparison.left, comparison.op, comparison.right
    if op in ("IN", "BETWEEN"):
        _check_list(comparison, at)
        return
    if isinstance(left, Aggregate) or isinstance(right, Aggregate):
        raise PredicateError("a {…} list only follows IN or BETWEEN", at)
    if not isinstance(left, Key) and not isinstance(right, Key):
        raise PredicateError("compares two values: one side must be an attribute (label, name, value…)", at)
    if op in ("LIKE", "MATCHES") and not (isinstance(left, Key) and isinstance(right, Constant)):
        raise PredicateError(f"{op} takes an attribute on its left and a quoted pattern on its right", at)
    for key, other in ((left, right), (right, left)):
        if isinstance(key, Key):
            _check_pair(key, other, op, at)
    if op == "MATCHES" and isinstance(right, Constant) and isinstance(right.value, str):
        try:
            compile_pattern(_pattern_flags(comparison.modifiers) + right.value)
        except PatternError as exc:
            raise PredicateError(f"the pattern {right.value!r} is invalid ({exc})", at) from exc


def _check_pair(key: Key, other: Operand, op: str, at: int) -> None:
    kind = key.kind
    if isinstance(other, Key):
        compatible = kind == other.kind or {kind, other.kind} == {KeyType.NUMBER, KeyType.BOOLEAN}
        if not compatible or (op in STRING_OPERATORS and kind is not KeyType.TEXT):
            raise PredicateError(f"cannot compare {key.name} ({kind}) with {other.name} ({other.kind}) by {op}", at)
        return
    value = other.value if isinstance(other, Constant) else None
    if op in STRING_OPERATORS:
        if kind is not KeyType.TEXT or not isinstance(value, str):
            raise PredicateError(f"{op} compares text: {_example(key)}", at)
        return
    if value is None:
        if kind is not KeyType.TEXT or op not in ("==", "!="):
            raise PredicateError(f"only a text attribute compares with nil, by == or !=: {_example(key)}", at)
        return
    if kind is KeyType.BOOLEAN:
        if op not in ("==", "!=") or isinstance(value, str) or value not in (0, 1):
            raise PredicateError(f"{key.name} is a boolean: {_example(key)}", at)
    elif kind is KeyType.NUMBER and (isinstance(value, str | bool)):
        raise PredicateError(f"{key.name} is a number: {_example(key)}", at)
    elif kind is KeyType.TEXT and isinstance(value, bool):
        raise PredicateError(f"{key.name} is text: {_example(key)}", at)


def _check_list(comparison: Comparison, at: int) -> None:
    left, op, right = comparison.left, comparison.op, comparison.right
    if not isinstance(left, Key) or not isinstance(right, Aggregate):
        example = "label IN {'OK', 'Done'}" if op == "IN" else "rect.y BETWEEN {0, 400}"
        raise PredicateError(f"{op} takes an attribute on its left and a {{…}} list on its right, e.g. {example}", at)
    if op == "BETWEEN":
        numbers = [item for item in right.items if _is_number(item.value)]
        if left.kind is not KeyType.NUMBER or len(right.items) != 2 or len(numbers) != 2:
            raise PredicateError("BETWEEN takes a number attribute and {low, high}, e.g. rect.y BETWEEN {0, 400}", at)
        return
    for item in right.items:
        _check_pair(left, item, "==", at)


def _is_number(value: AttributeValue) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _example(key: Key) -> str:
    examples = {
        KeyType.TEXT: f'e.g. {key.name} == "OK" or {key.name} BEGINSWITH[c] "ok"',
        KeyType.NUMBER: f"e.g. {key.name} >= 100",
        KeyType.BOOLEAN: f"e.g. {key.name} == TRUE (or == 1)",
    }
    return examples[key.kind]


# -- evaluating ----------------------------------------------------------------------------------------------------


def _compare(comparison: Comparison, attribute: Attributes) -> bool:
    op, modifiers = comparison.op, comparison.modifiers
    left = _value(comparison.left, attribute)
    if op == "IN":
        assert isinstance(comparison.right, Aggregate)
        return any(_equal(left, item.value, modifiers) for item in comparison.right.items)
    if op == "BETWEEN":
        assert isinstance(comparison.right, Aggregate)
        low, high = (_order(left, item.value, modifiers) for item in comparison.right.items)
        return low is not None and high is not None and low >= 0 and high <= 0
    right = _value(comparison.right, attribute)
    if op in ("==", "!="):
        return _equal(left, right, modifiers) == (op == "==")
    if op in STRING_OPERATORS:
        return isinstance(left, str) and isinstance(right, str) and _string_test(op, left, right, modifiers)
    order = _order(left, right, modifiers)
    return order is not None and {"<": order < 0, ">": order > 0, "<=": order <= 0, ">=": order >= 0}[op]


def _value(operand: Operand, attribute: Attributes) -> AttributeValue:
    if isinstance(operand, Key):
        return attribute(operand.name)
    assert isinstance(operand, Constant), "lists are checked to follow IN and BETWEEN only"
    return operand.value


def _equal(left: AttributeValue, right: AttributeValue, modifiers: str) -> bool:
    if left is None or right is None:
        return left in (None, "") and right in (None, "")
    return _order(left, right, modifiers) == 0


def _order(left: AttributeValue, right: AttributeValue, modifiers: str) -> int | None:
    """Compare two values (-1, 0, 1), or None when they cannot be compared."""
    if isinstance(left, str) and isinstance(right, str):
        first, second = _fold(left, modifiers), _fold(right, modifiers)
        return (first > second) - (first < second)
    a, b = _number(left), _number(right)
    if a is None or b is None:
        return None
    return (a > b) - (a < b)


def _number(value: AttributeValue) -> float | None:
    if isinstance(value, str):
        try:
            return float(value.strip()) if value.strip() else None
        except ValueError:
            return None
    return None if value is None else float(value)


def _fold(text: str, modifiers: str) -> str:
    if "d" in modifiers:
        text = "".join(char for char in unicodedata.normalize("NFD", text) if not unicodedata.combining(char))
    return text.casefold() if "c" in modifiers else text


def _string_test(op: str, left: str, right: str, modifiers: str) -> bool:
    if op == "MATCHES":
        # [c] is the pattern's own flag (folding a pattern's case would change its classes: \\D is not \\d).
        diacritics = "d" if "d" in modifiers else ""
        return full_match(_pattern_flags(modifiers) + _fold(right, diacritics), _fold(left, diacritics))
    text, wanted = _fold(left, modifiers), _fold(right, modifiers)
    if op == "BEGINSWITH":
        return text.startswith(wanted)
    if op == "ENDSWITH":
        return text.endswith(wanted)
    if op == "CONTAINS":
        return wanted in text
    return full_match(_like(wanted), text)


def _pattern_flags(modifiers: str) -> str:
    return "(?i)" if "c" in modifiers else ""


@functools.lru_cache(maxsize=256)
def _like(pattern: str) -> str:
    """Translate a LIKE pattern (`*` any run, `?` one character) into a regular expression."""
    return "(?s)" + "".join(".*" if char == "*" else "." if char == "?" else re.escape(char) for char in pattern)
