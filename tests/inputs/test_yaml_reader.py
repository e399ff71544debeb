"""Duplicate keys in YAML: refused at the repeat, naming the line of the first definition whatever its value."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.errors import SourceError
from visor.inputs.reading import SourceText
from visor.inputs.yaml_reader import parse_yaml


def refusal(text: str) -> SourceError:
    with pytest.raises(SourceError) as caught:
        parse_yaml(SourceText("t.yaml", text, "yaml"))
    return caught.value


@pytest.mark.parametrize(
    ("text", "key", "first", "second"),
    [
        ("meta:\n  name: a\nmeta:\n  name: b\n", "meta", 1, 3),  # the reviewer's file
        ("a: 1\nb: 2\na:\n  c: 1\n", "a", 1, 3),
        ("a:\n  c: 1\nb: 2\na: 1\n", "a", 1, 4),
        ("steps:\n  - 1\n  - 2\nsteps:\n  - 3\n", "steps", 1, 4),
        ("steps:\n- 1\nsteps: []\n", "steps", 1, 3),
        ("a: {x: 1}\n\n# a comment\na: {y: 2}\n", "a", 1, 4),
        ("a: [1, 2]\na: [3]\n", "a", 1, 2),
        ("base: &b {x: 1}\na: *b\nother: 1\na: *b\n", "a", 2, 4),
        ("base: &b\n  x: 1\nbase: 2\n", "base", 1, 3),
        ("? a\n: {x: 1}\n'a': 2\n", "a", 1, 3),
        ("outer:\n  - inner:\n      k: [1]\n      j: 2\n      k:\n        - 1\n", "k", 3, 5),
        ("a: {k: {x: 1}, k: [2]}\n", "k", 1, 1),
        ("{\n  k: [1],\n  other: 2,\n  k: {x: 1}\n}\n", "k", 2, 4),
    ],
)
def test_duplicate_keys_name_the_first_definition_for_every_kind_of_value(
    text: str, key: str, first: int, second: int
) -> None:
    error = refusal(text)
    assert error.problem == f"duplicate key {key!r} (first defined at line {first})"
    assert error.line == second


def test_a_repeated_merge_key_merges_and_is_no_duplicate() -> None:
    text = "x: &x {a: 1}\ny: &y {b: 2}\nz:\n  <<: *x\n  <<: *y\n"
    assert parse_yaml(SourceText("t.yaml", text, "yaml")).data["z"] == {"a": 1, "b": 2}


# -- the property: whatever the values and the nesting, the first definition's line is the one named --------------

#: Values written after `key:`, on one line; each can also stand inside a flow mapping.
FLOW_VALUES = ["1", "'x y'", "{p: 1, q: [2]}", "[1, {r: 2}]", "*shared", "*items", "&fresh {s: 1}", "null"]
#: Values written over several lines: (first line's text after `key:`, the lines below it, unindented).
BLOCK_VALUES: list[tuple[str, list[str]]] = [
    ("", []),
    ("", ["  p: 1", "  q:", "    - 2"]),
    ("", ["  - 1", "  - r: 2"]),
    ("", ["- 1", "- [2]"]),  # a sequence may sit at its key's indentation
    (" &block", ["  t: 1"]),
    (" !!map", ["  u: 1"]),
]
#: Keys of the preamble, which defines the anchors the values refer to: longer than the generated keys.
PREAMBLE = ["anchorsource: &shared {z: 1}", "anchorlist: &items [1, 2]"]

keys = st.from_regex(r"[a-z]{1,5}", fullmatch=True)
Entry = Callable[[str], list[str]]


@st.composite
def entries(draw: st.DrawFn, flow: bool) -> Entry:
    """Return a function writing `key: value` (as lines) for a value of any kind, in any key style."""
    style = draw(st.sampled_from(["plain", "single", "double"] if flow else ["plain", "single", "double", "explicit"]))

    def written(key: str) -> str:
        return {"plain": key, "single": f"'{key}'", "double": f'"{key}"', "explicit": f"? {key}\n"}[style]

    if flow or draw(st.booleans()):
        value = draw(st.sampled_from(FLOW_VALUES))
        return lambda key: f"{written(key)}: {value}".split("\n")
    head, below = draw(st.sampled_from(BLOCK_VALUES))
    return lambda key: [*f"{written(key)}:{head}".split("\n"), *below]


@st.composite
def duplicated(draw: st.DrawFn) -> tuple[str, str, int, int]:
    """Return a document with one key defined twice in one mapping: (text, key, first line, second line)."""
    depth = draw(st.integers(0, 3))
    flow = depth > 0 and draw(st.booleans())
    names = draw(st.lists(keys, min_size=5, max_size=5, unique=True))
    key, fillers = names[0], names[1:]
    before, between = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    order = [*fillers[:before], key, *fillers[before : before + between], key, *fillers[before + between :]]
    rows: list[list[str]] = [draw(entries(flow))(name) for name in order]
    starts = []  # the line (from 0) each entry starts at, in the mapping's own lines
    lines: list[str] = ["{"] if flow else []
    for index, row in enumerate(rows):
        starts.append(len(lines))
        if flow:
            lines.append(f"  {row[0]}{',' if index < len(rows) - 1 else ''}")
        else:
            lines.extend(row)
    lines += ["}"] if flow else []
    first, second = (starts[index] for index, name in enumerate(order) if name == key)
    for level in range(depth):  # wrap the mapping, innermost first, in mappings and sequence items
        name = f"level{level}"
        if draw(st.booleans()):
            lines = [f"{name}:", *(f"  {line}" for line in lines)]
        else:
            lines = [f"{name}:", f"  - {lines[0]}", *(f"    {line}" for line in lines[1:])]
        first, second = first + 1, second + 1
    document = [*PREAMBLE, *lines]
    return "\n".join(document) + "\n", key, first + len(PREAMBLE) + 1, second + len(PREAMBLE) + 1


@given(duplicated())
def test_a_duplicate_key_names_the_line_of_its_first_definition(case: tuple[str, str, int, int]) -> None:
    text, key, first, second = case
    error = refusal(text)
    assert error.problem == f"duplicate key {key!r} (first defined at line {first})", text
    assert error.line == second, text
