"""Runs: a scenario on a device with its reports, a benchmark, a suite of scenarios on workers, direct actions.

- `benchmark_screens`: The screens a benchmark keeps: each step's end, small, so that its page shows how runs differ
  without a re-run
- `benchmark`: Benchmark a scenario file: run it again and again (`visor benchmark`), and say how deterministic it
  is
- `config`: What a run is told: its configuration, which scenarios of a suite run, where its time and ids come
  from
- `direct`: Direct actions: one command, one step, on the device (`visor
  tap|navigate|act|scroll|screenshot|wait|source`)
- `hooks`: The hook a map plugs into runs: runs, direct actions and benchmarks call it, and never know what a map
  is
- `merge`: `visor report merge DIR... --output DIR`: the shards of a suite (or any suites) combined into one report
- `runs`: Run a scenario file: load it, open the device, run the engine, feed its events to the reports, give the
  outcome
- `shards`: `--shard i/n`: a suite split across CI jobs, the same way in every job, balanced by how long scenarios
  took
- `single`: One scenario run for a front end that reports it in its own way (the pytest plugin): the result, not
  an envelope
- `state_paths`: Where visor keeps its state: one project root, found from the folder a command runs in, and
  absolute paths
- `suites`: Suites: `visor run DIR|FILE...` runs every scenario found, one after another, and reports them as one
- `workers`: Scenarios at once (`visor run --workers N`): worker processes, each driving a device of its own
"""
