"""Hostile scenarios, end to end: whatever a scenario holds, a run ends in time, keeps the output contract,
writes nothing outside where it belongs, and reveals no password it typed.

Each example is a generated scenario (every command and several agent tools, with arguments drawn from
valid, odd and hostile values: escaping paths, planted links, catastrophic patterns, control characters,
huge numbers) on a generated or shipped app model, run by `visor run`, `visor benchmark` or `visor validate`
in a fresh project folder with a sibling folder it must never touch. `VISOR_FUZZ_EXAMPLES` scales the run.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import event, given
from hypothesis import strategies as st

from tests.cli.test_fuzz import check_contract, fuzz
from tests.conftest import Cli

SECRET = "Pa55-w0rd-SECRET"
#: A step must end this long (wall time) past its budget: the watchdog's grace in these runs.
GRACE_MS = 5_000
#: The longest one example may take, in wall time (steps have short timeouts here; this is generous).
EXAMPLE_BUDGET_S = 60.0

SELECTORS = [
    "text=Log in", "id=username", "id=password", "text=Nope", "text~=Item", "id=feed", "text=Volume",
    "id=volume", "accessibility=Volume", "xpath=//android.widget.Button", "xpath=//*[", "text=",
    'uiautomator=new UiSelector().textMatches("(a|aa)+b")', 'uiautomator=.textMatches("Item \\\\d+")',
    "predicate=label == 'x'", "first-in-section=Welcome back", "text=\x1b[2K\r✓ passed", "id=" + "x" * 300,
]  # fmt: skip
#: Selectors `validate` refuses (so a scenario holding one never runs).
INVALID_SELECTORS = {"xpath=//*[", "text=", "predicate=label == 'x'", "first-in-section=Welcome back"}
URLS = ["demo://login", "demo://feed", "demo://item/7", "demo://settings", "demo://player", "demo://nope", "x"]
LABELS = ["shot", "a b", "../up", "/abs", "\x1b[31mred", "ü" * 80, "."]
NUMBERS = [0, 0.5, 1, -1, 1e308, 2**64, 0.0001, 123456789]
TEXTS = ["ada", "", "\x00", "\u202e", "x" * 5000, "a\nb", "😀👍🏽", "plain-text"]  # SECRET goes to password fields only


def paths(outside: Path) -> list[str]:
    """Copy paths: inside the project, escaping it, absolute, through a planted link."""
    return ["shots/a.png", "deep/er/b.xml", "../escape.png", str(outside / "abs.png"), "link/x.png", "a/../../x"]


@st.composite
def step(draw: st.DrawFn, index: int, outside: Path, hostile: bool) -> dict[str, Any]:
    """One step of any command, its arguments drawn from valid and odd values, and hostile ones when asked."""
    pick = draw
    selector = st.sampled_from(SELECTORS if hostile else [s for s in SELECTORS if s not in INVALID_SELECTORS])
    number = (st.sampled_from(NUMBERS) if hostile else st.sampled_from([0, 0.5, 1, 0.0001])) | st.floats(0, 1)
    ms = (st.sampled_from([0, 1, 50, 400, 10**9]) if hostile else st.sampled_from([0, 1, 50, 400])) | st.floats(0, 300)
    commands: list[tuple[str, st.SearchStrategy[dict[str, Any]]]] = [
        ("navigate", st.fixed_dictionaries({"to": st.sampled_from(URLS)})),
        ("tap", st.fixed_dictionaries({"target": selector})),
        ("tap", st.fixed_dictionaries({"x": number, "y": number, "normalized": st.booleans()})),
        ("act", st.fixed_dictionaries({"name": st.just("type"), "target": selector, "value": st.sampled_from(TEXTS)})),
        ("act", st.fixed_dictionaries({"name": st.just("type"), "target": st.just("id=password"), "value": st.just(SECRET)})),
        ("act", st.fixed_dictionaries({"name": st.just("slider"), "target": selector, "value": number})),
        ("act", st.fixed_dictionaries({"name": st.sampled_from(["back", "home", "app_switch", "reset"])})),
        ("act", st.fixed_dictionaries(
            {"name": st.just("drag"), "startX": number, "startY": number, "endX": number, "endY": number}
        )),
        ("scroll", st.fixed_dictionaries({"direction": st.sampled_from(["up", "down", "DOWN", "left"])})),
        ("wait", st.fixed_dictionaries({"ms": ms})),
        ("wait", st.fixed_dictionaries({"for": selector, "timeout": ms, "pollMs": ms})),
        ("wait", st.fixed_dictionaries({"stable": st.just(True), "timeout": ms})),
        ("screenshot", st.fixed_dictionaries({"label": st.sampled_from(LABELS), "path": st.sampled_from(paths(outside))})),
        ("source", st.fixed_dictionaries({"label": st.sampled_from(LABELS), "path": st.sampled_from(paths(outside))})),
        ("input_text", st.fixed_dictionaries(
            {"text": st.just(SECRET), "target": st.just([500, 329]), "target_description": st.just("password")}
        )),
        ("control_action", st.fixed_dictionaries({
            "selector": st.just({"resource_id": "com.visor.demo:id/password"}),
            "action": st.sampled_from(["set_text", "replace_selection"]),
            "text": st.just(SECRET),
        })),
        ("wait_until", st.fixed_dictionaries({
            "selector": st.just({"resource_id": "com.visor.demo:id/password"}),
            "state": st.just("text"), "expected_text": st.just(SECRET), "timeout_ms": st.integers(1, 300),
        })),
        ("click", st.fixed_dictionaries({"target": st.integers(-1, 40), "target_description": st.just("x")})),
        ("swipe", st.fixed_dictionaries({"direction": st.sampled_from(["up", "down"]), "target_description": st.just("x")})),
    ]  # fmt: skip
    command, args = pick(st.sampled_from(commands))
    return {"id": pick(st.sampled_from([f"s{index}", f"s{index}\x1b[2K", f"s{index} ✓"])), "command": command,
            "args": pick(args)}  # fmt: skip


@st.composite
def scenario_doc(draw: st.DrawFn, outside: Path) -> dict[str, Any]:
    """A scenario on the simulated device: steps, assertions, a config; one in four with hostile values.

    Hostile values make most scenarios invalid before they run, so they are kept to a quarter: the others
    reach the device, with odd but valid values.
    """
    hostile = draw(st.integers(0, 3)) == 0
    steps = [draw(step(index, outside, hostile)) for index in range(draw(st.integers(1, 6)))]
    assertions = [
        {"id": f"a{index}", "type": draw(st.sampled_from(["visible", "not_visible", "not_checked", "count"])),
         "target": draw(st.sampled_from(SELECTORS)), **({"value": 1} if index % 2 else {"min": 0})}
        for index in range(draw(st.integers(0, 2)))
    ]  # fmt: skip
    for check in assertions:
        if check["type"] != "count":
            check.pop("value", None)
            check.pop("min", None)
    apps = ["demo", "demo", "player", "../apps/loop.app.yaml"] + (
        ["apps/loop.app.yaml", "/etc/passwd"] if hostile else []
    )
    config = {
        "seed": draw(st.integers(0, 2**64 + 5) if hostile else st.integers(0, 2**32)),
        "runtime": "sim",
        "timeoutMs": draw(st.sampled_from([50, 300, 800])),
        "app": draw(st.sampled_from(apps)),
    }
    return {"meta": {"name": draw(st.sampled_from(["c", "c\x1b]0;x\x07"])), "version": "1"}, "config": config,
            "steps": steps, "assertions": assertions}  # fmt: skip


LOOPING_APP = """\
app: {id: c.loop, name: Loop, start: a}
vars: {x: "ab"}
screens:
  a:
    title: A
    elements:
      - {type: button, id: grow, text: Log in, on_tap: [{set: {x: "{x}{x}"}}, {set: {x: "{x}{x}"}}, {go: b}]}
  b:
    title: B
    on_show: [{if: {filled: x}, then: [{go: a}]}]
