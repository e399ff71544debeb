"""What a command tells a person on stderr when it succeeded: one or two lines saying what happened.

The envelope on stdout is for programs; a person at a terminal (or reading a CI log) is told, in their words, what
was done and where the result is. Commands that print their own progress (`run`, `benchmark FILE`, `validate`…)
are not here; a failed command prints its error instead (`ConsoleReporter.error`). Each line is
made from the outcome's data, so it says what the envelope says: nothing here runs or reads anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from visor.report.envelope import Outcome

Lines = list[str]
Teller = Callable[[Mapping[str, object], Sequence[str]], Lines]

#: The direct actions: one step on the device, through the daemon's warm session or a fresh one.
DIRECT_ACTIONS = ("navigate", "tap", "act", "scroll", "screenshot", "source", "wait")


def told(command: str, outcome: Outcome) -> Lines:
    """Return the lines telling a person what `command` (`tap`, `agentcab act`) did; [] when it tells nothing here.

    Only for an outcome without an error: a failure is told by its error.
    """
    if outcome.error is not None:
        return []
    teller = _TELLERS.get(command)
    if teller is None:
        return []
    return [line for line in teller(outcome.data, outcome.artifacts) if line]


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def object_in(value: object) -> Mapping[str, object]:
    """Return a value of an outcome's data when it is an object, else an empty one: a line says what is there."""
    return value if isinstance(value, Mapping) else {}


def list_in(value: object) -> list[object]:
    """Return a value of an outcome's data when it is a list, else an empty one."""
    return value if isinstance(value, list) else []


def count_in(value: object) -> int:
    """Return a count in an outcome's data as a whole number (0 when it holds none)."""
    return int(value) if isinstance(value, int | float) else 0


def _action(data: Mapping[str, object], artifacts: Sequence[str]) -> Lines:
    step, args = object_in(data.get("step")), object_in(data.get("args"))
    what = " ".join(
        str(args[key]) for key in ("to", "name", "target", "direction", "for", "label") if args.get(key) is not None
    )
    at = f" at {args['x']},{args['y']}" if "x" in args and "y" in args and "target" in args else ""
    took = f" in {step['duration_ms']:,} ms" if isinstance(step.get("duration_ms"), int) else ""
    lines = [f"{data.get('action', 'action')} {what}{at}: done{took}".replace("  ", " ")]
    lines += [f"saved {path}" for path in artifacts[:2]]
    device = data.get("device_session")
    if device == "fresh":
        lines.append("ran on a fresh device that is gone now; `visor start` keeps one warm for the next actions")
    return lines


