"""iOS class chains (`classchain=`): the subset visor evaluates on an iOS UI tree.

A chain is `/`-separated steps, read from the application element down, each step relative to the elements the
previous one matched (as XCUITest's driver does):

- `XCUIElementTypeButton` (or `*`, `XCUIElementTypeAny`, `XCUIElementType*`: any type): the children of the
  previous step's elements that have this type; `**/XCUIElementTypeButton`: their descendants;
- then filters, applied in order to the step's matches (all of them, in page order):
  `` [`predicate`] `` keeps the elements an NSPredicate (see `visor.selectors.predicate`) holds for;
  `[$predicate$]` keeps the elements with a descendant it holds for; `[n]` keeps the n-th (from 1; `[-1]` is the
  last). Inside a filter a doubled `` ` `` or `$` stands for itself.

`**/XCUIElementTypeCell[`name BEGINSWITH "A"`]/XCUIElementTypeButton[2]` is the second of the buttons that are
children of cells whose name begins with A, as `(//XCUIElementTypeCell[starts-with(@name,'A')]/
XCUIElementTypeButton)[2]` in XPath. Parsing is pure; errors name the position (`at character N`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from visor.inputs.suggest import closest
from visor.selectors.predicate import ELEMENT_TYPES, GrammarError, Predicate, PredicateError, parse_predicate, render

_TYPE = re.compile(r"\*|XCUIElementType(?:\*|\w*)")
_INDEX = re.compile(r"-?\d{1,9}")
_ANY = ("*", "XCUIElementType*", "XCUIElementTypeAny")


class ClassChainError(GrammarError):
    """A class chain is malformed or outside what visor evaluates."""


@dataclass(frozen=True, slots=True)
class Index:
    """`[n]`: the n-th element (from 1), or from the end when negative."""

    position: int


@dataclass(frozen=True, slots=True)
class Where:
    """`` [`predicate`] ``: the elements the predicate holds for."""

    predicate: Predicate


@dataclass(frozen=True, slots=True)
class Having:
    """`[$predicate$]`: the elements with a descendant the predicate holds for."""

    predicate: Predicate


Filter = Index | Where | Having


@dataclass(frozen=True, slots=True)
class ChainStep:
    """One step: children (or, `deep`, descendants) of the previous step's elements, of a type, filtered."""

    element_type: str | None
    deep: bool = False
    filters: tuple[Filter, ...] = ()

    def source(self) -> str:
        """Return the step in canonical form."""
        parts = ["**/" if self.deep else "", self.element_type or "*"]
        for item in self.filters:
            if isinstance(item, Index):
                parts.append(f"[{item.position}]")
            elif isinstance(item, Where):
                parts.append("[`" + render(item.predicate).replace("`", "``") + "`]")
            else:
                parts.append("[$" + render(item.predicate).replace("$", "$$") + "$]")
        return "".join(parts)


@dataclass(frozen=True, slots=True)
class ClassChain:
    """A parsed class chain."""

    steps: tuple[ChainStep, ...]

    def source(self) -> str:
        """Return the chain in canonical form (it parses back to an equal chain)."""
        return "/".join(step.source() for step in self.steps)


def supported() -> str:
    """Return what visor reads in a class chain, for hints."""
    return (
        "steps XCUIElementType… or * separated by /, **/ for descendants, filters [n] (from 1, -1 the last), "
        "[`NSPredicate`] and [$NSPredicate$] (a descendant matches)"
    )


@functools.lru_cache(maxsize=1024)
def parse_classchain(text: str) -> ClassChain:
    """Parse a class chain.

    Raises:
        ClassChainError: the chain is malformed, names an unknown type, or holds a predicate visor cannot read.
    """
    steps: list[ChainStep] = []
    position = 0
    while True:
        step, position = _step(text, position)
        steps.append(step)
        if position == len(text):
            return ClassChain(tuple(steps))
        if text[position] != "/":
            raise ClassChainError(
                f"expected '/' or '[' after a step, found {text[position : position + 10]!r}", position
            )
        position += 1
        if position == len(text):
            raise ClassChainError("the chain ends with '/': name the next step's type", position - 1)


def _step(text: str, position: int) -> tuple[ChainStep, int]:
    deep = text.startswith("**/", position)
    if deep:
        position += 3
    elif text.startswith("**", position):
        raise ClassChainError("** is followed by /: write **/XCUIElementTypeButton", position)
    match = _TYPE.match(text, position)
    if match is None:
        found = repr(text[position : position + 12]) if position < len(text) else "the end"
        raise ClassChainError(f"expected an element type (XCUIElementTypeButton) or *, found {found}", position)
    name = match.group()
    if name not in _ANY and name not in ELEMENT_TYPES:
        guess = closest(name, ELEMENT_TYPES)
        suggestion = f" (did you mean {guess!r}?)" if guess else ""
        raise ClassChainError(f"unknown element type {name!r}{suggestion}", position)
    position = match.end()
    filters: list[Filter] = []
    while position < len(text) and text[position] == "[":
        item, position = _filter(text, position)
        filters.append(item)
    return ChainStep(None if name in _ANY else name, deep, tuple(filters)), position


def _filter(text: str, opening: int) -> tuple[Filter, int]:
    mark = text[opening + 1 : opening + 2]
    if mark in ("`", "$"):
        body, after = _quoted(text, opening + 2, mark)
        if not text.startswith("]", after):
            raise ClassChainError(f"expected ']' after the closing {mark}", after)
        try:
            predicate = parse_predicate(body, opening + 2)
        except PredicateError as exc:
            raise ClassChainError(exc.reason, exc.position) from exc
        return (Where(predicate) if mark == "`" else Having(predicate)), after + 1
    match = _INDEX.match(text, opening + 1)
    if match is None or not text.startswith("]", match.end()):
        raise ClassChainError("a filter is [n], [`predicate`] or [$predicate$]", opening)
    index = int(match.group())
    if index == 0:
        raise ClassChainError("positions start at 1 ([1] is the first, [-1] the last)", opening)
    return Index(index), match.end() + 1


def _quoted(text: str, start: int, mark: str) -> tuple[str, int]:
    """Return a filter's text up to its closing mark (a doubled mark stands for itself) and where it ends."""
    body: list[str] = []
    position = start
    while position < len(text):
        if text[position] == mark:
            if text.startswith(mark * 2, position):
                body.append(mark)
                position += 2
                continue
            return "".join(body), position + 1
        body.append(text[position])
        position += 1
    raise ClassChainError(f"the {mark} opened here is not closed", start - 1)
