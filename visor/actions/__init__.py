"""The action catalogue: what each step command does, on any device that speaks the device protocol."""
