"""The scenario format: reading files, the models, validation into issues, and the JSON Schema.

- `assertions`: Assertion types and their models
- `blocks`: Conditions, repeats and retries: what a step or a block of steps says about when and how often it runs
- `capability_check`: Warnings for `config.capabilities` keys that look misspelt, before a session request fails on
  them
- `commands`: Step commands and their argument models: the one place a command's arguments are defined
- `contexts`: What a scenario's context names mean: `webview`, `native`, or a context's exact name, as a driver lists
  them
- `discovery`: Find scenario files from what the user typed (files, directories, globs, `-`) and validate them all
- `families`: Command families: scenario commands a feature names, checks and describes itself (the agent tools)
- `fields`: Field types shared by the input models, and the custom errors they raise
- `flows`: `run_flow`: another scenario's steps put in where a step names it, as the scenario loads from its file
- `formats`: Scenario files in other tools' formats, taken as they are: a feature that reads one plugs in here
- `keys`: The keys the `press` command names: visor's names, other tools' spellings of them, and the platforms
  lacking them
- `loader`: Load a scenario: read the file (or standard input), parse it, fill its parameters, validate it
- `model_files`: Small documents read into one model (a policy, an agent test, an annotation): one way to read and
  refuse them
- `models`: The scenario format's top level: `meta`, `config`, `steps`, `assertions`, `teardown`, `output`
- `project_config`: A project's visor settings: `visor.toml`, or `[tool.visor]` in `pyproject.toml`, the nearest one
  up from here
- `project`: A scenario's project: the folder its relative paths may reach
- `recognise`: Say whether a file is a scenario, and read its heading (name and tags) without validating it
- `scenario`: A validated scenario: typed, immutable, ready to run
- `schema`: The JSON Schema of the scenario format, generated from the input models
- `selector_platforms`: Platform-only selectors (and arguments) checked against the platform a scenario declares
  (`meta.platform`)
- `step_args`: Steps' arguments inside other documents (a route plan's steps, an annotation's actions), checked as
  in a scenario
- `tags`: The tags visor itself gives meaning to in `meta.tags` (every other tag only chooses scenarios)
- `translate`: Turn pydantic validation errors into visor issues, worded as upstream words them
- `upstream`: `visor validate --upstream`: what visor refuses and upstream Visor accepts, reported as warnings
- `validate`: Validate a scenario document: every issue in one pass, located and in a stable order
"""
