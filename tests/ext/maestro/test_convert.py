"""Maestro flows read through the one bounded reader and converted faithfully, or left out with their file and line.

Reading: header and commands split without PyYAML's constructor, each with the scenario parser's caps; includes
stay in the flows' folder; repeats, depth and cycles are bounded. Converting: what visor can say is said, what it
cannot is left out with its line and why, and what is written always validates (a fuzz over Maestro-like YAML).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from visor.errors import SourceError, VisorError
from visor.ext.maestro.convert import (
    MAX_COMMANDS,
    MAX_NESTING,
    Converted,
    comment,
    convert_flow,
    env_text,
    scenario_text,
)
from visor.ext.maestro.flow import parse_flow
from visor.inputs.data import parse_data
from visor.inputs.parameters import read_env_file, substitute
from visor.scenario.validate import validate_document

#: A hang is a failure, never a speed: generous.
HANG_S = 60


def flow(folder: Path, name: str, commands: str, header: str = "appId: com.visor.demo\n") -> Path:
    """Write a flow file (its header, ---, its commands) and return its path."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{header}---\n{commands}", encoding="utf-8")
    return path


def steps(converted: Converted) -> list[tuple[str, dict[str, Any]]]:
    """Return the converted steps as (command, args); a block as ("block", its head and its steps so)."""
    return [shape(item) for item in converted.scenario["steps"]]


def shape(item: Any) -> tuple[str, dict[str, Any]]:
    """Return a step as (command, args), a block as ("block", {its when, repeat or retry, "steps": [...]})."""
    if "command" in item:
        return item["command"], item["args"]
    head = {key: value for key, value in item.items() if key not in ("id", "steps")}
    return "block", {**head, "steps": [shape(inner) for inner in item["steps"]]}


def left(converted: Converted) -> list[tuple[str, int, str]]:
    """Return what was left out as (file name, line, command)."""
    return [(Path(item["file"]).name, item["line"], item["command"]) for item in converted.left_out]


def one(tmp_path: Path, commands: str, header: str = "appId: com.visor.demo\n") -> Converted:
    """Convert a flow holding these commands."""
    return convert_flow(str(flow(tmp_path, "f.yaml", commands, header)))


