"""Limits on what visor accepts, shared by the scenario format and the command line (so both say the same).

Kept free of imports: the command line reads them at start-up.
"""

#: The longest duration a scenario or an option may name, in ms: a day (longer is a typo, and timers overflow).
MAX_DURATION_MS = 86_400_000
#: The largest seed: 64 bits.
MAX_SEED = 2**64 - 1
