from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.errors import SourceError
from visor.inputs.document import MAX_DEPTH, MAX_NODES, Position
from visor.inputs.json_reader import parse_json
from visor.inputs.reading import SourceText
from visor.inputs.yaml_reader import parse_yaml


def yaml_doc(text: str):  # type: ignore[no-untyped-def]
    return parse_yaml(SourceText("t.yaml", text, "yaml"))


def json_doc(text: str):  # type: ignore[no-untyped-def]
    return parse_json(SourceText("t.json", text, "json"))


def test_yaml_positions_point_at_keys_and_items() -> None:
    doc = yaml_doc("meta:\n  name: x\nsteps:\n  - id: a\n  - {id: b}\n")
    assert doc.positions[("meta",)] == Position(1, 1)
    assert doc.positions[("meta", "name")] == Position(2, 3)
    assert doc.positions[("steps", 0)] == Position(4, 5)
    assert doc.positions[("steps", 1, "id")] == Position(5, 6)
    assert doc.position(("steps", 1, "id", "nothing", 3)) == Position(5, 6)


def test_json_positions_point_at_keys_and_items() -> None:
    doc = json_doc('{\n  "meta": {"name": "x"},\n  "steps": [\n    {"id": "a"}, 5\n  ]\n}')
    assert doc.positions[("meta", "name")] == Position(2, 12)
    assert doc.positions[("steps", 0)] == Position(4, 5)
    assert doc.positions[("steps", 1)] == Position(4, 18)
    assert doc.positions[("steps", 0, "id")] == Position(4, 6)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a: yes", "yes"),
        ("a: no", "no"),
        ("a: on", "on"),
        ("a: true", True),
        ("a: False", False),
        ("a: 2026-01-01", "2026-01-01"),
        ("a: 012", 12),
        ("a: 0x1f", 31),
        ("a: 0o17", 15),
        ("a: 1e3", 1000.0),
        ("a: 1.5", 1.5),
        ("a: ~", None),
        ("a:", None),
        ("a: '1'", "1"),
        ("a: !!str 1", "1"),
        ("a: !!float 1", 1.0),
        ("a: 1_000", "1_000"),
        ("a: .inf", math.inf),
    ],
)
def test_yaml_scalars_follow_the_core_schema(text: str, value: object) -> None:
    assert yaml_doc(text).data == {"a": value}


def test_yaml_nan_is_read_as_nan() -> None:
    assert math.isnan(yaml_doc("a: .nan").data["a"])


def test_yaml_merge_keys_with_explicit_keys_winning() -> None:
    doc = yaml_doc("base: &b {x: 1, y: 2}\nthing:\n  <<: *b\n  y: 3\n")
    assert doc.data["thing"] == {"x": 1, "y": 3}


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("a: 1\nb:\n  c: 1\n  c: 2\n", "duplicate key 'c' (first defined at line 3)", 4),
        ("!!python/object/apply:os.system ['ls']", "!!python/object/apply:os.system is not allowed", 1),
        ("a: !!binary aGk=", "!!binary is not allowed", 1),
        ("a: !custom x", "!custom is not allowed", 1),
        ("a: 1\n---\nb: 2\n", "more than one YAML document", 2),
        ("a: [1, 2\n", "YAML syntax error", 2),
        ("a: *nowhere", "unknown alias *nowhere", 1),
        ("", "empty", 1),
        ("# only a comment\n", "empty", 1),
        ("? [a, b]\n: 1\n", "mapping key must be a plain scalar", 1),
    ],
)
def test_yaml_refusals_name_line(text: str, message: str, line: int) -> None:
    with pytest.raises(SourceError) as caught:
        yaml_doc(text)
    assert message in caught.value.message
    assert caught.value.line == line