def import_in_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run `visor import maestro ARGS` in a process of its own, bounded (a hang fails the test, never blocks it)."""
    command = [sys.executable, "-m", "visor", "import", "maestro", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=HANG_S, check=False)


# --- reading ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_header_and_commands_keep_the_files_own_lines(newline: str) -> None:
    text = "# a comment\nappId: com.visor.demo\nenv:\n  USER: ada\n---\n# the commands\n- launchApp\n- tapOn: Go\n"
    header, commands = parse_flow(text.replace("\n", newline).encode(), "f.yaml")
    assert header is not None and header.data == {"appId": "com.visor.demo", "env": {"USER": "ada"}}
    assert header.position(("env", "USER")).line == 4
    assert commands.data == ["launchApp", {"tapOn": "Go"}]
    assert [commands.position((index,)).line for index in (0, 1)] == [7, 8]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("appId: a\n---\n- a\n---\n- b\n", "f.yaml:5:1: this is not a Maestro flow: it holds 3 YAML documents"),
        ("- a\n---\n- b\n", "f.yaml:1:1: this is not a Maestro flow: its header (before ---) is not a mapping"),
        ("appId: a\n---\njust: a mapping\n", "f.yaml:3:1: this is not a Maestro flow: it has no list of commands"),
        ("appId: a\nappId: b\n---\n- a\n", "f.yaml:2:1: duplicate key 'appId'"),
        ("appId: a\n---\n- tapOn: [\n", "f.yaml:4:1: YAML syntax error"),
        ("appId: a\n---\n- !!python/object:os.system x\n", "the YAML tag !!python/object:os.system is not allowed"),
        ("", "f.yaml:1:1: the file is empty"),
    ],
)
def test_what_is_no_flow_is_a_source_error_at_its_line(text: str, found: str) -> None:
    with pytest.raises(SourceError) as caught:
        parse_flow(text.encode(), "f.yaml")
    assert found in caught.value.message


def test_deep_nesting_and_alias_bombs_are_refused_at_their_line(tmp_path: Path) -> None:
    # PyYAML's constructor (used before) recursed through the first and expanded the second without bound.
    deep = flow(tmp_path, "deep.yaml", "- tapOn: " + "[" * 900 + "]" * 900 + "\n")
    bomb = "".join(f"- &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]\n" for n in range(1, 10))
    bombed = flow(tmp_path, "bomb.yaml", "- &a0 x\n" + bomb)
    for path, message in ((deep, "nests deeper than 64 levels"), (bombed, "expand to more than 1,000,000 nodes")):
        with pytest.raises(SourceError, match=message) as caught:
            convert_flow(str(path))
        assert caught.value.line is not None and caught.value.line >= 3


def test_a_flow_that_is_a_fifo_or_a_folder_never_blocks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    (tmp_path / "folder.yaml").mkdir()
    flow(tmp_path, "calls.yaml", "- runFlow: pipe.yaml\n")
    for name, kind in (("pipe.yaml", "named pipe"), ("folder.yaml", "folder"), ("calls.yaml", "named pipe")):
        done = import_in_process(name, "-o", "out", cwd=tmp_path)  # open() blocked on the FIFO forever
        assert kind in done.stdout and "INPUT_ERROR" in done.stdout, done.stdout


# --- includes stay in their folder, bounded ------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A valid flow outside the flows' folder, holding a text that must never be read nor shown."""
    return flow(tmp_path, "outside/secret.yaml", "- inputText: TOPSECRET-1234\n")


@pytest.mark.parametrize(
    "include", ["../outside/secret.yaml", "sub/../../outside/secret.yaml", "ABSOLUTE", ".", '"a\\0b"']
)
def test_an_include_leaving_the_folder_is_refused_unread(tmp_path: Path, outside: Path, include: str) -> None:
    include = str(outside) if include == "ABSOLUTE" else include
    path = flow(tmp_path / "flows", "f.yaml", f"- tapOn: Go\n- runFlow: {include}\n")
    with pytest.raises(SourceError) as caught:
        convert_flow(str(path))
    assert caught.value.line == 4 and "is not a file in the flows' folder" in caught.value.message
    assert "TOPSECRET" not in str(caught.value.info().to_dict())


@pytest.mark.parametrize("link", ["file", "folder"])
def test_an_include_through_a_link_out_is_refused_unread(tmp_path: Path, outside: Path, link: str) -> None:
    flows = tmp_path / "flows"
    flows.mkdir()
    if link == "file":
        (flows / "shared.yaml").symlink_to(outside)
        include = "shared.yaml"
    else:
        (flows / "shared").symlink_to(outside.parent)
        include = "shared/secret.yaml"
    path = flow(flows, "f.yaml", f"- runFlow:\n    file: {include}\n")
    with pytest.raises(SourceError) as caught:
        convert_flow(str(path))
    assert caught.value.line == 3 and "symbolic link" in caught.value.message
    assert "TOPSECRET" not in str(caught.value.info().to_dict())


def test_an_include_below_the_folder_is_read_relative_to_the_flow_including_it(tmp_path: Path) -> None:
    flow(tmp_path, "common/login.yaml", "- tapOn: Log in\n- runFlow: ../common/wait.yaml\n")
    flow(tmp_path, "common/wait.yaml", "- assertVisible: Feed\n")
    converted = convert_flow(str(flow(tmp_path, "f.yaml", "- runFlow: common/login.yaml\n")))
    assert steps(converted) == [("tap", {"target": "text=Log in"}), ("wait", {"for": "text=Feed", "timeout": 5000})]
    assert sorted(Path(path).name for path in converted.files) == ["f.yaml", "login.yaml", "wait.yaml"]


