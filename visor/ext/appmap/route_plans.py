"""`visor route PLAN|-`: follow a route plan path by path, checking every step's destination; checkpoint each step.

Upstream's execution (docs/app-map.md), made strict where upstream is loose:

- Before the first action, the plan is checked against the app map: no step may tap a control the map marks
  risky (the plan's `safety: safe` is a claim; the map's safety rules decide), and an `expect.screen` naming
  several screens is refused, saying why. An `expect.screen` the map does not know yet is no typo to fix up
  front (upstream runs such a plan): it is a screen not yet discovered, and the route runs until a step expecting
  it is reached, then ends `needs_discovery` on the screen that step reached (see below).
- Paths are tried in order. A path's `from.selector` must match on the current screen, or the path is skipped.
- Each step runs through the action kernel (the effect is verified, as in `visor run`), then `expect.selector` is
  waited for (`expect.timeout_ms`), and the screen reached must be `expect.screen` (upstream never checks it).
  A step that throws is a `runtime_failure`; one whose expectation does not hold a `verification_failure`;
  either fails the path, and the next is tried.
- The map learns from taps on a target: a step that held records (or strengthens) its edge; a tap that changed
  nothing demotes it; one that went elsewhere records a candidate edge to where it went and demotes a known edge
  whose contract the screen reached does not satisfy.
- After every step a checkpoint (`visor.route-checkpoint.v1`, one file per route, written atomically) holds the
  plan, the current screen and where to resume; `visor route --resume CHECKPOINT` continues from there.
- A step whose `expect.screen` the map does not know runs (action, then `expect.selector` waited for); when both
  held, the route stops there, `needs_discovery`, its checkpoint resuming at the next step: annotate the screen
  reached (`data.rediscovery.observation_token`) with that name, then `--resume`.
- When no path completes: `needs_discovery` (with `rediscover`, the default) and what an agent needs to annotate
  the screen it is on, else `failed`. Both exit 2 (ACTION_ERROR); a completed route exits 0.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from visor.clock import Clock, isoformat
from visor.engine.events import RunFinished
from visor.engine.results import Verdict
from visor.errors import ErrorCode, ErrorInfo, ExitCode, InputError, NextAction
from visor.ext.appmap.discover import write_memory
from visor.ext.appmap.document import Variant
from visor.ext.appmap.memory import CurrentScreen, Gap, MemoryRoute, build_memory, memory_slice
from visor.ext.appmap.model import (
    AppMap,
    MapPlace,
    file_name,
    map_disabled,
    map_lock,
    observation_token,
    read_json,
    read_map,
    record_screen,
    satisfied,
    write_below,
    write_map,
)
from visor.ext.appmap.plan_file import RoutePath, RoutePlan, RouteStep, checked_plan, plan_to_data
from visor.ext.appmap.routes import UNKNOWN_SCREEN, destination, no_map_outcome
from visor.inputs.document import Document
from visor.report.console import printable
from visor.report.envelope import Outcome
from visor.run.config import Environment, RunConfig
from visor.run.direct import run_steps
from visor.runtimes.opening import OpenedDevice, open_for
from visor.selectors.parse import parse_selector
from visor.steps.targets import match_all
from visor.ui.screens import safety
from visor.ui.secrets import redact

CHECKPOINT_SCHEMA = "visor.route-checkpoint.v1"


class StepRecord(TypedDict, total=False):
    """One step of an attempt: what it ran, how it came out, what it expected and what it reached."""

    id: str
    command: str
    #: success, runtime_failure, verification_failure or needs_discovery.
    outcome: str
    duration_ms: int
    expected_screen: str
    expected_selector: str
    observed_screen_id: str
    observed_variant_id: str
    error: str


class Attempt(TypedDict, total=False):
    """One path tried: its steps, and how it ended (completed, skipped, failed, needs_discovery) and why."""

    path_id: str
    status: str
    steps: list[StepRecord]
    reason: str


class RouteScreen(TypedDict):
    """The screen a route is on: its screen, its variant, and the token to annotate it by."""

    screen_id: str
    variant_id: str
    observation_token: str


class Rediscovery(TypedDict):
    """What an agent needs to annotate the screen a route stopped on (`needs_discovery`): the memory's slice of it."""

    created: bool
    next_action: str
    observation_token: str
    agent_path: str
    schema: str
    current_screen: CurrentScreen | None
    routes: list[MemoryRoute]
    gaps: list[Gap]


