"""No app model and no input exhausts the machine: documented limits, checked when read or while running."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.runtimes.sim.guards import app_file, deadline
from tests.simkit import sim_device, the_node
from visor.device.protocol import InputRejected
from visor.runtimes.sim.load import validate_app_file
from visor.runtimes.sim.model import (
    MAX_ACTION_DEPTH,
    MAX_ELEMENTS,
    MAX_ITEMS,
    MAX_MODEL_NODES,
    MAX_SCREENS,
    MAX_TEXT,
    MAX_VALUE_CHARS,
    MAX_VARS,
)
from visor.runtimes.sim.state import AppRuntimeError

ROOT = Path(__file__).resolve().parents[3]

BASE = """\
app: {id: com.example.big, name: Big, start: home}
screens:
  home:
    elements:
"""


def issues_of(tmp_path: Path, text: str) -> list[tuple[str, int | None, str]]:
    return [(str(i.code), i.line, i.message) for i in validate_app_file(app_file(tmp_path, text))]


@pytest.mark.parametrize(
    ("element", "words"),
    [
        ("{type: list, id: l, items: 1000000000000000000}", "items must be an integer between 0 and 10000"),
        ("{type: list, id: l, items: -1}", "items must be an integer between 0 and 10000"),
        (f"{{type: text, text: {'x' * (MAX_TEXT + 1)}}}", f"must have at most {MAX_TEXT:,} characters"),
        (
            "{type: button, text: B, on_tap: [{set: {x: " + "y" * (MAX_TEXT + 1) + "}}]}",
            f"on_tap[0].set.x must have at most {MAX_TEXT:,} characters",
        ),
        (
            "{type: button, text: B, on_tap: [{busy: 100000000000000000000}]}",
            "busy must be <= 86400000",
        ),
        ("{type: slider, id: s, max: .inf}", "max must be a finite number"),
        ("{type: slider, id: s, max: 1000000000, step: 0.001}", "at most 1,000,000 steps"),
        ("{type: image, description: " + "d" * (MAX_TEXT + 1) + "}", "characters"),
        ("{type: text, id: " + "i" * 65 + ", text: t}", "must have at most 64 characters"),
    ],
)
def test_values_over_their_limits_are_issues_with_line_and_column(tmp_path: Path, element: str, words: str) -> None:
    found = issues_of(tmp_path, BASE + f"      - {element}\n")
    assert any(line == 5 and words in message for _, line, message in found), found


def test_lists_over_their_limits(tmp_path: Path) -> None:
    many = "".join(f"      - {{type: text, text: t{n}}}\n" for n in range(MAX_ELEMENTS + 1))
    assert any(f"at most {MAX_ELEMENTS} items" in m for _, _, m in issues_of(tmp_path, BASE + many))
    items = "      - {type: list, id: l, items: [" + ", ".join(["x"] * (MAX_ITEMS + 1)) + "]}\n"
    assert any(f"at most {MAX_ITEMS:,} items" in m for _, _, m in issues_of(tmp_path, BASE + items))
    screens = "".join(f"  s{n}: {{}}\n" for n in range(MAX_SCREENS + 1))
    text = "app: {id: com.example.big, name: Big, start: s0}\nscreens:\n" + screens
    assert any(f"at most {MAX_SCREENS} entries" in m for _, _, m in issues_of(tmp_path, text))


def test_action_nesting_is_limited(tmp_path: Path) -> None:
    nested = "{toast: deep}"
    for _ in range(MAX_ACTION_DEPTH + 1):
        nested = f"{{if: {{var: x}}, then: [{nested}]}}"
    found = issues_of(tmp_path, BASE + f"      - {{type: button, text: B, on_tap: [{nested}]}}\n")
    assert any(f"nest more than {MAX_ACTION_DEPTH} levels" in m for _, _, m in found), found
    fine = "{toast: deep}"
    for _ in range(MAX_ACTION_DEPTH - 1):
        fine = f"{{if: {{var: x}}, then: [{fine}]}}"
    assert issues_of(tmp_path, BASE + f"      - {{type: button, text: B, on_tap: [{fine}]}}\n") == []


def test_a_model_with_too_many_values_is_refused_before_validation(tmp_path: Path) -> None:
    many = "      - {type: text, text: t, visible: {all: [" + ", ".join(["{var: a}"] * MAX_MODEL_NODES) + "]}}\n"
    with deadline(20):
        found = issues_of(tmp_path, BASE + many)
    assert len(found) == 1 and f"more than {MAX_MODEL_NODES:,} values" in found[0][2]


DOUBLING = """\
app: {id: com.example.grow, name: Grow, start: home}
vars: {x: ab}
screens:
  home:
    elements:
      - {type: text, id: show, text: "{x}"}
      - type: button
        id: grow
        text: Grow
        on_tap: [DOUBLE]
