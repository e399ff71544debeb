"""Run scripts on QuickJS, sandboxed and deterministic, with Maestro's globals and bounds on what they may use.

Their globals: `output`, `maestro` (`copiedText`, `platform`) and the scenario's parameters, as in Maestro; a
seeded `Math.random`, the device's clock for `Date` (in UTC); bounds on time, memory and stack. The scripts of a
run share one global scope (`Scope`), as Maestro's do: a `var` one declares, the next one reads.

A script sees only what it is given: no module loader, no file, network or process access (QuickJS's own `std`
and `os` modules are not there; `http`, which Maestro offers, throws saying so). What would make a run differ
from the last one is fixed by the run: `Math.random` draws from the scenario's seed, `Date` reads the device's
clock. So a script's result, signed like every step's details, is the same in every run of a seeded scenario.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from visor.errors import ActionError, NotInstalled
from visor.jsontypes import JsonObject, JsonValue

#: How much of a script's error message is kept: QuickJS's stack of a runaway recursion runs to thousands of lines.
MESSAGE_CHARS = 400


@dataclass(frozen=True, slots=True)
class Limits:
    """What one script may use: CPU seconds (QuickJS's own clock), memory and stack in bytes, log lines kept."""

    cpu_seconds: int = 2
    memory_bytes: int = 32 * 1024 * 1024
    stack_bytes: int = 512 * 1024
    log_lines: int = 200


@dataclass(frozen=True, slots=True)
class Globals:
    """What a script is given: Maestro's names for the run's state."""

    #: The run's output variables so far (`output.x`); a script may add to them or change them.
    output: JsonObject = field(default_factory=dict)
    #: The scenario's parameters, each a global variable as in Maestro (`USERNAME`).
    env: Mapping[str, str] = field(default_factory=dict)
    #: What `copy_text_from` copied last (`maestro.copiedText`).
    copied_text: str | None = None
    #: `maestro.platform`: android, ios or web.
    platform: str = "android"
    #: Where `Math.random` draws from: the scenario's seed (and the step's place, so two scripts differ).
    seed: int = 0
    #: What `Date.now()` says: the device's clock, milliseconds since the epoch.
    now_ms: int = 0


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a script did: the value of its last expression (as JSON), the output after it, and what it logged."""

    value: JsonValue
    output: JsonObject
    logs: tuple[str, ...]


class ScriptError(ActionError):
    """A script did not run to its end: it did not parse, it threw, or it went past a bound."""

    default_cause = "The script threw an error, or went past the time, memory or stack a script may use."
    default_next_step = "Fix the script (its message says where), or run it with `node` to see what it does."


#: Set up once in a scope: the deterministic clock and random numbers, Maestro's globals, no network. What
#: changes from one script to the next (the seed, the device's time, the outputs) is set by `__visor_enter`,
#: which reads closures only: no script can reach the machine's own clock through it.
_PRELUDE = r"""
(function () {
  delete globalThis.__date_clock;  // the binding's own clock: the machine's time
  let drawn = 0, now = 0, logLines = 0;
  Math.random = function () {  // mulberry32: small, fast and well spread; from the scenario's seed
    drawn = (drawn + 0x6D2B79F5) >>> 0;
    let t = drawn;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const RealDate = Date;
  function DeviceDate(...args) {
    if (!new.target) return new RealDate(now).toISOString();
    return args.length === 0 ? new RealDate(now) : new RealDate(...args);
  }
  DeviceDate.prototype = RealDate.prototype;
  DeviceDate.now = () => now;
  DeviceDate.parse = RealDate.parse;
  DeviceDate.UTC = RealDate.UTC;
  globalThis.Date = DeviceDate;
  // The device's time zone is UTC to a script: local time would be the machine's, and differ between runs.
  const proto = RealDate.prototype;
  for (const part of ["FullYear", "Month", "Date", "Day", "Hours", "Minutes", "Seconds", "Milliseconds"]) {
    proto["get" + part] = proto["getUTC" + part];
    if (part !== "Day") proto["set" + part] = proto["setUTC" + part];
  }
  proto.getTimezoneOffset = () => 0;
  for (const name of ["toString", "toLocaleString", "toDateString", "toTimeString", "toLocaleDateString",
                      "toLocaleTimeString"]) {
    proto[name] = proto.toISOString;
  }
  const logs = [];
  const show = (value) => typeof value === "string" ? value : JSON.stringify(value);
  const log = (...values) => { if (logs.length < logLines) logs.push(values.map(show).join(" ")); };
  globalThis.console = { log: log, info: log, warn: log, error: log, debug: log };
  const refuse = () => { throw new Error("scripts in visor have no network access (http is not available)"); };
  globalThis.http = { get: refuse, post: refuse, put: refuse, delete: refuse, request: refuse };
  globalThis.json = (text) => JSON.parse(text);
  globalThis.__visor_enter = function (text) {
    const state = JSON.parse(text);
    drawn = state.seed >>> 0;
    now = state.now;
    logLines = state.log_lines;
    logs.length = 0;
    globalThis.output = state.output;
    globalThis.maestro = { copiedText: state.copied, platform: state.platform };
  };
  globalThis.__visor_logs = () => JSON.stringify(logs);
})();
"""


class Scope:
    """One JavaScript global scope that the scripts of a run share, as Maestro's do.

    What one script declares (`var index = 0`), the next one sees; what each is given (`Globals`: the outputs, the
    parameters and its env, its seed and the device's time) is set afresh as it starts, and its env is taken away
    as it ends. QuickJS is started on the first
    script, so a run with none never loads it.
    """

    def __init__(self, limits: Limits = Limits()) -> None:
        self.limits = limits
        self._context: Any = None

    def run(self, source: str, given: Globals) -> Outcome:
        """Run `source` with `given`'s globals, within the scope's limits; return what it did.

        Raises:
            ScriptError: it did not parse, threw, or went past a bound (the message says which, and where).
            NotInstalled: QuickJS is not installed.
        """
        quickjs = _quickjs()
        context = self._started(quickjs)
        limits = self.limits
        context.set_time_limit(-1)  # QuickJS refuses calls into Python under a time limit: none are timed
        for name, value in given.env.items():
            context.set(name, value)
        # As JSON, not as numbers: QuickJS's binding passes a Python int as a 32-bit one, and the clock is larger.
        state = {"seed": given.seed & 0xFFFFFFFF, "now": given.now_ms, "log_lines": limits.log_lines,
                 "output": given.output, "copied": given.copied_text, "platform": given.platform}  # fmt: skip
        context.set("__visor_state", json.dumps(state))
        context.eval("__visor_enter(__visor_state); delete globalThis.__visor_state;")
        context.set_time_limit(limits.cpu_seconds)
        try:
            value = context.eval(source)  # its own text, so an error's line is the script's line
            output = context.eval("JSON.stringify(globalThis.output === undefined ? {} : globalThis.output)")
            logs = context.eval("__visor_logs()")
        except quickjs.JSException as exc:
            raise _failed(str(exc), limits) from exc
        finally:  # a script's env is its own: the next one is given its own (the parameters, set again)
            context.set_time_limit(-1)
            with contextlib.suppress(quickjs.JSException):  # a scope past its memory bound: its error is the news
                context.eval(f"for (const name of {json.dumps(list(given.env))}) delete globalThis[name];")
        return Outcome(_value(value), _object(output), tuple(str(line) for line in json.loads(str(logs))))

    def _started(self, quickjs: Any) -> Any:
        if self._context is None:
            context = quickjs.Context()
            context.set_memory_limit(self.limits.memory_bytes)
            context.set_max_stack_size(self.limits.stack_bytes)
            context.eval(_PRELUDE)
            self._context = context
        return self._context


def _quickjs() -> Any:
    """Return the QuickJS module.

    Raises:
        NotInstalled: it is not installed (the `scripts` extra).
    """
    try:
        import quickjs  # lazy: QuickJS loads only for a scenario that runs a script
    except ImportError as exc:
        raise NotInstalled.from_missing_library("quickjs", "scripts", needed_by="a script", detail=str(exc)) from exc
    return quickjs


def run_script(source: str, given: Globals, limits: Limits = Limits()) -> Outcome:
    """Run `source` with `given`'s globals, within `limits`, in a scope of its own; return what it did.

    Raises:
        ScriptError: it did not parse, threw, or went past a bound (the message says which, and where).
    """
    return Scope(limits).run(source, given)


def _failed(text: str, limits: Limits) -> ScriptError:
    """Return the error for a script that did not run to its end, its message cut to a readable length."""
    first, _, rest = text.partition("\n")
    where = next((line.strip() for line in rest.splitlines() if "<input>:" in line), "")
    message = f"{first}{f' ({where})' if where else ''}"[:MESSAGE_CHARS]
    if first.startswith("InternalError: interrupted"):
        return ScriptError(f"the script ran past its {limits.cpu_seconds} s budget", likely_cause="It never ends.")
    if first.startswith("InternalError: out of memory"):
        mib = limits.memory_bytes // (1024 * 1024)
        return ScriptError(f"the script used more than {mib} MiB", likely_cause="It builds data without bound.")
    if first.startswith("InternalError: stack overflow"):
        return ScriptError("the script's calls went too deep (stack overflow)", likely_cause="A runaway recursion.")
    return ScriptError(f"the script failed: {message}")


def _value(value: object) -> JsonValue:
    """Return the value of a script's last expression as JSON (a function, a symbol or undefined gives null)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    text = value.json() if hasattr(value, "json") else None  # an object or an array; a function has no JSON
    return _parsed(text)


def _parsed(text: object) -> JsonValue:
    """Return JSON text parsed; anything else (JSON.stringify of a function) is null."""
    if not isinstance(text, str):
        return None
    parsed: JsonValue = json.loads(text)
    return parsed


def _object(text: object) -> JsonObject:
    """Return the output object after a script; a script that replaced it by a non-object leaves it empty."""
    value = _parsed(text)
    return value if isinstance(value, dict) else {}


def value_text(value: object) -> str:
    """Return a script's value (as JSON) as the text JavaScript makes of it; an object or an array as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if value != value else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))  # JavaScript has one number type: 3.0 is 3
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def truthy(value: object) -> bool:
    """Say whether a script's value (as JSON) is true as JavaScript has it: every object and array is."""
    if value is None or isinstance(value, bool):
        return bool(value)
    if isinstance(value, int | float):
        return value == value and value != 0  # NaN is false
    if isinstance(value, str):
        return value != ""
    return True
