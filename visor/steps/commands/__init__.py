"""The scenario commands, executed on the device protocol: one module per command, or per small family.

A module holds its commands' executors, the shapes of the details they report (`TypedDict`s, each key declaring
its part in the determinism signature: `visor.steps.details`) and, last, its `ENTRIES`: one
`entry(Model, executor, Details)` each. `visor.steps.catalogue` gathers the entries of every module here, so a
new command is its argument model (`visor.scenario.commands`) and a module here, or a few lines in its family's
(docs/internals.md). Shapes and helpers several commands share live beside this package (`details`, `targets`).

- `act`: `act`: its helpers. Text typed (and checked to have arrived), a key pressed, the app reset, a drag, a
  slider
- `capture`: `screenshot` and `source`: the screen saved as an artifact (and copied into the project when asked)
- `contexts`: `switch_context`: into a hybrid app's web view, or back to its native screen; waited for, checked,
  said
- `device_settings`: `set_orientation`, `set_permissions`, `clear_keychain`, `set_airplane_mode`, `set_location`:
  settings, read back
- `flow`: `run_flow`: another scenario's steps, put in as the scenario loads (this fails one never loaded)
- `keys`: `press` and `hide_keyboard`: a key pressed and its effect seen; the soft keyboard taken down and seen
  gone
- `launch`: `launch_app`: start an app (stopped first, its data cleared, its permissions and arguments set), checked
  in front
- `long_tap`: `long_tap`: a finger held on an element, at a point a touch reaches (never through a dialog
  over it), or a point
- `media`: `add_media`: pictures and videos of the project added to the phone's photo library, each checked to be
  there
- `navigate`: `navigate`: open a deep link or URL
- `script`: `eval_script`, `run_script` and `assert_true`: JavaScript run in the sandbox, on the run's shared
  `output`
- `scroll`: `scroll`: swipe what scrolls (else the screen) up or down, and say whether its content moved
- `scroll_until`: `scroll_until_visible`: swipe what scrolls (else the screen) until an element is visible enough,
  or say why not
- `tap`: `tap`: an element, at a point a touch reaches (taking the app map's route to a screen showing it), or a
  point
- `text`: `erase_text`, `copy_text_from`, `paste_text`, `input_random`: text taken from fields and put into them,
  checked
- `wait`: `wait`: a fixed time, for an element, or until the screen stops changing
"""
