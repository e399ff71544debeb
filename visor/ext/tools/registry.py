"""Every agent tool, actions side: each executor module's tools, gathered, in the tools spec's order.

A tool is declared where it is executed (`TOOLS` at the end of `basic`, `gestures`, `native_controls` and
`sequence`; `visor.ext.tools.tool`): adding one to a module adds it here. `TOOLS` lists every tool once, as
`Runnable`s (what the runner needs, whatever the argument type); the runner finds a call's tool here, and a test
holds them equal to the specs.
"""

from __future__ import annotations

from collections.abc import Mapping

from visor.ext.tools import basic, gestures, native_controls, sequence
from visor.ext.tools.spec.specs import SPECS
from visor.ext.tools.tool import Runnable

_ORDER = {spec.name: rank for rank, spec in enumerate(SPECS)}
_DECLARED: tuple[Runnable, ...] = (*basic.TOOLS, *gestures.TOOLS, *native_controls.TOOLS, *sequence.TOOLS)
#: Every tool, in the tools spec's order.
TOOLS: tuple[Runnable, ...] = tuple(sorted(_DECLARED, key=lambda entry: _ORDER[entry.name]))
_BY_NAME: Mapping[str, Runnable] = {entry.name: entry for entry in TOOLS}


def find(name: str) -> Runnable:
    """Return the tool called `name` (a KeyError for a name that is not a tool's)."""
    return _BY_NAME[name]
