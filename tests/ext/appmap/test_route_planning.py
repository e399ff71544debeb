"""Route planning over the map: the most reliable route, only through usable, safe edges (a property test)."""

from __future__ import annotations

import math
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.ext.appmap import parts
from visor.ext.appmap.document import Edge
from visor.ext.appmap.model import MIN_CONFIDENCE, AppMap, MapPlace
from visor.ext.appmap.routes import HOP_COST, plan


def app_map(edges: list[tuple[int, int, float, bool, str]], variants: int = 6) -> AppMap:
    made = AppMap.new(MapPlace.of("android", "com.example", "/tmp/unused"), "t")
    made.document = parts.document(
        [parts.variant(n, elements=[parts.element(selector="risky", safety="risky")]) for n in range(variants)],
        [parts.edge(n + 1, f"variant_{a}", f"variant_{b}", target, confidence=confidence, stale=stale)
         for n, (a, b, confidence, stale, target) in enumerate(edges)],
    )  # fmt: skip
    return made


def test_two_sure_taps_beat_one_doubtful_one() -> None:
    graph = app_map([(0, 2, 0.3, False, "a"), (0, 1, 1.0, False, "b"), (1, 2, 1.0, False, "c")])
    assert [edge.target for edge in plan(graph, "variant_0", {"variant_2"}) or []] == ["b", "c"]
    sure = app_map([(0, 2, 0.9, False, "a"), (0, 1, 1.0, False, "b"), (1, 2, 1.0, False, "c")])
    assert [edge.target for edge in plan(sure, "variant_0", {"variant_2"}) or []] == ["a"]


def test_stale_weak_back_and_risky_edges_are_never_planned() -> None:
    graph = app_map([(0, 1, 1.0, True, "a"), (0, 1, 0.2, False, "b"), (0, 1, 1.0, False, "risky")])
    back = replace(graph.document.edges[0], id="edge_9", stale=False, intent="back")
    graph.document = replace(graph.document, edges=(*graph.document.edges, back))
    assert plan(graph, "variant_0", {"variant_1"}) is None


edges = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 5), st.floats(0, 1), st.booleans(), st.sampled_from(["a", "risky"])),
    max_size=14,
)


@settings(max_examples=300, deadline=None)
@given(edges, st.integers(0, 5), st.sets(st.integers(0, 5), min_size=1, max_size=3))
def test_a_plan_is_a_usable_path_to_a_goal_and_the_cheapest(
    found: list[tuple[int, int, float, bool, str]], start: int, goals: set[int]
) -> None:
    graph = app_map(found)
    wanted = {f"variant_{n}" for n in goals}
    route = plan(graph, f"variant_{start}", wanted)
    usable = [e for e in graph.document.edges
              if not e.stale and e.confidence >= MIN_CONFIDENCE and e.target != "risky"]  # fmt: skip
    reachable, frontier = {f"variant_{start}"}, [f"variant_{start}"]
    while frontier:
        here = frontier.pop()
        for edge in usable:
            if edge.from_variant_id == here and edge.to_variant_id not in reachable:
                reachable.add(edge.to_variant_id)
                frontier.append(edge.to_variant_id)
    assert (route is None) == (not reachable & wanted)
    if route is None:
        return
    at = f"variant_{start}"
    for edge in route:
        assert edge in usable and edge.from_variant_id == at
        at = edge.to_variant_id
    assert at in wanted
    # No usable path is cheaper (brute force over simple paths up to the route's length + 2).
    cost = sum(-math.log(max(e.confidence, 1e-6)) + HOP_COST for e in route)
    best = _cheapest(usable, f"variant_{start}", wanted, len(route) + 2)
    assert cost <= best + 1e-9


def _cheapest(usable: list[Edge], start: str, goals: set[str], depth: int) -> float:
    best = math.inf

    def walk(at: str, seen: set[str], cost: float, left: int) -> None:
        nonlocal best
        if at in goals:
            best = min(best, cost)
            return
        if not left:
            return
        for edge in usable:
            if edge.from_variant_id == at and edge.to_variant_id not in seen:
                step = -math.log(max(edge.confidence, 1e-6)) + HOP_COST
                walk(edge.to_variant_id, seen | {edge.to_variant_id}, cost + step, left - 1)

    walk(start, {start}, 0.0, depth)
    return best
