"""The 16 agent tools, executed on the device protocol with every rule of their definitions."""
