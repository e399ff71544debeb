"""The AgentCab device protocol (seed 003), executed: collecting an agent's input, applying its actions."""
