"""Direct actions: one command, one step, on the device (`visor tap|navigate|act|scroll|screenshot|wait|source`).

A direct action is one more thin front end over the action kernel: its flags become a step's arguments, which
the scenario format's own models validate (so NaN, a negative wait or a missing target never reach a device),
and the engine runs that step (with `--wait-for`, a `wait` step after it) exactly as `visor run` would — with
the same checks that the action took effect. Only the envelope's `data` takes upstream's shape
(`visor.report.action_data`).

A flag that does not apply is refused, never ignored: click refuses a flag the command does not have, and
`build_steps` one that the chosen `act` does not read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypedDict

from visor.engine.events import RunFinished
from visor.engine.runner import RunContext, RunSettings, resolve_settings, run_scenario
from visor.errors import InputError, VisorError
from visor.files import UnsafePath, write_atomic, write_confined
from visor.inputs.document import Document
from visor.jsontypes import JsonObject, JsonValue
from visor.report.action_data import action_outcome, whole
from visor.report.envelope import Outcome
from visor.run.config import Environment, RunConfig
from visor.run.hooks import MapAsk, map_hook
from visor.run.runs import drive
from visor.runtimes.opening import OpenedDevice, open_for
from visor.scenario.commands import COMMANDS
from visor.scenario.scenario import Scenario
from visor.scenario.validate import validate_document
from visor.watchdog import WallWatchdog, Watchdog

#: Flags by the argument each fills (upstream's camelCase names), for messages that name the flag typed.
FLAG_OF = {
    "startX": "--start-x",
    "startY": "--start-y",
    "endX": "--end-x",
    "endY": "--end-y",
    "startValue": "--start-value",
    "pollMs": "--poll-ms",
    "settleMs": "--settle-ms",
    "for": "--for",
    "timeout": "--timeout",
}
_ARGUMENT = re.compile(r"args\.([A-Za-z]+)")
#: What a capture is called when no --label is given (upstream's defaults).
DEFAULT_LABELS = {"screenshot": "capture", "source": "source"}


class ActionStep(TypedDict):
    """A step a direct action runs, as a scenario writes it: its flags' values are its arguments."""

    id: str
    command: str
    args: JsonObject


def run_action(command: str, flags: Mapping[str, object], options: RunConfig, env: Environment) -> Outcome:
    """Run one direct action on a device opened for it (and closed after); return its outcome.

    Its data says `device_session: fresh`: the device started for it and is gone (a daemon keeps one warm).

    Raises:
        InputError: a flag is invalid or does not apply; the runtime or app is unknown.
        TargetError: the device cannot be reached.
    """
    prepared = prepare(command, flags, options, env)
    opened = open_for(options.device, prepared.seed, env.wall)
    try:
        outcome = perform(prepared, opened, env)
    finally:
        opened.device.close()
    return replace(outcome, data={**outcome.data, "device_session": "fresh"})


@dataclass(frozen=True, slots=True)
class Prepared:
    """A direct action checked and ready to run: its one-step (or two-step) scenario and where captures go."""

    command: str
    steps: list[ActionStep]
    scenario: Scenario
    settings: RunSettings
    path: str | None
    output: str | None
    #: The app map to route through: the options' app id, map folder, whether it is off, and --repair.
    options: RunConfig

    @property
    def seed(self) -> int:
        """Return the seed a simulated device opened for it takes."""
        return self.settings.effective_seed


def prepare(command: str, flags: Mapping[str, object], options: RunConfig, env: Environment) -> Prepared:
    """Check a direct action's flags and build what runs it, before any device is opened.

    Raises:
        InputError: a flag is invalid or does not apply.
    """
    steps, path = build_steps(command, flags, options)
    scenario = _scenario(command, steps)
    settings = resolve_settings(
        scenario,
        timeout_ms=options.timeout_ms,
        seed=options.seed,
        fresh_seed=env.ids.new_seed(),
        # A failed action keeps its screen (its error says to look at it): below --output, else `FAILURES`.
        capture="failures",
    )
    return Prepared(command, steps, scenario, settings, path, options.output, options)


