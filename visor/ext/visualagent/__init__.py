"""The VisualAgent command-file protocol, served on any device, and its sessions exported as scenarios."""
