"""The app map's compact agent memory (upstream's `visor.agent-memory.v1`): what an agent needs, nothing private.

`screens` (each variant with up to 3 targets that recognize it), `routes` (one per edge, with what to expect and
how reliable it is) and `gaps` (screens nobody has named). Only text an agent can safely see is kept
(`agent_safe_text`): no money, no @handles, no long numbers, no full names of people; typed values never exist
in the map to begin with. `data.memory` is the slice around the current screen.
"""

from __future__ import annotations

import re
from typing import NotRequired, TypedDict

from visor.ext.appmap.document import Edge, Element, MapDocument, Variant
from visor.ext.appmap.model import contract_targets

SCHEMA = "visor.agent-memory.v1"
_MONEY = re.compile(r"\d{1,3}(,\d{3})*\.\d{2}")
_STRUCTURAL = {"account", "activity", "back", "cancel", "close", "continue", "details", "discover", "done", "home",
               "leaderboard", "menu", "next", "notifications", "portfolio", "profile", "search", "settings",
               "trades"}  # fmt: skip


class MemoryVariant(TypedDict):
    """A variant of a screen in the memory, and up to 3 targets that recognize it."""

    id: str
    auth_required: bool
    recognize: list[str]


class MemoryScreen(TypedDict):
    """A screen in the memory: its name (when annotated), what can be done there, its variants."""

    id: str
    label: NotRequired[str | None]
    purpose: NotRequired[str | None]
    actions: NotRequired[list[dict[str, object]]]
    variants: list[MemoryVariant]


class _Named(TypedDict, total=False):
    """A screen's name and purpose, as far as an annotation gave them."""

    label: str | None
    purpose: str | None


class _Actions(TypedDict, total=False):
    """What can be done on a screen, when anything can."""

    actions: list[dict[str, object]]


class MemoryRoute(TypedDict):
    """An edge of the map as the memory gives it: where from and to, its action, what to expect, how reliable."""

    from_screen: str
    from_variant: str
    to_screen: str
    to_variant: str
    action: dict[str, object]
    expect: dict[str, list[str]]
    reliability: dict[str, object]


class Gap(TypedDict):
    """A screen nobody has named yet."""

    screen_id: str
    reason: str


class Memory(TypedDict):
    """The agent memory (`visor.agent-memory.v1`), the file written beside the map."""

    schema: str
    identity: str
    app_id: str
    platform: str
    updated_at: str | None
    screens: list[MemoryScreen]
    routes: list[MemoryRoute]
    gaps: list[Gap]


class CurrentScreen(TypedDict):
    """The screen a slice of the memory is about."""

    id: str
    variant_id: str
    label: NotRequired[str | None]
    purpose: NotRequired[str | None]
    recognize: list[str]


class MemorySlice(TypedDict):
    """`data.memory`: the current screen, the routes into and out of its variant, and every gap."""

    schema: str
    current_screen: CurrentScreen | None
    routes: list[MemoryRoute]
    gaps: list[Gap]