def _start(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    daemon = object_in(data.get("daemon"))
    if daemon.get("already_running") or data.get("already_running"):
        return [f"a daemon already runs for {daemon.get('root')} (pid {daemon.get('pid')}); nothing was started"]
    return [f"daemon started for {daemon.get('root')} (pid {daemon.get('pid')}): direct actions now share its device",
            "`visor stop` ends it"]  # fmt: skip


def _status(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    daemon = object_in(data.get("daemon"))
    if not daemon.get("running"):
        return [f"no daemon runs for {daemon.get('root')}; `visor start` starts one"]
    answers = "answering" if daemon.get("responsive", True) else "not answering"
    return [f"a daemon runs for {daemon.get('root')} (pid {daemon.get('pid')}, {answers})"]


def _stop(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    if data.get("stopped") and data.get("was_running", True):
        return [f"daemon stopped (pid {data.get('pid')}) for {data.get('root')}"]
    return [f"no daemon was running for {data.get('root')}; nothing to stop"]


def _record(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    name = data.get("name")
    if data.get("exported"):
        return [f"flow {name} exported to {data['exported']}: `visor run {data['exported']}` runs it"]
    if data.get("active"):
        return [f"recording flow {name}: the direct actions from now on are kept in {data.get('path')}",
                f"`visor record {name} --stop` ends it"]  # fmt: skip
    steps = count_in(data.get("steps", 0))
    return [f"flow {name} recorded: {_plural(steps, 'step')} in {data.get('path')}; `visor replay {name}` runs it"]


def _replay(data: Mapping[str, object], artifacts: Sequence[str]) -> Lines:
    run = object_in(data.get("run"))
    verdict = "passed" if run.get("status") == "ok" else str(run.get("status", "?"))
    lines = [f"flow {data.get('name')} replayed: {_plural(count_in(data.get('steps', 0)), 'step')}, {verdict} "
             f"({run.get('run_id')})"]  # fmt: skip
    page = next((path for path in artifacts if path.endswith("report.html")), None)
    return lines + ([f"report: {page}"] if page else [])


def _report(data: Mapping[str, object], artifacts: Sequence[str]) -> Lines:
    if "suite" in data:
        return _merge(data, artifacts)
    if data.get("found") == 0:
        return [f"no run under {data.get('path')} yet: `visor run SCENARIO` writes its reports there"]
    run = object_in(data.get("run"))
    steps, assertions = len(list_in(run.get("steps"))), len(list_in(run.get("assertions")))
    verdict = "passed" if run.get("status") == "ok" else str(run.get("status", "?"))
    lines = [f"{run.get('scenario')} {verdict} ({run.get('run_id')}): {_plural(steps, 'step')}, "
             f"{_plural(assertions, 'assertion')} on {run.get('device')}"]  # fmt: skip
    failed = [step for step in map(object_in, list_in(run.get("steps"))) if step.get("status") == "failed"]
    if failed:
        error = object_in(failed[0].get("error"))
        lines.append(f"first failed step: {failed[0].get('id')}: {error.get('message', '')}".rstrip(": "))
    page = object_in(data.get("reports")).get("html")
    if page:
        lines.append(f"report: {page}")
    return lines


def _merge(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    suite = object_in(data.get("suite"))
    totals = object_in(suite.get("totals"))
    merged = len(list_in(suite.get("merged")))
    return [f"merged {_plural(merged, 'suite')}: {totals_line(totals)}", f"suite report: {suite.get('report')}"]


def totals_line(totals: Mapping[str, object]) -> str:
    """Return a suite's totals as a person reads them: `17 scenarios (16 passed, 1 xfailed)`."""
    keys = ("passed", "flaky", "xfailed", "failed", "error", "skipped")
    shown = [f"{totals[key]} {key}" for key in keys if totals.get(key)]
    return f"{_plural(count_in(totals.get('scenarios', 0)), 'scenario')}" + (f" ({', '.join(shown)})" if shown else "")


def _benchmark_suite(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    totals = object_in(data.get("totals"))
    if "benchmarks" not in data:
        return []  # one scenario: told by its own summary
    return [f"benchmarked {_plural(count_in(totals.get('scenarios', 0)), 'scenario')} over "
            f"{_plural(count_in(data.get('runs', 0)), 'run')} each: {totals.get('passed', 0)} at or above "
            f"{data.get('threshold')}, {totals.get('below_threshold', 0)} below"]  # fmt: skip


def _discover(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    screen = object_in(data.get("screen"))
    where = object_in(data.get("map")).get("path")
    crawl = data.get("crawl")
    if isinstance(crawl, Mapping):
        taps, variants = count_in(crawl.get("actions", 0)), count_in(crawl.get("variants", 0))
        how = crawl.get("stopped_reason")
        ended = "every safe control tapped" if how == "complete" else f"stopped: {how}"
        return [f"crawled the app: {_plural(taps, 'tap')}, {_plural(variants, 'screen variant')} ({ended})",
                f"map: {where}"]  # fmt: skip
    new = "new" if screen.get("created") else "known"
    return [f"screen {screen.get('screen_id')} ({new}, {_plural(count_in(screen.get('element_count', 0)), 'element')}) "
            f"in the map {where}"]  # fmt: skip


def _route(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    legs = data.get("route")
    if isinstance(legs, list) and "to" in data:
        if not legs:
            return [f"already at {data.get('to')} ({data.get('reached')})"]
        return [f"reached {data.get('to')} ({data.get('reached')}) in {_plural(len(legs), 'verified step')}"]
    status = data.get("route_status") or data.get("status")
    return [f"route plan {status}" + (f": {data['checkpoint_path']}" if data.get("checkpoint_path") else "")]


def _map_show(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    picture = object_in(data.get("picture"))
    size = f"{picture.get('width')}x{picture.get('height')} px"
    return [f"map drawn: {picture.get('path')} ({picture.get('format')}, {size})"]


def _import(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    totals = object_in(data.get("totals"))
    left = count_in(totals.get("left_out", 0))
    lines = [f"converted {_plural(count_in(totals.get('flows', 0)), 'flow')}: {totals.get('valid', 0)} valid"
             + (f", {_plural(left, 'line')} left out (each listed in data.imported)" if left else "")]  # fmt: skip
    rows = [row for row in list_in(data.get("imported")) if isinstance(row, Mapping)]
    needs = sorted({str(key) for row in rows for key in list_in(row.get("needs"))})
    if needs:
        lines.append(f"give when running: {' '.join(f'-e {key}=VALUE' for key in needs[:5])}"
                     + (f" (and {len(needs) - 5} more: data.imported[].needs)" if len(needs) > 5 else ""))  # fmt: skip
    written = [row.get("scenario") for row in rows]
    if written and written[0]:
        lines.append(f"`visor run {written[0]}` runs the first" if len(written) > 1 else f"`visor run {written[0]}`")
    return lines


def _profile(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    counts = ", ".join(f"{value:,} {key}" for key, value in object_in(data.get("counts")).items())
    return [f"device profile written: {data.get('path')} ({counts})"]


def _collect(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    payload = object_in(data.get("payload"))
    missing = list_in(data.get("required_missing"))
    line = f"input collected: {', '.join(map(str, payload)) or 'nothing'} (in data.payload)"
    return [line] + ([f"required but missing: {', '.join(map(str, missing))}"] if missing else [])


def _act(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    counts = object_in(data.get("counts"))
    total = sum(count_in(value) for value in counts.values())
    shown = ", ".join(f"{value} {key}" for key, value in counts.items() if value)
    return [f"{_plural(total, 'action')}: {shown or 'none'}"]


def _agent_test(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    runs = _plural(count_in(data.get("runs", 0)), "run")
    return [f"agent {data.get('agent')}: {data.get('passed')} of {runs} passed, determinism score "
            f"{data.get('determinismScore')}"]  # fmt: skip


def _visualagent_export(data: Mapping[str, object], _artifacts: Sequence[str]) -> Lines:
    skipped = count_in(data.get("skipped_failed", 0))
    return [f"exported {_plural(count_in(data.get('steps', 0)), 'step')} to {data.get('exported')}"
            + (f" ({skipped} failed commands left out)" if skipped else ""),
            f"`visor run {data.get('exported')}` runs it"]  # fmt: skip


_TELLERS: dict[str, Teller] = {
    **dict.fromkeys(DIRECT_ACTIONS, _action),
    "start": _start,
    "status": _status,
    "stop": _stop,
    "record": _record,
    "replay": _replay,
    "report": _report,
    "benchmark": _benchmark_suite,
    "discover": _discover,
    "route": _route,
    "map show": _map_show,
    "import maestro": _import,
    "agentcab profile": _profile,
    "agentcab collect": _collect,
    "agentcab act": _act,
    "agentcab test": _agent_test,
    "visualagent export": _visualagent_export,
}

#: The commands `told` speaks for.
TOLD = frozenset(_TELLERS)
