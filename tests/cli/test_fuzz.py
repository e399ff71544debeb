"""No input reaches a crash: whatever files and command lines visor is given, it keeps the output contract.

The contract: exit code 0, 1, 2 or 3; stdout exactly one JSON envelope valid against its schema (or, for
`--raw`, the bare JSON asked for); never a `SYSTEM_ERROR` ("a bug in visor") and never a traceback. The CLI
runner re-raises crashes (`catch_crashes=False`), so a crash fails the test with its own traceback.

Examples per test are few by default so the suite stays fast; `VISOR_FUZZ_EXAMPLES=5000` runs a campaign.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import pytest
import yaml
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES, MINIMAL, ROOT, Cli, Invocation, check_envelope
from tests.strategies import scenarios
from visor.cli import cli
from visor.errors import ExitCode


def examples(default: int) -> int:
    """Return how many examples a fuzz test runs: `default`, or VISOR_FUZZ_EXAMPLES when set."""
    return int(os.environ.get("VISOR_FUZZ_EXAMPLES", default))


def fuzz(default: int) -> settings:
    """Hypothesis settings of a fuzz test running `default` examples unless told otherwise."""
    return settings(
        max_examples=examples(default),
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


FUZZ = fuzz(150)


def _dump(doc: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=1)
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True)


@FUZZ
@given(doc=scenarios(), fmt=st.sampled_from(["yaml", "json"]))
def test_validate_scenario_shaped_documents(tmp_path: Path, doc: Any, fmt: str) -> None:
    path = tmp_path / f"fuzz.{fmt}"
    path.write_text(_dump(doc, fmt), encoding="utf-8")
    result = Cli(tmp_path).run("validate", str(path), "-q")
    envelope = result.envelope  # checked against the envelope schema
    assert result.exit_code in (ExitCode.OK, ExitCode.ERROR)
    assert (result.exit_code == ExitCode.OK) == (envelope["data"]["valid"] is True)
    if envelope["status"] == "ok":
        for issue in envelope["data"]["issues"]:
            assert issue["line"] >= 1 and issue["column"] >= 1


@FUZZ
@given(content=st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_validate_arbitrary_bytes(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "noise.yaml"
    path.write_bytes(content)
    result = Cli(tmp_path).run("validate", str(path), "-q")
    assert result.exit_code == ExitCode.ERROR or result.envelope["data"]["valid"] is True


#: Pieces of YAML and JSON that readers get wrong: escapes, anchors, tags, directives, numbers, controls.
FRAGMENTS = [
    *"{}[],:-?#'\"&*!|>%@`\n\t ",
    "\n  ",
    "\n- ",
    ": ",
    "a",
    "id",
    "steps",
    "meta",
    '"\\ud800"',
    '"\\udc00\\ud800"',
    '"\\ud83d\\ude00"',
    '"\\U0000d800"',
    '"\\x00\\e\\0"',
    '"\\',
    "\\\\",
    "\\u",
    "&a ",
    "*a",
    "<<: ",
    "!!int ",
    "!!float ",
    "!!str ",
    "!!binary ",
    "!!python/name:os.system ",
    "!<tag:yaml.org,2002:int> ",
    "%YAML 1.1\n",
    "%TAG ! tag:x,2000:\n",
    "---\n",
    "...\n",
    "1" * 4_400,
    "-" + "9" * 4_400,
    "0x" + "f" * 4_400,
    "0o",
    "1e999",
    ".inf",
    ".nan",
    "NaN",
    "-Infinity",
    "null",
    "true",
    "\ufeff",
    "\u2028",
    "\x85",
    "\x1b[2K",
    "\r",
    "🙂",
]


@FUZZ
@given(pieces=st.lists(st.sampled_from(FRAGMENTS), max_size=30), suffix=st.sampled_from(["yaml", "json"]))
def test_validate_text_made_of_tricky_fragments(tmp_path: Path, pieces: list[str], suffix: str) -> None:
    path = tmp_path / f"tricky.{suffix}"
    path.write_text("".join(pieces), encoding="utf-8")
    result = Cli(tmp_path).run("validate", str(path), "-q")
    assert result.exit_code == ExitCode.ERROR or result.envelope["data"]["valid"] is True
    assert result.envelope.get("error", {}).get("code") != "SYSTEM_ERROR"


# -- command lines ------------------------------------------------------------------------------------------------

CONTRACT_EXITS = {ExitCode.OK, ExitCode.ERROR, ExitCode.RUN_FAILED, ExitCode.BELOW_THRESHOLD}
GLOBAL_OPTIONS = [["--quiet"], ["-q"], ["--verbose"], ["--color"], ["--no-color"], ["--format", "json"]]
JUNK_OPTIONS = ["--nope", "-x", "--", "---", "-", "--runs=", "--output=", "-qq", "--color=yes", "--seed=-1", "--RAW"]
SPECIAL_VALUES = [
    "",
    " ",
    "nan",
    "NaN",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "1e999",
    "-1e999",
    "1e308",
    "0",
    "-0",
    "-1",
    "1",
    "2",
    "0.5",
    "1.5",
    "100",
    "101",
    "10000",
    "10001",
    str(2**63),
    str(2**64 - 1),
    str(2**64),
    "9" * 40,
    "9" * 5000,
    "0x10",
    "1_0",
    "٢",
    "²",
    "½",
    "true",
    "sim",
    "appium",
    "json",
    "scenario",
    "envelope",
    "openai",
    "mcp",
    "none",
    "failures",
    "steps",
    "android",
    "ios",
    "demo",
    "\x00",
    "a\x00b",
    "\x1b[2K\r✓ passed",
    "\udce9",
    "\ud800",
    "é",
    "🙂",
    "\u202e",
    "-",
    "*",
    "**/*.yaml",
    "[",
    ".",
    "~",
    "$HOME",
    "http://127.0.0.1:1",
]
#: Values that would make a test slow (a long benchmark) or reach out of the machine (Appium) are replaced.
REPLACED = {"--runs": {"100": "2", "10000": "3"}, "--runtime": {"appium": "sim"}}


#: A scenario that runs and fails, with control characters (`CTL`) in every text that reaches a report.
CONTROLS_SCENARIO = {
    "meta": {"name": "name CTL", "version": "1", "tags": ["CTL"]},
    "config": {"seed": 3, "runtime": "sim", "app": "demo"},
    "steps": [
        {"id": "open CTL", "command": "navigate", "args": {"to": "demo://login"}},
        {"id": "type CTL", "command": "act", "args": {"name": "type", "target": "id=username", "value": "v CTL"}},
        {"id": "tap CTL", "command": "tap", "args": {"target": "text=CTL"}},
        {"id": "shot CTL", "command": "screenshot", "args": {"label": "l CTL"}},
    ],
    "assertions": [
        {"id": "a CTL", "type": "text_equals", "target": "id=username", "value": "CTL"},
        {"id": "b CTL", "type": "visible", "target": "text=CTL"},
    ],
}


class Workspace:
    """Files for the fuzzed command lines to point at, written once below a test's temporary directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        files = root / "files"
        if not files.exists():
            files.mkdir()
            (files / "folder").mkdir()
            (files / "folder" / "ok.yaml").write_text(MINIMAL, encoding="utf-8")
            (files / "empty-folder").mkdir()
            (files / "minimal.yaml").write_text(MINIMAL, encoding="utf-8")
            escapes = MINIMAL.replace("id: s1", 'id: "ok\\e[2K\\r✓ passed\\0\\u202e"')
            (files / "escapes.yaml").write_text(escapes, encoding="utf-8")
            (files / "invalid.yaml").write_text("meta: {name: [}\n", encoding="utf-8")
            (files / "surrogate.json").write_text('{"meta": {"name": "\\ud800"}}', encoding="utf-8")
            (files / "binary.yaml").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
            (files / "latin1.yaml").write_bytes(b"meta:\n  name: caf\xe9\n")
            (files / "empty.yaml").write_bytes(b"")
            (files / "app.app.yaml").write_text("name: x\n", encoding="utf-8")
            (files / "long-integer.json").write_text('{"config": {"seed": ' + "1" * 5_000 + "}}", encoding="utf-8")
            controls = json.loads(json.dumps(CONTROLS_SCENARIO).replace("CTL", "\\u001b[2K\\r\\u0000\\u202e\\ufffe"))
            (files / "controls.json").write_text(json.dumps(controls), encoding="utf-8")
        #: Scenarios that run on the simulated device (to pass, to fail, to diverge, with escapes in ids).
        self.runnable = [
            str(files / "minimal.yaml"),
            str(files / "escapes.yaml"),
            str(files / "controls.json"),
            str(ROOT / "scenarios" / "login.yaml"),
            str(ROOT / "scenarios" / "fails-on-purpose.yaml"),
            str(ROOT / "scenarios" / "promo-unseeded.yaml"),
            str(ROOT / "scenarios" / "settings-upstream.json"),
        ]
        self.paths = [
            *(str(path) for path in sorted(files.iterdir())),
            str(files / "missing.yaml"),
            str(files / "folder" / "*.yaml"),
            str(ROOT / "scenarios" / "login.yaml"),
            str(ROOT / "scenarios" / "fails-on-purpose.yaml"),
            str(ROOT / "scenarios" / "promo-unseeded.yaml"),
            str(ROOT / "scenarios" / "settings-upstream.json"),
            str(FIXTURES / "apps" / "ads.app.yaml"),
        ]


