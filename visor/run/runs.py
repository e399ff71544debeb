"""Run a scenario file: load it, open the device, run the engine, feed its events to the reports, give the outcome.

This is the one core call of `visor run`; `visor benchmark` (`visor.run.benchmark`) makes the same attempt
run after run. The engine ends every run with `RunFinished`, also when it stopped early, so the reports are
written as events arrive and from that last event: on Ctrl-C (or SIGTERM, SIGHUP: the CLI turns them into the
same KeyboardInterrupt, the signal as its argument) the steps finished so far are reported (`summary.json` and
the other reports are still written) and the envelope says INTERRUPTED. A handler that fails (a report that
cannot be written) stops the run the same way: its failure is thrown into the engine.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass

from visor.device.protocol import DeviceInfo
from visor.engine.events import Event, RunFinished
from visor.engine.results import Verdict
from visor.engine.runner import RunContext, RunSettings, resolve_settings, run_scenario
from visor.errors import InputError, VisorError
from visor.jsontypes import JsonObject
from visor.report.artifacts import ArtifactStore, OutputError, ReportWriter
from visor.report.envelope import Outcome, masked
from visor.report.html import MAP_PICTURE
from visor.report.outcomes import run_outcome
from visor.run.config import Environment, RunConfig
from visor.run.hooks import Freeze, Handler, MapAsk, MapStates, map_hook
from visor.runtimes.opening import OpenedDevice, ScenarioDevice, open_for
from visor.runtimes.registry import choose_runtime, in_process, scenario_folder
from visor.scenario.loader import load_scenario
from visor.scenario.scenario import Scenario
from visor.steps.tree_free import tree_uses
from visor.ui.escapes import printable
from visor.ui.secrets import maskable
from visor.watchdog import WallWatchdog

DEFAULT_OUTPUT = "artifacts"


class ScenarioInvalid(InputError):
    """The scenario has errors; `visor validate` would list them."""


def load_valid(path: str, env: Environment, parameters: Mapping[str, str] | None = None) -> Scenario:
    """Load a scenario that must be valid to run.

    Raises:
        SourceError: the file cannot be read or parsed.
        ScenarioInvalid: the scenario has errors (all of them in the error details).
    """
    result = load_scenario(path, env.stdin, parameters)
    if result.scenario is not None:
        return result.scenario
    errors = [issue for issue in result.issues if issue.is_error]
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise ScenarioInvalid(
        f"{result.document.name}:{first.line}:{first.column}: {first.code} {first.message}{more}",
        likely_cause="The scenario does not validate, so it cannot run.",
        next_step=f"Run `visor validate {path}` and fix every error it lists.",
        details={"issues": [{**issue.to_dict(), "file": result.document.name} for issue in result.issues]},
    )


def _refuse_undecodable(path: str) -> None:
    """Refuse a path holding bytes that are not UTF-8 (a suite met it in a folder): reports are UTF-8 text.

    Raises:
        InputError: the path names the first byte that is not.
    """
    for index, char in enumerate(path):
        if "\udc80" <= char <= "\udcff":
            raise InputError(
                f"{printable(path)}: the file's name is not valid UTF-8 text (byte 0x{ord(char) - 0xDC00:02x} at"
                f" index {index}); visor writes it into UTF-8 reports",
                likely_cause="The file was named on a system with another encoding, or by a program writing bytes.",
                next_step="Rename the file (or its folder) in UTF-8, then run it again.",
            )


def _option_warning(message: str, hint: str) -> JsonObject:
    """Return a warning about a command-line option, in the envelope's issue shape."""
    return {"severity": "warning", "code": "INPUT_ERROR", "message": message, "path": "$", "hint": hint}