class RouteData(TypedDict, total=False):
    """A route's `data`: how it ended, every attempt, where it stands, the checkpoint, and the map's part."""

    action: str
    #: completed, needs_discovery or failed.
    status: str
    goal: str
    selected_path: str
    reason: str
    attempts: list[Attempt]
    checkpoint_path: str
    current_screen: RouteScreen
    map: dict[str, object]
    rediscovery: Rediscovery


@dataclass(frozen=True, slots=True)
class Resume:
    """Where a route continues: a path (and the step in it), from a checkpoint."""

    path_id: str | None = None
    step_index: int = 0

    @classmethod
    def of(cls, plan: RoutePlan, resume: Mapping[str, object]) -> Resume:
        """Read a checkpoint's `resume` (a finished or exhausted route starts over from its first path).

        Raises:
            InputError: the route was completed, or the resume names a path the plan does not have.
        """
        if resume.get("complete"):
            raise InputError("this route was completed: there is nothing to resume",
                             next_step="Route again with the plan file to go there once more.")  # fmt: skip
        path_id = resume.get("path_id", resume.get("next_path_id"))
        if path_id is not None and all(path.id != path_id for path in plan.paths):
            raise InputError(f"the checkpoint resumes path {path_id!r}, which its plan does not have",
                             next_step="Route again with the plan file.")  # fmt: skip
        step = resume.get("next_step_index", 0) if "path_id" in resume else 0
        # A path id the plan has is one of its paths' (a string): anything else was refused above.
        return cls(path_id if isinstance(path_id, str) else None, step if isinstance(step, int) and step >= 0 else 0)


@dataclass
class Checkpoint:
    """A route's checkpoint: its plan, where it stands, what was tried (rewritten after every step)."""

    path: str
    plan: RoutePlan
    #: The folder the checkpoint is written below (the maps' root for the default place; else its own folder).
    root: str | None = None
    status: str = "running"
    selected_path: str | None = None
    current: RouteScreen | None = None
    resume: dict[str, object] = field(default_factory=dict)
    attempts: list[Attempt] = field(default_factory=list)

    def write(self, wall: Clock, secrets: Collection[str] = ()) -> None:
        """Write it atomically, in its folder and never through a link, `secrets` masked.

        Raises:
            InputError: the file cannot be written.
        """
        data: dict[str, object] = {"schema": CHECKPOINT_SCHEMA, "goal": self.plan.goal, "status": self.status,
                                "plan": plan_to_data(self.plan)}  # fmt: skip
        data.update({key: value for key, value in (("selected_path", self.selected_path), ("current", self.current))
                     if value is not None})  # fmt: skip
        data.update({"resume": self.resume, "updated_at": isoformat(wall.now()), "attempts": self.attempts})
        text = json.dumps(redact(data, secrets), indent=2) + "\n"
        root = self.root or os.path.dirname(self.path)
        write_below(root, os.path.relpath(self.path, root), text.encode("utf-8"), "route checkpoint")


def read_checkpoint(path: str) -> tuple[RoutePlan, Resume]:
    """Read a checkpoint to resume: its plan (checked again) and where to go on.

    Raises:
        InputError: it cannot be read, is not a route checkpoint, or holds an invalid plan.
    """
    data = read_json(path, "route checkpoint", next_step="Give the checkpoint_path a route reported.")
    if not isinstance(data, dict) or data.get("schema") != CHECKPOINT_SCHEMA:
        raise InputError(f"{path} is not a route checkpoint (schema {CHECKPOINT_SCHEMA})",
                         next_step="Give the checkpoint_path a route reported.")  # fmt: skip
    plan = checked_plan(Document(path, "json", data.get("plan"), {}))
    resume = data.get("resume")
    return plan, Resume.of(plan, resume if isinstance(resume, dict) else {})


def checkpoint_path(place: MapPlace, route_id: str) -> str:
    """Return where a route's checkpoint goes: `<map root>/checkpoints/<map digest>.<route id>.json`."""
    root, name = os.path.split(place.path)
    return os.path.join(root, "checkpoints", f"{name.removesuffix('.json')}.{file_name(route_id)}.json")


