"""Screen fingerprints: a short, stable hash of what the screen shows, for the determinism signature.

The projection is each on-screen node's depth, class, resource id, text, content description, hint, the state
flags a user can see (checked, selected, enabled, focused) and its bounds, in page order. Elements matched by a
mask selector keep their place and class but their id, text and description are replaced by `•`, so a clock,
a random ad or an id a web page draws at random does not change the fingerprint while a different screen does.

On a web page only the elements that show or do something count (a text, a name, an id, a control): the
DOM's wrappers and decorations move by a pixel between loads of one page as its resources arrive.

The fingerprint is published (every step's `screen`, the run's signature), so no secret's text may enter it:
hashing guesses would find the secret that gives the published value. The run's secrets are masked in every
text it hashes (`conceal`), and a password field's text counts as `•` however long (its bullets would give
the password's length).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection

from visor.ui.tree import Node, UiTree

MASKED = "•"


def _as_it_is(text: str) -> str:
    return text


def fingerprint(tree: UiTree, masked: Collection[int] = (), conceal: Callable[[str], str] = _as_it_is) -> str:
    """Return 16 hex digits identifying what `tree` shows.

    Args:
        tree: the observed screen.
        masked: `id()`s of nodes whose text must not count (see `masked_nodes`).
        conceal: masks the run's secrets in a text (`visor.ui.secrets.concealer`).
    """
    rows = []
    web = tree.platform == "web"
    for item in tree.flat:
        node = item.node
        if not tree.on_screen(node) or (web and not _meaningful(node)):
            continue
        hidden = id(node) in masked
        rows.append(
            [
                item.depth,
                conceal(node.class_name),
                MASKED if hidden and node.resource_id else conceal(node.resource_id),
                MASKED if (hidden or node.password) and node.text else conceal(node.text),
                MASKED if hidden and node.content_desc else conceal(node.content_desc),
                conceal(node.hint),
                _flags(node),
                node.bounds.bounds_text(),
            ]
        )
    canonical = json.dumps([[tree.size.width, tree.size.height], rows], separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def _meaningful(node: Node) -> bool:
    """Say whether a web page's element shows or does something: a text, a name or an id, or a control.

    A page's wrappers and decorations (an icon inside a labelled button) move by a pixel between loads of one
    page, as its resources arrive in another order; what a person reads or acts on does not.
    """
    return bool(node.text or node.content_desc or node.resource_id or node.hint) or any(
        (node.clickable, node.checkable, node.scrollable, node.editable)
    )


def _flags(node: Node) -> str:
    return "".join(
        letter if value else "-"
        for letter, value in (("c", node.checked), ("s", node.selected), ("e", node.enabled), ("f", node.focused))
    )
