"""Reading an agent's input_schema: formats, options and their defaults, every problem with its JSON path."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from visor.ext.agentcab.spec.formats import FILE_FORMATS, FORMATS, CalendarOptions, PhotoOptions, read_input_schema


def issues_of(schema: Any) -> list[tuple[str, str]]:
    found, issues = read_input_schema(schema)
    assert (found is None) == bool(issues)
    return [(issue.code, ".".join(str(part) for part in issue.path)) for issue in issues]


def test_the_seeds_formats_are_28() -> None:
    assert len(FORMATS) == 28 and len(FILE_FORMATS) == 6
    assert len([name for name in FORMATS if name.startswith("device:")]) == 22


def test_bare_or_wrapped_with_defaults_filled_in() -> None:
    properties = {"p": {"format": "device:photos"}, "c": {"format": "device:calendar", "x-device-options":
                  {"direction": "past"}}, "note": {"type": "string"}, "when": {"format": "date"}}  # fmt: skip
    for schema in ({"properties": properties, "required": ["p"]}, {"input_schema": {"properties": properties,
                                                                                     "required": ["p"]}}):  # fmt: skip
        found, issues = read_input_schema(schema)
        assert found is not None and not issues
        photos, calendar = found.fields
        assert isinstance(photos.options, PhotoOptions) and photos.options.limit == 100 and photos.options.days is None
        assert isinstance(calendar.options, CalendarOptions) and calendar.options.range_days == 30
        assert calendar.options.direction == "past"
        assert found.skipped == ("note", "when") and found.required == ("p",)


def test_every_problem_with_its_path() -> None:
    schema = {"input_schema": {"properties": {
        "a": {"format": "device:photos", "x-device-options": {"limit": 0, "dayz": 1}},
        "b": {"format": "device:calendarr"},
        "c": {"format": "device:files", "x-device-options": {"recursive": "yes"}},
        "d": {"type": "string", "x-device-options": {"days": 1}},
        "e": "not an object",
    }, "required": "a"}}  # fmt: skip
    assert issues_of(schema) == [
        ("TYPE_ERROR", "input_schema.properties.a.x-device-options.limit"),
        ("UNKNOWN_FIELD", "input_schema.properties.a.x-device-options.dayz"),
        ("ARG_ERROR", "input_schema.properties.b.format"),
        ("TYPE_ERROR", "input_schema.properties.c.x-device-options.recursive"),
        ("UNKNOWN_FIELD", "input_schema.properties.d.x-device-options"),
        ("TYPE_ERROR", "input_schema.properties.e"),
        ("TYPE_ERROR", "input_schema.required"),
    ]


def test_a_document_without_properties() -> None:
    assert issues_of([1, 2]) == [("TYPE_ERROR", "")]
    assert issues_of({"input_schema": {"type": "object"}}) == [("TYPE_ERROR", "input_schema")]


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=12))  # fmt: skip
def test_any_document_is_read_or_refused_never_crashes(data: Any) -> None:
    found, issues = read_input_schema({"properties": {"x": {"format": "device:photos", "x-device-options": data}}})
    assert (found is None) == bool(issues)
