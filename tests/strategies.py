"""Hypothesis strategies for scenario-shaped documents: mostly plausible, sometimes wrong in every way."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from visor.scenario.assertions import ASSERTIONS
from visor.scenario.commands import COMMANDS

COMMAND_NAMES = [*COMMANDS, "swipe", "Tap", ""]
ARG_NAMES = sorted(
    {key for spec in COMMANDS.values() for model in spec.variants.values() for key in model.accepted_keys()}
    | {"prcent", "taget", "name"}
)
ACT_NAMES = ["type", "back", "home", "reset", "drag", "slider", "fly"]
SELECTORS = [
    "Login",
    "text=Log in",
    "text~=Log",
    "id=login",
    "accessibility=Go",
    "xpath=//a[@b='c']",
    "xpath=//a[",
    "txt=x",
    "text=",
    'uiautomator=new UiSelector().text("x")',
    "predicate=label == 'x'",
    "",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-5, max_value=200),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=200),
    st.sampled_from([*SELECTORS, "up", "down", "Down", "left", "android", "ios", "1", "sim", "appium"]),
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Usually the plausible value, sometimes anything at all."""
    return st.one_of(strategy, strategy, strategy, values)


@st.composite
def args_for(draw: st.DrawFn, command: str) -> dict[str, Any]:
    keys = draw(st.lists(st.sampled_from(ARG_NAMES), max_size=5, unique=True))
    args = {key: draw(scalars) for key in keys}
    if command == "act" and draw(st.booleans()):
        args["name"] = draw(st.sampled_from(ACT_NAMES))
    return args


good_selector = st.sampled_from(SELECTORS[:6])
fraction = st.floats(0, 1)
pixels = st.integers(0, 2000)
VALID_ARGS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "tap": st.one_of(
        st.fixed_dictionaries({"target": good_selector}),
        st.fixed_dictionaries({"x": pixels, "y": pixels}),
        st.fixed_dictionaries({"x": fraction, "y": fraction, "normalized": st.just(True)}),
    ),
    "navigate": st.fixed_dictionaries({"to": st.sampled_from(["demo://login", "https://x.test/a"])}),
    "act": st.one_of(
        st.fixed_dictionaries(
            {"name": st.just("type"), "value": st.text(min_size=1).filter(str.strip)},
            optional={"target": good_selector},
        ),
        st.fixed_dictionaries({"name": st.sampled_from(["back", "home", "reset"])}),
        st.fixed_dictionaries(
            {"name": st.just("drag"), "startX": pixels, "startY": pixels, "endX": pixels, "endY": pixels}
        ),
        st.fixed_dictionaries(
            {"name": st.just("slider"), "target": good_selector, "value": fraction}, optional={"startValue": fraction}
        ),
    ),
    "scroll": st.fixed_dictionaries(
        {"direction": st.sampled_from(["up", "down", "Down", "UP"])}, optional={"percent": st.integers(1, 100)}
    ),
    "screenshot": st.fixed_dictionaries(
        {}, optional={"label": st.just("shot"), "settle": st.booleans(), "settleMs": st.integers(0, 999)}
    ),
    "source": st.fixed_dictionaries({}, optional={"label": st.just("ui"), "path": st.just("out/ui.xml")}),
    "wait": st.one_of(
        st.fixed_dictionaries({"ms": st.integers(0, 5000)}),
        st.fixed_dictionaries({"for": good_selector}, optional={"timeout": st.integers(0, 9), "pollMs": pixels}),
        st.fixed_dictionaries({"stable": st.just(True)}, optional={"timeout": pixels, "poll-ms": pixels}),
    ),
}


@st.composite
def valid_steps(draw: st.DrawFn) -> dict[str, Any]:
    command = draw(st.sampled_from(sorted(VALID_ARGS)))
    return {"id": draw(st.text(min_size=1).filter(str.strip)), "command": command, "args": draw(VALID_ARGS[command])}


@st.composite
def steps(draw: st.DrawFn) -> dict[str, Any]:
    if draw(st.integers(0, 3)):
        return draw(valid_steps())
    command = draw(st.sampled_from(COMMAND_NAMES))
    step: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        step["id"] = draw(_maybe(st.sampled_from(["s1", "s2", "s3", "a"])))
    if draw(st.integers(0, 9)):
        step["command"] = draw(_maybe(st.just(command)))
    if draw(st.integers(0, 9)):
        step["args"] = draw(_maybe(args_for(command)))
    if not draw(st.integers(0, 9)):
        step[draw(st.text(max_size=5))] = draw(scalars)
    return step