@dataclass(frozen=True, slots=True)
class PreparedRun:
    """A loaded scenario with the options to run it: what every attempt at it shares."""

    scenario: Scenario
    output: str
    options: RunConfig
    #: The app map every attempt starts from, when attempts must not learn from each other (`visor benchmark`).
    freeze: Freeze | None = None

    @classmethod
    def load(cls, path: str, options: RunConfig, env: Environment) -> PreparedRun:
        """Load the scenario (it must be valid) and choose the output folder.

        Raises:
            InputError: the path is not UTF-8 text (a suite found it in a folder), the scenario cannot be read
                or is invalid, or its output folder's name holds a `--secret` value.
        """
        _refuse_undecodable(path)
        scenario = load_valid(path, env, options.parameters)
        output = options.output or scenario.config.artifacts_dir or DEFAULT_OUTPUT
        if any(secret in output for secret in maskable(options.secrets)):
            # A folder is named on disk as it is: a mask would name one that does not exist.
            raise InputError(
                "the output folder's name holds a --secret value",
                likely_cause="config.artifactsDir (or --output) is built from a ${KEY} given as a secret.",
                next_step="Name the output folder without the secret (a plain -e value, or a fixed name).",
            )
        return cls(scenario, output, options)

    def device(self) -> ScenarioDevice:
        """Return what the scenario says about its device."""
        config = self.scenario.config
        return ScenarioDevice(
            config.runtime,
            config.app,
            config.capabilities or {},
            scenario_folder(self.scenario.source),
            self.scenario.meta.platform,
        )

    def warnings(self) -> list[JsonObject]:
        """Return the scenario's validation warnings as the envelope lists them (each with its file).

        The command line's options this run does not use are warned about too.
        """
        found = [{**issue.to_dict(), "file": self.scenario.source} for issue in self.scenario.warnings]
        return found + [{**warning, "file": self.scenario.source} for warning in self._unused_options()]

    def _unused_options(self) -> list[JsonObject]:
        """Say which device options the simulated phone ignores, and a --platform against meta.platform."""
        options = self.options
        found: list[JsonObject] = []
        device = options.device
        if in_process(choose_runtime(device.runtime, self.scenario.config.runtime)):
            for flag, value in (("--server-url", device.appium.server_url), ("--device", device.appium.device)):
                if value:
                    message = f"{flag} is ignored: the scenario runs on the simulated phone"
                    found.append(_option_warning(message, "Drop it, or pass --runtime appium to use it."))
        declared = self.scenario.meta.platform
        if device.platform and declared and device.platform != declared:
            found.append(_option_warning(f"--platform {device.platform} overrides meta.platform ({declared})",
                                         "The scenario says it is written for the other platform: expect its "
                                         "selectors and keys to differ."))  # fmt: skip
        return found

    def settings(self, env: Environment) -> RunSettings:
        """Resolve one attempt's settings (an unseeded scenario draws a fresh seed each time)."""
        options = self.options
        return resolve_settings(
            self.scenario,
            timeout_ms=options.timeout_ms,
            seed=options.seed,
            fresh_seed=env.ids.new_seed(),
            capture=options.capture,
            observe=options.observe,
            video=options.video,
        )


@dataclass
class Attempt:
    """One run of a scenario: its final event (a partial result when it stopped early) and the files it wrote."""

    final: RunFinished
    written: list[str]
    #: The device the run used, left open for the next run (see `attempt`'s `keep`).
    kept: OpenedDevice | None = None
    #: The app map the run used (`data.run.map`), when it used one.
    map: Mapping[str, object] | None = None
    #: The map's document as the run found it and as it left it (`benchmark --compare-map`).
    map_states: MapStates | None = None
    #: What the run masked: `--secret` values, and what fields showed of them (`ArtifactStore.hide`).
    secrets: tuple[str, ...] = ()


def attempt(
    prepared: PreparedRun,
    env: Environment,
    handlers: Sequence[Handler] = (),
    shared: OpenedDevice | None = None,
    *,
    keep: bool = False,
    concurrent: bool = False,
) -> Attempt:
    """Run once, on `shared` (left open) or on a device opened for this run.

    With `keep`, a device whose sessions are expensive to start is left open too, and returned in `Attempt.kept`
    for the next run; any other device is closed after the run. The map plugged into runs (`visor.run.hooks`)
    routes its detours and learns from its taps, and is written when the run ends; a benchmark's run takes the map
    from the prepared run's `freeze` instead, and leaves what it learnt there (the benchmark writes it once).
    """
    settings = prepared.settings(env)
    watchdog = WallWatchdog.from_environment()
    run_id = env.ids.new_id("run")
    opened = shared or open_for(prepared.options.device, settings.effective_seed, env.wall, prepared.device())
    held = shared is not None or (keep and opened.device.info.capabilities.expensive_sessions)
    try:
        refuse_tree_uses(prepared.scenario, opened.device.info)
        if concurrent:
            refuse_shared(opened.device.info)
        folder = scenario_folder(prepared.scenario.source)
        store = ArtifactStore(prepared.output, run_id, folder, secrets=prepared.options.secrets)
        writer = ReportWriter(store, allure=prepared.options.alluredir)
    except BaseException:  # a refusal, an unwritable folder, a signal: the session must not outlive the command
        if shared is None:
            with contextlib.suppress(KeyboardInterrupt):
                opened.device.close()
        raise
    final: RunFinished | None = None
    mapped = None
    try:
        choice = prepared.options
        hook = map_hook()
        if hook is not None:
            ask = MapAsk(opened, choice.device.app_id, choice.map_dir, env.wall, choice.no_map, choice.repair,
                         settings.timeout_us, choice.secrets, store.hide, lambda: store.secrets,
                         prepared.freeze)  # fmt: skip
            mapped = hook.open(ask)
        router = mapped.router if mapped is not None else None
        context = RunContext(opened.device, opened.clock, env.wall, store, run_id, watchdog=watchdog, router=router)
        learners = mapped.handlers if mapped is not None else ()
        final = drive(run_scenario(prepared.scenario, settings, context), (writer, *handlers, *learners))
        try:
            if mapped is not None:
                mapped.keep()
        except InputError as exc:  # the map not saved (too large to read back, a full disk): said, with the run
            if final.reason is None:
                final = unreported(final, exc)
        if mapped is not None and (picture := mapped.picture()) is not None:
            store.write(MAP_PICTURE, picture)
    finally:
        # After an interruption, a second signal may cut closing the session short (it is bounded anyway).
        with contextlib.suppress(*((KeyboardInterrupt,) if final is None or final.interrupted else ())):
            # A device opened here is closed, unless it is kept for the next run (which needs a run that ended).
            if shared is None and (final is None or not held):
                opened.device.close()
            try:
                writer.close()
            except OutputError as exc:  # a full disk: the run's error, unless it already has one (or is raising)
                if final is not None and final.reason is None:
                    final = unreported(final, exc)
    states = mapped.states() if mapped is not None and prepared.freeze is not None else None  # a benchmark's
    summary = mapped.summary() if mapped is not None else None
    return Attempt(final, store.written, opened if held else None, summary, states, store.secrets)


