"""Where features plug into the core's registries, without the core importing them and without loading them.

A feature's loader is added here (by `visor.api`, when it is imported) and called by the registry the first time
it is read: the scenario commands (`visor.scenario.commands.COMMANDS`) and the steps they run
(`visor.steps.catalogue.BY_ARGS`), the command families (`visor.scenario.families`: the agent tools) and their
runners (`visor.steps.catalogue.RUNNERS`). Start-up, and scenarios that use none of a feature's commands, never import
the feature. This module imports nothing: the command line loads it at start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

#: A loader returns what it plugs in: command specs, catalogue entries, command families or their runners.
Loader = Callable[[], Iterable[Any]]

#: The registries' names, each with the loaders plugged into it (in order, once each).
PLUGGED: dict[str, list[Loader]] = {"commands": [], "entries": [], "families": [], "runners": []}


def plug(registry: str, load: Loader) -> None:
    """Plug `load` into a registry (one of `PLUGGED`'s): called when the registry is first read after this."""
    loaders = PLUGGED[registry]
    if load not in loaders:
        loaders.append(load)


def plugged(registry: str, after: int) -> list[Loader]:
    """Return the loaders plugged into a registry from the `after`-th on (those it has not called yet)."""
    return PLUGGED[registry][after:]
