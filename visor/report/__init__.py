"""What visor tells its users: the JSON envelope, artifacts, and the human console.

- `action_data`: The envelope of a direct action: upstream's `data` shape, and visor's verified step beside it
- `allure`: Allure results: a run as the files Allure's report reads (`--alluredir DIR`), for teams whose CI shows
  Allure
- `artifacts`: Write a run's artifacts as the run goes: nothing already written is lost when a run fails or is
  interrupted
- `benchmark_html`: benchmark-RUN_ID.html: a benchmark's runs, its score, and where it diverged, with both screens
  side by side
- `chapters`: A run video's chapters: a WebVTT cue a step, from when it started until the next one did
- `console`: Human output on stderr. The only module outside `visor.cli` that imports rich
- `envelope`: The JSON envelope: the one thing visor prints on stdout (spec 002, upstream-compatible)
- `html`: report.html: a self-contained page showing each step, its screenshots and errors, and the assertions
- `json_text`: Two-space indented JSON, the bytes `json.dumps(indent=2)` writes, in half the time
- `junit`: JUnit XML for CI: one test case per step and per assertion, so a failed assertion is never green
- `latest`: `visor report`: find a run's reports (the latest, or the one named) and say what they hold
- `marks`: What a failed step's screenshot should point at: its target's bounds, the point it touched, what
  covered it
- `outcomes`: The outcomes of `visor run` and `visor benchmark`: their envelope data, status, exit code and verdict
- `session_tools`: Tools a feature adds to an agent's session (`visor mcp`): the shape of their answers, and the
  hook they plug into
- `suite_html`: index.html of a suite: one row per scenario, linking each run's own report.html
- `suite_rows`: A suite's rows as values: one per scenario, what its run gives back, the totals, and their JSON
  form
- `summary`: summary.txt: a run in plain text, for people reading CI logs or artifact folders
- `text`: `--format text`: the outcome as lines a person reads on stdout, instead of the JSON envelope
- `told`: What a command tells a person on stderr when it succeeded: one or two lines saying what happened
- `validation`: The outcome of `visor validate`: its envelope data, status and exit code
- `vocabulary`: visor's own words in an output: statuses, codes, command names, platforms — never a secret's,
  whatever it is
"""