def test_includes_doubling_stop_at_the_cap_with_the_file_and_line(tmp_path: Path) -> None:
    # Found: 22 levels of a flow running the next one twice: 2^22 commands inlined, and the import hung.
    for level in range(22):
        flow(tmp_path, f"f{level}.yaml", f"- runFlow: f{level + 1}.yaml\n- runFlow: f{level + 1}.yaml\n")
    flow(tmp_path, "f22.yaml", "- tapOn: Go\n")
    done = import_in_process("f0.yaml", "-o", "out", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    assert f"more than {MAX_COMMANDS:,} commands" in done.stdout and ".yaml:3:3" in done.stdout


def test_a_repeat_beyond_visors_bound_is_left_out_and_none_is_unrolled(tmp_path: Path) -> None:
    # A repeat is a block now, never unrolled: a billion times is refused by its bound, not by inlining.
    converted = one(tmp_path, "- repeat:\n    times: 1000000000\n    commands:\n      - tapOn: Go\n- back\n")
    assert steps(converted) == [("act", {"name": "back"})]
    assert left(converted) == [("f.yaml", 3, "repeat")] and "at most 1,000 times" in converted.left_out[0]["reason"]
    assert steps(one(tmp_path, "- repeat:\n    times: 1000000000\n    commands: []\n- back\n")) == [
        ("act", {"name": "back"})
    ]


def test_a_cycle_is_refused_naming_the_chain_and_the_line(tmp_path: Path) -> None:
    flow(tmp_path, "a.yaml", "- tapOn: A\n- runFlow: b.yaml\n")
    flow(tmp_path, "b.yaml", "- runFlow: a.yaml\n")
    with pytest.raises(SourceError) as caught:
        convert_flow(str(tmp_path / "a.yaml"))
    assert caught.value.path.endswith("b.yaml") and caught.value.line == 3
    assert "a.yaml -> b.yaml -> a.yaml" in caught.value.message
    with pytest.raises(SourceError, match=r"self\.yaml -> self\.yaml"):
        convert_flow(str(flow(tmp_path, "self.yaml", "- runFlow: self.yaml\n")))


def test_nesting_is_bounded(tmp_path: Path) -> None:
    for level in range(MAX_NESTING + 5):
        flow(tmp_path, f"c{level}.yaml", f"- runFlow: c{level + 1}.yaml\n")
    flow(tmp_path, f"c{MAX_NESTING + 5}.yaml", "- back\n")
    with pytest.raises(SourceError, match=f"nest more than {MAX_NESTING} levels"):
        convert_flow(str(tmp_path / "c0.yaml"))


def test_a_file_included_many_times_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from visor.ext.maestro import flow as maestro_flow

    reads: list[str] = []
    real = maestro_flow.read_confined

    def counted(root: str, relative: str, **options: Any) -> bytes:
        reads.append(relative)
        return real(root, relative, **options)

    monkeypatch.setattr(maestro_flow, "read_confined", counted)
    flow(tmp_path, "go.yaml", "- tapOn: Go\n")
    converted = one(tmp_path, "- runFlow: go.yaml\n" * 50)
    assert len(converted.scenario["steps"]) == 50 and reads == ["go.yaml"]


# --- part 2: what was converted wrong, or dropped silently ---------------------------------------------------------


def test_a_timeout_parameter_stays_the_parameter_or_is_left_out_never_a_crash(tmp_path: Path) -> None:
    # Found: extendedWaitUntil.timeout: ${TIMEOUT} raised ValueError (SYSTEM_ERROR).
    wait = "- extendedWaitUntil:\n    visible: Feed\n    timeout: ${TIMEOUT}\n"
    given = one(tmp_path, wait, "appId: a\nenv:\n  TIMEOUT: 8000\n")
    assert steps(given) == [("wait", {"for": "text=Feed", "timeout": "${TIMEOUT}"})]  # the run's value decides
    assert given.left_out == [] and given.env == {"TIMEOUT": "8000"}
    unknown = one(tmp_path, wait + "- waitForAnimationToEnd:\n    timeout: soon\n")
    assert steps(unknown) == [
        ("wait", {"for": "text=Feed", "timeout": 10000}),
        ("wait", {"stable": True, "timeout": 15000}),  # Maestro's default timeout
    ]
    assert [item["line"] for item in unknown.left_out] == [3, 6]
    assert "10000 ms is used" in unknown.left_out[0]["reason"]


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("Enter", ("press", {"key": "enter"})),
        ("Home", ("press", {"key": "home"})),
        ("back", ("press", {"key": "back"})),
        ("Lock", ("press", {"key": "lock"})),
        ("Remote Dpad Up", ("press", {"key": "dpad_up"})),
        ("Volume Up", ("press", {"key": "volume_up"})),
        ("Backspace", ("press", {"key": "backspace"})),
    ],
)
def test_keys_become_steps_the_validator_accepts(tmp_path: Path, key: str, expected: tuple[str, Any]) -> None:
    # Found: pressKey Enter became `act enter`, which visor's own validator refuses.
    converted = one(tmp_path, f"- pressKey: {key}\n")
    assert steps(converted) == [expected] and not converted.left_out


