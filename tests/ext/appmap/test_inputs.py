"""What an app map may type: only the environment variables it declares, and a secret's text never shown.

A crawl declares the variables its annotation fills fields from (`inputs`, each secret or not). An edited map
whose edge fills a field from any other variable is refused before any input, by every way of following it
(`visor route --to`, a run's detour, `route_follow`). A declared secret's text is masked in everything an
agent is shown: the tool results (the screen after a route included), the agent memory, the map itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.ext.appmap.test_crawl import account, crawl_demo  # noqa: F401 (account: the demo's sign-in, for each test)
from tests.ext.appmap.test_mapped_run import SCENARIO
from tests.simkit import demo_device, sim_device
from visor.clock import CountingIds, VirtualClock
from visor.ext.appmap.tools import MapTools
from visor.ext.tools.mcp.session import AgentSession
from visor.ui.secrets import MASK

LOGIN = "id=com.visor.demo:id/login"
SECRET = "s3cret-of-the-host"


@pytest.fixture
def maps(cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOST_SECRET", SECRET)
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    return tmp_path / "maps"


def the_map(folder: Path) -> tuple[Path, dict[str, Any]]:
    path = next(folder.glob("*.json"))
    return path, json.loads(path.read_text())


def fill_from(folder: Path, variable: str, *, declare: dict[str, Any] | None = None) -> None:
    """Edit the map: its sign-in edge types the username from `variable` (declared as `declare` says)."""
    path, document = the_map(folder)
    login = next(edge for edge in document["edges"] if edge["target"] == LOGIN)
    login["args"]["fill"]["username"] = variable
    if declare is not None:
        document["inputs"][variable] = declare
    path.write_text(json.dumps(document))


def agent(folder: Path) -> AgentSession:
    clock = VirtualClock()
    return AgentSession(demo_device(seed=7, clock=clock), clock,
                        extra=MapTools(None, str(folder), VirtualClock(), CountingIds()))  # fmt: skip


def test_a_crawl_declares_the_variables_its_fields_are_filled_from(cli_runner: Cli, maps: Path, tmp_path: Path) -> None:
    path, document = the_map(maps)
    assert document["inputs"] == {"DEMO_PASSWORD": {"secret": True}, "DEMO_USER": {"secret": False}}
    document["inputs"]["DEMO_USER"] = {"secret": True}  # its author says so
    path.write_text(json.dumps(document))
    crawl_demo(cli_runner, tmp_path, "--map-dir", "maps")
    assert the_map(maps)[1]["inputs"]["DEMO_USER"] == {"secret": True}  # a crawl never makes a secret shown


def test_an_undeclared_variable_is_refused_by_every_route_before_any_input(
    cli_runner: Cli, maps: Path, tmp_path: Path
) -> None:
    fill_from(maps, "HOST_SECRET")
    _, before = the_map(maps)
    routed = cli_runner.run("route", "--to", "screen_2", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert routed.exit_code == 1 and routed.envelope["error"]["code"] == "INPUT_ERROR"
    error = routed.envelope["error"]
    edge = next(edge["id"] for edge in before["edges"] if edge["target"] == LOGIN)
    assert error["message"] == (
        f"the app map's edge {edge} fills username from HOST_SECRET, which the map does not declare among its inputs"
    )
    assert '"inputs": {"NAME": {"secret": true}}' in error["next_step"]
    followed = agent(maps).call("route_follow", {"to": "screen_2"})
    assert followed.is_error and followed.result["code"] == "VALIDATION_ERROR"
    assert followed.result["dispatched"] == "none" and "observation" not in followed.result
    (tmp_path / "dark.yaml").write_text(SCENARIO)
    run = cli_runner.run("run", "dark.yaml", "--output", "out", "--map-dir", "maps")
    assert run.exit_code != 0 and "does not declare among its inputs" in json.dumps(run.envelope)
    assert SECRET not in json.dumps([routed.envelope, followed.result, run.envelope])
    _, after = the_map(maps)
    assert after["edges"] == before["edges"]  # nothing demoted: nothing was tried


def test_a_declared_secret_is_masked_in_what_the_agent_sees(maps: Path) -> None:
    """The route types the secret into a plain field: the screen after it, in the tool's result, masks it."""
    fill_from(maps, "HOST_SECRET", declare={"secret": True})
    followed = agent(maps).call("route_follow", {"to": "screen_2"})
    assert followed.result["status"] == "failed"  # the app does not take it as a user name
    shown = json.dumps(followed.result, ensure_ascii=False)
    assert followed.result["observation"] is not None and SECRET not in shown and MASK in shown


def test_a_secret_the_map_holds_is_masked_in_its_memory_and_its_file(cli_runner: Cli, maps: Path) -> None:
    """A map an older visor (or an editor) left holding a secret's text: no answer, no file shows it again."""
    path, document = the_map(maps)
    document["inputs"]["HOST_SECRET"] = {}  # declared with no word on it: a secret
    document["screens"][0]["label"] = f"Signed in as {SECRET}"
    path.write_text(json.dumps(document))
    read = agent(maps).call("map_read", {"full": True})
    assert not read.is_error and SECRET not in json.dumps(read.result)
    assert f"Signed in as {MASK}" in json.dumps(read.result["memory"], ensure_ascii=False)
    discovered = cli_runner.run("discover", "--runtime", "sim", "--seed", "7", "--map-dir", "maps")
    assert discovered.exit_code == 0 and SECRET not in discovered.stdout
    assert SECRET not in path.read_text() and SECRET not in Path(discovered.data["map"]["agent_path"]).read_text()