def follow_plan(
    plan: RoutePlan,
    options: RunConfig,
    env: Environment,
    *,
    map_dir: str | None,
    no_map: bool = False,
    resume: Resume | None = None,
    checkpoint: str | None = None,
) -> Outcome:
    """Follow a route plan on the device the options open; return the route's outcome.

    Raises:
        InputError: the plan names a screen several screens share, or taps a risky control.
        TargetError: the device cannot be reached, or the map is locked.
    """
    if map_disabled(no_map):
        return no_map_outcome(plan.goal)
    opened = open_for(options.device, options.seed or 0, env.wall)
    try:
        place = MapPlace.of_device(opened.device.info, options.device.app_id, map_dir)
        return follow_plan_on(opened, place, plan, env, seed=options.seed or 0, resume=resume, checkpoint=checkpoint,
                              timeout_ms=options.timeout_ms)  # fmt: skip
    finally:
        opened.device.close()


def follow_plan_on(
    opened: OpenedDevice,
    place: MapPlace,
    plan: RoutePlan,
    env: Environment,
    *,
    seed: int = 0,
    resume: Resume | None = None,
    checkpoint: str | None = None,
    secrets: Collection[str] = (),
    kept: set[str] | None = None,
    timeout_ms: float | None = None,
) -> Outcome:
    """Follow a route plan on an open device (left open), through the map at `place`; `secrets` are never shown.

    `kept`, when given, gains what the route's fields showed of the secrets typed into them (`AppMap.kept`), as
    `visor.ext.appmap.routes.route_on`'s does. `timeout_ms` is each step's action timeout (`--timeout`; None:
    upstream's 2500 ms); the wait after it keeps its `expect.timeout_ms`.

    Raises:
        InputError: the plan names a screen several screens share, or taps a risky control.
        TargetError: the map is locked by another process.
    """
    with map_lock(place, sleep=time.sleep, now=time.monotonic):
        app_map = read_map(place, env.wall, secrets=secrets)
        screens = check_against_map(plan, app_map)
        if checkpoint is not None:
            record = Checkpoint(os.path.abspath(checkpoint), plan)
        else:  # below the maps' root: a link planted at its checkpoints folder is not followed either
            record = Checkpoint(checkpoint_path(place, env.ids.new_id("route")), plan, os.path.dirname(place.path))
        follower = _Follower(opened, env, app_map, record, seed, timeout_ms)
        try:
            data = follower.follow(screens, resume or Resume())
        finally:
            write_map(app_map, env.wall)
            if kept is not None:
                kept |= app_map.kept
        memory = app_map.masked(build_memory(app_map.document))
        data = app_map.masked(data)
        variant = follower.seen
    agent_path = write_memory(place, memory)
    data["map"] = place.metadata(used=True, updated=True, agent_path=agent_path)
    if data["status"] == "completed":
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK)
    if data["status"] == "needs_discovery":
        sliced = memory_slice(memory, variant.id)
        data["rediscovery"] = {"created": variant.observations == 1, "next_action": "annotate_current",
                               "observation_token": data["current_screen"]["observation_token"],
                               "agent_path": agent_path, "schema": sliced["schema"],
                               "current_screen": sliced["current_screen"], "routes": sliced["routes"],
                               "gaps": sliced["gaps"]}  # fmt: skip
        if data["attempts"] and data["attempts"][-1]["status"] == "needs_discovery":
            token, saved = data["current_screen"]["observation_token"], data["checkpoint_path"]
            return _failed(
                data,
                "Route needs discovery",
                data["reason"],
                likely_cause="The plan expects a screen the app map has not learnt yet (no screen of that name).",
                next_step=f"Annotate the screen reached with that name (visor discover --observation-token {token} "
                f"--annotate-current NOTE), then go on: visor route --resume {saved}.",
            )
        return _failed(data, "Route needs discovery", data["reason"])
    return _failed(data, "Route failed", data["reason"])


def _failed(
    data: RouteData,
    title: str,
    reason: str,
    *,
    likely_cause: str = "The app no longer goes where the plan says, or the plan starts from another screen.",
    next_step: str = "Look at data.attempts for the step that failed; annotate or crawl the current screen "
    "(visor discover --crawl), then route again (or --resume the checkpoint).",
) -> Outcome:
    error = ErrorInfo(code=str(ErrorCode.ACTION_ERROR), message=f"{title}: {reason}", likely_cause=likely_cause,
                      next_step=printable(next_step))  # fmt: skip
    return Outcome("fail", NextAction.RUN, data, ExitCode.RUN_FAILED, error)


