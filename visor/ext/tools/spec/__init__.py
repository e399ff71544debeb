"""The 16 agent tools as scenario commands: their definitions, argument models and argument rules.

- `bounds`: The limits visor sets where the tools spec leaves a tool's argument open (docs/agent-tools.md,
  "Decisions")
- `call`: A validated tool call: light to import, so scenarios without tool steps never load the tools' models
- `check`: Validate one tool call with its model: the unknown top-level keys, then the model (schema and rules)
- `definitions`: The agent tools' definitions: the tools spec's 16 tools, shipped verbatim in `visor/schemas/agent-
  tools.json`
- `export`: The agent tools' definitions as visor exports them: descriptions within 1,024 characters, schemas any
  client fills
- `family`: The agent tools as a command family of scenarios (`visor.scenario.families`): named, checked and
  described here
- `fields`: The building blocks of the tools' argument models: strict JSON types, points, rectangles and the
  selector
- `models`: The agent tools' arguments: one pydantic model per tool, which validates a call and states visor's rules
- `rules`: The checker of visor's argument rules, and the shapes the tools' rules share (points, rectangles,
  selectors)
- `specs`: One record per agent tool, scenario side: its name, its model, and its shipped definition
- `translate`: Word a tool model's validation errors as the tools spec's schema words them: pydantic's errors mapped
  in one place
"""
