from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import FIXTURES, ROOT, Cli, check_envelope
from visor.errors import ExitCode
from visor.ext.tools.spec.export import generic_schema

SEED: dict[str, dict[str, Any]] = json.loads((FIXTURES / "seed-001-agent-tools.json").read_text("utf-8"))
SEED_ENTRIES = list(SEED.values())
NAMES = [entry["function"]["name"] for entry in SEED_ENTRIES] + ["observe", "screenshot"]
NAMES += ["map_read", "route_plan", "route_follow", "list_apps", "list_devices", "use_device"]


def first_envelope(text: str) -> tuple[dict[str, Any], str]:
    """Split stderr into the envelope it starts with and the summary that follows."""
    _, end = json.JSONDecoder().raw_decode(text)
    return check_envelope(text[:end]), text[end:]


def test_tools_in_openai_format_are_the_seed_then_observation(cli_runner: Cli) -> None:
    result = cli_runner.run("tools")
    assert result.exit_code == ExitCode.OK
    envelope = result.envelope
    assert (envelope["status"], envelope["data"]["format"], envelope["data"]["count"]) == ("ok", "openai", 24)
    listed = envelope["data"]["tools"]
    assert [tool["function"]["name"] for tool in listed] == NAMES
    for tool, entry in zip(listed, SEED_ENTRIES, strict=False):
        assert tool["function"]["parameters"] == generic_schema(entry["function"]["parameters"])
    for tool in listed[16:]:
        assert tool["type"] == "function" and tool["function"]["parameters"]["additionalProperties"] is False
    assert all(tool["function"]["description"].startswith("[OBSERVE]") for tool in listed[16:18])
    assert "24 agent tools (openai format)" in result.stderr


@pytest.mark.parametrize("style", ["openai", "mcp"])
def test_every_exported_description_fits_an_openai_endpoint(cli_runner: Cli, style: str) -> None:
    listed = cli_runner.run("tools", "--format", style).data["tools"]
    texts = [tool["function"]["description"] if style == "openai" else tool["description"] for tool in listed]
    assert len(texts) == 24 and max(len(text) for text in texts) <= 1024


def test_tools_in_seed_format_are_the_tools_spec_verbatim(cli_runner: Cli) -> None:
    listed = cli_runner.run("tools", "--format", "seed").data["tools"]
    assert listed[:16] == SEED_ENTRIES
    assert [tool["function"]["name"] for tool in listed] == NAMES
    assert sum(len(entry["function"]["description"]) > 1024 for entry in listed) == 4


def test_tools_in_mcp_format(cli_runner: Cli) -> None:
    result = cli_runner.run("tools", "--format", "mcp")
    data = result.data
    assert (data["format"], data["count"]) == ("mcp", 24)
    assert [tool["name"] for tool in data["tools"]] == NAMES
    for tool, entry in zip(data["tools"], SEED_ENTRIES, strict=False):
        assert set(tool) == {"name", "title", "description", "inputSchema", "outputSchema", "annotations"}
        assert tool["inputSchema"] == generic_schema(entry["function"]["parameters"])
        assert tool["outputSchema"]["properties"]["tool"] == {"const": tool["name"]}
    assert all(tool["annotations"]["title"] == tool["title"] for tool in data["tools"])


def test_tools_raw_prints_the_bare_list(cli_runner: Cli) -> None:
    for style in ("openai", "mcp", "seed"):
        raw = cli_runner.run("tools", "--format", style, "--raw", envelope=False)
        assert raw.exit_code == ExitCode.OK
        assert json.loads(raw.stdout) == cli_runner.run("tools", "--format", style).data["tools"]


def test_mcp_help(cli_runner: Cli) -> None:
    result = cli_runner.run("mcp", "--help", envelope=False)
    assert result.exit_code == ExitCode.OK
    assert "Serve the agent tools over MCP on stdin/stdout" in result.stdout
    for option in (
        "--runtime",
        "--app",
        "--seed",
        "--turn-ms",
        "--no-observe-after",
        "--no-device",
        "--seed-descriptions",
    ):
        assert option in result.stdout