def test_launch_app_of_the_flows_own_app_restarts_it(tmp_path: Path) -> None:
    # Found: `launchApp: {appId: <the flow's own>}` was left out, so the scenario never started its app.
    commands = (
        "- launchApp\n"
        "- launchApp: com.visor.demo\n"
        "- launchApp:\n    appId: com.visor.demo\n"
        "- launchApp:\n    stopApp: false\n"
        "- launchApp:\n    appId: com.android.settings\n"
        "- launchApp:\n    appId: com.android.settings\n    stopApp: false\n"
        "- stopApp\n"
    )
    converted = one(tmp_path, commands)
    settings_app = {"app_id": "com.android.settings"}
    assert steps(converted) == [
        ("launch_app", {}),
        ("launch_app", {}),
        ("launch_app", {}),
        ("launch_app", {"stop_first": False}),
        ("launch_app", settings_app),
        ("launch_app", {**settings_app, "stop_first": False}),
        ("manage_app", {"action": "stop", "app_name": "com.visor.demo"}),
    ]
    assert not converted.left_out and converted.app_id == "com.visor.demo"


def test_launch_app_options_become_launch_apps_and_the_rest_is_named_with_its_line(tmp_path: Path) -> None:
    commands = (
        "- launchApp:\n"
        "    clearState: true\n"
        "    clearKeychain: 'true'\n"
        "    stopApp: false\n"
        "    permissions: {all: deny, camera: allow, location: sometimes}\n"
        "    arguments: {debug: true, user: ada, level: 3, nested: {a: 1}}\n"
        "    label: Start clean\n"
        "- launchApp:\n    clearState: maybe\n    launchTimeout: 5\n"
    )
    converted = one(tmp_path, commands)
    assert steps(converted) == [
        ("block", {"when": {"platform": "ios"}, "steps": [("clear_keychain", {})]}),  # Android has no keychain
        ("launch_app", {"clear_state": True, "stop_first": False,
                        "permissions": {"all": "deny", "camera": "allow"},
                        "arguments": {"debug": True, "user": "ada", "level": 3}}),
        ("launch_app", {}),
    ]  # fmt: skip
    assert [item["id"] for item in converted.scenario["steps"][:2]] == ["01-ios-start-clean", "03-launch-start-clean"]
    assert [(item["line"], item["reason"].split(":")[0]) for item in converted.left_out] == [
        (3, "launchApp permissions 'location' are left out"),
        (3, "launchApp arguments 'nested' are left out"),
        (10, "launchApp options 'launchTimeout' are not converted"),
        (10, "launchApp clearState 'maybe' is neither true nor false"),
    ]


