"""Two `visor visualagent serve` processes on one folder: does any command run twice (issue 23)?

Queues N tap commands, starts two real `serve --once` processes on the folder at the same moment, waits for both,
and counts the commands run more than once: the two envelopes' `processed` added up, less N (a command answered
by both servers is counted by both). Every command must also have exactly one result and be archived once.
Run: python bench/visualagent_two_servers.py [--commands 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def queue(folder: Path, count: int) -> None:
    """Drop `count` tap commands."""
    commands = folder / "commands"
    commands.mkdir(parents=True)
    for number in range(count):
        command = {"id": f"c{number:04d}", "type": "tap", "params": {"x": 540, "y": 800}}
        (commands / f"c{number:04d}.json").write_text(json.dumps(command))


def two_servers(folder: Path) -> list[dict[str, object]]:
    """Serve the folder with two processes started together; return their `data.served`."""
    command = [sys.executable, "-m", "visor", "visualagent", "serve", str(folder), "--runtime", "sim", "--once"]
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    served = []
    for process in processes:
        stdout, stderr = process.communicate(timeout=300)
        envelope = json.loads(stdout)
        assert envelope["status"] == "ok", stderr.decode()
        served.append(envelope["data"]["served"])
    return served


def round_trip(count: int) -> tuple[int, int, int]:
    """One round: return (ran twice, results, archived)."""
    with tempfile.TemporaryDirectory() as root:
        folder = Path(root) / "va"
        queue(folder, count)
        served = two_servers(folder)
        processed = sum(int(str(part["processed"])) for part in served)
        results = len(list((folder / "results").glob("*_result.json")))
        archived = len(list((folder / "commands" / "archive").glob("*.json")))
    return processed - count, results, archived


def main() -> int:
    """Measure and print; exit 1 when a command ran twice or was lost."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commands", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    failed = False
    for number in range(arguments.rounds):
        twice, results, archived = round_trip(arguments.commands)
        print(f"round {number + 1}: {twice} of {arguments.commands} ran twice; {results} results, {archived} archived")
        failed = failed or twice != 0 or results != arguments.commands
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