def test_yaml_alias_bomb_is_refused_quickly() -> None:
    lines = ['a0: &a0 ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for level in range(1, 10):
        refs = ", ".join([f"*a{level - 1}"] * 10)
        lines.append(f"a{level}: &a{level} [{refs}]")
    with pytest.raises(SourceError, match=f"more than {MAX_NODES:,} nodes"):
        yaml_doc("\n".join(lines))


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 10_000])
def test_deep_nesting_is_refused(depth: int) -> None:
    with pytest.raises(SourceError, match="nest"):
        yaml_doc("[" * depth + "]" * depth)
    with pytest.raises(SourceError, match=f"deeper than {MAX_DEPTH}"):
        json_doc("[" * depth + "]" * depth)


def test_nesting_up_to_the_limit_is_fine() -> None:
    assert json_doc("[" * MAX_DEPTH + "]" * MAX_DEPTH).data is not None
    assert yaml_doc("[" * MAX_DEPTH + "]" * MAX_DEPTH).data is not None


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ('{"a": 1, "a": 2}', "duplicate key 'a'", 1, 10),
        ('{"a": NaN}', "NaN is not a JSON number", 1, 7),
        ('{"a": Infinity}', "Infinity is not a JSON number", 1, 7),
        ('{\n  "a": 1,\n}', "JSON syntax error", 3, 1),
        ('{"a": "x}', "JSON syntax error", 1, 7),
    ],
)
def test_json_refusals_name_line_and_column(text: str, message: str, line: int, column: int) -> None:
    with pytest.raises(SourceError) as caught:
        json_doc(text)
    assert message in caught.value.message
    assert (caught.value.line, caught.value.column) == (line, column)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_json_reader_agrees_with_the_json_module(value: object) -> None:
    import json

    text = json.dumps(value, indent=1)
    assert json_doc(text).data == json.loads(text)


printable = st.text(st.characters(exclude_categories=("Cs", "Cc", "Cf", "Co", "Cn", "Zl", "Zp")))
json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | printable,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(printable, children, max_size=4),
    max_leaves=20,
)


@given(json_like)
def test_yaml_reader_reads_json_like_json(value: object) -> None:
    """JSON is YAML: the YAML reader gives the JSON module's values (1.2 core schema).

    Only printable text: YAML streams may not carry control characters, and libyaml has no surrogate escapes.
    """
    import json

    text = json.dumps(value, ensure_ascii=False)
    assert yaml_doc(text).data == json.loads(text)


@pytest.mark.parametrize(("text", "fmt"), [("", "yaml"), (" \n\t", "yaml"), ("", "json"), ("  \n", "json")])
def test_blank_input_is_empty_in_both_formats(text: str, fmt: str) -> None:
    from visor.inputs.data import parse_source

    with pytest.raises(SourceError, match="the file is empty"):
        parse_source(SourceText("t", text, fmt))  # type: ignore[arg-type]


# -- lone surrogates: a \u escape that decodes to half a UTF-16 pair is not Unicode text ----------------------------


@pytest.mark.parametrize(
    ("text", "escape", "line", "column"),
    [
        ('{"meta": {"name": "\\ud800", "version": "1"}}', "\\ud800", 1, 20),
        ('{"a": "ok \\uDC00"}', "\\uDC00", 1, 11),
        ('{"a": "\\ud83d\\u0041"}', "\\ud83d", 1, 8),
        ('{"a": "\\ude00\\ud83d"}', "\\ude00", 1, 8),
        ('{"a": "\\ud83d\\ude00 \\ud83d"}', "\\ud83d", 1, 21),
        ('{\n  "ok": 1,\n  "\\udfff": 2\n}', "\\udfff", 3, 4),
        ('["\\\\\\udbff"]', "\\udbff", 1, 5),
    ],
)
def test_json_lone_surrogate_escapes_are_refused_at_their_position(
    text: str, escape: str, line: int, column: int
) -> None:
    with pytest.raises(SourceError) as caught:
        json_doc(text)
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert escape in error.message and "surrogate" in error.message
    assert "surrogate" in error.likely_cause and error.next_step


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": "\\ud83d\\ude00"}', "\U0001f600"),
        ('{"a": "\\\\ud800"}', "\\ud800"),  # an escaped backslash: the text `\ud800`, not an escape
        ('{"a": "\\u00e9\\u20ac"}', "é€"),
    ],
)
def test_json_surrogate_pairs_and_lookalikes_are_fine(text: str, value: str) -> None:
    assert json_doc(text).data == {"a": value}


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('meta:\n  name: "\\ud800"\n', 2, 9),
        ('a: "\\U0000DFFF"\n', 1, 4),
        ('"\\udc00": 1\n', 1, 1),
    ],
)
@pytest.mark.parametrize("parser", ["libyaml", "python"])
def test_yaml_lone_surrogate_escapes_are_refused_at_their_position(
    monkeypatch: pytest.MonkeyPatch, parser: str, text: str, line: int, column: int
) -> None:
    """libyaml refuses them while scanning; PyYAML's own parser (the fallback without libyaml) decodes them."""
    import yaml

    from visor.inputs import yaml_reader

    if parser == "python":
        monkeypatch.setattr(yaml_reader, "_Parser", yaml.SafeLoader)
    with pytest.raises(SourceError) as caught:
        yaml_doc(text)
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert "surrogate" in error.message and "surrogate" in error.likely_cause


