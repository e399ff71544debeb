"""`visor benchmark --compare-map`: how the app map changed from run to run (`data.map_drift`).

A deterministic scenario on a settled map leaves the map as it found it, up to confidence growing on the edges
it followed (that is learning, not drift). Drift is anything else: a screen or an edge the map had not seen, an
edge that now leads elsewhere or was demoted, or a run whose detours (the routes taken before its steps) differ
from the first run's. Each run's map is compared with the map as that run found it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from visor.engine.results import RunResult


def map_drift(
    states: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]] | None], results: Sequence[RunResult | None]
) -> dict[str, Any]:
    """Compare each run's map, and its detours, with the first run's; return `data.map_drift`."""
    used = [state for state in states if state is not None]
    if not used:
        return {"enabled": False, "drifted": False, "reason": "no app map was used (none exists, or --no-map)"}
    first_routes = _routes(results[0]) if results and results[0] is not None else {}
    runs, totals = [], {"variants_added": 0, "edges_added": 0, "edges_repointed": 0, "edges_demoted": 0}
    diverging = []
    for number, (state, result) in enumerate(zip(states, results, strict=False), start=1):
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


def _changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, list[Any]]:
    """Return what a map gained or lost against another (confidence growing is not a change)."""
    known = {variant["id"] for variant in before["variants"]}
    edges = {edge["id"]: edge for edge in before["edges"]}
    added, repointed, demoted = [], [], []
    for edge in after["edges"]:
        old = edges.get(edge["id"])
        if old is None:
            added.append({"edge": edge["id"], "target": edge["target"], "from": edge["from_variant_id"],
                          "to": edge["to_variant_id"]})  # fmt: skip
        elif old["to_variant_id"] != edge["to_variant_id"]:
            repointed.append({"edge": edge["id"], "target": edge["target"], "was": old["to_variant_id"],
                              "now": edge["to_variant_id"]})  # fmt: skip
        elif edge["failures"] > old["failures"] or (edge["stale"] and not old["stale"]):
            demoted.append({"edge": edge["id"], "target": edge["target"], "confidence": [old["confidence"],
                            edge["confidence"]], "stale": edge["stale"]})  # fmt: skip
    variants = [variant["id"] for variant in after["variants"] if variant["id"] not in known]
    return {"variants_added": variants, "edges_added": added, "edges_repointed": repointed, "edges_demoted": demoted}


def _routes(result: RunResult) -> dict[str, list[str]]:
    """Return the detours a run took: step id -> the route's commands and targets."""
    found = {}
    for step in result.steps:
        routed = step.details.get("map")
        if isinstance(routed, Mapping) and routed.get("routed"):
            found[step.id] = [f"{leg['command']} {leg['target']}" for leg in routed.get("route", [])]
    return found
