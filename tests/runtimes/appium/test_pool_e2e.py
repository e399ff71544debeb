"""A pool of Appium servers for `visor run --workers`: one server per worker process, results as serial."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Cli
from tests.runtimes.appium.conftest import AppiumServer, start_server
from tests.runtimes.appium.test_appium_e2e import FAKE_CAPS


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
    assert (
        result.exit_code == 1
        and "--workers 3 needs as many devices: a pool of 2" in result.envelope["error"]["message"]
    )


def _scenarios(folder: Path, count: int) -> None:
    folder.mkdir()
    for number in range(count):
        (folder / f"s{number}.yaml").write_text(
            f"meta: {{name: fake-{number}, version: '1'}}\nconfig:\n  seed: 1\n  runtime: appium\n{FAKE_CAPS}"
            "steps:\n  - {id: look, command: wait, args: {for: 'text=Log in', timeout: 300}}\n"
        )


def test_a_lost_server_moves_its_scenarios_to_the_others_and_says_so(
    cli_runner: Cli, three_servers: list[AppiumServer], tmp_path: Path
) -> None:
    _scenarios(tmp_path / "scenarios", 6)
    dead = "http://127.0.0.1:9"  # nothing listens on the discard port: the device is lost at its first session
    urls = ("--server-url", three_servers[0].url, "--server-url", dead, "--server-url", three_servers[1].url)
    result = cli_runner.run("run", str(tmp_path / "scenarios"), "--output", str(tmp_path / "out"), "--workers", "3",
                            *urls)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    rows = result.data["suite"]["scenarios"]
    assert [row["status"] for row in rows] == ["passed"] * 6
    moved = [row for row in rows if "moved" in row]
    assert len(moved) == 1 and moved[0]["moved"][0]["from"] == f"server {dead}"
    assert moved[0]["moved"][0]["error"]["code"] == "TARGET_ERROR"
    assert "moved off server http://127.0.0.1:9" in result.stderr
    assert result.data["suite"]["workers"]["pool"] == [f"server {url}" for url in urls[1::2]]


def test_a_spare_of_the_pool_takes_over_a_lost_device_in_the_same_worker(
    cli_runner: Cli, three_servers: list[AppiumServer], tmp_path: Path
) -> None:
    _scenarios(tmp_path / "scenarios", 3)
    urls = ("--server-url", "http://127.0.0.1:9", "--server-url", three_servers[2].url)
    result = cli_runner.run("run", str(tmp_path / "scenarios"), "--output", str(tmp_path / "out"), "--workers", "1",
                            *urls)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    rows = result.data["suite"]["scenarios"]
    assert [row["status"] for row in rows] == ["passed"] * 3
    assert "moved" in rows[0] and all("moved" not in row for row in rows[1:])  # the spare stayed in use


def test_when_every_device_is_lost_the_scenarios_fail_saying_so(cli_runner: Cli, tmp_path: Path) -> None:
    _scenarios(tmp_path / "scenarios", 2)
    urls = ("--server-url", "http://127.0.0.1:9", "--server-url", "http://127.0.0.1:10")
    result = cli_runner.run("run", str(tmp_path / "scenarios"), "--output", str(tmp_path / "out"), "--workers", "2",
                            *urls)  # fmt: skip
    assert result.exit_code == 1
    rows = result.data["suite"]["scenarios"]
    assert [row["status"] for row in rows] == ["error", "error"]
    assert all(row["error"]["message"].startswith("every device of the pool was lost") for row in rows)
    assert all(row["error"]["code"] == "TARGET_ERROR" and row["moved"] for row in rows)


def test_devices_sharing_one_server_get_host_ports_of_their_own(
    cli_runner: Cli, three_servers: list[AppiumServer], tmp_path: Path
) -> None:
    _scenarios(tmp_path / "scenarios", 4)
    server = three_servers[0]
    result = cli_runner.run("run", str(tmp_path / "scenarios"), "--output", str(tmp_path / "out"), "--workers", "2",
                            "--server-url", server.url, "--device", "phone-a", "--device", "phone-b")  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert result.data["suite"]["workers"]["pool"] == [f"device phone-a on server {server.url}",
                                                       f"device phone-b on server {server.url}"]  # fmt: skip
    log = server.log.read_text(errors="replace")
    assert '"appium:udid":"phone-a"' in log.replace(" ", "") and '"appium:udid":"phone-b"' in log.replace(" ", "")
    assert '"appium:systemPort":8200' in log.replace(" ", "") and '"appium:systemPort":8201' in log.replace(" ", "")
