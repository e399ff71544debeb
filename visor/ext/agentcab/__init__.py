"""AgentCab: collecting an agent's input, applying its actions under confirmation, its workers and its steps.

- `act`: Apply an agent's checked actions on the device, in order (seed 003), each reported with its outcome
- `agent_tests`: `visor agentcab test AGENT.yaml`: an agent run end to end on the simulated phone, as many times as
  asked
- `calls`: `visor agentcab`: the AgentCab device protocol (seed 003) on a device: profiles, input, actions
- `collect`: Collect an agent's input payload from the device, one property per `format` (seed 003)
- `confirm`: Turn a confirmation policy (`--confirm`) into the confirmer that answers the system dialogs
- `steps`: The AgentCab steps of a scenario: `agentcab_collect` and `agentcab_apply` (seed 003), so agents gate CI
- `worker`: Hand an agent's payload to its worker and read back its output: a command (stdin → stdout) or a loopback
  URL
- `spec/`: AgentCab at the input edge: an agent's input schema, its output actions, the confirmation policy, agent
  files
"""
