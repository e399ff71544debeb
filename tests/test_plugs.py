"""The registries features plug into: loaded once, whole, from any thread; a failed loader leaves nothing."""

from __future__ import annotations

import threading
import time

import pytest

from visor import plugs
from visor.plugs import Registry


def _registry(monkeypatch: pytest.MonkeyPatch, *loaders: plugs.Loader) -> Registry[str, str]:
    monkeypatch.setitem(plugs.PLUGGED, "commands", list(loaders))
    return Registry("commands", ["tap"], key=lambda name: name, kind=str)


def test_threads_reading_while_a_feature_loads_all_see_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon and MCP read from several threads: those reading during a slow load got the core's entries only."""

    def slow() -> list[str]:
        time.sleep(0.05)  # an import that takes a while
        return ["agentcab_collect", "agentcab_apply"]

    registry = _registry(monkeypatch, slow)
    seen: list[object] = []

    def read() -> None:
        try:
            seen.append(registry["agentcab_apply"])
        except KeyError as exc:
            seen.append(exc)

    threads = [threading.Thread(target=read) for _ in range(4)]
    for thread in threads:
        thread.start()
        time.sleep(0.005)
    for thread in threads:
        thread.join(timeout=60)
    assert seen == ["agentcab_apply"] * 4


def test_the_cores_own_entries_are_found_without_loading_a_feature(monkeypatch: pytest.MonkeyPatch) -> None:
    called: list[str] = []
    registry = _registry(monkeypatch, lambda: called.append("loaded") or ["x"])
    assert registry["tap"] == "tap" and called == []
    assert "x" in registry and called == ["loaded"]


def test_a_loader_that_fails_leaves_nothing_and_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[int] = []

    def flaky() -> list[str]:
        attempts.append(1)
        if len(attempts) == 1:
            yield "half"
            raise ImportError("interrupted import")
        yield from ("half", "whole")

    registry = _registry(monkeypatch, flaky)  # type: ignore[arg-type]
    with pytest.raises(ImportError):
        registry["whole"]
    assert "half" not in registry._items  # nothing of the failed load was kept
    assert registry["whole"] == "whole" and len(attempts) == 2


def test_a_name_plugged_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = _registry(monkeypatch, lambda: ["".join(["ta", "p"])])  # another "tap" than the core's
    with pytest.raises(TypeError, match="a name already taken"):
        list(registry)


def test_what_is_computed_from_the_registries_follows_what_is_plugged(monkeypatch: pytest.MonkeyPatch) -> None:
    """A library reading details' shapes before `visor.api` plugs the features in kept a cache without them."""
    from visor.steps import catalogue

    catalogue.detail_shapes("tap")
    misses = catalogue.detail_shapes.cache_info().misses
    catalogue.detail_shapes("tap")
    assert catalogue.detail_shapes.cache_info().misses == misses  # cached while nothing more is plugged
    monkeypatch.setitem(plugs.PLUGGED, "runners", [*plugs.PLUGGED["runners"], lambda: ()])
    catalogue.detail_shapes("tap")
    assert catalogue.detail_shapes.cache_info().misses == misses + 1  # a feature plugged since: computed again