def check_against_map(plan: RoutePlan, app_map: AppMap) -> dict[str, set[str] | None]:
    """Return the variants each `expect.screen` names (None: a screen the map does not know yet); refuse risky taps.

    Raises:
        InputError: a screen's name is shared by several screens, or a step taps a risky control.
    """
    risky = {element.selector for variant in app_map.document.variants for element in variant.elements
             if element.safety == "risky"}  # fmt: skip
    screens: dict[str, set[str] | None] = {}
    for path in plan.paths:
        for step in path.steps:
            target = step.args.get("target")
            if step.command == "tap" and (target in risky or safety([str(target)], "", True) == "risky"):
                raise InputError(
                    printable(f"route plan step {path.id}/{step.id} taps {target}, which is risky"),
                    likely_cause="The control deletes, pays, sends, logs out or confirms something.",
                    next_step="Route around it; visor never follows a route through a risky control.",
                )
            if step.expect.screen not in screens:
                screens[step.expect.screen] = _known(app_map, step.expect.screen)
    return screens


def _known(app_map: AppMap, screen: str) -> set[str] | None:
    """Return the variants a screen's name names, None when the map does not know it yet (not yet discovered).

    Raises:
        InputError: the name is shared by several screens (the plan must say which).
    """
    try:
        return destination(app_map, screen)
    except InputError as exc:
        if UNKNOWN_SCREEN in exc.details:
            return None
        raise