def test_run_flow_with_when_is_a_block_and_its_env_is_put_in(tmp_path: Path) -> None:
    # Found: runFlow with `when:` was inlined unconditionally, and its call-site env dropped, both silently.
    flow(tmp_path, "search.yaml", "- inputText: ${QUERY}\n- tapOn: ${BUTTON}\n", "appId: a\nenv:\n  BUTTON: Go\n")
    flow(tmp_path, "allow.yaml", "- tapOn: Allow\n")
    commands = (
        "- runFlow:\n    when:\n      visible: Allow?\n    file: allow.yaml\n"
        "- runFlow:\n    file: search.yaml\n    env:\n      QUERY: desk lamp\n"
        "- runFlow:\n    file: search.yaml\n    env:\n      QUERY: ${OUTER}\n"
        "- runFlow:\n    commands:\n      - inputText: ${QUERY}\n    env:\n      QUERY: chair\n"
    )
    converted = one(tmp_path, commands)
    found = steps(converted)
    assert found[0] == (
        "block",
        {
            "when": {"visible": 'match={"text":"Allow?"}', "within_ms": 7000},
            "steps": [("tap", {"target": "text=Allow"})],
        },
    )
    typed = [args["value"] for command, args in found if args.get("name") == "type"]
    assert typed == ["desk lamp", "${OUTER}", "chair"]
    assert converted.env == {"BUTTON": "Go"}  # the included flow's own env: a default, in the env file
    assert not converted.left_out


def test_left_out_lines_of_an_included_file_name_that_file(tmp_path: Path) -> None:
    flow(tmp_path, "sub/login.yaml", "- tapOn: Log in\n- assertNoDefectsWithAI\n")
    converted = one(tmp_path, "- runFlow: sub/login.yaml\n- assertNoDefectsWithAI\n")
    assert left(converted) == [("login.yaml", 4, "assertNoDefectsWithAI"), ("f.yaml", 4, "assertNoDefectsWithAI")]
    assert converted.left_out[0]["file"] == str(tmp_path / "sub" / "login.yaml")


def test_swipe_from_and_duration_are_converted_or_left_out_never_dropped(tmp_path: Path) -> None:
    # Found: swipe.from was dropped (a whole-screen swipe instead), and so were launchApp's options.
    commands = (
        "- swipe:\n    from:\n      id: carousel\n    direction: LEFT\n"
        "- swipe:\n    from: Photos\n    direction: UP\n"
        "- swipe:\n    start: 90%, 50%\n    end: 10%, 50%\n    duration: 1200\n"
        "- swipe:\n    start: 100, 200\n    end: 300, 400\n"
        "- swipe:\n    direction: UP\n    speed: 40\n"
    )
    converted = one(tmp_path, commands)
    assert steps(converted) == [
        ("swipe", {"direction": "left", "target": "carousel"}),
        ("swipe", {"start": [900, 500], "end": [100, 500], "duration": 1200, "target_description": "the screen"}),
        ("act", {"name": "drag", "startX": 100.0, "startY": 200.0, "endX": 300.0, "endY": 400.0, "normalized": False}),
    ]
    assert [(line, command) for _, line, command in left(converted)] == [(7, "swipe"), (17, "swipe")]
    assert "by its id only" in converted.left_out[0]["reason"] and "speed" in converted.left_out[1]["reason"]


