"""The 16 agent tools as scenario commands: their definitions, typed arguments and argument rules."""
