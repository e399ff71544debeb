"""`visor benchmark --compare-map`: how the app map changed from run to run (`data.map_drift`), and `data.variants`.

`data.variants` is upstream's A/B of the scenario run without the map and with it.

A deterministic scenario on a settled map leaves the map as it found it, up to confidence growing on the edges
it followed (that is learning, not drift). Drift is anything else: a screen or an edge the map had not seen, an
edge that now leads elsewhere or was demoted, or a run whose detours (the routes taken before its steps) differ
from the first run's. Each run's map is compared with the map as that run found it.

`data.variants` is upstream's: `[{name: "no-map", mapEnabled: false, ...}, {name: "map", mapEnabled: true, ...}]`,
each `{name, mapEnabled, runs, threshold, determinismScore, pass, failures, runIds}` (plus visor's `verdict` and
`report`). The benchmark's own fields, its exit code included, stay the map runs' (what `visor run` runs).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from visor.engine.results import RunResult
from visor.ext.appmap.document import MapDocument
from visor.report.envelope import Outcome

#: Upstream's fields of a variant, read from a benchmark's data; visor's `verdict` and `report` go with them.
_VARIANT_FIELDS = ("runs", "threshold", "determinismScore", "pass", "failures", "runIds", "verdict", "report")


def compared(
    mapped: Outcome,
    unmapped: Outcome | None,
    states: Sequence[tuple[object, object] | None],
    results: Sequence[RunResult | None],
    *,
    map_enabled: bool = True,
) -> Outcome:
    """Return the map runs' benchmark with `data.map_drift` and `data.variants` (the no-map runs' first, as upstream).

    `unmapped` is the benchmark of the same scenario with no map (None: `mapped` ran with --no-map, and is the
    no-map variant itself). Its reports are listed among the artifacts too.
    """
    variants = [variant("no-map", False, unmapped.data)] if unmapped is not None else []
    variants.append(variant("map" if map_enabled else "no-map", map_enabled, mapped.data))
    data = {**mapped.data, "map_drift": map_drift(states, results), "variants": variants}
    artifacts = [*(unmapped.artifacts if unmapped is not None else ()), *mapped.artifacts]
    return dataclasses.replace(mapped, data=data, artifacts=artifacts)


def variant(name: str, map_enabled: bool, data: Mapping[str, object]) -> dict[str, object]:
    """Return one entry of `data.variants` from a benchmark's data (upstream's shape, and visor's verdict, report)."""
    return {"name": name, "mapEnabled": map_enabled} | {key: data[key] for key in _VARIANT_FIELDS if key in data}


def map_drift(states: Sequence[tuple[object, object] | None], results: Sequence[RunResult | None]) -> dict[str, object]:
    """Compare each run's map, and its detours, with the first run's; return `data.map_drift`.

    A state is the map's documents as a run found it and left it (`MappedRun.states`); any other is no map's.
    """
    documents = [_documents(state) for state in states]
    if not any(documents):
        return {"enabled": False, "drifted": False, "reason": "no app map was used (none exists, or --no-map)"}
    first_routes = _routes(results[0]) if results and results[0] is not None else {}
    runs: list[dict[str, object]] = []
    totals = {"variants_added": 0, "edges_added": 0, "edges_repointed": 0, "edges_demoted": 0}
    diverging = []
    for number, (state, result) in enumerate(zip(documents, results, strict=False), start=1):
        if state is None:
            continue
        change = _changes(*state)
        routes = _routes(result) if result is not None else {}
        for key in totals:
            totals[key] += len(change[key])
        if routes != first_routes:
            diverging.append(number)
        runs.append({"run": number, "run_id": result.run_id if result is not None else None, "routes": routes,
                     **change})  # fmt: skip
    drifted = bool(diverging) or any(totals.values())
    return {"enabled": True, "drifted": drifted, "totals": totals, "diverging_runs": diverging, "runs": runs}


def _documents(state: tuple[object, object] | None) -> tuple[MapDocument, MapDocument] | None:
    """Return a run's map states as documents (None: the run had no map)."""
    if state is None:
        return None
    before, after = state
    return (before, after) if isinstance(before, MapDocument) and isinstance(after, MapDocument) else None


def _changes(before: MapDocument, after: MapDocument) -> dict[str, list[object]]:
    """Return what a map gained or lost against another (confidence growing is not a change)."""
    known = {variant.id for variant in before.variants}
    edges = {edge.id: edge for edge in before.edges}
    added: list[object] = []
    repointed: list[object] = []
    demoted: list[object] = []
    for edge in after.edges:
        old = edges.get(edge.id)
        if old is None:
            added.append({"edge": edge.id, "target": edge.target, "from": edge.from_variant_id,
                          "to": edge.to_variant_id})  # fmt: skip
        elif old.to_variant_id != edge.to_variant_id:
            repointed.append({"edge": edge.id, "target": edge.target, "was": old.to_variant_id,
                              "now": edge.to_variant_id})  # fmt: skip
        elif edge.failures > old.failures or (edge.stale and not old.stale):
            demoted.append({"edge": edge.id, "target": edge.target, "confidence": [old.confidence,
                            edge.confidence], "stale": edge.stale})  # fmt: skip
    variants: list[object] = [variant.id for variant in after.variants if variant.id not in known]
    return {"variants_added": variants, "edges_added": added, "edges_repointed": repointed, "edges_demoted": demoted}


def _routes(result: RunResult) -> dict[str, list[str]]:
    """Return the detours a run took: step id -> the route's commands and targets."""
    found = {}
    for step in result.steps:
        routed = step.details.get("map")
        if isinstance(routed, Mapping) and routed.get("routed"):
            found[step.id] = [f"{leg['command']} {leg['target']}" for leg in routed.get("route", [])]
    return found