class _Follower:
    """Follows one plan on one device, recording into the map and the checkpoint."""

    def __init__(
        self,
        opened: OpenedDevice,
        env: Environment,
        app_map: AppMap,
        record: Checkpoint,
        seed: int,
        timeout_ms: float | None = None,
    ) -> None:
        self.opened = opened
        self.env = env
        self.map = app_map
        self.record = record
        self.seed = seed
        self.timeout_ms = timeout_ms
        #: The variant the device showed when last looked at (`_observe`, the first thing `follow` does).
        self.variant: Variant | None = None

    @property
    def seen(self) -> Variant:
        """Return the variant the device showed when last looked at."""
        assert self.variant is not None, "a route looks at the screen before anything else"
        return self.variant

    def follow(self, screens: Mapping[str, set[str] | None], resume: Resume) -> RouteData:
        """Try the paths in order (from where `resume` says); return `data` (the map's part still to add)."""
        record = self.record
        self._observe()
        paths = list(self.record.plan.paths)
        if resume.path_id is not None:
            paths = paths[[path.id for path in paths].index(resume.path_id) :]
        for number, path in enumerate(paths):
            first_step = resume.step_index if number == 0 and resume.path_id == path.id else 0
            attempt = self._attempt(path, screens, first_step, skip_start=first_step > 0)
            record.attempts.append(attempt)
            if attempt["status"] == "completed":
                record.status, record.selected_path, record.resume = "completed", path.id, {"complete": True}
                self._save()
                return self._data("completed", None)
            if attempt["status"] == "needs_discovery":
                # The step's resume (the next step of this path) is kept: annotated, the route goes on from there.
                record.status, record.resume = "needs_discovery", {**record.resume, "requires_discovery": True}
                self._save()
                return self._data(record.status, attempt["reason"])
            following = paths[number + 1] if number + 1 < len(paths) else None
            record.resume = {"next_path_id": following.id} if following else {}
            self._save()
        if record.plan.rediscover:
            record.status, record.resume = "needs_discovery", {"requires_discovery": True}
            reason = "No supplied route path matches the rediscovered current state"
        else:
            record.status, record.resume = "failed", {"exhausted": True}
            reason = "All supplied route paths failed or were skipped"
        self._save()
        return self._data(record.status, reason)

    def _attempt(
        self, path: RoutePath, screens: Mapping[str, set[str] | None], first: int, skip_start: bool
    ) -> Attempt:
        """Follow one path; return its attempt record (`needs_discovery`: it reached a screen the map lacks)."""
        steps: list[StepRecord] = []
        attempt: Attempt = {"path_id": path.id, "status": "completed", "steps": steps}
        if path.from_ is not None and not skip_start:
            observation = self.opened.device.observe()
            found = match_all(observation, parse_selector(path.from_.selector), self.opened.device.info.platform)
            if not found:
                reason = f"Current screen does not match '{path.from_.selector}'"
                return {**attempt, "status": "skipped", "reason": reason}
        for index, step in enumerate(path.steps[first:], start=first):
            result = self._step(step, screens[step.expect.screen])
            steps.append(result)
            if result["outcome"] not in ("success", "needs_discovery"):
                return {**attempt, "status": "failed", "reason": result["error"]}
            self.record.resume = {"path_id": path.id, "next_step_index": index + 1}
            if result["outcome"] == "needs_discovery":
                reason = f"Step {path.id}/{step.id} reached {result['error']}"
                return {**attempt, "status": "needs_discovery", "reason": printable(reason)}
            self._save()
        return attempt

    def _step(self, step: RouteStep, goals: set[str] | None) -> StepRecord:
        """Run one step and check where it led; return its record.

        `goals` None: the map does not know the screen expected yet. A step whose action and selector held is then
        `needs_discovery` (the screen reached may be it: only an annotation can say), and its tap a candidate edge.
        """
        before = self.seen
        wait = {"for": step.expect.selector, "timeout": step.expect.timeout_ms}
        steps = [{"id": step.id, "command": step.command, "args": step.args},
                 {"id": f"{step.id}-expect", "command": "wait", "args": wait}]  # fmt: skip
        final = run_steps(f"route step {step.id}", steps, self.opened, self.env, self.seed, self.timeout_ms)
        after = self._observe()
        out: StepRecord = {"id": step.id, "command": step.command, "outcome": "success",
                               "duration_ms": sum(result.duration_ms for result in final.result.steps),
                               "expected_screen": step.expect.screen, "expected_selector": step.expect.selector,
                               "observed_screen_id": after.screen_id,
                               "observed_variant_id": after.id}  # fmt: skip
        failure = _failure(final)
        if failure is not None and failure[0] == "action":
            return {**out, "outcome": "runtime_failure", "error": failure[1]}
        reached = printable(f"{after.screen_id} ({after.id})")
        if failure is None and goals is not None and after.id not in goals:
            failure = ("expect", f"expected screen '{step.expect.screen}', reached {reached}")
        target = step.args.get("target") if step.command == "tap" else None
        if isinstance(target, str):
            self._learn(before, after, target, held=failure is None and goals is not None)
        if failure is None and goals is None:
            unknown = f"{reached}, expecting screen {step.expect.screen!r}, which the app map does not know yet"
            return {**out, "outcome": "needs_discovery", "error": printable(unknown)}
        return out if failure is None else {**out, "outcome": "verification_failure", "error": failure[1]}

    def _learn(self, before: Variant, after: Variant, target: str, *, held: bool) -> None:
        """Teach the map what a tap on `target` did (see the module's docstring)."""
        now = isoformat(self.env.wall.now())
        known = self.map.edge_from(before.id, target)
        if known is not None and known.args.fill:
            return  # the map's edge fills fields before its tap and this step did not: not the same action
        moved = after.id != before.id
        if held or (known is None and moved):
            self.map.record_tap(before.id, after, target, now, candidate=not held)
        elif known is not None and not (moved and satisfied(known.destination_contract, after)):
            self.map.learn(known, False, now)  # no visible effect, or not where the edge leads

    def _save(self) -> None:
        """Write the checkpoint, the map's secrets masked."""
        self.record.write(self.env.wall, self.map.secrets())

    def _observe(self) -> Variant:
        self.variant, _ = record_screen(self.map, self.opened.device, isoformat(self.env.wall.now()))
        self.record.current = self._current()
        return self.variant

    def _current(self) -> RouteScreen:
        variant = self.seen
        return {"screen_id": variant.screen_id, "variant_id": variant.id,
                "observation_token": observation_token(self.map, variant)}  # fmt: skip

    def _data(self, status: str, reason: str | None) -> RouteData:
        record = self.record
        data: RouteData = {"action": "route", "status": status, "goal": record.plan.goal}
        if record.selected_path is not None:
            data["selected_path"] = record.selected_path
        if reason is not None:
            data["reason"] = reason
        data.update({"attempts": record.attempts, "checkpoint_path": record.path, "current_screen": self._current()})
        return data


def _failure(final: RunFinished) -> tuple[str, str] | None:
    """Return which step of a route step's run failed (`action` or `expect`) and why; None when both held."""
    if final.reason is not None:
        return "action", final.reason.message
    for number, result in enumerate(final.result.steps):
        if result.status is not Verdict.PASSED:
            message = result.error.message if result.error is not None else f"{result.command} did not hold"
            return ("action", message) if number == 0 else ("expect", f"Expected selector did not match: {message}")
    return None
