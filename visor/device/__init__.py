"""The device protocol and the kernel every front end acts through (one context, one resolver, one re-find).

- `apps`: What a device may do beyond the protocol's app commands: launch an app with options, and take media files
- `context`: The one context every front end acts through: it waits for an idle app, sends input, counts it and
  observes
- `contexts`: A hybrid app's contexts: its native screen, and the web views it shows (driven as web pages)
- `data`: The phone's personal data, as an agent marketplace app reads it (AgentCab, seed 003): a runtime's
  `device_data()`
- `logs`: A device's log: the lines the phone and its apps write (logcat, syslog, a browser's console), and crashes
  in it
- `memory`: What the agent tools remember between the calls of one session: an MCP connection, or one scenario run
- `observer`: A device wrapper that remembers its last observation until something could have changed the screen
- `protocol`: The device protocol: the primitives a runtime provides. Everything smarter lives above it
- `settings`: What a device may do to its own settings: its orientation, permissions, keychain, airplane mode,
  location
- `storage`: A phone's shared storage: the one place agents may read and change files (`/storage/emulated/0`)
- `video`: A run's video: a device that records its screen, and pictures at device times encoded as a WebM video
- `targets`: The one target resolver: which match an action uses, where a touch reaches it, and how it is found
  again
"""