@pytest.mark.parametrize("escape", ["\\U00110000", "\\UFFFFFFFF"])
@pytest.mark.parametrize("parser", ["libyaml", "python"])
def test_yaml_escapes_beyond_unicode_are_refused(monkeypatch: pytest.MonkeyPatch, parser: str, escape: str) -> None:
    import yaml

    from visor.inputs import yaml_reader

    if parser == "python":
        monkeypatch.setattr(yaml_reader, "_Parser", yaml.SafeLoader)
    with pytest.raises(SourceError) as caught:
        yaml_doc(f'a: 1\nb: "x{escape}"\n')
    assert caught.value.line == 2 and "beyond U+10FFFF" in caught.value.message


# -- the alias-bomb guard counts alias expansions, not the nodes written out ----------------------------------------


def test_yaml_plain_document_with_more_nodes_than_the_alias_limit_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nodes written out are bounded by the file's size; only aliases can multiply them (a smaller limit: speed)."""
    from visor.inputs import yaml_reader

    monkeypatch.setattr(yaml_reader, "MAX_NODES", 1_000)
    doc = yaml_doc("items: [" + "1, " * 5_000 + "2]\nmore:\n" + "  - {a: b}\n" * 2_000)
    assert len(doc.data["items"]) == 5_001 and len(doc.data["more"]) == 2_000
    with pytest.raises(SourceError, match="more than 1,000 nodes"):
        yaml_doc("a: &a [" + "1, " * 99 + "2]\nb: [" + "*a, " * 10 + "*a]\n")


def test_yaml_aliases_are_counted_by_what_they_expand_to() -> None:
    # 1,001 aliases of a 1,000-node list (999 items and the list): 1,001,000 nodes once expanded, from 9 KB.
    text = "base: &b [" + ", ".join(["x"] * 999) + "]\nrefs:\n" + "  - *b\n" * 1_001
    with pytest.raises(SourceError, match=f"more than {MAX_NODES:,} nodes") as caught:
        yaml_doc(text)
    assert caught.value.line == 1_003 and "alias" in caught.value.likely_cause  # the 1,001st alias
    assert len(yaml_doc(text.replace("  - *b\n" * 1_001, "  - *b\n" * 990)).data["refs"]) == 990


def test_yaml_aliases_of_a_long_text_are_counted_by_the_text_they_repeat() -> None:
    """A 1 MiB string aliased 5,000 times is 5 GB of text to whatever writes the data out (an envelope, a report)."""
    text = "a: &a '" + "x" * (1 << 20) + "'\nb: [" + ", ".join(["*a"] * 5_000) + "]\n"
    with pytest.raises(SourceError, match="or 64 MB of text"):
        yaml_doc(text)
    assert len(yaml_doc("a: &a '" + "x" * 100 + "'\nb: [" + ", ".join(["*a"] * 5_000) + "]\n").data["b"]) == 5_000


# -- integers too long to convert (Python refuses more than 4,300 decimal digits) ----------------------------------

