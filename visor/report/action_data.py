"""The envelope of a direct action: upstream's `data` shape, and visor's verified step beside it.

Upstream answers `{action, platform, args, map, wait?}` where `args` echo what was done, in each command's own
shape (a tap on a target gives `{target, tap_method, x, y}`, a wait `{for, timeout_ms, poll_interval_ms,
matched, elapsed_ms}`). visor builds those from what the step really did (its details), and adds `step`: the
step's result with everything it checked (the element it resolved, what covered it, whether the text arrived).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence

from visor.clock import us_to_ms
from visor.device.protocol import DeviceInfo
from visor.engine.events import RunFinished
from visor.engine.results import StepResult, Verdict
from visor.engine.runner import DEFAULT_WAIT_TIMEOUT_MS
from visor.errors import ErrorCode, ErrorInfo, ExitCode, NextAction
from visor.files import regular_file
from visor.report.envelope import Outcome
from visor.scenario.commands import ScrollArgs
from visor.steps.commands.act import SLIDER_START_VALUE
from visor.steps.context import DEFAULT_POLL_US
from visor.ui.images import png_size

#: The app map's part of `data` when no map is used (none exists for the app, or --no-map).
NO_MAP = {"enabled": False, "used": False, "updated": False, "repaired": False, "repairs": 0}
#: The defaults a step applied when the flags left them out, from where they are defined.
DEFAULT_POLL_MS = us_to_ms(DEFAULT_POLL_US)
DEFAULT_SCROLL_PERCENT = ScrollArgs.model_fields["percent"].default


def action_outcome(
    command: str,
    requested: Sequence[Mapping[str, object]],
    final: RunFinished,
    written: Sequence[str],
    info: DeviceInfo,
    map_summary: Mapping[str, object] | None = None,
) -> Outcome:
    """Build a direct action's outcome from its run: ok with upstream's `data`, or the step's error (exit 1).

    `requested` holds each step's arguments as built from the flags: a failed step reports no arguments of
    its own, and `data.args` still says what was asked.
    """
    steps = final.result.steps
    shown = dict(map_summary) if map_summary is not None else dict(NO_MAP)
    data: dict[str, object] = {"action": command, "platform": info.platform, "runtime": info.runtime, "args": {},
                            "map": shown}  # fmt: skip
    if steps:
        data["args"] = _plain(ARGS[command](steps[0], requested[0]))
        data["step"] = steps[0].to_dict()
    if len(steps) > 1:
        data["wait"] = _plain(_wait(steps[1], requested[1]))
    if final.reason is not None:
        reason = final.reason
        return Outcome("fail", reason.next_action, data, reason.exit_code, reason.info(), written)
    failed = next((step for step in steps if step.status is Verdict.FAILED), None)
    if failed is None:
        return Outcome("ok", NextAction.RUN, data, ExitCode.OK, None, written)
    asked = requested[steps.index(failed)] if steps.index(failed) < len(requested) else {}
    return Outcome("fail", NextAction.RETRY, data, ExitCode.ERROR, _error(command, failed, asked, written), written)


def _error(command: str, step: StepResult, asked: Mapping[str, object], written: Sequence[str] = ()) -> ErrorInfo:
    """Word a failed step as the direct action's failure (`tap failed: …`, `tap --wait-for failed: …`)."""
    error = step.error
    what = command if step.id == command else f"{command} --wait-for"
    if error is None:
        return ErrorInfo(
            code=str(ErrorCode.ACTION_ERROR),
            message=f"{what} failed",
            likely_cause="The action did not have its effect.",
            next_step="Look at the screen (visor screenshot) and run it again.",
        )
    reason = error.message.split(" failed: ", 1)[-1]
    likely = error.likely_cause
    if step.command == "wait":  # upstream's sentence first, which scripts read; visor's cause after it
        wanted = asked.get("for")
        kind = f"wait predicate timed out for '{wanted}'" if wanted else "wait stable timed out"
        likely = f"{'post-action ' if step.id != command else ''}{kind} (matched:false): {likely}"
    shot = next((path for path in written if path.endswith("-failure.png")), None)
    next_step = error.next_step
    if shot is not None and "failure screenshot" in next_step:  # the screen it names, where it was kept
        next_step += f" It is {shot}."
    return ErrorInfo(code=error.code, message=f"{what} failed: {reason}", likely_cause=likely, next_step=next_step)


