"""Every command the docs show runs, as a reader would type it, on this install; the rest say why they cannot.

Each page's commands (`$ ` lines of console blocks, the lines of sh blocks) run in the page's order in one
fresh folder holding a copy of what a checkout ships (scenarios/, examples/, .gitignore), through a shell with the
installed `visor` first on PATH. A command's exit code must be 0, or the one its comment names (`(exit 2)`). A
command ending in `&` runs in the background until the page ends (or `kill %N`). A command that cannot run here
(a phone, a device farm, a file of the reader's own) is in `NOT_RUN` with the reason; a new command in the docs
that is neither run nor listed fails the test, so the docs stay true as they change.

What the commands write into the folder that is not git-ignored must be a file the command line names (`-o`,
`>`, `--output`): a command never litters a checkout with files its reader did not ask for.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

#: The pages whose commands run; docs/cli.md is generated from the commands' help (tests/test_docs.py checks it).
PAGES = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md") if p.name != "cli.md"))
FENCE = re.compile(r"^```(?P<lang>\w*)\s*$")
#: A comment's exit codes: `(exit 2)`, `(exit 0, or 1 until it is)`.
EXIT = re.compile(r"\(exit (?P<codes>\d+(?:,? or \d+)?)")
#: A block that shows a file opens by naming it: `# demo.yaml: the annotation`.
SHOWN_FILE = re.compile(r"^(?:#|//) (?P<name>[\w.-]+\.(?:yaml|yml|json|env))\b")
#: What a checkout ships that the docs' commands use (pyproject.toml holds the pytest plugin's ini options).
SHIPPED = ("scenarios", "examples")
SHIPPED_FILES = (".gitignore", "pyproject.toml")
#: A hang guard per command, far above any honest run on a loaded machine.
HANG_S = 600

PHONE = "needs a phone or an emulator through Appium (tests/appium drive Appium's fake driver on 127.0.0.1)"
FARM = "needs a device farm's account and network"
OWN = "runs a file of the reader's own, which a checkout does not ship"
#: Commands the docs show that do not run here, matched from their start, each with why.
NOT_RUN: dict[str, str] = {
    "python3 -m venv .venv && .venv/bin/pip install -e . &&": "the Quickstart's set-up on a fresh machine: "
    "tests/test_docs.py checks it is there, and CI runs the test command on a clean checkout (.ci/run)",
    "python3 -m venv .venv && .venv/bin/pip install -e '.[test]'": "the Quickstart's test set-up: .ci/run runs it",
    "visor run my-app.yaml --runtime appium": PHONE,
    "visor validate bad.yaml": OWN + " (the output shown is what tests/cli/test_validate.py checks)",
    "visor mcp --runtime appium --device emulator-5554": PHONE,
    "visor mcp --no-device --server-url http://127.0.0.1:4723": "serves an Appium server's devices to an agent: "
    "tests/appium serve the fake driver's",
    "visor mcp --no-device --server-url https://hub.example.com": FARM,
    "visor agentcab collect weekly-report.json": OWN + " (an agent's request; `agentcab test` below runs the "
    "shipped examples)",
    "visor agentcab collect slim-coach.json": OWN,
    "visor agentcab act output.json": OWN + " (an agent's answer)",
    "visor discover --runtime appium": PHONE,
    "visor route plan.json": OWN + " (a route plan as the page shows it)",
    "visor route --resume .visor/maps/checkpoints/<map>.<route id>.json": "a checkpoint path the reader fills in",
    "visor map show --app-id com.example.app": "the map of an app discovered on a phone",
    "visor map show .visor/maps/34e6f756e0804baf.json": "a map file named by its digest: the reader's own",
    "export VISOR_SERVER_USERNAME=me": FARM,
    "visor run checkout.yaml --runtime appium --server-url https://hub.farm.example": FARM,
    'visor run "flows/**/*.yaml" checkout.yaml': OWN,
    "pytest -n 8 scenarios/": "eight workers on a 2-core CI machine cost more than they prove: "
    "tests/test_pytest_plugin.py runs `pytest -n 2 scenarios/` from the checkout",
    "visor import maestro flows/": OWN + " (Maestro flows; tests/ext/maestro/test_importer.py imports real ones)",
    "visor run scenarios/login.yaml --runtime appium --env-file scenarios/login.env": PHONE,
    "visor run scenarios/login.yaml --runtime sim --app demo --env-file scenarios/login.env": OWN
    + " (a scenario imported from the reader's Maestro flows, and its dotenv file)",
    "visor run my-flow.yaml --runtime appium --app-id com.example.app": PHONE,
    "visor visualagent serve ./va --runtime appium": PHONE,
    "visor visualagent serve --adb-serial emulator-5554": "needs a phone with the VisualAgent app, over adb",
    "visor run flow.yaml --runtime visualagent --visualagent-dir ./va": OWN,
    "visor run flow.yaml --runtime visualagent --adb-serial": "needs a phone with the VisualAgent app, over adb",
}


@dataclass(frozen=True)
class Command:
    """One command a page shows: where, the shell text, and the exit code it should end with."""

    page: str
    line: int
    text: str

    @property
    def expected(self) -> set[int]:
        """The exit codes the comment names, else 0."""
        found = EXIT.search(self.text.partition(" #")[2])
        return {int(code) for code in re.findall(r"\d+", found.group("codes"))} if found else {0}

    @property
    def why_not(self) -> str | None:
        """Why this command does not run here (None: it runs)."""
        return next((why for start, why in NOT_RUN.items() if self.text.startswith(start)), None)


def page_commands(page: str) -> list[Command]:
    """The commands of a page, in its order: `$ ` lines of console blocks and the lines of sh/bash blocks."""
    found: list[Command] = []
    lang: str | None = None
    pending: tuple[int, str] | None = None
    for number, line in enumerate((ROOT / page).read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if lang is None and fence:
            lang = fence.group("lang")
            continue
        if lang is not None and line.startswith("```"):
            lang = None
            continue
        if lang not in ("console", "sh", "bash", "shell"):
            continue
        if pending is not None:  # a line ending in a backslash goes on here
            text = f"{pending[1]} {line.strip()}"
            start = pending[0]
        elif lang == "console" and line.startswith("$ "):
            text, start = line[2:].strip(), number
        elif lang != "console" and line.strip() and not line.lstrip().startswith("#"):
            text, start = line.strip(), number
        else:
            continue
        pending = (start, text[:-1].rstrip()) if text.endswith("\\") else None
        if pending is None:
            found.append(Command(page, start, text))
    return found


def shown_files(page: str) -> dict[str, str]:
    """The files a page shows whole, by name: a fenced block whose first line names it (`# demo.yaml: ...`)."""
    blocks = re.findall(r"^```\w*\n(.*?)^```", (ROOT / page).read_text(encoding="utf-8"), flags=re.S | re.M)
    return {found.group("name"): block for block in blocks if (found := SHOWN_FILE.match(block))}


@pytest.fixture
def reader(tmp_path: Path) -> Path:
    """A fresh folder with what a checkout ships, as a git work tree (so what is not ignored can be listed)."""
    for name in SHIPPED:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in SHIPPED_FILES:
        shutil.copy(ROOT / name, tmp_path / name)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    return tmp_path


def environment(home: Path) -> dict[str, str]:
    """The environment a reader's shell has: the installed visor first on PATH, nothing of visor's own set."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("VISOR_", "PYTEST_"))}
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}", HOME=str(home),
               NO_COLOR="1", COLUMNS="100")  # fmt: skip
    return env


