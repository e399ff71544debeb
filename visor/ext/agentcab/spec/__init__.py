"""AgentCab at the input edge: an agent's input schema, its output actions, the confirmation policy, agent files."""
