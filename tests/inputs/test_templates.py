"""Texts with a script's value in them: how `${…}` is read, and how a template is filled in."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from visor.inputs.document import Document
from visor.inputs.parameters import substitute
from visor.inputs.templates import Expression, Literal, Parameter, is_template, pieces, render, template_paths


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("plain", [Literal("plain")]),
        ("${USER}", [Parameter("USER")]),
        ("${ USER }", [Expression("USER")]),  # spaced: JavaScript, which reads the parameter as a global
        ("hi ${output.user}!", [Literal("hi "), Expression("output.user"), Literal("!")]),
        ("$${output.user}", [Literal("${output.user}")]),
        ("${ {a: 1}.a }", [Expression("{a: 1}.a")]),  # braces inside pair up
        ("${'}' + \"}\"}", [Expression("'}' + \"}\"")]),  # a quoted brace does not close it
        ("${`a${b}c`}", [Expression("`a${b}c`")]),
        ("${unclosed", [Literal("${unclosed")]),
        ("${}", [Literal("${}")]),
        ("${ }x", [Literal("${ }x")]),
        ("$$${a.b}", [Literal("$${a.b}")]),
        ("cost: $5", [Literal("cost: $5")]),
    ],
)
def test_a_text_is_read_into_literals_parameters_and_expressions(text: str, expected: list[object]) -> None:
    assert list(pieces(text)) == expected


def _unread(text: str) -> str:
    """Write pieces back as a text that reads as them."""
    parts = []
    for piece in pieces(text):
        if isinstance(piece, Literal):
            parts.append(piece.text.replace("${", "$${"))
        elif isinstance(piece, Parameter):
            parts.append("${" + piece.name + "}")
        else:
            # Spaced, an expression that is a bare name stays one (unspaced it would read as a parameter).
            parts.append("${ " + piece.source + " }")
    return "".join(parts)


@given(st.text(alphabet="ab$ {}'\"`\\.x", max_size=40))
@example("${ a}")  # a spaced name is an expression, and must stay one written back
def test_reading_a_text_never_fails_and_what_it_reads_reads_back_the_same(text: str) -> None:
    read = list(pieces(text))
    assert all(not isinstance(piece, Literal) or piece.text for piece in read)  # no empty literal runs
    assert list(pieces(_unread(text))) == _merged(read)


def _merged(read: list[object]) -> list[object]:
    merged: list[object] = []
    for piece in read:
        if merged and isinstance(piece, Literal) and isinstance(merged[-1], Literal):
            merged[-1] = Literal(merged[-1].text + piece.text)
        else:
            merged.append(piece)
    return merged


@given(st.text(alphabet=st.characters(blacklist_characters="$"), max_size=60))
def test_a_text_without_a_dollar_is_itself(text: str) -> None:
    assert not is_template(text)
    assert render(text, {}, lambda source: pytest.fail(source)) == text


def test_render_fills_in_parameters_expressions_and_escapes() -> None:
    text = "${output.user}@${DOMAIN} $${kept} ${1 + 1}"
    values = {"output.user": "ada", "1 + 1": "2"}
    assert render(text, {"DOMAIN": "x.io"}, values.__getitem__) == "ada@x.io ${kept} 2"


def test_substitute_keeps_a_template_as_written_and_fills_in_every_other_text() -> None:
    data = {"steps": [{"args": {"value": "${output.user}-$${lit}-${USER}", "other": "$${lit}-${USER}"}}]}
    document, issues = substitute(Document("t.yaml", "yaml", data, {}), {"USER": "ada"})
    args = document.data["steps"][0]["args"]
    assert not issues
    assert args == {"value": "${output.user}-$${lit}-${USER}", "other": "${lit}-ada"}
    assert document.templates == frozenset({("steps", 0, "args", "value")})


def test_a_template_names_a_parameter_not_given() -> None:
    data = {"value": "${output.user}-${MISSING}"}
    _, issues = substitute(Document("t.yaml", "yaml", data, {}), {})
    assert [issue.message for issue in issues] == ["${MISSING} is not given"]


def test_template_paths_finds_every_template_in_document_order() -> None:
    data = {"a": ["x", "${b.c}"], "d": {"e": "${f()}", "g": "${PLAIN}"}}
    assert list(template_paths(data)) == [("a", 1), ("d", "e")]