def agent_safe_text(text: str) -> bool:
    """Return True for text an agent may see: short, no currency or percent, no @handle, few digits."""
    trimmed = text.strip()
    if not trimmed or len(trimmed) > 100 or any(mark in trimmed for mark in "$€£¥%") or re.search(r"@\w", trimmed):
        return False
    return sum(ch.isdigit() for ch in trimmed) <= max(2, len(trimmed) // 3)


def agent_safe_route_text(text: str) -> bool:
    """Return True for a target an agent may see: safe text that looks like neither money nor a person's name."""
    bare = re.sub(r"^(text~?=|accessibility=|id=)", "", text)
    if not agent_safe_text(bare) or _MONEY.search(bare):
        return False
    words = bare.split()
    looks_like_a_name = len(words) >= 2 and all(w[:1].isupper() and w[1:].islower() and w.lower() not in _STRUCTURAL
                                                 for w in words)  # fmt: skip
    return not looks_like_a_name


def build_memory(document: MapDocument) -> Memory:
    """Return the agent memory of a map document."""
    variants = {variant.id: variant for variant in document.variants}
    recognize: dict[str, list[str]] = {}
    for edge in document.edges:
        safe = [t for t in edge.destination_contract.required_targets if agent_safe_route_text(t)]
        known = recognize.setdefault(edge.to_variant_id, [])
        known.extend(target for target in safe if target not in known)
    screens = []
    for screen in document.screens:
        named = _Named()
        if "label" in screen.order:
            named["label"] = screen.label
        if "purpose" in screen.order:
            named["purpose"] = screen.purpose
        actions = screen_actions([variants[vid] for vid in screen.variant_ids])
        listed: _Actions = {"actions": actions} if actions else {}
        shown = [MemoryVariant(id=vid, auth_required=variants[vid].auth_required,
                               recognize=(recognize.get(vid) or _anchors(variants[vid]))[:3])
                 for vid in screen.variant_ids]  # fmt: skip
        screens.append(MemoryScreen({"id": screen.id, **named, **listed, "variants": shown}))
    routes = []
    for edge in document.edges:
        if not agent_safe_route_text(edge.target):
            continue
        source, target = variants[edge.from_variant_id], variants[edge.to_variant_id]
        expect = [t for t in edge.destination_contract.required_targets if agent_safe_route_text(t)][:3]
        routes.append(MemoryRoute(
            from_screen=source.screen_id, from_variant=source.id, to_screen=target.screen_id, to_variant=target.id,
            action={"command": edge.command, "args": _route_args(edge)}, expect={"selectors": expect},
            reliability={"confidence": edge.confidence, "successes": edge.successes, "failures": edge.failures,
                         "stale": edge.stale},
        ))  # fmt: skip
    gaps = [Gap(screen_id=screen.id, reason="needs_semantics")
            for screen in document.screens if not (screen.label and screen.purpose)]  # fmt: skip
    return Memory(schema=SCHEMA, identity=document.identity, app_id=document.app_id, platform=document.platform,
                  updated_at=document.updated_at, screens=screens, routes=routes, gaps=gaps)  # fmt: skip


def _route_args(edge: Edge) -> dict[str, object]:
    """Return a route's action arguments: its target, and the fields it fills first (field -> variable NAME)."""
    fill = edge.args.fill
    return {"target": edge.target, **({"fill": dict(sorted(fill.items()))} if fill else {})}


#: Upstream's intents, by the words of a control's label (the first that matches), else the label's first word.
_INTENTS = (("like", "like"), ("comment", "comment"), ("share", "share"), ("save", "save"), ("bookmark", "save"),
            ("follow", "follow"), ("watchlist", "watchlist"), ("search", "search"), ("create", "create"),
            ("new", "create"), ("filter", "filter"), ("sort", "sort"), ("close", "dismiss"), ("dismiss", "dismiss"),
            ("skip", "dismiss"))  # fmt: skip
_FIELDS = ("command", "target", "label", "intent", "safety", "source")


def screen_actions(variants: list[Variant]) -> list[dict[str, object]]:
    """Return what can be done on a screen: its annotated actions, then the ones its controls suggest.

    A control suggests an action when it is safe, stable and tappable, and neither a back control nor already
    annotated: labelled by its shortest plain target, with upstream's intent (like, comment, share, save…,
    else the label's first word); one per intent and target. Only text an agent may safely read is kept.
    """
    found: list[tuple[str | None, ...]] = []  # each action's `_FIELDS`, in turn
    seen: set[str] = set()
    for variant in variants:
        for action in variant.actions:
            seen.add(str(action.target))
            found.append((action.command, action.target, action.label, action.intent, action.safety, "annotation"))
    for variant in variants:
        for element in variant.elements:
            label = suggested_label(element)
            if label is None or element.selector in seen:
                continue
            seen.add(element.selector)
            words = re.findall(r"[a-z0-9]+", label.casefold())
            intent = next((name for word, name in _INTENTS if word in words), words[0] if words else "tap")
            found.append(("tap", element.selector, label, intent, "safe", "screen"))
    return [{key: value for key, value in zip(_FIELDS, action, strict=True)
             if value is not None and agent_safe_text(value)} for action in found]  # fmt: skip


def suggested_label(element: Element) -> str | None:
    """Return the label of the action a control suggests (upstream's source-derived action), None if it suggests none.

    A control suggests one when it is safe, stable and tappable, and does not go back.
    """
    if not (element.safety == "safe" and element.stable and element.clickable and element.enabled):
        return None
    plain = sorted((t for t in element.targets if "=" not in t), key=len)
    named = plain or sorted(element.labels, key=len)
    lines = named[0].splitlines() if named else []
    label = lines[0] if lines else ""
    return None if not label or label.casefold() in ("navigate up", "back") else label


def _anchors(variant: Variant) -> list[str]:
    """Return what recognizes a screen no edge leads to (the app's start, a screen only an agent saw): its own."""
    return [target for target in contract_targets(variant) if agent_safe_route_text(target)]


def memory_slice(memory: Memory, variant_id: str) -> MemorySlice:
    """Return `data.memory`: the current screen, the routes into and out of its variant, and every gap."""
    screen = next((s for s in memory["screens"] if any(v["id"] == variant_id for v in s["variants"])), None)
    current = None
    if screen is not None:
        variant = next(v for v in screen["variants"] if v["id"] == variant_id)
        named = _Named()
        if "label" in screen:
            named["label"] = screen["label"]
        if "purpose" in screen:
            named["purpose"] = screen["purpose"]
        current = CurrentScreen({"id": screen["id"], "variant_id": variant_id, **named,
                                 "recognize": variant["recognize"]})  # fmt: skip
    routes = [route for route in memory["routes"] if variant_id in (route["from_variant"], route["to_variant"])]
    return MemorySlice(schema=SCHEMA, current_screen=current, routes=routes, gaps=memory["gaps"])
