"""The daemon that keeps a device open between direct actions, its client, and record and replay.

- `appium_server`: The Appium server a daemon uses: adopted when one answers, started and owned with `--appium-cmd`
- `client`: The daemon's client: start it, ask it, stop it; and send it direct actions when it runs
- `flows`: Record and replay: direct actions captured into a flow, replayed as a scenario, exported as one
- `processes`: What the daemon's commands need of the processes they manage, above `visor.children`: records, locks,
  logs
- `replay`: Replay a recorded flow as a scenario run, or export it as a scenario file (see `visor.daemon.flows`)
- `server`: The daemon: warm device sessions behind a Unix socket, so a direct action costs no session start
- `wire`: The daemon's wire: one JSON object per line, one request and one reply per connection, outcomes as JSON
"""