def perform(prepared: Prepared, opened: OpenedDevice, env: Environment, watchdog: Watchdog | None = None) -> Outcome:
    """Run a prepared action on an open device (left open: a daemon's warm session serves the next one).

    `watchdog` bounds each step (a daemon passes one it can cancel); by default, the step watchdog.
    """
    sink = DirectSink(prepared.output or ".", prepared.path, failures=prepared.output or FAILURES)
    guard = watchdog if watchdog is not None else WallWatchdog.from_environment()
    choice = prepared.options
    settings = prepared.settings
    hook = map_hook()
    mapped = None
    if hook is not None:
        # The action's tap teaches the map, as a run's do (the screen after it is looked at once it is done).
        mapped = hook.open(MapAsk(opened, choice.device.app_id, choice.map_dir, env.wall, choice.no_map, choice.repair,
                                  settings.timeout_us, shown=lambda: sink.secrets))  # fmt: skip
    context = RunContext(opened.device, opened.clock, env.wall, sink, env.ids.new_id("run"), watchdog=guard,
                         router=mapped.router if mapped is not None else None)  # fmt: skip
    if prepared.output is None and not _can_keep(FAILURES):
        # Unasked for, a failure's screen is an extra: a folder it cannot go to never replaces the action's error.
        settings = replace(settings, capture="none")
    final = drive(run_scenario(prepared.scenario, settings, context), mapped.handlers if mapped is not None else ())
    if mapped is not None:
        mapped.keep()
    requested = [step["args"] for step in prepared.steps]
    summary = mapped.summary() if mapped is not None else None
    return action_outcome(prepared.command, requested, final, sink.written, opened.device.info, summary)


def run_steps(
    name: str,
    steps: Sequence[Mapping[str, object]],
    opened: OpenedDevice,
    env: Environment,
    seed: int,
    timeout_ms: float | None = None,
) -> RunFinished:
    """Run steps already checked (a route plan's) on an open device, as a direct action runs its one; no captures.

    `timeout_ms` is each step's timeout (None: the default).
    """
    scenario = _scenario(name, steps)
    settings = resolve_settings(scenario, timeout_ms=timeout_ms, seed=seed, fresh_seed=seed, capture="none")
    context = RunContext(opened.device, opened.clock, env.wall, DirectSink(".", None), env.ids.new_id("run"),
                         watchdog=WallWatchdog.from_environment())  # fmt: skip
    return drive(run_scenario(scenario, settings, context), ())


def build_steps(command: str, flags: Mapping[str, object], options: RunConfig) -> tuple[list[ActionStep], str | None]:
    """Turn a command's flags into its step (and a `wait` step for --wait-for); return them and the capture path.

    Raises:
        InputError: a flag does not apply to this action.
    """
    given = {key: _flag_value(key, value) for key, value in flags.items() if value is not None and value is not False}
    wait_for = given.pop("wait-for", None)
    poll = given.pop("poll-ms", None) if command != "wait" else None
    if poll is not None and wait_for is None:
        raise InputError(
            f"{command} --poll-ms says how often --wait-for looks, but no --wait-for was given",
            likely_cause="--poll-ms only applies to the wait after the action.",
            next_step="Add --wait-for SELECTOR, or drop --poll-ms.",
        )
    path = given.pop("path", None)
    args = {_argument(key): value for key, value in given.items()}
    timeout = None if options.timeout_ms is None else _flag_value("--timeout", options.timeout_ms)
    if command == "wait" and timeout is not None:
        args["timeout"] = timeout
    if command in DEFAULT_LABELS:
        args.setdefault("label", DEFAULT_LABELS[command])
    if command == "act":
        _refuse_unread(args)
    steps = [ActionStep(id=command, command=command, args=args)]
    if wait_for is not None:
        wait: JsonObject = {"for": wait_for}
        if timeout is not None:
            wait["timeout"] = timeout
        if poll is not None:
            wait["pollMs"] = poll
        steps.append(ActionStep(id="wait-for", command="wait", args=wait))
    if path is not None and not isinstance(path, str):
        raise TypeError(f"--path must be text, not {type(path).__name__}")
    return steps, path


def _flag_value(flag: str, value: object) -> JsonValue:
    """Return a flag's value as a step's argument: a whole number typed as a float as an int (`--x 540`)."""
    return _json(flag, whole(value))


def _json(flag: str, value: object) -> JsonValue:
    """Return a flag's value as the JSON it is: click gives text, numbers and flags, the daemon's wire JSON.

    A value of the wrong kind (a list for a selector) is left to the argument models to refuse, with its flag.

    Raises:
        TypeError: the value is not JSON (a front end passing what no flag holds).
    """
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [_json(flag, item) for item in value]
    if isinstance(value, dict):
        texts = {key: item for key, item in value.items() if isinstance(key, str)}
        if len(texts) == len(value):
            return {key: _json(flag, item) for key, item in texts.items()}
    raise TypeError(f"the flag {flag} holds a {type(value).__name__}, which is not JSON")


def _argument(flag: str) -> str:
    """Return the scenario argument a flag fills: `start-x` is `startX`, `for` stays `for`."""
    head, *rest = flag.split("-")
    return head + "".join(part.capitalize() for part in rest)


