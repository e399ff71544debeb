"""The limits visor sets where the tools spec leaves a tool's argument open (docs/agent-tools.md, "Decisions")."""

from __future__ import annotations

from visor.limits import MAX_GESTURE_MS as MAX_GESTURE_MS  # the scenario format bounds gestures alike

#: Normalized coordinates run from 0 to this, on each axis.
NORMALIZED_MAX = 1000
#: Taps one call may dispatch in all (click.times, click_sequence, a sequence's clicks): the tools spec's
#: "configured fast-action limit".
FAST_ACTION_LIMIT = 20
#: Standalone click.times and click.delay_ms, bounded like the sequence's click member.
MAX_TIMES = 10
MAX_DELAY_MS = 1000
#: wait_for_delay: the tools spec's examples go to 5 minutes; visor allows 10.
MAX_DELAY_WAIT_MS = 600_000
#: input_text's text, as control_action bounds its text.
MAX_TEXT = 65_536
#: The "16KiB argument safety bound" of action_sequence: UTF-8 bytes of the compact JSON encoding.
ARGUMENT_BOUND_BYTES = 16_384
#: Any call's arguments, measured so: room for the longest text (`MAX_TEXT` characters of 4 UTF-8 bytes each)
#: and 16 KiB more. Past it a call is refused before its arguments are read (a 10 MB description, 10,000 frames).
CALL_BOUND_BYTES = 4 * MAX_TEXT + ARGUMENT_BOUND_BYTES
