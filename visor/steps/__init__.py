"""The scenario commands, executed: what each step does on any device that speaks the device protocol."""
