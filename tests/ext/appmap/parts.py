"""Maps for tests: a document from the few fields a test cares about, the rest as visor would write them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from visor.ext.appmap.document import MapDocument, parse_document

HEAD = {"schema_version": 1, "identity": "android:com.example", "app_id": "com.example", "platform": "android"}


def element(**given: object) -> dict[str, object]:
    """Return an element's data: a safe, stable, tappable control unless `given` says otherwise."""
    return {"selector": "text=x", "targets": [], "labels": [], "safety": "safe", "stable": True, "clickable": True,
            "enabled": True, **given}  # fmt: skip


def variant(number: int, **given: object) -> dict[str, object]:
    """Return variant `number`'s data (of screen `number` unless `given` says), no element unless given."""
    return {"id": f"variant_{number}", "screen_id": f"screen_{number}", "fingerprint": f"f{number}",
            "normalized_fingerprint": f"n{number}", "elements": [], "element_keys": [], "auth_required": False,
            "observations": 1, "confidence": 0.6, **given}  # fmt: skip


def edge(number: int, source: str, target: str, tap: str, **given: object) -> dict[str, object]:
    """Return edge `number`'s data: a tap on `tap` from variant `source` to `target`."""
    return {"id": f"edge_{number}", "from_variant_id": source, "to_variant_id": target, "command": "tap",
            "target": tap, "args": {"target": tap}, "intent": "tap", "confidence": 0.45, "successes": 1,
            "failures": 0, "stale": False, "candidate": True,
            "destination_contract": {"variant_id": target, "required_targets": [], "normalized_fingerprint": ""},
            **given}  # fmt: skip


def document(
    variants: list[dict[str, object]],
    edges: Sequence[dict[str, object]] = (),
    **head: object,
) -> MapDocument:
    """Return a map's document of `variants` and `edges`, each variant's screen made from its `screen_id`."""
    screens: dict[str, list[object]] = {}
    for item in variants:
        screens.setdefault(str(item["screen_id"]), []).append(item["id"])
    listed = [{"id": screen, "variant_ids": ids} for screen, ids in screens.items()]
    data: Mapping[str, object] = {**HEAD, **head, "screens": listed, "variants": variants, "edges": list(edges)}
    return parse_document(data)
