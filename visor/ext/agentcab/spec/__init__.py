"""AgentCab at the input edge: an agent's input schema, its output actions, the confirmation policy, agent files.

- `agent_file`: An agent test (`visor agentcab test AGENT.yaml`): an agent's input schema, its worker, a phone, and
  what must hold
- `commands`: AgentCab's scenario commands: `agentcab_collect` and `agentcab_apply`, their arguments and their
  rules
- `formats`: An agent's `input_schema`, read: which property collects what (`format`), with which `x-device-options`
- `output_actions`: An agent's output `actions`, read and checked before any runs (seed 003: 31 action types)
- `policy`: Who says yes to an agent's actions that need a confirmation: `--confirm deny|approve|ask|POLICY.yaml`
- `sources`: How AgentCab reads its files (an agent test, a policy, an input schema, an agent's output): one way in
"""