def test_javascript_conditions_and_header_hooks_are_never_silent(tmp_path: Path) -> None:
    header = "appId: a\njsEngine: rhino\nonFlowStart:\n  - tapOn: Skip\nonFlowComplete:\n  - back\n"
    commands = (
        "- inputText: ${USER.toUpperCase()}\n"
        "- repeat:\n    times: 2\n    commands:\n      - tapOn: Next\n"
        "- repeat:\n    while:\n      visible: More\n    commands:\n      - tapOn: More\n"
        "- tapOn:\n    text: Go\n    label: Press go\n"
        "- [not, a, command]\n"
    )
    converted = one(tmp_path, commands, header)
    next_twice = ("block", {"repeat": {"times": 2}, "steps": [("tap", {"target": "text=Next"})]})
    more = (
        "block",
        {
            "repeat": {"while": {"visible": "text=More", "within_ms": 7000}, "max": 1000},
            "steps": [("tap", {"target": "text=More"})],
        },
    )
    typed = ("act", {"name": "type", "value": "${USER.toUpperCase()}"})  # filled in as the step runs
    go = ("tap", {"target": "text=Go"})
    assert steps(converted) == [("tap", {"target": "text=Skip"}), typed, next_twice, more, go]
    assert converted.scenario["steps"][-1]["id"] == "07-tap-press-go"  # the label names the step
    assert [(item["id"], item["command"]) for item in converted.scenario["teardown"]] == [("08-back", "act")]
    assert [(line, command) for _, line, command in left(converted)] == [(2, "jsEngine"), (21, "?")]


def test_a_converted_step_the_validator_refuses_is_left_out_with_its_words(tmp_path: Path) -> None:
    converted = one(tmp_path, "- tapOn:\n    point: 150%, 50%\n- inputText: ''\n- tapOn: Go\n")
    assert steps(converted) == [("tap", {"target": "text=Go"})]  # an empty inputText types nothing, in Maestro too
    assert [line for _, line, _ in left(converted)] == [3]
    assert "between 0 and 1" in converted.left_out[0]["reason"]


# --- the env file --------------------------------------------------------------------------------------------------


@given(st.dictionaries(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True), st.text(max_size=30)))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_env_file_reads_back_as_exactly_its_values(tmp_path: Path, env: dict[str, str]) -> None:
    # Found: a value holding a newline, `=`, quotes or `#` wrote new keys into the env file, or read back changed.
    env = {key: value for key, value in env.items() if "\x00" not in value and value.splitlines() in ([], [value])}
    path = tmp_path / "flow.env"
    path.write_text(env_text(env), encoding="utf-8")
    assert read_env_file(str(path)) == env


@pytest.mark.parametrize("value", ['"a\\nINJECTED=1"', "|\n    a\n    INJECTED=1", '"a\\u2028B=1"', '"a\\0"'])
def test_an_env_value_no_line_can_hold_is_refused_at_its_line(tmp_path: Path, value: str) -> None:
    with pytest.raises(SourceError, match="holds a line break or a NUL") as caught:
        one(tmp_path, "- inputText: ${USER}\n", f"appId: a\nenv:\n  OK: fine\n  USER: {value}\n")
    assert caught.value.line == 4


def test_env_values_that_could_inject_read_back_unchanged(tmp_path: Path) -> None:
    header = "appId: a\nenv:\n  A: 'x=1 # not a comment'\n  B: '\"quoted\"'\n  C: '  spaced  '\n  D: true\n  E:\n"
    converted = one(tmp_path, "- inputText: ${A}\n", header + "  bad-key: 1\n")
    (tmp_path / "f.env").write_text(env_text(converted.env), encoding="utf-8")
    assert read_env_file(str(tmp_path / "f.env")) == {
        "A": "x=1 # not a comment",
        "B": '"quoted"',
        "C": "  spaced  ",
        "D": "true",
        "E": "",
    }
    assert left(converted) == [("f.yaml", 8, "env")]


def test_a_comment_is_one_line_whatever_it_quotes() -> None:
    text = comment("a\nsteps: []\rb\x85c\u2028d\u2029e\x1b[2J")
    assert text.count("\n") == 0 and len(text.splitlines()) == 1
    assert yaml.safe_load(text + "\nkey: 1\n") == {"key": 1}


# --- fuzz: nothing but a visor error, and what is written validates ------------------------------------------------

