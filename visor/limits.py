"""Limits on what visor accepts, shared by the scenario format and the command line (so both say the same).

Kept free of imports: the command line reads them at start-up.
"""

#: The longest duration a scenario or an option may name, in ms: a day (longer is a typo, and timers overflow).
MAX_DURATION_MS = 86_400_000
#: The largest seed: 64 bits.
MAX_SEED = 2**64 - 1
#: Steps and assertions a scenario may have (a generated 10,000-step soak test is fine; 4 million items are not).
MAX_STEPS = 100_000
MAX_ASSERTIONS = 10_000
#: Issues `validate` lists for one file; past it, one more issue says how many were left out.
MAX_ISSUES = 1_000
#: Any gesture's duration (long press, swipe, drag) in ms: the agent tools' sequence members bound it so, and a
#: Maestro flow's swipe is converted within it.
MAX_GESTURE_MS = 10_000
