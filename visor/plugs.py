"""Where features plug into the core's registries, without the core importing them and without loading them.

A feature's loader is added here (by `visor.api`, when it is imported) and called by the registry the first time
it is read: the scenario commands (`visor.scenario.commands.COMMANDS`) and the steps they run
(`visor.steps.catalogue.BY_ARGS`), the command families (`visor.scenario.families`: the agent tools) and their
runners (`visor.steps.catalogue.RUNNERS`), the app map in runs (`visor.run.hooks`), and other tools' scenario
formats (`visor.scenario.formats`). Start-up, and scenarios that use none of a feature's commands, never import
the feature. This module imports nothing of visor: the command line loads it at start-up.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, TypeVar, cast

K = TypeVar("K")
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])

#: A loader returns what it plugs in: command specs, catalogue entries, command families or their runners.
Loader = Callable[[], Iterable[Any]]

#: The registries' names, each with the loaders plugged into it (in order, once each).
PLUGGED: dict[str, list[Loader]] = {
    "commands": [],
    "entries": [],
    "families": [],
    "runners": [],
    "maps": [],
    "formats": [],
}


def generation() -> int:
    """Return how many loaders are plugged in all: what is computed from the registries is cached per generation."""
    return sum(len(loaders) for loaders in PLUGGED.values())


def per_generation(function: F) -> F:
    """Cache what `function` computes from the registries until another feature plugs in (`cache_info` as cache's).

    A library may read it before `visor.api` plugs the features in: that result is not kept for good.
    """
    cached = functools.cache(lambda _generation, *args: function(*args))

    @functools.wraps(function)
    def wrapper(*args: Any) -> Any:
        return cached(generation(), *args)

    wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return cast(F, wrapper)


def plug(registry: str, load: Loader) -> None:
    """Plug `load` into a registry (one of `PLUGGED`'s): called when the registry is first read after this."""
    loaders = PLUGGED[registry]
    if load not in loaders:
        loaders.append(load)


class Registry(Mapping[K, V], Generic[K, V]):
    """The core's own entries of one registry, then those features plug into it, each under its key.

    The loaders plugged in are called the first time the registry is read after they were plugged, so a feature
    no one asks for is never imported. An entry of the wrong kind, or one whose key is taken, is refused.
    """

    def __init__(self, name: str, own: Iterable[V], key: Callable[[V], K], kind: type = object) -> None:
        self._name, self._key, self._kind = name, key, kind
        self._items: dict[K, V] = {key(item): item for item in own}
        self._called = 0
        # The daemon and the MCP server read registries from several threads: one loads, the others wait for it.
        self._lock = threading.RLock()

    def _loaded(self) -> dict[K, V]:
        loaders = PLUGGED[self._name]
        if self._called == len(loaders):
            return self._items
        with self._lock:
            while self._called < len(loaders):
                # Built aside and swapped in whole: a reader never sees half a feature, and a loader that fails
                # (an import error, Ctrl-C) leaves nothing behind and is called again at the next read.
                items = dict(self._items)
                for item in loaders[self._called]():
                    entry = cast(V, item)  # its kind is checked here, at the edge where a feature hands it in
                    if not isinstance(item, self._kind) or items.setdefault(self._key(entry), entry) is not entry:
                        raise TypeError(f"a feature plugs {item!r} into {self._name}: no {self._kind.__name__}, or a "
                                        "name already taken")  # fmt: skip
                self._items = items
                self._called += 1
        return self._items

    def __getitem__(self, key: K) -> V:
        items = self._items
        # The core's own entries (and what is loaded already) are found without loading any feature.
        return items[key] if key in items else self._loaded()[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._loaded())

    def __len__(self) -> int:
        return len(self._loaded())