def _refuse_unread(args: Mapping[str, object]) -> None:
    """Refuse flags the chosen `act` does not read (upstream forwards and ignores them)."""
    spec = COMMANDS["act"]
    model = spec.select(args)
    if isinstance(model, tuple):
        return  # an unknown or missing --name: validation says which names exist
    unread = sorted(key for key in args if key not in model.accepted_keys())
    if unread:
        flags = ", ".join(FLAG_OF.get(key, "--" + _flag(key)) for key in unread)
        raise InputError(
            f"act --name {args['name']} does not take {flags}",
            likely_cause=f"{flags} belongs to another action; act {args['name']} would ignore it.",
            next_step=f"Drop {flags}, or run `visor act --help` to see which flags each --name takes.",
        )


def _flag(argument: str) -> str:
    return "".join(f"-{char.lower()}" if char.isupper() else char for char in argument)


def _scenario(command: str, steps: Sequence[Mapping[str, object]]) -> Scenario:
    """Validate the steps with the scenario format's own models; name the flag of each problem.

    Raises:
        InputError: a flag's value is invalid (every problem is listed in the error's details).
    """
    data = {
        "meta": {"name": f"visor {command}", "version": "1"},
        "config": {"stopOnFailure": True},
        "steps": steps,
    }
    result = validate_document(Document(f"visor {command}", "yaml", data, {}))
    errors = [issue for issue in result.issues if issue.is_error]
    if result.scenario is not None and not errors:
        return result.scenario
    problems = [_worded(issue.message) for issue in errors]
    raise InputError(
        problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""),
        likely_cause="A flag is missing, has a value the action cannot use, or does not go with another.",
        next_step=f"Fix the flags and run it again; `visor {command} --help` lists them.",
        details={"problems": problems},
    )


def _worded(message: str) -> str:
    """Say a problem in flags (`--start-x`), not in the scenario's argument names (`args.startX`)."""
    return _ARGUMENT.sub(lambda found: FLAG_OF.get(found[1], "--" + _flag(found[1])), message)


#: Where a failed direct action keeps its screen when no --output is given (relative to where it runs).
FAILURES = os.path.join("artifacts", "actions")


def _can_keep(folder: str) -> bool:
    """Say whether a folder is there, or could be made, to keep a failure's screen in (nothing is made here)."""
    path = os.path.abspath(folder)
    while not os.path.lexists(path):
        path = os.path.dirname(path)
    return os.path.isdir(path) and os.access(path, os.W_OK)


class DirectSink:
    """Where a direct action's captures go: --path, else OUTPUT/LABEL.png|xml; the paths are absolute.

    A failure's screenshot and page source go to `failures` (--output, else `FAILURES`), each action's latest kept.
    """

    def __init__(self, output: str, path: str | None, secrets: tuple[str, ...] = (), failures: str = FAILURES) -> None:
        self.output = output
        self.path = path
        self.secrets = secrets
        self.failures = failures
        self.written: list[str] = []

    def hide(self, text: str) -> None:
        """Mask `text` in what this action reports too (a plain field's part of a secret)."""
        if text not in self.secrets:
            self.secrets += (text,)

    def save(self, step_number: int, label: str, kind: str, data: bytes) -> str:
        """Write a capture (or a failure's evidence); return its absolute path."""
        suffix = {"screenshot": ".png", "upload": ""}.get(kind, ".xml")
        chosen = self.path if self.path is not None and not label.endswith("-failure") and kind != "upload" else None
        try:
            if chosen is not None:  # the user's own --path
                target = os.path.abspath(chosen)
                write_atomic(target, data, make_folders=True)
            else:  # a label names a file below --output, never a path out of it nor through a link
                folder = self.failures if label.endswith("-failure") else self.output
                os.makedirs(folder, exist_ok=True)
                target = os.path.abspath(write_confined(folder, f"{label}{suffix}", data))
        except UnsafePath as exc:
            if chosen is not None:
                raise InputError(
                    f"cannot write the capture to {chosen}: {exc}",
                    likely_cause="--path names a link, a device, a pipe or a folder; visor writes only regular files.",
                    next_step="Give --path a new file, or a regular file to replace.",
                ) from exc
            raise InputError(
                f"cannot write the capture {label!r}: {exc}",
                likely_cause="The label names a path out of the output folder, or through a symbolic link.",
                next_step="Give a plain --label (letters, digits, - and _), or --path for a file of your choice.",
            ) from exc
        except (OSError, ValueError) as exc:
            raise InputError(
                f"cannot write the capture {label!r} in {self.output}: {exc}",
                likely_cause="The folder cannot be created or written, or the name is not a valid file name.",
                next_step="Give --path (or --output) a folder you can write to.",
            ) from exc
        self.written.append(target)
        return target

    def copy(self, path: str, data: bytes) -> str:
        """Direct actions take --path instead of a scenario's copy: never called."""
        raise VisorError("a direct action's capture has no copy", next_step="Report this bug.")

    def read(self, path: str, noun: str) -> bytes:
        """Direct actions name no project file (no script, no media): never called."""
        raise VisorError(f"a direct action reads no {noun}", next_step="Report this bug.")