#: Text that, as a path, stays inside the working directory: nothing absolute, no `..`.
junk_text = st.text(max_size=12).map(lambda text: text.lstrip("/~").replace("..", "._"))


def command_options(name: str) -> list[click.Option]:
    """Return the options a command really has (help aside: it prints help, not an envelope)."""
    return [param for param in cli.commands[name].params if isinstance(param, click.Option)]


@st.composite
def wild_values(draw: st.DrawFn, option: str, paths: Sequence[str]) -> str:
    """Any kind of value: special numbers and strings, numbers, unicode, control characters, paths."""
    value = draw(
        st.one_of(
            st.sampled_from(SPECIAL_VALUES),
            st.sampled_from(list(paths)),
            st.integers(-(2**70), 2**70).map(str),
            st.floats().map(str),
            junk_text,
        )
    )
    return REPLACED.get(option, {}).get(value, value)


def plausible_values(option: click.Option, paths: Sequence[str]) -> st.SearchStrategy[str]:
    """Values the option accepts, mostly: so that generated command lines get past the parser and run."""
    name, kind = option.opts[0], option.type
    if name == "--runs":
        return st.integers(1, 3).map(str)
    if isinstance(kind, click.Choice):
        return st.sampled_from([REPLACED.get(name, {}).get(str(c), str(c)) for c in kind.choices])
    if isinstance(kind, click.IntRange):
        return st.integers(kind.min or 0, 2**64).map(str)
    if isinstance(kind, click.FloatRange):
        top = kind.max if kind.max is not None else 1e9
        return st.floats(kind.min or 0, top).map(str) | st.integers(int(kind.min or 0), int(top)).map(str)
    if name == "--app":
        return st.sampled_from(["demo", "player", "ads", str(FIXTURES / "apps" / "ads.app.yaml"), *paths])
    return junk_text


