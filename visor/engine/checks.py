"""Evaluate assertions against the screen after the last step.

Only elements on screen count: `visible` means a matching element is displayed and inside the screen; `count`
counts matching elements on screen. State checks (`enabled`, `checked`, …) and text checks use the first
matching element on screen; `value` reads the first number in its text (a slider reports its value as text).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from visor.device.data import DeviceData, RecordKind, ValueKind
from visor.device.protocol import InputRejected, Observation
from visor.engine.results import AssertionResult, held
from visor.errors import VisorError
from visor.scenario.assertions import CountAssertion, DeviceAssertion, TextAssertion, ValueAssertion
from visor.scenario.scenario import Assertion
from visor.selectors.parse import parse_selector
from visor.steps.targets import element_details, match_all
from visor.ui.query import QueryError
from visor.ui.tree import Node

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_STATES: dict[str, Callable[[Node], bool]] = {
    "enabled": lambda node: node.enabled,
    "disabled": lambda node: not node.enabled,
    "not_enabled": lambda node: not node.enabled,
    "checked": lambda node: node.checked,
    "not_checked": lambda node: not node.checked,
    "selected": lambda node: node.selected,
    "not_selected": lambda node: not node.selected,
}


def check(
    assertion: Assertion, observation: Observation, platform: str, data: Callable[[], DeviceData] | None = None
) -> AssertionResult:
    """Evaluate one assertion on one observation (or, for the phone's data, on `data()`)."""
    if isinstance(assertion.spec, DeviceAssertion):
        if data is None:
            return _result(assertion, False, "this run cannot read the phone's data", {})
        try:
            return _device(assertion, data())
        except VisorError as exc:
            return _result(assertion, False, f"the phone's data cannot be read: {exc.message}", {})
    try:
        nodes = [
            n
            for n in match_all(observation, parse_selector(assertion.target), platform)
            if observation.tree.on_screen(n)
        ]
    except QueryError as exc:
        return _result(assertion, False, exc.message, {})
    kind = assertion.type
    if kind == "visible":
        return _result(assertion, bool(nodes), f"Target not visible: {assertion.target}", {"matches": len(nodes)})
    if kind == "not_visible":
        return _result(assertion, not nodes, f"Target still visible: {assertion.target}", {"matches": len(nodes)})
    if kind == "count":
        return _count(assertion, len(nodes))
    if not nodes:
        return _result(assertion, False, f"Target not visible: {assertion.target}", {"matches": 0})
    node = nodes[0]
    observed: dict[str, object] = {"matches": len(nodes), "element": element_details(node)}
    if kind in _STATES:
        failure = f"Target is {kind[4:]}" if kind.startswith("not_") else f"Target is not {kind}"
        return _result(assertion, _STATES[kind](node), f"{failure}: {assertion.target}", observed)
    if kind in ("text_equals", "text_contains"):
        spec = assertion.spec
        assert isinstance(spec, TextAssertion)
        # A text input holds what was typed, even nothing; anything else may be labelled by its description.
        text = node.text if node.editable else node.text or node.content_desc
        ok = text == spec.value if kind == "text_equals" else spec.value in text
        relation = "equal" if kind == "text_equals" else "contain"
        seen = observed | {"text": text, "expected": spec.value}
        return _result(assertion, ok, f"Text {text!r} does not {relation} {spec.value!r}", seen)
    return _value(assertion, node, observed)


def _device(assertion: Assertion, data: DeviceData) -> AssertionResult:
    """Check the phone's data: a file, the clipboard, a notification, a message, a call, an event."""
    kind, subject = assertion.type, assertion.target
    if kind in ("file_exists", "file_missing"):
        try:
            data.read_file(subject)
            there = True
        except InputRejected:
            there = False
        wanted = kind == "file_exists"
        return _result(
            assertion, there == wanted, f"{subject} {'is missing' if wanted else 'is still there'}", {"exists": there}
        )
    if kind == "clipboard_equals":
        held = data.value(ValueKind.CLIPBOARD)
        return _result(assertion, held == subject, f"The clipboard holds {str(held)[:80]!r}", {"clipboard": held})
    if kind in ("event_exists", "event_missing"):
        titles = [event["title"] for event in data.records(RecordKind.CALENDAR)]
        wanted = kind == "event_exists"
        message = f"No event {subject!r}" if wanted else f"The event {subject!r} is still there"
        return _result(assertion, (subject in titles) == wanted, message, {"exists": subject in titles})
    field, kind_of, value = {
        "notification_posted": (RecordKind.NOTIFICATIONS, None, "title"),
        "sms_sent": (RecordKind.SMS, "sent", "address"),
        "call_made": (RecordKind.CALL_LOG, "outgoing", "number"),
    }[kind]
    found = [item[value] for item in data.records(field) if kind_of is None or item.get("type") == kind_of]
    return _result(assertion, subject in found, f"{subject!r} is not among {found[:10]}", {"found": found[:50]})


def _count(assertion: Assertion, count: int) -> AssertionResult:
    spec = assertion.spec
    assert isinstance(spec, CountAssertion)
    if spec.value is not None:
        ok, wanted = count == spec.value, f"{spec.value}"
    else:
        low = spec.min if spec.min is not None else 0
        ok = count >= low and (spec.max is None or count <= spec.max)
        wanted = f"{low}..{spec.max if spec.max is not None else '∞'}"
    return _result(assertion, ok, f"Found {count} matching element(s) on screen, expected {wanted}", {"count": count})


def _value(assertion: Assertion, node: Node, observed: dict[str, object]) -> AssertionResult:
    spec = assertion.spec
    assert isinstance(spec, ValueAssertion)
    found = _NUMBER.search(node.text or node.content_desc)
    if found is None:
        return _result(assertion, False, f"Target has no numeric value: {assertion.target}", observed)
    actual = float(found.group())
    ok = abs(actual - spec.value) <= spec.tolerance
    return _result(
        assertion,
        ok,
        f"Value {actual:g} is not within {spec.value:g} ± {spec.tolerance:g}",
        observed | {"value": actual},
    )


def _result(assertion: Assertion, ok: bool, failure: str, observed: dict[str, object]) -> AssertionResult:
    return AssertionResult(assertion.id, assertion.type, assertion.target, held(ok), "" if ok else failure, observed)
