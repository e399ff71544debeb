"""Helpers for tests that drive the simulated device and the engine in-process."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from visor.clock import VirtualClock
from visor.device.protocol import DeviceInfo, Key, NativeAction, Observation, PathPoint
from visor.engine.events import Event, RunFinished
from visor.engine.results import RunResult
from visor.engine.runner import RunContext, resolve_settings, run_scenario
from visor.errors import SourceError
from visor.inputs.document import Document
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app, resolve_app
from visor.scenario.scenario import Scenario
from visor.scenario.validate import validate_document
from visor.selectors.parse import parse_selector
from visor.ui.geometry import Point
from visor.ui.query import find
from visor.ui.tree import Node

DEMO = resolve_app("demo", ".")


def demo_device(seed: int = 42, clock: VirtualClock | None = None) -> SimDevice:
    """A fresh simulated phone running the demo app."""
    return SimDevice(load_app(DEMO), clock=clock or VirtualClock(), seed=seed)


def scenario_from(doc: dict[str, Any] | str) -> Scenario:
    """Build a valid scenario from a dict or YAML text (fails the test when invalid)."""
    data = yaml.safe_load(doc) if isinstance(doc, str) else doc
    result = validate_document(Document("test.yaml", "yaml", data, {}))
    assert result.scenario is not None, [i.to_dict() for i in result.issues]
    return result.scenario


@dataclass
class MemorySink:
    """Keeps artifacts in memory: the engine's tests need no files."""

    saved: dict[str, bytes] = field(default_factory=dict)
    #: The project's files a step may read (a script, media), by their path relative to the scenario.
    files: dict[str, bytes] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()

    def hide(self, text: str) -> None:
        self.secrets += (text,)

    def save(self, step_number: int, label: str, kind: str, data: bytes) -> str:
        path = f"{kind}s/{step_number:03d}-{label}"
        self.saved[path] = data
        return path

    def copy(self, path: str, data: bytes) -> str:
        self.saved[f"copies/{path}"] = data
        return path

    def read(self, path: str, noun: str) -> bytes:
        if path not in self.files:
            raise SourceError(f"no such {noun}", path=path)
        return self.files[path]


def run(
    doc: dict[str, Any] | str,
    *,
    seed: int | None = None,
    timeout_ms: float | None = None,
    capture: str = "failures",
    app: str = DEMO,
    files: Mapping[str, bytes] | None = None,
) -> tuple[RunResult, list[Event]]:
    """Run a scenario on a fresh device (the demo app unless told); return the result and every event.

    `files` are the project's files its steps may read (scripts, media), by path relative to the scenario.
    """
    scenario = scenario_from(doc)
    settings = resolve_settings(scenario, timeout_ms=timeout_ms, seed=seed, fresh_seed=1234, capture=capture)  # type: ignore[arg-type]
    clock = VirtualClock()
    device = SimDevice(load_app(app), clock=clock, seed=settings.effective_seed)
    events = list(
        run_scenario(
            scenario,
            settings,
            RunContext(device, clock, VirtualClock(), MemorySink(files=dict(files or {})), "run_000000000001"),
        )
    )
    final = events[-1]
    assert isinstance(final, RunFinished)
    return final.result, events


def steps_yaml(*steps: str, assertions: str = "", seed: str = "seed: 42") -> str:
    """A scenario in YAML from step lines such as `{id: a, command: tap, args: {target: "text=Log in"}}`."""
    body = "\n".join(f"  - {step}" for step in steps)
    checks = "\n".join(f"  - {line}" for line in assertions.splitlines() if line.strip())
    return f"meta: {{name: t, version: '1'}}\nconfig: {{{seed}, runtime: sim}}\nsteps:\n{body}\n" + (
        f"assertions:\n{checks}\n" if checks else ""
    )


def find_node(device: SimDevice, selector: str) -> Node | None:
    """The first element on the device's screen matching a selector (`id=…`, `text=…`), if any."""
    found = find(device.observe().tree, parse_selector(selector), platform="android")
    return found[0] if found else None


def the_node(device: SimDevice, selector: str) -> Node:
    """The element on the device's screen matching a selector (fails the test when there is none)."""
    found = find_node(device, selector)
    assert found is not None, f"nothing matches {selector!r}"
    return found


def sim_device(path: str, seed: int = 42, clock: VirtualClock | None = None) -> SimDevice:
    """A fresh simulated phone running the app model at `path`, with the demo app installed too."""
    return SimDevice(load_app(path), clock=clock or VirtualClock(), seed=seed, installed=[load_app(DEMO)])


class Passthrough:
    """A device that hands every call to `inner`: tests subclass it to change one or two calls."""

    def __init__(self, inner: SimDevice) -> None:
        self.inner = inner

    @property
    def info(self) -> DeviceInfo:
        return self.inner.info

    def observe(self) -> Observation:
        return self.inner.observe()

    def screenshot(self) -> bytes:
        return self.inner.screenshot()

    def busy_ms(self) -> int:
        return self.inner.busy_ms()

    def tap(self, point: Point) -> None:
        self.inner.tap(point)

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        self.inner.gesture(fingers)

    def type_text(self, text: str, into: Node | None = None) -> None:
        self.inner.type_text(text, into)

    def press_key(self, key: Key) -> None:
        self.inner.press_key(key)

    def open_url(self, url: str) -> None:
        self.inner.open_url(url)

    def perform(self, node: Node, action: NativeAction) -> None:
        self.inner.perform(node, action)

    def installed_apps(self) -> Mapping[str, str]:
        return self.inner.installed_apps()

    def launch_app(self, app_id: str) -> None:
        self.inner.launch_app(app_id)

    def stop_app(self, app_id: str) -> None:
        self.inner.stop_app(app_id)

    def reset_app(self) -> None:
        self.inner.reset_app()

    def device_data(self) -> Any:
        return self.inner.device_data()

    def close(self) -> None:
        self.inner.close()
