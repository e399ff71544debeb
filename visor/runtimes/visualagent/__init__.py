"""The `visualagent` runtime: a device driven through the VisualAgent command-file protocol (spec 000)."""
