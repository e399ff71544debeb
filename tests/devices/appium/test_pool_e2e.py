"""A pool of Appium servers for `visor run --workers`: one server per worker process, results as serial."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.devices.appium.conftest import AppiumServer, start_server
from tests.devices.appium.test_appium_e2e import FAKE_CAPS


@pytest.fixture
def three_servers(tmp_path: Path) -> Iterator[list[AppiumServer]]:
    servers = [start_server(tmp_path / f"appium-{n}.log") for n in range(3)]
    yield servers
    for server in servers:
        server.stop()


def test_three_servers_three_workers_same_results_as_serial(
    cli_runner: Cli, three_servers: list[AppiumServer], tmp_path: Path
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for number in range(9):
        target = "text=Log in" if number % 3 else "text=Nowhere"  # every third fails, the same way everywhere
        (folder / f"s{number}.yaml").write_text(
            f"meta: {{name: fake-{number}, version: '1'}}\nconfig:\n  seed: 1\n  runtime: appium\n{FAKE_CAPS}"
            f"steps:\n  - {{id: look, command: wait, args: {{for: '{target}', timeout: 300}}}}\n"
        )
    urls = [arg for server in three_servers for arg in ("--server-url", server.url)]
    serial = cli_runner.run("run", "scenarios", "--output", "serial", "--server-url", three_servers[0].url)
    pooled = cli_runner.run("run", "scenarios", "--output", "pooled", "--workers", "3", *urls)
    assert pooled.exit_code == serial.exit_code == 2

    def shown(result: object) -> list[tuple[str, str, str]]:
        rows = result.data["suite"]["scenarios"]  # type: ignore[attr-defined]
        return [(row["path"], row["status"], row.get("signature", "")) for row in rows]

    assert shown(pooled) == shown(serial)
    assert [row[1] for row in shown(pooled)].count("failed") == 3
    # Every server of the pool drove sessions: the work was shared out.
    assert all(any("POST /session" in line for line in server.requests()) for server in three_servers)


def test_more_workers_than_servers_is_refused(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(
        "meta: {name: s, version: '1'}\nsteps:\n  - {id: w, command: wait, args: {ms: 1}}\n"
    )
    urls = ("--server-url", "http://127.0.0.1:9", "--server-url", "http://127.0.0.1:10")
    result = cli_runner.run("run", "s.yaml", "--workers", "3", *urls)
    assert result.exit_code == 1 and "--workers 3 needs as many servers: 2" in result.envelope["error"]["message"]
