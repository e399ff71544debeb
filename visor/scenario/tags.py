"""The tags visor itself gives meaning to in `meta.tags` (every other tag only chooses scenarios)."""

from __future__ import annotations

#: A scenario expected to fail (a bug shown on purpose, a demo): `pytest` marks it xfail, a suite counts it
#: `xfailed`; both strict: one that passes fails, since the failure it was kept for is gone.
EXPECTED_FAILURE = "expected-failure"
