"""Runtimes behind the device protocol: the simulated phone, Appium, a VisualAgent phone; the registry choosing one.

- `adb`: adb as visor uses it to reach a folder on a phone: list, read, write atomically, move. One adb call each
- `config`: What a command (or a program) says about the device: one value, each runtime's part its own
- `doctor`: `visor doctor`: is this machine ready to run scenarios, and if not, what fixes it
- `flags`: A command-line option a runtime declares, as data: the command line makes each a click option
- `opening`: Open the device a command asks for: one place for `visor run`, `visor benchmark` and `visor mcp`
- `registry`: Open the device a run asks for. The runtime is always chosen explicitly; nothing falls back to `sim`
- `appium/`: The Appium runtime: real Android and iOS devices through an Appium 2/3 server
- `sim/`: The simulated device: app models, their behaviour, layout and rendering
- `visualagent/`: The `visualagent` runtime: a device driven through the VisualAgent command-file protocol (spec
  000)
"""