def not_ignored(folder: Path) -> set[str]:
    """The files in `folder` git neither tracks nor ignores."""
    listed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=folder, check=True,
                            capture_output=True, text=True).stdout  # fmt: skip
    return {line[3:].strip('"') for line in listed.splitlines() if line.startswith("??")}


def asked_for(path: str, commands: list[Command]) -> bool:
    """Whether a command line names `path` (or a folder holding it) as where to write."""
    parts = Path(path).parts
    named = {str(Path(*parts[:n])) for n in range(1, len(parts) + 1)}
    return any(os.path.normpath(token) in named for c in commands for token in re.split(r"[\s=>]+", c.text) if token)


def run_page(page: str, folder: Path) -> list[str]:
    """Run a page's commands in `folder`; return what went wrong, one line each."""
    env = environment(folder / "home")
    (folder / "home").mkdir()
    for name, text in shown_files(page).items():
        (folder / name).write_text(text, encoding="utf-8")
    wrong: list[str] = []
    background: list[subprocess.Popen[bytes]] = []
    ran = [c for c in page_commands(page) if c.why_not is None]
    try:
        for command in ran:
            job = re.fullmatch(r"kill %(\d+).*", command.text)
            if job:
                process = background[int(job.group(1)) - 1]
                process.send_signal(signal.SIGTERM)
                process.wait(timeout=HANG_S)
                continue
            if command.text.rstrip().endswith("&"):
                background.append(subprocess.Popen(["bash", "-c", command.text.rstrip()[:-1]], cwd=folder, env=env,
                                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                                   stderr=subprocess.DEVNULL, start_new_session=True))  # fmt: skip
                continue
            done = subprocess.run(["bash", "-c", command.text], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=HANG_S, check=False)  # fmt: skip
            if done.returncode not in command.expected:
                wrong.append(f"{page}:{command.line}: `{command.text}` exited {done.returncode}, the page says "
                             f"{sorted(command.expected)}: {(done.stderr or done.stdout)[-800:]}")  # fmt: skip
            if crashed(done.stdout, done.stderr):
                wrong.append(f"{page}:{command.line}: `{command.text}` crashed: {done.stderr[-800:]}")
    finally:
        for process in background:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    given = {*shown_files(page), "home"}
    littered = sorted(p for p in not_ignored(folder) if Path(p).parts[0] not in given and not asked_for(p, ran))
    if littered:
        wrong.append(f"{page}: its commands left files git does not ignore and no command asked for: {littered[:8]}")
    return wrong


