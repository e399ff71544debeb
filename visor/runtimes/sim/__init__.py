"""The simulated device: app models, their behaviour, layout and rendering.

- `boxes`: Building a frame: boxes (widgets whose children are still to come), the place an element gets, freezing
- `builders`: The builder table: how each kind of app-model element is laid out, and columns and rows of elements
- `config`: The simulated phone's part of a device's configuration, and the option that fills it. Light to import
- `control_layout`: Builders of the simple elements: texts, buttons, fields, switches and checkboxes, sliders,
  images, spinners
- `device`: The simulated device: a deterministic phone in the same process, an Android phone or an iPhone
- `ios`: The iOS flavour of the simulated phone: a laid-out screen as XCUITest shows it, in points
- `keyboard`: The iPhone's on-screen keyboard: up while a field on the screen has focus (the iOS flavour only)
- `layout`: Lay out a simulated screen: the UI tree a test sees, and the widgets the renderer draws and taps hit
- `linked`: Validate scenarios together with the app models they run on, as `visor validate` does
- `load`: Load app models: find the file, parse it with positions, validate it, and check its references
- `metrics`: Measures of the simulated screen, and where values sit on its sliders and timelines
- `model`: The app-model format of the simulated device: screens, elements, overlays, behaviour
- `orientation`: The simulated phone turned: its screen as a rotated display shows the portrait layout. Pure
  geometry
- `overlay_layout`: Overlays laid over a screen: a modal dialog over its scrim, and a bottom panel holding elements
- `phone_data`: The simulated phone's personal data: a device profile, loaded into state that agents read and
  actions change
- `pictures`: The simulated phone's photos: small pictures drawn from a seed, so their perceptual hashes are real
- `png`: Encode the simulated phone's screens as PNG, compressing again only the rows that changed since the last
  one
- `profile_generator`: Generate a realistic device profile of any size from a seed: `visor agentcab profile --photos
  N --seed S`
- `profile_load`: Load device profiles: find the file (a shipped profile's name, or a path), parse it with
  positions, validate it
- `profile_model`: The device-profile format of the simulated device: the personal data an agent can read and change
  (seed 003)
- `recording`: The simulated phone's screen recording: each change of its screen at the device's time, drawn when
  kept
- `render`: Draw a laid-out simulated screen as a PNG a person can read
- `state`: The running state of one simulated app, and the interpreter of its actions
- `system_ui`: The simulated phone's own screens over every app: a system dialog asking the user, and the
  notification shade
- `view_layout`: Builders of the elements made of parts: a timeline (its indicator and ticks) and a list (its items
  in view)
- `widgets`: What a laid-out simulated screen is made of: widgets, their kinds, and the frame that finds them by
  touch
"""
