"""The data helpers of a parsed document."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from visor.inputs.document import texts_of

_KEYS = st.text(max_size=8)
_DATA = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=20,
)


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(text for item in value.values() for text in _texts(item))]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return []


@given(_DATA, st.sampled_from(["$", "\udc80", "\ud800", "é"]))
def test_a_character_of_any_key_or_text_is_found_in_the_texts(data: object, character: str) -> None:
    # What validation searches for at once: a parameter's `$`, a byte no UTF-8 decodes.
    texts = texts_of(data)
    assert texts is not None
    assert (character in texts) == any(character in text for text in _texts(data))


def test_data_that_is_not_json_has_no_texts() -> None:
    assert texts_of({"a": b"bytes"}) is None
    assert texts_of({1.5j: 1}) is None


@given(_DATA)
def test_the_texts_are_the_standard_encoders_json(data: object) -> None:
    """The texts are the JSON the standard encoder writes: the memo of checks that passed is keyed by them."""
    assert texts_of(data) == json.JSONEncoder(ensure_ascii=False).encode(data)


def test_a_value_that_holds_itself_has_no_texts() -> None:
    loop: list[object] = []
    loop.append(loop)
    assert texts_of({"a": loop}) is None
    assert (
        texts_of({"after": "a refused value leaves nothing behind"})
        == '{"after": "a refused value leaves nothing behind"}'
    )