def crashed(stdout: str, stderr: str) -> bool:
    """Say whether visor crashed: a traceback (--verbose), or the envelope of an internal error (without it)."""
    return "Traceback" in stderr or "internal error" in stderr or '"code": "SYSTEM_ERROR"' in stdout


def test_the_crash_check_sees_a_crash_without_a_traceback() -> None:
    assert crashed('{"error": {"code": "SYSTEM_ERROR", "message": "internal error: KeyError"}}', "")
    assert crashed("", "error: internal error: BadStatusLine")
    assert not crashed('{"enum": ["SYSTEM_ERROR"]}', "")


@pytest.mark.slow
@pytest.mark.parametrize("page", [p for p in PAGES if page_commands(p)])
def test_every_command_a_page_shows_runs_as_the_page_says(page: str, reader: Path) -> None:
    assert run_page(page, reader) == []


def test_every_command_that_does_not_run_says_why_and_is_still_in_the_docs() -> None:
    shown = [c for page in PAGES for c in page_commands(page)]
    assert len(shown) > 60  # the extraction finds the docs' commands
    stale = [start for start in NOT_RUN if not any(c.text.startswith(start) for c in shown)]
    assert stale == [], "listed in NOT_RUN, but no page shows it any more"
    assert all(len(why) > 20 for why in NOT_RUN.values())


if __name__ == "__main__":  # list what runs and what does not: python -m tests.test_doc_commands
    for listed in PAGES:
        for shown in page_commands(listed):
            print(f"{listed}:{shown.line}: {'NOT RUN' if shown.why_not else 'runs'}: {shown.text}")  # noqa: T201
