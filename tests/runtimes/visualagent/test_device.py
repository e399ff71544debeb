"""The visualagent runtime's device: every input is one command file, answered by an agent serving the folder."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.simkit import demo_device
from visor.clock import SystemClock, VirtualClock
from visor.device.observer import ObservingDevice
from visor.device.protocol import InputRejected, Key, NativeAction, NativeActionName, PathPoint, UnsupportedInput
from visor.errors import TargetError
from visor.ext.visualagent.protocol import Executor, Folders, ServeKernel
from visor.ext.visualagent.serve import RealTime, serve
from visor.runtimes.visualagent.device import VisualAgentDevice
from visor.runtimes.visualagent.mailbox import LocalMailbox
from visor.ui.geometry import Point, Rect
from visor.ui.secrets import MASK
from visor.ui.tree import Node


class Agent:
    """`visor visualagent serve` on the simulated phone, in a thread, until the test ends."""

    def __init__(self, folder: Path) -> None:
        clock = VirtualClock()
        self.phone = demo_device(clock=clock)
        self.folders = Folders(str(folder))
        self.executor = Executor(ServeKernel(ObservingDevice.wrap(self.phone, clock), clock, 100_000), self.folders)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        real = RealTime(SystemClock().monotonic_us, lambda us: self.stop.wait(us / 1_000_000))
        while not self.stop.is_set():
            serve(self.folders, self.executor, VirtualClock(), real, once=True)
            self.stop.wait(0.002)

    def commands(self) -> list[dict[str, Any]]:
        archive = Path(self.folders.archive)
        return [json.loads(path.read_text()) for path in sorted(archive.glob("*.json"))]


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[Agent]:
    served = Agent(tmp_path / "va")
    yield served
    served.stop.set()
    served.thread.join(timeout=30)


def test_opening_takes_a_screenshot_to_learn_the_screen(agent: Agent, tmp_path: Path) -> None:
    device = VisualAgentDevice(LocalMailbox(str(tmp_path / "va")), SystemClock())
    assert device.info.size.width == 1080 and device.info.size.height == 1920
    assert device.info.runtime == "visualagent" and not device.info.capabilities.ui_tree
    assert device.observe().tree.roots == ()  # the protocol shows no UI tree
    first = agent.commands()[0]
    assert first["type"] == "screenshot"
    assert first["params"]["path"].startswith("/sdcard/VisualAgent/results/screenshot_visor-")


def test_inputs_become_the_protocols_commands(agent: Agent, tmp_path: Path) -> None:
    device = VisualAgentDevice(LocalMailbox(str(tmp_path / "va")), SystemClock())
    device.tap(Point(540, 464))
    device.type_text("ada")
    device.gesture([[PathPoint(540, 1500, 0), PathPoint(540, 700, 400)]])
    device.launch_app("com.visor.demo")
    sent = [(command["type"], command["params"]) for command in agent.commands()[1:]]
    assert sent == [
        ("tap", {"x": 540, "y": 464}),
        ("input", {"text": MASK}),  # as the archive keeps it: an input's text is masked there
        ("swipe", {"x1": 540, "y1": 1500, "x2": 540, "y2": 700, "duration_ms": 400}),
        ("start_app", {"package": "com.visor.demo"}),
    ]
    assert agent.phone.observe().tree.focused().text == "ada"  # type: ignore[union-attr]
    ids = [command["id"] for command in agent.commands()]
    assert len(set(ids)) == len(ids)


def test_what_the_protocol_cannot_express_is_refused_without_sending(agent: Agent, tmp_path: Path) -> None:
    device = VisualAgentDevice(LocalMailbox(str(tmp_path / "va")), SystemClock())
    node = Node("android.widget.Button", Rect(0, 0, 10, 10))
    refusals = [
        lambda: device.press_key(Key.BACK),
        lambda: device.open_url("demo://feed"),
        lambda: device.perform(node, NativeAction(NativeActionName.CLICK)),
        lambda: device.stop_app("com.visor.demo"),
        device.reset_app,
        lambda: device.type_text("x", into=node),
        lambda: device.gesture(
            [[PathPoint(1, 1, 0), PathPoint(5, 5, 100)], [PathPoint(9, 9, 0), PathPoint(1, 1, 100)]]
        ),
        lambda: device.gesture([[PathPoint(1, 1, 0), PathPoint(5, 5, 100), PathPoint(9, 9, 200)]]),
    ]
    for refused in refusals:
        with pytest.raises(UnsupportedInput, match="five commands"):
            refused()
    assert len(agent.commands()) == 1  # only the first screenshot was sent


def test_an_agents_error_answer_is_a_rejected_input_naming_its_code(agent: Agent, tmp_path: Path) -> None:
    device = VisualAgentDevice(LocalMailbox(str(tmp_path / "va")), SystemClock())
    with pytest.raises(InputRejected, match="COORDINATE_OUT_OF_BOUNDS") as off_screen:
        device.tap(Point(5000, 10))
    assert off_screen.value.details["visualagent_error"]["code"] == "COORDINATE_OUT_OF_BOUNDS"
    with pytest.raises(InputRejected, match="APP_NOT_FOUND"):
        device.launch_app("com.nope")


def test_no_agent_means_a_target_error_after_the_wait(tmp_path: Path) -> None:
    with pytest.raises(TargetError, match="no result for screenshot command") as failure:
        VisualAgentDevice(LocalMailbox(str(tmp_path / "va")), VirtualClock(), answer_wait_us=2_000_000)
    assert "visualagent serve" in failure.value.next_step


def test_ids_never_reuse_one_that_has_a_result(tmp_path: Path) -> None:
    clock = VirtualClock()
    taken = f"visor-{clock.now():%Y%m%dT%H%M%S%f}"
    results = tmp_path / "va" / "results"
    results.mkdir(parents=True)
    (results / f"{taken}-00001_result.json").write_text("{}")
    mailbox = LocalMailbox(str(tmp_path / "va"))
    with pytest.raises(TargetError):  # nobody answers; what matters is the id it sent
        VisualAgentDevice(mailbox, clock, answer_wait_us=10_000)
    sent = [path.stem for path in (tmp_path / "va" / "commands").glob("*.json")]
    assert sent == [f"{taken}.2-00001"]


class HostileAgent:
    """Answers each command in the folder with `plant(result_path, command)`, in a thread, until stopped."""

    def __init__(self, folder: Path, plant: Callable[[Path, dict[str, Any]], None]) -> None:
        self.folder, self.plant = folder, plant
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._answer, daemon=True)
        self.thread.start()

    def _answer(self) -> None:
        seen: set[str] = set()
        while not self.stop.is_set():
            for path in sorted((self.folder / "commands").glob("*.json")):
                if path.name not in seen:
                    seen.add(path.name)
                    command = json.loads(path.read_text())
                    self.plant(self.folder / "results" / f"{command['id']}_result.json", command)
            self.stop.wait(0.005)


def _open_within(folder: Path, plant: Callable[[Path, dict[str, Any]], None]) -> VisualAgentDevice | BaseException:
    """Open a device on the folder an agent answers with `plant`, bounded: return it, or what it raised."""
    agent = HostileAgent(folder, plant)
    outcome: list[VisualAgentDevice | BaseException] = []

    def open_device() -> None:
        try:
            outcome.append(VisualAgentDevice(LocalMailbox(str(folder)), SystemClock(), answer_wait_us=10_000_000))
        except BaseException as exc:  # the test looks at whatever it raised
            outcome.append(exc)

    thread = threading.Thread(target=open_device, daemon=True)
    thread.start()
    thread.join(timeout=30)
    agent.stop.set()
    assert not thread.is_alive(), "reading the agent's result hung"
    return outcome[0]


def _hostile_result(kind: str) -> Callable[[Path, dict[str, Any]], None]:
    def plant(result: Path, command: dict[str, Any]) -> None:
        if kind == "fifo":
            os.mkfifo(result)
        elif kind == "folder":
            result.mkdir()
        elif kind == "deep":
            result.write_text("[" * 100_000 + "]" * 100_000)
        elif kind == "huge":
            with open(result, "wb") as file:
                file.truncate(20 * 1024 * 1024)
        elif kind == "link":
            host = result.parent.parent.parent / "host.json"
            host.write_text('{"status": "success", "result": {}}')
            result.symlink_to(host)
        else:
            result.write_text("[1, 2]")

    return plant


@pytest.mark.parametrize("kind", ["fifo", "folder", "deep", "huge", "link", "not-an-object"])
def test_a_hostile_result_is_a_target_error_naming_it_never_a_hang_or_a_crash(tmp_path: Path, kind: str) -> None:
    raised = _open_within(tmp_path / "va", _hostile_result(kind))
    assert isinstance(raised, TargetError), raised
    assert "answered a result visor cannot read" in raised.message and "_result.json" in raised.message


def test_a_result_still_being_written_is_read_again_until_whole(tmp_path: Path) -> None:
    """An agent that writes its result in place, slowly: the half-written file is waited for, then read."""
    shot = demo_device().screenshot()

    def slowly(result: Path, command: dict[str, Any]) -> None:
        result.write_text('{"id": "x", "status": "succ')
        time.sleep(0.2)
        relative = command["params"]["path"].removeprefix("/sdcard/VisualAgent/")
        (result.parent.parent / relative).write_bytes(shot)
        result.write_text(json.dumps({"status": "success", "result": {}}))

    device = _open_within(tmp_path / "va", slowly)
    assert isinstance(device, VisualAgentDevice) and device.info.size.width == 1080


def test_a_command_file_is_this_users_only_from_its_creation(tmp_path: Path) -> None:
    """An input's text (a password, maybe) is in its command file: never readable by another user, not even briefly."""
    mailbox = LocalMailbox(str(tmp_path / "va"))
    previous = os.umask(0o022)  # the usual umask: files 0644
    try:
        mailbox.send("c-1", json.dumps({"id": "c-1", "type": "input", "params": {"text": "hunter2"}}).encode())
    finally:
        os.umask(previous)
    assert (tmp_path / "va" / "commands" / "c-1.json").stat().st_mode & 0o777 == 0o600
    assert os.umask(previous) == previous  # the process's umask is left as it was