@st.composite
def argv(
    draw: st.DrawFn, command: str, paths: Sequence[str], positional: st.SearchStrategy[str] | None = None
) -> list[str]:
    """A command line for `command`: its real options in any order and form, junk, and positional values.

    One in three is wild (junk options, flags given values, any value for any option); the others use the
    command's options with values they mostly accept, so that most of them run.
    """
    options = command_options(command)
    wild = draw(st.integers(0, 2)) == 0
    args: list[str] = [*draw(st.sampled_from([[], *GLOBAL_OPTIONS])), command]
    start = len(args)
    for _ in range(draw(st.integers(0, 6))):
        option = draw(st.sampled_from(options))
        name = draw(st.sampled_from([*option.opts, *option.secondary_opts]))
        value = draw(wild_values(name, paths) if wild else plausible_values(option, paths))
        if wild and draw(st.integers(0, 3)) == 0:
            args.append(draw(st.sampled_from(JUNK_OPTIONS) | wild_values("", paths)))
        elif option.is_flag:
            args.append(f"{name}={value}" if wild and draw(st.integers(0, 3)) == 0 else name)
        elif draw(st.booleans()):
            args.append(f"{name}={value}")
        else:
            args += [name, value]
    if positional is not None:
        count = draw(st.integers(0, 3) if wild else st.integers(1, 2))
        for _ in range(count):
            value = draw(wild_values("", paths) if wild else positional)
            args.insert(draw(st.integers(start, len(args))), value)
    # Help prints usage, not an envelope (tested elsewhere).
    return [arg for arg in args if arg not in ("-h", "--help")]


