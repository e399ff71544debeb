"""The app map for agents over MCP: `map_read`, `route_plan`, `route_follow`.

An agent that has seen an app should not explore it again. These three tools give it the map `visor discover`
learnt, in the compact, agent-safe form of the agent memory (`visor.agent-memory.v1`), and the routes through it:

- `map_read`: where the app is now (the current screen matched against the map, nothing written) with the
  routes into and out of it and the map's gaps; `{"screen": ...}` reads another screen, `{"full": true}` the
  whole memory.
- `route_plan`: the route `route_follow` would take to a screen, without touching the app.
- `route_follow`: go there: `{"to": SCREEN}` (the shortest safe route, as `visor route --to`), or `{"plan": {...}}`
  (a route plan, as `visor route PLAN`: checked first, every step verified and checkpointed).

Results take the tools' shape (`tool, status, dispatched, code, message`) with the map's data beside it. A call
the map cannot answer (no map yet, an unknown screen) is refused with a hint, having sent nothing: a screen the
map does not have is NOT_FOUND from all three tools, a label several screens share AMBIGUOUS. A route plan is the
exception, as `visor route PLAN` is: a step expecting a screen the map does not know yet is a screen not yet
discovered, so the plan runs and ends `needs_discovery` there (`route_status`, and the observation token to
annotate in `rediscovery`). The text of the map's secret inputs (and of any secret given) is masked in every
result.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from visor.clock import Clock, IdSource
from visor.device.protocol import Device
from visor.errors import InputError, VisorError
from visor.ext.appmap.document import Variant
from visor.ext.appmap.memory import build_memory, memory_slice
from visor.ext.appmap.model import AppMap, MapPlace, map_lock, read_map
from visor.ext.appmap.plan_file import checked_plan
from visor.ext.appmap.route_plans import follow_plan_on
from visor.ext.appmap.routes import (
    AMBIGUOUS_SCREEN,
    NO_ROUTE,
    UNKNOWN_SCREEN,
    destination,
    plan,
    require_inputs,
    route_on,
)
from visor.inputs.document import Document
from visor.jsontypes import JsonObject, JsonValue
from visor.report.console import printable
from visor.report.envelope import Outcome
from visor.report.session_tools import Reply, reply
from visor.run.config import Environment
from visor.runtimes.opening import OpenedDevice
from visor.scenario.schema import schema_issue
from visor.ui.secrets import redact

_SCREEN: JsonObject = {"type": "string", "minLength": 1, "maxLength": 200,
           "description": "A screen: its id (screen_3), a variant id (variant_4) or its name (its label, else the "
                          "first words it shows, as map show draws it)."}  # fmt: skip
DEFINITIONS: list[JsonObject] = [
    {
        "name": "map_read",
        "description": "Read the app map visor learnt (visor discover): the current screen, the routes into and "
        "out of it and the map's gaps, in the compact agent memory form. Sends no input. Read it before exploring: "
        "an app already mapped needs no exploring.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "screen": {**_SCREEN, "description": "Read this screen instead of the current one."},
                "full": {"type": "boolean", "description": "Return the whole memory: every screen and route."},
            },
        },
    },
    {
        "name": "route_plan",
        "description": "Plan the shortest safe route through the app map from the current screen to another. "
        "Sends no input; route_follow takes the same route.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "required": ["to"],
            "properties": {"to": _SCREEN},
        },
    },
    {
        "name": "route_follow",
        "description": "Go to a screen through the app map (to), or follow a route plan (plan: {goal, paths: "
        "[{id, from?, steps: [{id, command, args, safety: 'safe', expect: {screen, selector}}]}]}). Every step is "
        "verified; a failed leg is demoted in the map and reported.",
        "inputSchema": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"to": _SCREEN, "plan": {"type": "object", "description": "A route plan (see above)."}},
        },
    },
]


def _name(definition: Mapping[str, JsonValue]) -> str:
    """Return a map tool's name, as its definition gives it."""
    name = definition["name"]
    assert isinstance(name, str), "a tool's definition names it"
    return name


NAMES = frozenset(_name(definition) for definition in DEFINITIONS)


@dataclass(frozen=True, slots=True)
class MapCall:
    """A map tool's arguments, once they fit its schema (one the call leaves out is None; `full`, False)."""

    screen: str | None = None
    full: bool = False
    to: str | None = None
    plan: Mapping[str, object] | None = None

    @classmethod
    def of(cls, arguments: Mapping[str, object]) -> MapCall:
        """Read arguments its schema holds (`_invalid` found nothing wrong: each is of its type)."""
        screen, full, to, plan = (arguments.get(key) for key in ("screen", "full", "to", "plan"))
        assert isinstance(screen, str | None) and isinstance(full, bool | None) and isinstance(to, str | None)
        assert plan is None or isinstance(plan, dict)
        return cls(screen, bool(full), to, plan)


