"""The 16 agent tools as scenario commands: their definitions, typed arguments and argument rules.

- `arguments`: Typed, immutable arguments of the agent tools, built from arguments that passed the tools spec's
  schemas
- `bounds`: The limits visor sets where the tools spec leaves a tool's argument open (docs/agent-tools.md,
  "Decisions")
- `call`: A validated tool call: light to import, so scenarios without tool steps never load the tools' models
- `check`: Validate one tool call: the tools spec's JSON Schema first, then visor's rules, then build typed
  arguments
- `definitions`: The agent tools' definitions: the tools spec's 16 tools, shipped verbatim in `visor/schemas/agent-
  tools.json`
- `export`: The agent tools' definitions as visor exports them: descriptions within 1,024 characters, schemas any
  client fills
- `family`: The agent tools as a command family of scenarios (`visor.scenario.families`): named, checked and
  described here
- `rules`: The agent tools' argument rules beyond their JSON Schemas: what the tools spec's descriptions require
- `specs`: One record per agent tool, scenario side: its name, typed arguments, argument rules and shipped
  definition
"""
