"""Screen fingerprints: a short, stable hash of what the screen shows, for the determinism signature.

The projection is each on-screen node's depth, class, resource id, text, content description, hint, the state
flags a user can see (checked, selected, enabled, focused) and its bounds, in page order. Elements matched by a
mask selector keep their place and class but their text and description are replaced by `•`, so a clock or a
random ad does not change the fingerprint while a different screen does.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection

from visor.ui.tree import Node, UiTree

MASKED = "•"


def fingerprint(tree: UiTree, masked: Collection[int] = ()) -> str:
    """Return 16 hex digits identifying what `tree` shows.

    Args:
        tree: the observed screen.
        masked: `id()`s of nodes whose text must not count (see `masked_nodes`).
    """
    rows = []
    for item in tree.flat:
        node = item.node
        if not tree.on_screen(node):
            continue
        hidden = id(node) in masked
        rows.append(
            [
                item.depth,
                node.class_name,
                node.resource_id,
                MASKED if hidden and node.text else node.text,
                MASKED if hidden and node.content_desc else node.content_desc,
                node.hint,
                _flags(node),
                node.bounds.bounds_text(),
            ]
        )
    canonical = json.dumps([[tree.size.width, tree.size.height], rows], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _flags(node: Node) -> str:
    return "".join(
        letter if value else "-"
        for letter, value in (("c", node.checked), ("s", node.selected), ("e", node.enabled), ("f", node.focused))
    )
