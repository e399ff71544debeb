"""Scripts of a run: what a script is given (the run's outputs, a seed of its place, the device's clock), and run.

Every script of a run — an `eval_script`, a `run_script`, an `assert_true`, a `when: {true: …}` — reads and
writes one `output` object, kept on the run's shared state (`visor.device.memory.AgentState.outputs`): what a
script leaves there is what the next one sees. They share one JavaScript global scope too (`AgentState.scripts`).
Nothing a script is given comes from the wall clock or an unseeded generator:

- its `Math.random` draws from the run's effective seed mixed with the step's index (`script_seed`), so two
  scripts of a run differ and the same run draws the same numbers;
- its `Date.now()` is the device's clock (`Clock.monotonic_us`: the virtual clock on the simulated phone) counted
  from a fixed epoch, `SCRIPT_EPOCH_MS` (2026-01-01T00:00:00Z), never the machine's time.
"""

from __future__ import annotations

from collections.abc import Mapping

from visor.clock import us_to_ms
from visor.device.memory import AgentState
from visor.scripting.sandbox import Globals, Outcome

#: What a script's `Date.now()` counts the device's clock from: 2026-01-01T00:00:00Z, in ms since 1970.
SCRIPT_EPOCH_MS = 1_767_225_600_000
#: An odd 32-bit constant (the golden ratio's): spreads step indices over the seed's bits.
_SPREAD = 0x9E3779B1


def script_seed(run_seed: int, step_index: int) -> int:
    """Return the seed of a script at `step_index` of a run seeded `run_seed` (32 bits, as `Math.random` takes)."""
    return (run_seed ^ (step_index * _SPREAD)) & 0xFFFFFFFF


def device_ms(device_us: int) -> int:
    """Return what `Date.now()` says at `device_us` of the device's clock: ms from `SCRIPT_EPOCH_MS`."""
    return SCRIPT_EPOCH_MS + us_to_ms(device_us)


def run_in_run(
    source: str,
    agent: AgentState,
    *,
    platform: str,
    seed: int,
    step_index: int,
    device_us: int,
    env: Mapping[str, str] | None = None,
) -> Outcome:
    """Run `source` with the run's outputs, its place's seed and the device's time; keep the outputs it leaves.

    Raises:
        ScriptError: the script did not run to its end (the outputs are left as they were).
    """
    given = Globals(
        output=agent.outputs,
        env={**agent.parameters, **(env or {})},
        copied_text=agent.copied_text,
        platform=platform,
        seed=script_seed(seed, step_index),
        now_ms=device_ms(device_us),
    )
    outcome = agent.scripts.run(source, given)
    agent.outputs = outcome.output
    return outcome
