"""The scenario commands, executed: what each step does on any device that speaks the device protocol.

- `catalogue`: The action catalogue: each scenario command's argument model bound to its executor, one typed entry
  each
- `commands/`: The scenario commands, executed on the device protocol: one module per command, or per small family
- `context`: What an action runs with: the device, the clock, the step's deadline, and where artifacts go
- `details`: What steps report in their details, typed, with each key's part in the signature declared: the shared
  shapes
- `element_handles`: Targets found by the device itself, for runs that read the screen only when needed
  (`config.observe: on-demand`)
- `entry`: A scenario command's argument model bound to its executor and the shape of its details: one typed entry
- `native_targets`: Elements a device found with its own locator engine, matched to the nodes of the observed screen
- `random_text`: Text drawn for `input_random`: letters and digits, a number, an e-mail address, a person's name
- `scripts`: Scripts of a run: what a script is given (the run's outputs, a seed of its place, the device's clock),
  and run
- `scroll_into_view`: Bring a UiScrollable's target into view by swiping its container, as UiAutomator's
  `scrollIntoView` does
- `targets`: Find the element a step targets, waiting for it to appear within the step's time; or the point it
  names
- `tree_free`: What of a scenario a device that shows no UI tree can run (`capabilities.ui_tree` False)
"""