def check_contract(result: Invocation, args: Sequence[str]) -> None:
    """Assert the output contract for one invocation."""
    assert result.exit_code in CONTRACT_EXITS, (args, result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr, (args, result.stderr)
    if "--raw" in args and result.exit_code == ExitCode.OK and {"schema", "tools"} & set(args):
        json.loads(result.stdout)  # the bare schema or tool list: one JSON document
        return
    if not result.stdout.startswith("{"):
        # `--format text`: lines a person reads, beginning with the status (✓ ok / ✗ fail).
        assert any("text" in arg for arg in args) and result.stdout.startswith(("✓ ", "✗ ")), (args, result.stdout)
        return
    envelope = check_envelope(result.stdout)
    if "error" in envelope:
        assert envelope["error"]["code"] != "SYSTEM_ERROR", (args, envelope["error"])
        assert all(envelope["error"][key] for key in ("message", "likely_cause", "next_step"))


def fuzz_command(tmp_path: Path, command: str, args: list[str], stdin: bytes) -> None:
    """Run one fuzzed command line in a fresh working directory below `tmp_path` and check the contract."""
    work = Path(tempfile.mkdtemp(dir=tmp_path))
    try:
        result = Cli(work).run(*args, input=stdin, envelope=False)
        check_contract(result, args)
        # --hypothesis-show-statistics tells how many command lines got past the option parser.
        event(f"exit {result.exit_code}" + (" (usage)" if '"next_action": "help"' in result.stdout else ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)


stdin_bytes = st.one_of(st.just(b""), st.just(MINIMAL.encode()), st.binary(max_size=64))


@fuzz(60)
@given(data=st.data(), stdin=stdin_bytes)
def test_validate_command_lines(tmp_path: Path, data: st.DataObject, stdin: bytes) -> None:
    paths = Workspace(tmp_path).paths
    args = data.draw(argv("validate", paths, st.sampled_from(paths)))
    fuzz_command(tmp_path, "validate", args, stdin)


@fuzz(25)
@given(data=st.data(), stdin=stdin_bytes)
def test_run_command_lines(tmp_path: Path, data: st.DataObject, stdin: bytes) -> None:
    workspace = Workspace(tmp_path)
    scenario = data.draw(st.sampled_from(workspace.runnable) | st.sampled_from(workspace.paths))
    args = _on_sim(data.draw(argv("run", workspace.paths)), scenario)
    fuzz_command(tmp_path, "run", args, stdin)


@fuzz(20)
@given(data=st.data(), stdin=stdin_bytes)
def test_benchmark_command_lines(tmp_path: Path, data: st.DataObject, stdin: bytes) -> None:
    workspace = Workspace(tmp_path)
    scenario = data.draw(st.sampled_from(workspace.runnable) | st.sampled_from(workspace.paths))
    args = _on_sim(data.draw(argv("benchmark", workspace.paths)), scenario, "--runs", "2")  # a later --runs wins
    fuzz_command(tmp_path, "benchmark", args, stdin)


@fuzz(40)
@given(data=st.data())
def test_schema_command_lines(tmp_path: Path, data: st.DataObject) -> None:
    args = data.draw(argv("schema", Workspace(tmp_path).paths, st.sampled_from(["scenario", "envelope"])))
    fuzz_command(tmp_path, "schema", args, b"")


@fuzz(40)
@given(data=st.data())
def test_tools_command_lines(tmp_path: Path, data: st.DataObject) -> None:
    args = data.draw(argv("tools", Workspace(tmp_path).paths))
    fuzz_command(tmp_path, "tools", args, b"")


def _on_sim(args: list[str], scenario: str, *first: str) -> list[str]:
    """Put `--runtime sim`, a scenario and `first` right after the command: the simulated device, always.

    A later `--runtime` wins, but none other than `sim` is generated (`REPLACED`).
    """
    at = next(index for index, arg in enumerate(args) if arg in ("run", "benchmark")) + 1
    return [*args[:at], "--runtime", "sim", *first, scenario, *args[at:]]


# -- known offenders, each once (issue 8) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["run", "a\x00b.yaml"],
        ["run", str(ROOT / "scenarios" / "login.yaml"), "--output", "o\x00ut"],
        ["run", str(ROOT / "scenarios" / "login.yaml"), "--output", "out\udce9"],
        ["run", str(ROOT / "scenarios" / "login.yaml"), "--timeout", "nan"],
        ["run", str(ROOT / "scenarios" / "login.yaml"), "--timeout", "inf"],
        ["run", str(ROOT / "scenarios" / "login.yaml"), "--timeout", "1e300"],
        ["run", str(ROOT / "scenarios" / "login.yaml"), "--seed", str(2**64)],
        ["run", str(ROOT / "scenarios" / "login.yaml"), "--app", "demo\x00"],
        ["run", "scenario\udce9.yaml"],
    ],
)
def test_bad_run_options_are_input_errors(cli_runner: Cli, args: list[str]) -> None:
    result = cli_runner.run(*args, "--runtime", "sim")
    check_contract(result, args)
    assert result.exit_code == ExitCode.ERROR and result.envelope["error"]["code"] == "INPUT_ERROR"
    assert "\x00" not in result.stderr


