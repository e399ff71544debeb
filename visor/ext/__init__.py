"""Features as slices on the core: each imports the core and never another slice.

- `agentcab/`: AgentCab: collecting an agent's input, applying its actions under confirmation, its workers and its
  steps
- `appmap/`: The app map: screens and the taps between them, learnt from runs, discover and crawls; routes over it
- `maestro/`: Maestro flows read and converted into visor scenarios (`visor import maestro`)
- `tools/`: The 16 agent tools, executed on the device protocol with every rule of their definitions
- `visualagent/`: The VisualAgent command-file protocol, served on any device, and its sessions exported as
  scenarios
"""