"""


def doubling(times: int) -> str:
    return DOUBLING.replace("DOUBLE", ", ".join(['{set: {x: "{x}{x}"}}'] * times))


def test_a_value_that_doubles_stops_at_the_limit_and_the_tap_is_undone(tmp_path: Path) -> None:
    device = sim_device(app_file(tmp_path, doubling(20)))
    with deadline(10), pytest.raises(AppRuntimeError) as caught:
        device.tap(the_node(device, "text=Grow").bounds.center)
    assert f"longer than {MAX_VALUE_CHARS:,} characters" in caught.value.message
    assert "'{x}{x}'" in caught.value.message and "com.example.grow" in caught.value.message
    app = device.apps[device.target]
    assert app.vars["x"] == "ab"  # undone
    assert the_node(device, "id=show").text == "ab"


def test_thirty_two_doublings_fail_cleanly_under_a_memory_cap(tmp_path: Path) -> None:
    # Unfixed, this grew to 24 GB: run it where the kernel caps the address space at 2 GiB.
    path = app_file(tmp_path, doubling(32))
    script = textwrap.dedent(
        f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        sys.path.insert(0, {str(ROOT)!r})
        from tests.simkit import sim_device, the_node
        from visor.runtimes.sim.state import AppRuntimeError
        device = sim_device({path!r})
        try:
            device.tap(the_node(device, "text=Grow").bounds.center)
        except AppRuntimeError as exc:
            print("STOPPED", exc.message)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "STOPPED" in done.stdout and f"longer than {MAX_VALUE_CHARS:,} characters" in done.stdout


def test_a_text_template_too_long_to_show_is_an_error_not_a_crash(tmp_path: Path) -> None:
    text = DOUBLING.replace('text: "{x}"', 'text: "' + "{x}" * 30 + '"').replace("[DOUBLE]", '[{set: {x: "{x}{x}"}}]')
    device = sim_device(app_file(tmp_path, text.replace("x: ab", "x: " + "a" * 4000)))
    with pytest.raises(AppRuntimeError, match="longer than"):
        device.tap(the_node(device, "text=Grow").bounds.center)
        device.observe()


FIELD = """\
app: {id: com.example.field, name: Field, start: home}
deeplinks: {"field://item/{n}": item}
screens:
  home:
    elements:
      - {type: field, id: f}
  item:
    elements:
      - {type: text, id: n, text: "{n}"}
"""


def test_typing_past_the_limit_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    device = sim_device(app_file(tmp_path, FIELD))
    field = the_node(device, "id=f")
    device.type_text("x" * (MAX_VALUE_CHARS - 10), into=field)
    with pytest.raises(InputRejected, match=f"longer than {MAX_VALUE_CHARS:,} characters"):
        device.type_text("y" * 11)
    with pytest.raises(InputRejected):
        device.type_text("z" * 2_000_000)
    assert device.apps[device.target].vars["f"] == "x" * (MAX_VALUE_CHARS - 10)
    device.screenshot()


def test_a_deep_link_parameter_past_the_limit_is_refused(tmp_path: Path) -> None:
    device = sim_device(app_file(tmp_path, FIELD))
    with pytest.raises(InputRejected, match="longer than"):
        device.open_url("field://item/" + "7" * (MAX_VALUE_CHARS + 1))
    device.open_url("field://item/7")
    assert the_node(device, "id=n").text == "7"


def test_the_limits_leave_real_models_alone() -> None:
    shipped = sorted((ROOT / "visor" / "devices" / "sim" / "apps").glob("*.app.yaml"))
    for path in [*shipped, *sorted((ROOT / "tests" / "fixtures" / "apps").glob("*.app.yaml"))]:
        assert validate_app_file(str(path)) == [], path


def test_the_variables_an_app_uses_are_counted_in_all(tmp_path: Path) -> None:
    # Each may hold up to MAX_VALUE_CHARS characters while the app runs: their number bounds the memory.
    def setting(count: int) -> str:
        names = [f"v{n}" for n in range(count)]
        groups = [names[i : i + 100] for i in range(0, count, 100)]
        actions = ["{set: {" + ", ".join(f"{name}: x" for name in group) + "}}" for group in groups]
        return BASE + f"      - {{type: button, text: B, on_tap: [{', '.join(actions)}]}}\n"

    found = issues_of(tmp_path, setting(MAX_VARS + 1))
    assert any(f"more than {MAX_VARS:,} variables" in m for _, _, m in found), found[:3]
    assert issues_of(tmp_path, setting(MAX_VARS)) == []


def test_screen_parameters_are_bounded_in_all(tmp_path: Path) -> None:
    text = """\
    app: {id: com.example.params, name: Params, start: home}
    vars: {x: ab}
    screens:
      home:
        elements:
          - {type: button, id: grow, text: Grow, on_tap: [GROW]}
          - {type: button, id: open, text: Open, on_tap: [{go: {screen: next, params: {a: "{x}", b: "{x}"}}}]}
      next:
        elements: [{type: text, id: a, text: "{a}"}]
    """.replace("GROW", ", ".join(['{set: {x: "{x}{x}"}}'] * 15))
    device = sim_device(app_file(tmp_path, text))
    device.tap(the_node(device, "text=Grow").bounds.center)
    assert len(str(device.apps[device.target].vars["x"])) == 2 * 2**15
    with pytest.raises(AppRuntimeError, match=f"more than {MAX_VALUE_CHARS:,} characters"):
        device.tap(the_node(device, "text=Open").bounds.center)
    assert [s.name for s in device.apps[device.target].stack] == ["home"]
