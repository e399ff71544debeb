"""The engine: runs steps and assertions on a device and emits events; computes signatures and benchmarks.

- `checks`: Evaluate assertions against the screen after the last step
- `determinism`: Benchmark statistics: is a scenario deterministic, and where does it first diverge if not
- `events`: Events the engine emits while running; the envelope, the artifacts writer and the console consume them
- `filling`: Filling in a script's values as a step (or a repeat) starts: `${output.user}`, a `times` count
- `projection`: Read details by their declared shapes: the part the signature signs, and the artifacts they name
- `results`: Results of a run, as values: what the envelope, the artifacts and the signature are made from
- `runner`: Run a scenario on a device: steps in order, then assertions, then the teardown, emitting events
- `signature`: The determinism signature: SHA-256 of canonical JSON over a documented projection of a run
- `walk`: Walk a scenario's steps and blocks: `when`s decided on the screen, repeats bounded, retries, optional
  misses
"""