def test_run_shows_control_characters_in_ids_as_escapes(cli_runner: Cli, tmp_path: Path) -> None:
    path = tmp_path / "esc.yaml"
    path.write_text(MINIMAL.replace("id: s1", 'id: "ok\\e[2K\\r\\e[32m✓ passed"'), encoding="utf-8")
    for color in ("--no-color", "--color"):
        result = cli_runner.run("run", str(path), "--runtime", "sim", "--output", "out", color)
        assert result.exit_code == ExitCode.OK
        assert result.data["run"]["steps"][0]["id"] == "ok\x1b[2K\r\x1b[32m✓ passed"  # the envelope keeps data
        assert "ok\\x1b[2K\\r\\x1b[32m✓ passed" in result.stderr
        assert "\r" not in result.stderr.replace("\r\n", "\n") and "\x1b[2K" not in result.stderr


def test_control_characters_everywhere_keep_every_report_readable(cli_runner: Cli, tmp_path: Path) -> None:
    from lxml import etree

    doc = json.loads(json.dumps(CONTROLS_SCENARIO).replace("CTL", "\\u001b[2K\\r\\u0000\\u202e\\ufffe\\u0085"))
    path = tmp_path / "controls.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    for color in ("--no-color", "--color"):
        result = cli_runner.run("run", str(path), "--output", "out", color)
        assert result.exit_code == ExitCode.RUN_FAILED
        run = result.data["run"]
        assert run["steps"][0]["id"] == "open \x1b[2K\r\x00\u202e\ufffe\x85"  # the envelope keeps the data
        stderr = re.sub(r"\x1b\[[0-9;]*m", "", result.stderr)  # rich's colours
        assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202e]", stderr)
        assert "open \\x1b[2K\\r\\x00\\u202e\ufffe\\x85" in stderr
        junit = etree.parse(str(tmp_path / "out" / run["run_id"] / "junit.xml"))
        names = [case.get("name") for case in junit.iter("testcase")]
        # XML 1.0 cannot hold C0 controls: each is its Unicode control picture; what XML forbids otherwise is U+FFFD.
        assert names[0] == "open \u241b[2K\r\u2400\u202e\ufffd\ufffd (navigate)"


# -- found by fuzzing outside this suite's files: reproductions --------------------------------------------------------


def test_nul_in_config_artifacts_dir_is_an_input_error(cli_runner: Cli, tmp_path: Path) -> None:
    doc = {
        **json.loads(json.dumps(CONTROLS_SCENARIO)),
        "config": {"seed": 1, "runtime": "sim", "app": "demo", "artifactsDir": "a\x00b"},
    }
    (tmp_path / "s.json").write_text(json.dumps(doc), encoding="utf-8")
    result = cli_runner.run("run", str(tmp_path / "s.json"))
    assert result.envelope["error"]["code"] == "INPUT_ERROR"


def test_nul_in_a_source_step_path_is_an_input_error(cli_runner: Cli, tmp_path: Path) -> None:
    step = {"id": "s1", "command": "source", "args": {"path": "a\x00b.xml"}}
    doc = {
        "meta": {"name": "x", "version": "1"},
        "config": {"seed": 1, "runtime": "sim", "app": "demo"},
        "steps": [step],
    }
    (tmp_path / "s.json").write_text(json.dumps(doc), encoding="utf-8")
    result = cli_runner.run("run", str(tmp_path / "s.json"), "--output", "out")
    assert result.envelope["error"]["code"] == "INPUT_ERROR"