@dataclass(frozen=True, slots=True)
class MapTools:
    """The map tools of one session: which map (app id, folder), and the wall clock and ids for its records."""

    app_id: str | None
    map_dir: str | None
    wall: Clock
    ids: IdSource
    #: Texts never shown besides the map's secret inputs' values (the command line's secrets).
    given: frozenset[str] = frozenset()
    #: What the session must mask from now on: every secret a map read so far held (its secret inputs' values)
    #: and what fields kept of those a route typed. Grows; the frozen tools hold the one set.
    known: set[str] = field(default_factory=set)

    def definitions(self) -> list[JsonObject]:
        """Return the three tools' MCP definitions."""
        return [dict(definition) for definition in DEFINITIONS]

    def secrets(self) -> frozenset[str]:
        """Return the texts the agent is never shown: the given ones, the map's secret inputs', what fields kept."""
        return self.given | frozenset(self.known)

    def call(self, name: str, arguments: Mapping[str, object], device: Device, clock: Clock) -> Reply | None:
        """Answer a call to a map tool (None: not one)."""
        if name not in NAMES:
            return None
        problem = _invalid(name, arguments)
        if problem is not None:
            return reply(name, "refused", "VALIDATION_ERROR", problem)
        place = MapPlace.of_device(device.info, self.app_id, self.map_dir)
        asked = MapCall.of(arguments)
        try:
            if name == "route_follow":
                answer = self._follow(asked, OpenedDevice(device, clock), place)
            else:
                answer = self._look(name, asked, device, place)
        except InputError as exc:
            answer = reply(name, "refused", _refusal_code(exc, "NOT_FOUND"), exc.message, hint=exc.next_step)
        # The session masks them in all it shows (the screen after a route included); masked here too, at the source.
        return Reply(redact(answer.result, self.secrets()), answer.image, answer.is_error)

    def _read_map(self, place: MapPlace) -> AppMap:
        """Read the map (under its lock); its secrets are known from now on."""
        with map_lock(place, sleep=time.sleep, now=time.monotonic):
            app_map = read_map(place, self.wall, secrets=self.given)
        self.known.update(app_map.secrets())
        return app_map

    def _look(self, name: str, asked: MapCall, device: Device, place: MapPlace) -> Reply:
        """Answer map_read or route_plan, which send nothing.

        Raises:
            InputError: the map cannot be read, or names no such screen; a route_plan's route fills a field from a
                variable that is undeclared or unset (as route_follow would refuse it).
        """
        app_map = self._read_map(place)
        if not app_map.document.screens:
            hint = "Map the app first: visor discover --crawl (or call observe and explore)."
            return reply(name, "refused", "NOT_FOUND", f"no app map for {place.identity} yet", hint=hint)
        current = _current(app_map, device)
        if name == "map_read":
            return self._read(asked, app_map, current)
        assert asked.to is not None, "route_plan's schema requires to"
        return self._plan(asked.to, app_map, current)

    def _read(self, asked: MapCall, app_map: AppMap, current: Variant | None) -> Reply:
        memory = build_memory(app_map.document)
        summary = app_map.summary()
        if asked.full:
            return reply("map_read", "ok", None, f"{summary['screens']} screens", memory=memory, summary=summary)
        if asked.screen is not None:
            variant = sorted(destination(app_map, asked.screen))[0]
        elif current is not None:
            variant = current.id
        else:
            return reply("map_read", "ok", None, "the current screen is not in the map",
                          memory={**memory_slice(memory, ""), "routes": []}, summary=summary,
                          hint="Annotate or crawl it: visor discover --crawl.")  # fmt: skip
        sliced = memory_slice(memory, variant)
        shown = sliced["current_screen"]
        label = (shown.get("label") or shown["id"]) if shown is not None else None
        return reply("map_read", "ok", None, f"screen {label}", memory=sliced, summary=summary)

    def _plan(self, wanted: str, app_map: AppMap, current: Variant | None) -> Reply:
        goals = destination(app_map, wanted)
        if current is None:
            return reply("route_plan", "refused", "NOT_FOUND", "the current screen is not in the app map",
                          hint="route_follow restarts the app when no route from here is known.")  # fmt: skip
        route = plan(app_map, current.id, goals)
        restart = route is None
        if route is None:
            # route_follow restarts the app then: offered only when the map knows a route from the app's start.
            start = _start(app_map)
            route = plan(app_map, start, goals) if start is not None else None
            if route is None:
                to = printable(repr(wanted))
                message = f"no safe route in the app map to {to}, from here or from the app's start"
                hint = "Crawl from here (visor discover --crawl), or start from another screen."
                return reply("route_plan", "refused", "NOT_FOUND", message, hint=hint)
        require_inputs(app_map, route)  # refused as route_follow refuses it: what it offers, route_follow takes
        legs = [{"edge": edge.id, "command": edge.command, "target": edge.target,
                 "to_screen": _screen_of(app_map, edge.to_variant_id),
                 "confidence": round(edge.confidence, 2)} for edge in route]  # fmt: skip
        if restart:
            message = f"no forward route from here: route_follow restarts the app, then {len(legs)} steps"
        else:
            message = f"{len(legs)} steps" if legs else "already there"
        return reply("route_plan", "ok", None, message, from_screen=current.screen_id, to=wanted, route=legs,
                     restart=restart)  # fmt: skip

    def _follow(self, asked: MapCall, opened: OpenedDevice, place: MapPlace) -> Reply:
        env = Environment(self.wall, self.ids)
        try:
            if asked.to is not None:
                outcome = route_on(opened, place, asked.to, self.wall, secrets=self.given, kept=self.known)
                goals = destination(self._read_map(place), asked.to)
                return _followed(outcome, _route_dispatched(_mappings(outcome.data["route"]), goals))
            checked = checked_plan(Document("plan", "json", asked.plan, {}))
            self._read_map(place)  # its secrets, masked in what the route shows
            outcome = follow_plan_on(opened, place, checked, env, secrets=self.given, kept=self.known)
        except InputError as exc:
            # Refused before any input (an invalid plan, a shared screen name, a risky tap): nothing was sent.
            code = _refusal_code(exc, "VALIDATION_ERROR")
            return reply("route_follow", "refused", code, exc.message, hint=exc.next_step)
        except VisorError as exc:
            return reply("route_follow", "failed", "TRANSPORT_ERROR", exc.message, dispatched="unknown",
                          hint=exc.next_step)  # fmt: skip
        return _followed(outcome, _plan_dispatched(outcome.data))