def refuse_shared(info: DeviceInfo) -> None:
    """Refuse to run scenarios at once on a device others would drive too (`--workers`).

    Raises:
        InputError: the device is not one of its own (a phone, an Appium server, an agent's folder).
    """
    if not info.capabilities.independent:
        raise InputError(
            f"--workers runs scenarios at once on devices of their own; the {info.runtime} runtime's device is shared",
            likely_cause="Scenarios at once on one phone or one Appium server would drive the same device.",
            next_step="Run it without --workers, or on --runtime sim.",
        )


def refuse_tree_uses(scenario: Scenario, info: DeviceInfo) -> None:
    """Refuse, before any step runs, a scenario that needs a UI tree the device does not show.

    Raises:
        InputError: naming every step and assertion that needs the tree.
    """
    if info.capabilities.ui_tree:
        return
    needs = tree_uses(scenario)
    if needs:
        raise InputError(
            f"{len(needs)} part(s) of the scenario need a UI tree, which the {info.runtime} runtime does not show: "
            + "; ".join(needs),
            likely_cause=f"The {info.runtime} runtime can only tap and drag at points, type into the focused "
            "field, start apps, wait and take screenshots.",
            next_step="Use coordinates (tap x/y, act drag) and waits in ms, and drop assertions on elements; or "
            "run the scenario on a runtime that reads the page source (sim, appium).",
            details={"needs_ui_tree": needs},
        )


def drive(events: Generator[Event, None, None], handlers: Sequence[Handler]) -> RunFinished:
    """Feed each event to every handler in turn; return the run's final event.

    When handling an event fails (a report cannot be written, Ctrl-C arrives), the failure is thrown into the
    run, which stops and ends with its `RunFinished`, marked interrupted or errored. Should handling that last
    event fail too, its reports are cut short but the outcome still comes: a full disk must not hide the
    original error, and a second signal while the reports of an interrupted run are written stops writing them.
    """
    failure: BaseException | None = None
    event: Event | None = None
    while True:  # turns again only after a failure was caught, to throw it into the run
        # One try around the whole loop, its jump back included: a signal lands between any two instructions, and
        # at a loop's jump back most of all (where Python runs signal handlers). A Ctrl-C there, or just after the
        # engine yielded, must reach the engine all the same: it used to leave the run, and its report with it.
        try:
            while True:
                event = next(events) if failure is None else events.throw(failure)
                failure = None
                for handler in handlers:
                    handler.handle(event)
                if isinstance(event, RunFinished):
                    return event
        except (KeyboardInterrupt, VisorError) as exc:
            if inspect.getgeneratorstate(events) == inspect.GEN_CLOSED:
                raise  # it left the run itself (a second signal in its own ending): throwing it in again would spin
            if not isinstance(event, RunFinished):
                failure = exc
                continue
            if event.reason is None and isinstance(exc, OutputError):
                return unreported(event, exc)  # the run ended, its reports (or their last part) not written
            if event.reason is None:
                failure = exc
                continue
            if isinstance(exc, OutputError) or (event.interrupted and isinstance(exc, KeyboardInterrupt)):
                return event
            raise


def unreported(final: RunFinished, exc: InputError) -> RunFinished:
    """Return the end of a run that ran to its end but whose files could not all be written: failed, saying why.

    A full disk as the timeline is closed used to be a SYSTEM_ERROR without the run, and an app map that could
    not be saved an INPUT_ERROR without it; each is the run's INPUT_ERROR, naming the file and the cause, with
    the steps done.
    """
    result = dataclasses.replace(final.result, status=Verdict.FAILED, error=exc.info())
    return dataclasses.replace(final, result=result, reason=exc)


def run_file(path: str, options: RunConfig, env: Environment, handlers: Sequence[Handler] = ()) -> Outcome:
    """Run one scenario file and return the outcome for the envelope."""
    prepared = PreparedRun.load(path, options, env)
    done = attempt(prepared, env, handlers)
    outcome = run_outcome(done.final, prepared.warnings(), done.written)
    run = outcome.data.get("run")
    if done.map is not None and isinstance(run, Mapping):
        outcome = dataclasses.replace(outcome, data={**outcome.data, "run": {**run, "map": done.map}})
    return masked(outcome, done.secrets)