def whole(value: object) -> object:
    """Show a whole number typed as a float (click reads `--x 540` as 540.0, a model dumps 100.0) as an int."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _plain(args: dict[str, object]) -> dict[str, object]:
    """Show an action's whole numbers as integers (`"ms": 100`, not 100.0), as they were typed."""
    return {key: whole(value) for key, value in args.items()}


def _given(step: StepResult, requested: Mapping[str, object]) -> dict[str, object]:
    """Return the step's arguments as it reports them (a password masked), else as they were asked for."""
    args = step.details.get("args")
    return dict(args) if isinstance(args, Mapping) else dict(requested)


def _tap(step: StepResult, requested: Mapping[str, object]) -> dict[str, object]:
    given, point = _given(step, requested), step.details.get("point")
    x, y = (point[0], point[1]) if isinstance(point, list) else (given.get("x"), given.get("y"))
    if "target" in given:
        return {"target": given["target"], "tap_method": "coordinate", "x": x, "y": y}
    return {"x": x, "y": y, "normalized": bool(given.get("normalized", False))}


def _act(step: StepResult, requested: Mapping[str, object]) -> dict[str, object]:
    given = _given(step, requested)
    name = given.get("name")
    if name == "drag":
        start, end = step.details.get("from"), step.details.get("to")
        if isinstance(start, list) and isinstance(end, list):
            return {"name": name, "startX": start[0], "startY": start[1], "endX": end[0], "endY": end[1]}
    if name == "slider":
        return {**given, "startValue": given.get("startValue", SLIDER_START_VALUE)}
    return given


def _scroll(step: StepResult, requested: Mapping[str, object]) -> dict[str, object]:
    given = _given(step, requested)
    return {"direction": given.get("direction"), "percent": given.get("percent", DEFAULT_SCROLL_PERCENT)}


def _capture(fmt: str | None) -> Callable[[StepResult, Mapping[str, object]], dict[str, object]]:
    def shape(step: StepResult, requested: Mapping[str, object]) -> dict[str, object]:
        given, path = _given(step, requested), step.details.get("path")
        out: dict[str, object] = {"label": given.get("label"), "file": None, "path": path}
        if isinstance(path, str):
            out["file"] = os.path.basename(path)
            out.update(_png_size(path) if fmt is None else {"format": fmt, "bytes": _size(path)})
        settle = given.get("settleMs", 250 if given.get("settle") else 0)
        if settle:
            out["settle_ms"] = settle
        return out

    return shape


def _wait(step: StepResult, requested: Mapping[str, object]) -> dict[str, object]:
    given = _given(step, requested)
    if "ms" in given:
        return {"ms": given["ms"]}
    out: dict[str, object] = {"for": given["for"]} if "for" in given else {"stable": True}
    waited = step.details.get("waited_ms")
    out |= {
        "timeout_ms": given.get("timeout", DEFAULT_WAIT_TIMEOUT_MS),
        "poll_interval_ms": given.get("pollMs", DEFAULT_POLL_MS),
        "matched": step.status is Verdict.PASSED,
        "elapsed_ms": waited if isinstance(waited, int | float) else step.duration_ms,
    }
    return out


def _navigate(step: StepResult, requested: Mapping[str, object]) -> dict[str, object]:
    return {"to": _given(step, requested).get("to")}


def _png_size(path: str) -> dict[str, int | None]:
    size = None
    if regular_file(path):  # a screenshot visor wrote; anything else there is no picture to measure
        with contextlib.suppress(OSError), open(path, "rb") as file:
            size = png_size(file.read(24))
    return {"width": None, "height": None} if size is None else {"width": size.width, "height": size.height}


def _size(path: str) -> int | None:
    try:
        return os.path.getsize(path)
    except OSError:
        return None


#: Each action's `data.args`, from the step it ran.
ARGS: dict[str, Callable[[StepResult, Mapping[str, object]], dict[str, object]]] = {
    "tap": _tap,
    "navigate": _navigate,
    "act": _act,
    "scroll": _scroll,
    "screenshot": _capture(None),
    "source": _capture("xml"),
    "wait": _wait,
}