def _refusal_code(exc: InputError, otherwise: str) -> str:
    """Return a refusal's code, the same from every map tool.

    NOT_FOUND for a screen the map does not have or no route to it, AMBIGUOUS for a label several screens share,
    VALIDATION_ERROR for a route filling fields from variables undeclared or unset; else `otherwise`.
    """
    if UNKNOWN_SCREEN in exc.details or NO_ROUTE in exc.details:
        return "NOT_FOUND"
    if AMBIGUOUS_SCREEN in exc.details:
        return "AMBIGUOUS"
    if "undeclared_inputs" in exc.details or "missing_inputs" in exc.details:
        return "VALIDATION_ERROR"
    return otherwise


def openai_definitions() -> list[JsonObject]:
    """Return the map tools in OpenAI's function-calling format (`visor tools`)."""
    return [{"type": "function", "function": {"name": tool["name"], "description": tool["description"],
                                              "parameters": tool["inputSchema"]}} for tool in DEFINITIONS]  # fmt: skip


def _followed(outcome: Outcome, dispatched: str) -> Reply:
    data: dict[str, object] = {key: value for key, value in outcome.data.items() if key != "action"}
    if "status" in data:  # a plan's own status (completed, needs_discovery, failed) beside the tool's
        data["route_status"] = data.pop("status")
    if outcome.error is None:
        answer = reply("route_follow", "ok", None, "arrived", dispatched="all")
    else:
        answer = reply("route_follow", "failed", "POSTCONDITION_FAILED", outcome.error.message, dispatched=dispatched,
                       hint=outcome.error.next_step)  # fmt: skip
    answer.result.update(data)  # the route's data after the tools' keys
    return answer


def _mappings(value: object) -> list[Mapping[str, object]]:
    """Return the objects a list in an outcome's data holds (none when it is no list)."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _route_dispatched(legs: list[Mapping[str, object]], goals: set[str]) -> str:
    """Say what a failed `to` route sent: every tap it planned (its failed leg led to the goal), some, or none.

    A route stops at the leg that did not hold: the legs after it were never tapped. Taps on the simulated phone
    and over a live driver are known to be sent (`unknown` is a transport failure, raised, not an outcome).
    """
    if not legs:
        return "none"
    return "all" if legs[-1]["to"] in goals else "partial"


def _plan_dispatched(data: Mapping[str, object]) -> str:
    """Say what a failed route plan sent: `none` when no step's action went out, else `partial` (it stopped)."""
    steps = [step for attempt in _mappings(data.get("attempts")) for step in _mappings(attempt.get("steps"))]
    sent = any(step.get("outcome") in ("success", "verification_failure", "needs_discovery") for step in steps)
    return "partial" if sent else "none"


def _current(app_map: AppMap, device: Device) -> Variant | None:
    """Return the map's variant for the screen on the device, matched without recording anything."""
    return app_map.match(app_map.observe(device.observe().tree))


def _start(app_map: AppMap) -> str | None:
    """Return the app's start in the map: its first variant (a crawl records the screen it starts on first)."""
    variants = app_map.document.variants
    return variants[0].id if variants else None


def _screen_of(app_map: AppMap, variant_id: str) -> str:
    return next(v.screen_id for v in app_map.document.variants if v.id == variant_id)


def _invalid(name: str, arguments: Mapping[str, object]) -> str | None:
    """Return what is wrong with a call's arguments (None: they fit the tool's schema)."""
    if name == "route_follow" and ("to" in arguments) == ("plan" in arguments):
        return "route_follow takes exactly one of to (a screen) and plan (a route plan)"
    schema = next(definition["inputSchema"] for definition in DEFINITIONS if definition["name"] == name)
    assert isinstance(schema, dict), "a tool's definition holds its input schema"
    problem = schema_issue(schema, dict(arguments))
    if problem is None:
        return None
    where, message = problem
    return f"{name}{'.' + where if where else ' arguments'}: {message}"
