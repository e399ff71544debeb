"""The AgentCab device protocol (seed 003) at the input edge: an agent's input_schema, and its output actions."""