LONG = "1" * 5_000


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        (f'{{"a": {LONG}}}', 1, 7),
        (f'{{"a": "{LONG}", "b": [0, -{LONG}]}}', 1, 5_020),
        (f'{{\n "NaN": "{LONG}",\n "b": {LONG}\n}}', 3, 7),
    ],
)
def test_json_integers_too_long_to_read_are_refused_at_their_position(text: str, line: int, column: int) -> None:
    with pytest.raises(SourceError) as caught:
        json_doc(text)
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert "5,000 digits" in error.message and "11111111" in error.message and len(error.message) < 200


def test_json_constants_are_located_outside_strings() -> None:
    with pytest.raises(SourceError) as caught:
        json_doc('{"a": "NaN",\n "b": NaN}')
    assert (caught.value.line, caught.value.column) == (2, 7)


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [(f"a: {LONG}\n", 1, 4), (f"a:\n  - 1\n  - !!int -{LONG}\n", 3, 5), (f"a: !!float {LONG}\n", 1, 4)],
)
def test_yaml_integers_too_long_to_read_are_refused_at_their_position(text: str, line: int, column: int) -> None:
    with pytest.raises(SourceError) as caught:
        yaml_doc(text)
    error = caught.value
    assert (error.line, error.column) == (line, column)
    assert "5,000 digits" in error.message and len(error.message) < 200


@pytest.mark.parametrize("text", [f"a: 0x{'f' * 5_000}\n", f"a: {LONG}.5\n", f"a: '{LONG}'\n"])
def test_yaml_long_numbers_python_can_read_are_read(text: str) -> None:
    assert yaml_doc(text).data["a"] is not None


def test_a_control_character_yaml_refuses_is_named_at_its_line_and_column() -> None:
    with pytest.raises(SourceError) as caught:
        yaml_doc('meta:\n  name: "a\x9b2Jb"\n')
    assert (caught.value.line, caught.value.column) == (2, 11) and "U+009B" in caught.value.message


def test_read_json_is_the_bounded_edge_for_files_visor_writes_itself(tmp_path: Path) -> None:
    """Fast (no positions) but held to the same rules: depth, NaN, size, regular files only."""
    from visor.inputs.data import read_json

    cases = {
        "deep.json": "[" * 5000 + "]" * 5000,
        "nan.json": '{"a": NaN}',
        "bad.json": '{"a": 1,}',
        "ok.json": '{"a": [1]}',
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    for name, said in (("deep.json", "nests deeper"), ("nan.json", "NaN"), ("bad.json", "JSON syntax error")):
        with pytest.raises(SourceError, match=said):
            read_json(str(tmp_path / name), noun="record")
    assert read_json(str(tmp_path / "ok.json"), noun="record") == {"a": [1]}
    with pytest.raises(SourceError, match="too large"):
        read_json(str(tmp_path / "ok.json"), noun="record", limit=3)


@given(st.text(max_size=12) | st.from_regex(r"[a-zA-Z~.+-]?[0-9a-fA-FxoeE.]{0,6}", fullmatch=True))
def test_a_plain_scalar_not_starting_as_a_number_null_or_boolean_is_text(text: str) -> None:
    # The reader returns such a scalar at once; none of the core schema's patterns can match it.
    from visor.inputs import yaml_reader as reader

    patterns = (reader._NULL, reader._INT, reader._OCT, reader._HEX, reader._FLOAT, reader._INF, reader._NAN)
    if text[:1] not in reader._SPECIAL_START:
        assert text not in reader._BOOL
        assert not any(pattern.match(text) for pattern in patterns)
        assert reader._resolve_plain(text) == text


def test_a_documents_positions_read_as_positions() -> None:
    document = parse_yaml(SourceText("t.yaml", "a:\n  - x\n  - {b: 1}\n", "yaml"))
    assert dict(document.positions) == {
        (): Position(1, 1),
        ("a",): Position(1, 1),
        ("a", 0): Position(2, 5),
        ("a", 1): Position(3, 5),
        ("a", 1, "b"): Position(3, 6),
    }