def test_mcp_start_up_failure_goes_to_stderr(cli_runner: Cli) -> None:
    result = cli_runner.run("mcp", "--runtime", "sim", "--app", "does-not-exist", "--seed", "7", envelope=False)
    assert result.exit_code == ExitCode.ERROR
    assert result.stdout == "", "stdout is the protocol channel"
    envelope = check_envelope(result.stderr)  # stderr holds the one JSON document, no human summary after it
    assert (envelope["status"], envelope["error"]["code"]) == ("fail", "INPUT_ERROR")
    assert "does-not-exist" in envelope["error"]["message"]

    quiet = cli_runner.run("mcp", "--runtime", "sim", "--app", "does-not-exist", "-q", envelope=False)
    assert quiet.exit_code == ExitCode.ERROR and quiet.stdout == ""
    assert check_envelope(quiet.stderr)["error"]["code"] == "INPUT_ERROR"


def test_mcp_usage_error_goes_to_stderr(cli_runner: Cli) -> None:
    result = cli_runner.run("mcp", "--runtime", "sim", "--seed", "-1", envelope=False)
    assert result.exit_code == ExitCode.ERROR
    assert result.stdout == "", "stdout is the protocol channel"
    envelope, _ = first_envelope(result.stderr)
    assert envelope["error"]["code"] == "INPUT_ERROR" and "--seed" in envelope["error"]["message"]


def test_mcp_process_start_up_failure() -> None:
    command = [sys.executable, "-m", "visor", "mcp", "--runtime", "sim", "--app", "does-not-exist"]
    done = subprocess.run(command, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False)
    assert done.returncode == ExitCode.ERROR
    assert done.stdout == ""
    envelope, _ = first_envelope(done.stderr)
    assert envelope["error"]["code"] == "INPUT_ERROR"


@pytest.mark.parametrize(
    "options",
    [(), ("--no-device", "--runtime", "sim", "--app", "does-not-exist")],
    ids=["no device option", "--no-device"],
)
def test_mcp_without_a_device_starts_and_says_the_agent_chooses(options: tuple[str, ...]) -> None:
    """No device option, or --no-device: nothing is opened at start (an app that does not exist is not read)."""
    command = [sys.executable, "-m", "visor", "mcp", "--seed", "7", *options]
    done = subprocess.run(command, cwd=ROOT, input="", capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == ExitCode.OK and done.stdout == "", "stdout is the protocol channel"
    assert "visor mcp: serving no device yet (the agent calls list_devices, then use_device" in done.stderr
    assert "seed 7" in done.stderr


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_mcp_stops_on_a_signal(stop: signal.Signals) -> None:
    """An MCP client stops its server with SIGTERM (after closing stdin, or not): visor mcp must end, and promptly."""
    command = [sys.executable, "-m", "visor", "mcp", "--runtime", "sim", "--seed", "7"]
    process = subprocess.Popen(
        command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        assert "visor mcp: serving visor-sim, seed 7 on stdio" in process.stderr.readline()
        process.send_signal(stop)
        _, stderr = process.communicate(timeout=30)  # stdin stays open: the signal alone must end it
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + stop
    envelope, _ = first_envelope(stderr.lstrip())  # click writes a newline when interrupted
    assert envelope["error"]["code"] == "INTERRUPTED" and stop.name in envelope["error"]["message"]


@pytest.mark.parametrize(("option", "value"), [("--turn-ms", "nan"), ("--turn-ms", "inf"), ("--seed", str(2**64))])
def test_mcp_refuses_out_of_range_numbers(cli_runner: Cli, option: str, value: str) -> None:
    result = cli_runner.run("mcp", "--runtime", "sim", option, value, envelope=False)
    envelope = json.loads(result.stderr[result.stderr.index("{") :])
    assert result.exit_code == 1 and envelope["error"]["code"] == "INPUT_ERROR"
    assert option in envelope["error"]["message"]


def test_the_start_up_line_shows_the_devices_name_as_text(cli_runner: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """A device names itself (an Appium server's answer): its name reaches the terminal escaped, never as codes."""
    from types import SimpleNamespace

    from visor.ext.tools.mcp import server
    from visor.ext.tools.mcp.host import AgentHost

    name = "phone\x1b[2J\x1b]0;owned\x07\x9b1m"
    info = SimpleNamespace(name=name, capabilities=SimpleNamespace(seeded=False))
    monkeypatch.setattr(AgentHost, "start", lambda self: SimpleNamespace(device=SimpleNamespace(info=info)))
    monkeypatch.setattr(server, "serve_stdio", lambda served: None)
    result = cli_runner.run("mcp", "--runtime", "sim", envelope=False)
    assert result.exit_code == ExitCode.OK
    assert "visor mcp: serving phone\\x1b[2J\\x1b]0;owned\\x07\\x9b1m on stdio" in result.stderr
    assert not {"\x1b", "\x07", "\x9b"} & set(result.stderr)
