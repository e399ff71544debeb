"""The `visualagent` runtime: a device driven through the VisualAgent command-file protocol (spec 000).

- `config`: The `visualagent` runtime's part of a device's configuration, and the options that fill it. Light to
  import
- `device`: A device driven through the VisualAgent command-file protocol (spec 000): `--runtime visualagent`
- `mailbox`: Where a VisualAgent agent reads its commands and writes its results: a local folder, or one on a phone
"""
