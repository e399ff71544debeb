"""Random small app models with loops, timers and growing values: the simulated device always ends.

Loading, launching and a few inputs either work or end in a clear visor error (an app-model issue, an
`AppRuntimeError`, an input the device refuses) within a bounded number of actions: never a RecursionError, a
MemoryError or a hang (a signal turns a hang into a failure).
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any
from unittest import mock

import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.runtimes.sim.guards import deadline
from tests.simkit import find_node, sim_device
from visor.device.protocol import Key
from visor.errors import InputError, VisorError
from visor.runtimes.sim.load import AppModelError, load_app, validate_app_file
from visor.runtimes.sim.model import MAX_ACTIONS_PER_INSTANT, MAX_VALUE_CHARS
from visor.runtimes.sim.state import AppRuntimeError, AppState

SCREENS = ("a", "b", "c")
Json = dict[str, Any]

screens = st.sampled_from(SCREENS)
conditions = st.one_of(
    st.just({"var": "on"}),
    st.just({"not": {"var": "on"}}),
    st.just({"chance": 0.5}),
    st.just({"equals": ["{x}", "ab"]}),
    st.just({"filled": "f"}),
)
leaves = st.one_of(
    screens.map(lambda s: {"go": s}),
    screens.map(lambda s: {"replace": s}),
    screens.map(lambda s: {"restart": {"screen": s, "params": {"k": "{x}"}}}),
    st.just({"back": True}),
    st.just({"set": {"x": "{x}{x}"}}),
    st.just({"set": {"x": "{x}y"}}),
    st.booleans().map(lambda on: {"set": {"on": on}}),
    st.just({"toast": "{x}"}),
    st.sampled_from([0, 10, 500]).map(lambda ms: {"busy": ms}),
    st.sampled_from([-1, 1, 3]).map(lambda steps: {"nudge": {"s": steps}}),
    st.sampled_from(["show", "hide", "toggle"]).map(lambda verb: {verb: "p"}),
    st.just({"clear": "f"}),
    st.just({"focus": "f"}),
)


def actions(depth: int) -> st.SearchStrategy[list[Json]]:
    """Lists of actions, with `after` and `if` nesting up to `depth` levels."""
    if depth == 0:
        return st.lists(leaves, max_size=3)
    inner = actions(depth - 1)
    nested = st.one_of(
        st.builds(lambda ms, do: {"after": {"ms": ms, "do": do}}, st.sampled_from([0, 0, 1, 50]), inner),
        st.builds(lambda cond, then, other: {"if": cond, "then": then, "else": other}, conditions, inner, inner),
    )
    return st.lists(st.one_of(leaves, nested), max_size=3)


#: Loops behind a condition (`on` starts true), which only running the app can tell from chains that end.
loops = st.one_of(
    st.builds(
        lambda verb, s: [{"if": {"var": "on"}, "then": [{verb: s}]}], st.sampled_from(["go", "replace"]), screens
    ),
    st.builds(
        lambda ms, s: [{"if": {"var": "on"}, "then": [{"after": {"ms": ms, "do": [{"replace": s}]}}]}],
        st.sampled_from([0, 1]),
        screens,
    ),
    st.just(
        [{"if": {"var": "on"}, "then": [{"set": {"x": "{x}{x}"}}, {"after": {"ms": 1, "do": [{"replace": "a"}]}}]}]
    ),
)


def screen() -> st.SearchStrategy[Json]:
    """A screen with a button, a slider, a field and a panel, each with random behaviour."""
    return st.builds(
        lambda on_show, loop, on_tap, on_change, on_submit: {
            "title": "Screen",
            "on_show": on_show + loop,
            "elements": [
                {"type": "text", "id": "show", "text": "{x} {k}"},
                {"type": "button", "id": "btn", "text": "Button", "on_tap": on_tap},
                {"type": "slider", "id": "s", "max": 20, "on_change": on_change},
                {"type": "field", "id": "f", "on_submit": on_submit},
            ],
            "overlays": {"p": {"type": "panel", "auto_hide_ms": 100, "elements": [{"type": "text", "text": "{x}"}]}},
        },
        actions(2),
        st.one_of(st.just([]), loops),
        actions(2),
        st.one_of(actions(1), st.just([{"if": {"var": "on"}, "then": [{"nudge": {"s": 1}}, {"nudge": {"s": -1}}]}])),
        actions(1),
    )


models = st.builds(
    lambda a, b, c: {
        "app": {"id": "com.example.fuzz", "name": "Fuzz", "start": "a"},
        "vars": {"x": "ab", "on": True, "k": ""},
        "screens": {"a": a, "b": b, "c": c},
    },
    screen(),
    screen(),
    screen(),
)

inputs = st.lists(
    st.one_of(
        st.sampled_from(["tap btn", "tap s", "submit", "back", "observe", "screenshot"]),
        st.sampled_from([0, 1, 30, 120, 1000]),
    ),
    max_size=6,
)


def act(device: Any, step: str | int) -> None:
    """Perform one input on the device: a tap, enter in the field, back, a look, or time passing."""
    if isinstance(step, int):
        device.clock.sleep_us(step * 1000)
        device.observe()
    elif step == "observe":
        device.observe()
    elif step == "screenshot":
        device.screenshot()
    elif step == "back":
        device.press_key(Key.BACK)
    elif step == "submit":
        field = find_node(device, "id=f")
        if field is not None:
            device.tap(field.bounds.center)
            device.press_key(Key.ENTER)
    else:
        target = find_node(device, f"id={step.split()[1]}")
        if target is not None:
            device.tap(target.bounds.center)


@settings(
    max_examples=int(os.environ.get("VISOR_FUZZ_EXAMPLES", 150)),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(model=models, steps=inputs)
def test_random_models_end_in_work_or_a_clear_error(model: Json, steps: list[str | int]) -> None:
    performed: Counter[int] = Counter()
    stops = 0
    original = AppState._perform

    def counted(self: AppState, action: Any, scope: Any, now: int, local: dict[str, str]) -> None:
        performed[now] += 1
        original(self, action, scope, now, local)

    with tempfile.TemporaryDirectory() as folder, deadline(20), mock.patch.object(AppState, "_perform", counted):
        path = str(Path(folder) / "fuzz.app.yaml")
        Path(path).write_text(yaml.safe_dump(model, sort_keys=False), encoding="utf-8")
        issues = validate_app_file(path)
        if any(issue.is_error for issue in issues):
            assert all(issue.line is not None for issue in issues)
            event("refused when read")
            try:
                load_app(path)
            except AppModelError:
                return
            raise AssertionError("an invalid model loaded")
        try:
            device = sim_device(path)
        except AppRuntimeError:
            event("stopped at launch")
            return  # the app ran away as it launched: refused with a clear error
        for step in steps:
            try:
                act(device, step)
            except VisorError as exc:
                assert isinstance(exc, InputError) or exc.code == "ACTION_ERROR", exc
                stops += isinstance(exc, AppRuntimeError)
                event(f"input ended in {type(exc).__name__}")
            app = device.apps.get(device.target)
            if app is not None:
                assert app.stack, "a stop left the app without a screen"
                assert all(len(str(value)) <= MAX_VALUE_CHARS for value in app.vars.values())
    # Every instant runs a bounded number of actions; each stop undoes its work and lets the instant go on.
    assert max(performed.values(), default=0) <= (stops + 1) * MAX_ACTIONS_PER_INSTANT