# -- a secret the app shows back: masked before the screen is read, the part a field keeps too, in pictures too -----

#: An app that shows back what was typed into its one field (cut to `max_length`, as a PIN field keeps six digits).
ECHO_APP = """\
app: {id: com.visor.echo, name: Echo, start: login}
screens:
  login:
    title: Sign in
    elements:
      - {type: field, id: code, hint: Code%s}
      - {type: button, id: go, text: Continue, on_tap: [{if: {filled: code}, then: [{go: home}]}]}
  home:
    title: Home
    elements:
      - {type: text, id: shown, text: "Your code {code}"}
"""


def crawl_echo(cli_runner: Cli, tmp_path: Path, folder: str, variable: str, *, max_length: int | None = None) -> Path:
    """Crawl the echo app, its field filled from `variable` (a secret by its name); return the maps' folder."""
    (tmp_path / "echo.app.yaml").write_text(ECHO_APP % (f", max_length: {max_length}" if max_length else ""))
    (tmp_path / "echo.yaml").write_text(f"screen: {{label: Sign in, purpose: login}}\ninputs: {{code: {variable}}}\n")
    result = cli_runner.run("discover", "--runtime", "sim", "--app", "echo.app.yaml", "--crawl",
                            "--annotate-current", "echo.yaml", "--map-dir", folder)  # fmt: skip
    assert result.exit_code == 0, result.stdout
    assert "Your code" in (tmp_path / folder / next((tmp_path / folder).glob("*.json")).name).read_text()
    return tmp_path / folder


def everything_in(folder: Path) -> str:
    """Return every text file of a maps' folder (the map, its agent memory), lower-cased."""
    return "\n".join(path.read_text().lower() for path in sorted(folder.rglob("*.json")))


def home(folder: Path) -> dict[str, Any]:
    """Return the map's variant of the echo app's home screen (the one showing the code back)."""
    variants = the_map(folder)[1]["variants"]
    return next(v for v in variants if any(e["labels"][:1] == [f"Your code {MASK}"] for e in v["elements"]))


def test_a_secret_shown_back_is_masked_before_the_screens_keys_are_normalized(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys are lower-cased: a secret masked after that was kept as `your code supersecrettok9`."""
    monkeypatch.setenv("ECHO_TOKEN", "SuperSecretTok9")
    first = crawl_echo(cli_runner, tmp_path, "one", "ECHO_TOKEN")
    assert "supersecrettok9" not in everything_in(first)
    assert f"your code {MASK}" in home(first)["element_keys"]
    # The fingerprints are made of the masked keys: another secret gives the same screen, the same identity.
    monkeypatch.setenv("ECHO_TOKEN", "AnotherTokenAltogether")
    second = crawl_echo(cli_runner, tmp_path, "two", "ECHO_TOKEN")
    for name in ("fingerprint", "normalized_fingerprint", "element_keys", "control_keys"):
        assert home(first)[name] == home(second)[name], name


def test_the_part_of_a_secret_a_field_keeps_is_masked_in_the_map_and_in_what_the_agent_sees(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A six-character field keeps `987654` of the PIN `98765432`: the masker alone knew only the whole PIN."""
    monkeypatch.setenv("ECHO_PIN", "98765432")
    folder = crawl_echo(cli_runner, tmp_path, "maps", "ECHO_PIN", max_length=6)
    assert "987654" not in everything_in(folder) and f"your code {MASK}" in home(folder)["element_keys"]
    clock = VirtualClock()
    device = sim_device(str(tmp_path / "echo.app.yaml"), clock=clock)
    session = AgentSession(device, clock, extra=MapTools(None, str(folder), VirtualClock(), CountingIds()))
    followed = session.call("route_follow", {"to": home(folder)["screen_id"]})
    assert followed.result["status"] == "ok" and followed.result["observation"] is not None
    read = session.call("map_read", {"full": True})
    shown = json.dumps([followed.result, read.result], ensure_ascii=False)
    assert "987654" not in shown and f"Your code {MASK}" in shown


def test_a_thumbnail_blanks_where_the_screen_shows_a_secret(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two crawls typing different secrets keep the same pictures: nothing of either is drawn in them."""
    pictures = []
    for number, pin in enumerate(("98765432", "12340000")):
        monkeypatch.setenv("ECHO_PIN", pin)
        folder = crawl_echo(cli_runner, tmp_path, f"maps{number}", "ECHO_PIN", max_length=6)
        pictures.append((folder / home(folder)["thumbnail"]).read_bytes())
    assert pictures[0] == pictures[1]


def test_a_short_part_a_field_keeps_is_masked_as_a_word(
    cli_runner: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three digits kept of the PIN are masked where they stand alone, as the run masks a short kept part."""
    monkeypatch.setenv("ECHO_PIN", "98765432")
    folder = crawl_echo(cli_runner, tmp_path, "maps", "ECHO_PIN", max_length=3)
    assert f"your code {MASK}" in home(folder)["element_keys"] and "your code 987" not in everything_in(folder)
