"""Maestro flows read and converted into visor scenarios (`visor import maestro`).

- `commands`: Each Maestro command, converted into visor steps: its steps, and notes on what of it is left out, and
  why
- `convert`: `visor import maestro`: Maestro flows converted into visor scenarios, and what could not be, with its
  file and line
- `format`: A Maestro flow run (or validated) as it is: `visor run flow.yaml` converts it on the way in
- `flow`: Read Maestro flows and their `runFlow` includes: the one bounded reader, the hardened YAML parser, caps
- `importer`: `visor import maestro FLOW|DIR... --output DIR`: write each Maestro flow as a visor scenario, checked
- `notes`: What a note on a converted Maestro command says, beyond "left out": Maestro refuses it, or Maestro
  ignores it
- `selectors`: Maestro's element selectors and conditions as visor's: `text=`/`id=` when plain, `match=` when they
  say more
- `values`: Maestro's values as the converter reads them: scalars as Maestro reads them, numbers, parameters, shown
  safely
- `workspace`: A Maestro workspace's `config.yaml`: which flows run (`flows:` globs), by tag, in what order; as a
  `visor.toml`
"""
