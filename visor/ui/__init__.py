"""The observed screen: UI trees, page source, selector queries and screen fingerprints.

Selectors are resolved here against the tree a device reports, so `text=Log in` means the same on every runtime.

- `controls`: Native controls for the agent tools: exact selectors, identity tokens, content signatures, values
- `coords`: The coordinate model: every space a front end speaks, converted to device coordinates in this one place
- `description`: One description of an element, in the shape each front end reports it
- `elements`: The agents' view of a screen: a compact, indexed list of the elements that matter
- `escapes`: How a text from data is shown where some of its characters would act instead of showing: terminals and
  XML
- `fingerprint`: Screen fingerprints: a short, stable hash of what the screen shows, for the determinism signature
- `geometry`: Points, sizes and rectangles in device pixels (other spaces convert in `visor.ui.coords`)
- `hit`: Where a touch lands: the topmost element that takes touches at a point, and a point that reaches a target
- `images`: What visor reads of an image: a PNG's size from its header, and a perceptual fingerprint of a screenshot
- `query`: Resolve selectors against a UI tree: the same rules on every runtime
- `relative`: Evaluate `match=` selectors on a UI tree: patterns, states, relative position, containment, index
- `screens`: A screen as the app map knows it: its elements, their targets and safety, and keys that identify the
  screen
- `secrets`: Secrets typed during a run never reach a result: the envelope, the artifacts, the signature or an
  agent's log
- `shown_secrets`: Where a screen shows a secret, and a screenshot with those places blanked: what an agent or a map
  may be shown
- `source`: Page source: UI trees to and from the XML that Appium's drivers return
- `tree`: The UI tree of one observed screen, in page order, as every runtime reports it
- `utf16`: Text offsets in UTF-16 code units, as Android and the agent tools count them
"""
