"""The 16 agent tools, executed on the device protocol with every rule of their definitions.

- `basic`: The everyday tools: click, click_sequence, long_press, input_text, swipe, press_key, manage_app,
  wait_for_delay
- `call_context`: What a tool call runs with: the action kernel, the session's memory, and the tool codes of device
  faults
- `call_targets`: Resolve what a tool acts on, live, before any input: controls, resource ids and element indices
- `details`: What each agent tool reports as a scenario step's details, typed, with each key's part in the signature
- `dispatch`: Run one agent tool call: validate it, execute it, and return its structured result
- `feedback`: Value feedback: read a persistent readout after the input, once it is stable, and compare it with a
  target
- `gestures`: The precise gesture tools: drag (explicit or calibrated, with value feedback), pinch and touch_gesture
- `native_controls`: The native-control tools: read_control, control_action, wait_until and scroll_to
- `outputs`: The JSON Schema of each agent tool's result, made from the typed shapes its result is built to
  (`details.py`)
- `plans`: Coordinates and gesture plans: spaces, screen and region checks, drag calibration, pinch paths
- `registry`: Every agent tool, actions side: each executor module's tools, gathered, in the tools spec's order
- `result`: What a tool call returns: a status, whether input was dispatched, a closed set of codes, and receipts
- `sequence`: action_sequence: up to ten members in one call, with no model turn between them
- `step`: An agent tool as a scenario step: its result becomes the step's details, a refusal or failure fails the
  step
- `tool`: An agent tool ready to run: its spec (its model), its executor and the shape of its result data
- `mcp/`: Agents driving a device through visor: the tool session and its MCP server
- `spec/`: The 16 agent tools as scenario commands: their definitions, typed arguments and argument rules
"""