_NAMES = ["launchApp", "clearState", "stopApp", "tapOn", "inputText", "assertVisible", "assertNotVisible",
          "extendedWaitUntil", "scroll", "swipe", "back", "waitForAnimationToEnd", "openLink", "pressKey",
          "takeScreenshot", "scrollUntilVisible", "runFlow", "repeat", "retry", "runScript", "label", "eraseText",
          "evalScript", "assertTrue", "addMedia", "copyTextFrom", "inputRandomText", "clearKeychain"]  # fmt: skip
_KEYS = ["appId", "clearState", "stopApp", "permissions", "text", "id", "point", "visible", "notVisible", "timeout",
         "direction", "start", "end", "from", "duration", "link", "path", "file", "commands", "env", "when", "times",
         "label", "optional", "while", "maxRetries", "platform", "true", "index", "below", "childOf", "enabled",
         "containsDescendants", "retryTapIfNoChange", "repeat", "delay", "width", "element", "speed", "centerElement",
         "visibilityPercentage", "charactersToErase", "files", "condition", "arguments", "clearKeychain", "length"]  # fmt: skip
#: Texts Maestro flows hold, and those that have broken converters: points, keys, parameters, paths out.
_TEXTS = ["50%,50%", "10, 20", "150%, -3%", "UP", "left", "Enter", "${X}", "${A+B}", "inc.yaml", "f.yaml",
          "../x.yaml", "/etc/passwd", "", " ", "com.visor.demo", "1e400", "5000", "${TIMEOUT}", "Android", "a.*(",
          "${output.x}", '${"lit"}', "true"]  # fmt: skip
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(), st.text(max_size=8), st.sampled_from(_TEXTS)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(_KEYS), inner, max_size=3)),
    max_leaves=12,
)
_COMMANDS = st.lists(
    st.one_of(st.sampled_from(_NAMES), st.dictionaries(st.sampled_from(_NAMES), _VALUES, min_size=1, max_size=2)),
    max_size=6,
)
_HEADERS = st.dictionaries(st.sampled_from(["appId", "name", "tags", "env", "onFlowStart", "jsEngine"]), _VALUES)


@given(_HEADERS, _COMMANDS, _COMMANDS)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_fuzz_only_visor_errors_and_what_is_written_validates(
    tmp_path: Path, header: dict[str, Any], commands: list[Any], included: list[Any]
) -> None:
    (tmp_path / "f.yaml").write_text(yaml.safe_dump(header) + "---\n" + yaml.safe_dump(commands), encoding="utf-8")
    (tmp_path / "inc.yaml").write_text("appId: a\n---\n" + yaml.safe_dump(included), encoding="utf-8")
    try:
        converted = convert_flow(str(tmp_path / "f.yaml"))
    except VisorError:
        return
    written = parse_data(scenario_text("f.yaml", converted).encode(), "written.yaml")
    assert written.data == converted.scenario
    document, _ = substitute(written, converted.env)
    assert [issue for issue in validate_document(document).issues if issue.is_error] == []


def test_a_web_flows_url_is_its_site_on_the_web_platform(tmp_path: Path) -> None:
    converted = one(tmp_path, "- launchApp\n- assertVisible: Contact\n", header="url: http://localhost:1313/contact/\n")
    assert converted.left_out == [] and converted.app_id == "http://localhost:1313/contact/"
    assert converted.scenario["meta"]["platform"] == "web"
    assert converted.scenario["config"]["app"] == "http://localhost:1313/contact/"
    assert steps(converted)[0] == ("launch_app", {})


def test_a_url_that_is_no_web_address_names_no_site(tmp_path: Path) -> None:
    converted = one(tmp_path, "- launchApp\n", header="url: ftp://files.example\n")
    assert left(converted) == [("f.yaml", 1, "url")] and "app" not in converted.scenario["config"]
    assert "is no http(s) address" in converted.left_out[0]["reason"]
    assert converted.scenario["meta"]["platform"] == "web"  # still a web flow: it runs on the web or nowhere