@st.composite
def assertions(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": draw(_maybe(st.sampled_from(["a1", "a2"]))),
        "type": draw(_maybe(st.sampled_from([*ASSERTIONS, "visibel"]))),
        "target": draw(_maybe(st.sampled_from(SELECTORS))),
    }
    for key in draw(st.lists(st.sampled_from(["value", "tolerance", "min", "max", "extra"]), max_size=2)):
        item[key] = draw(scalars)
    return item


meta = st.fixed_dictionaries(
    {"name": _maybe(st.text(max_size=5)), "version": _maybe(st.sampled_from(["1", "2.0"]))},
    optional={"platform": _maybe(st.sampled_from(["android", "ios"])), "tags": _maybe(st.lists(st.text(max_size=3)))},
)
config = st.fixed_dictionaries(
    {},
    optional={
        "seed": _maybe(st.integers(0, 99)),
        "timeoutMs": _maybe(st.integers(1, 9999)),
        "artifactsDir": _maybe(st.just("out")),
        "runtime": _maybe(st.sampled_from(["sim", "appium"])),
        "app": _maybe(st.just("demo")),
        "stopOnFailure": _maybe(st.booleans()),
        "seeed": scalars,
    },
)


valid_meta = st.fixed_dictionaries(
    {"name": st.text(max_size=8), "version": st.sampled_from(["1", "2.0"])},
    optional={"platform": st.sampled_from(["android", "ios"]), "tags": st.lists(st.text(max_size=3), max_size=2)},
)
valid_config = st.fixed_dictionaries(
    {},
    optional={
        "seed": st.integers(0, 99),
        "timeoutMs": st.integers(1, 9999),
        "artifactsDir": st.just("out"),
        "runtime": st.sampled_from(["sim", "appium"]),
        "app": st.just("demo"),
        "stopOnFailure": st.booleans(),
    },
)
valid_assertions = st.one_of(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["visible", "not_visible", "enabled", "checked"]), "target": good_selector}
    ),
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["text_equals", "text_contains"]),
            "target": good_selector,
            "value": st.text(max_size=5),
        }
    ),
    st.fixed_dictionaries({"type": st.just("count"), "target": good_selector, "value": st.integers(0, 9)}),
    st.fixed_dictionaries(
        {"type": st.just("value"), "target": good_selector, "value": st.integers(0, 9)},
        optional={"tolerance": st.floats(0, 1)},
    ),
)


@st.composite
def valid_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario visor accepts."""
    step_list = draw(st.lists(valid_steps(), min_size=1, max_size=4))
    for index, step in enumerate(step_list):
        step["id"] = f"s{index}"
    checks = draw(st.lists(valid_assertions, max_size=2))
    for index, check in enumerate(checks):
        check["id"] = f"a{index}"
    doc = {"meta": draw(valid_meta), "config": draw(valid_config), "steps": step_list}
    if checks or draw(st.booleans()):
        doc["assertions"] = checks
    return doc


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_paths(item, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_paths(item, (*path, index)))
    return found


@st.composite
def mutated_scenarios(draw: st.DrawFn) -> Any:
    """A valid scenario with one or two things changed, removed or added anywhere."""
    doc: Any = draw(valid_scenarios())
    for _ in range(draw(st.integers(1, 2))):
        path = draw(st.sampled_from(_paths(doc)))
        if not path:
            return draw(values)
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(values)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from([*ARG_NAMES, "extra", "id", "seed"]))] = draw(scalars)
    return doc


@st.composite
def noisy_scenarios(draw: st.DrawFn) -> Any:
    """Scenario-shaped noise: the right section names with anything in them."""
    if not draw(st.integers(0, 30)):
        return draw(values)
    doc: dict[str, Any] = {}
    for key, strategy in (
        ("meta", meta),
        ("config", config),
        ("steps", st.lists(steps(), max_size=4)),
        ("assertions", st.lists(assertions(), max_size=2)),
        ("output", st.just({"report": ["json"]})),
    ):
        if draw(st.integers(0, 12)):
            doc[key] = draw(_maybe(strategy))
    if not draw(st.integers(0, 12)):
        doc[draw(st.text(max_size=6))] = draw(values)
    return doc


def scenarios() -> st.SearchStrategy[Any]:
    """Valid scenarios, slightly broken ones and noise, in roughly equal parts."""
    return st.one_of(valid_scenarios(), mutated_scenarios(), noisy_scenarios())
