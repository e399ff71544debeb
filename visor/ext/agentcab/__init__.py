"""AgentCab: collecting an agent's input, applying its actions under confirmation, its workers and its steps."""