"""


#: The files a project may hold after a run besides its run folder: what was there, and the copies `paths`
#: asks for that stay inside the project (the scenario is in `scenarios/`; copies are relative to it).
ALLOWED = {
    "pyproject.toml", "apps/loop.app.yaml", "scenarios/s.yaml",
    "scenarios/shots/a.png", "scenarios/deep/er/b.xml", "escape.png", "x",
}  # fmt: skip


def workspace(root: Path) -> tuple[Path, Path]:
    """A project folder (with a planted link to its sibling) and the sibling it must never write to."""
    project, outside = root / "project", root / "outside"
    (project / "scenarios").mkdir(parents=True)
    (project / "apps").mkdir()
    outside.mkdir()
    (project / "pyproject.toml").write_text("")
    (project / "apps" / "loop.app.yaml").write_text(LOOPING_APP)
    (project / "scenarios" / "link").symlink_to(outside)
    (outside / "victim.txt").write_text("precious")
    return project, outside


def files_below(folder: Path) -> Iterator[Path]:
    """Every file below a folder, links not followed."""
    for base, folders, names in os.walk(folder):
        folders[:] = [name for name in folders if not (Path(base) / name).is_symlink()]
        yield from (Path(base) / name for name in names)


@fuzz(25)
@given(data=st.data(), command=st.sampled_from(["run", "run", "benchmark", "validate"]))
def test_hostile_scenarios_end_in_time_write_only_where_they_may_and_hide_the_password(
    tmp_path: Path, data: st.DataObject, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISOR_WATCHDOG_GRACE_MS", str(GRACE_MS))
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    try:
        project, outside = workspace(root)
        doc = data.draw(scenario_doc(outside))
        scenario = project / "scenarios" / "s.yaml"
        scenario.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        args = [command, "scenarios/s.yaml"] + ([] if command == "validate" else ["--output", "out"])
        args += ["--runs", "2"] if command == "benchmark" else []
        started = time.monotonic()
        result = Cli(project).run(*args, envelope=False)
        took = time.monotonic() - started
        check_contract(result, args)
        assert took < EXAMPLE_BUDGET_S, f"{args} took {took:.1f} s"
        # Nothing outside the project; inside it, nothing but the run's folder and capture copies.
        assert sorted(p.name for p in files_below(outside)) == ["victim.txt"]
        assert (outside / "victim.txt").read_text() == "precious"
        written = [p.relative_to(project) for p in files_below(project)]
        strays = [str(p) for p in written if p.parts[0] != "out" and str(p) not in ALLOWED]
        assert strays == [], strays
        # The password typed into the password field appears nowhere: not on stdout, stderr, or in any file.
        assert SECRET not in result.stdout and SECRET not in result.stderr
        leaks = [str(p) for p in written if p.parts[0] == "out" and SECRET.encode() in (project / p).read_bytes()]
        assert leaks == [], leaks
        envelope: dict[str, Any] = json.loads(result.stdout)
        event(f"{command}: exit {result.exit_code} {envelope.get('error', {}).get('code', '')}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
