"""The envelope's indented JSON is byte for byte what `json.dumps(indent=2)` writes, whatever the value."""

from __future__ import annotations

import enum
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from visor.report.json_text import dumps_indented


class Level(enum.IntEnum):
    LOW = 1


class Word(enum.StrEnum):
    OK = "ok"


def reference(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
keys = st.text() | st.sampled_from([Word.OK, 1, 2.5, True, None])
values = st.recursive(
    scalars | st.sampled_from([Level.LOW, Word.OK]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.lists(inner, max_size=3).map(tuple) | st.dictionaries(keys, inner, max_size=4)
    ),
    max_leaves=40,
)


@given(values)
def test_the_text_is_the_standard_encoders(value: object) -> None:
    assert dumps_indented(value) == reference(value)


@pytest.mark.parametrize("value", [math.nan, [math.inf], {"a": {"b": -math.inf}}, {"a": object()}, {(1, 2): 3}])
def test_what_json_refuses_is_refused_as_json_refuses_it(value: object) -> None:
    with pytest.raises((ValueError, TypeError)) as expected:
        reference(value)
    with pytest.raises(expected.type, match=str(expected.value).split(" ")[0]):
        dumps_indented(value)


def test_a_circular_value_is_refused_as_json_refuses_it() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        dumps_indented({"loop": loop})
