"""The VisualAgent command-file protocol, served on any device, and its sessions exported as scenarios.

- `claims`: Claiming commands, so that several `visualagent serve` processes on one folder never run a command twice
- `commands`: The VisualAgent commands' parameters (spec 000), one model each, and what a command file gets wrong,
  in words
- `export`: `visor visualagent export DIR`: an agent's session, as served, turned into a scenario that CI replays
- `folder`: The served folder's own moves, never through a link: its sub-folders, renames into them, and its log
- `phone`: Serving a phone's VisualAgent folder (`/sdcard/VisualAgent/`) through adb: `visualagent serve --adb-
  serial`
- `protocol`: The VisualAgent command-file protocol (spec 000), served by visor over any device: `visor visualagent
  serve DIR`
- `serve`: The serving loop of the VisualAgent protocol: find queued commands, claim each, run it once, answer,
  archive
- `watch`: How `visualagent serve` waits for the next command: woken by file-system events, or by looking again
"""
