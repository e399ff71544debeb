"""A screen as the app map knows it: its elements, their targets and safety, and keys that identify the screen.

Upstream Visor (docs/app-map.md) reads leaf elements, labels them (`name`, `text`, `content-desc`…; never a form
field's own text, which is the user's), redacts emails, card and phone numbers, normalizes each label (hex runs
to `<id>`, times to `<time>`, numbers to `<number>`, whitespace, case) and identifies a screen by the sorted set
of those normalized keys. visor reads its own UI tree instead of a regex over the page source, and goes further
where upstream splits one screen into many:

- **Lists.** Inside a scrollable container an element contributes its structure (class and id), not its labels,
  so a feed scrolled anywhere is one screen (upstream's keys change with every row scrolled in).
- **Dynamic text.** Form fields contribute their id and hint, never their text; numbers, times and ids are
  normalized away, so a counter or a clock does not make a new screen.

Safety is read from labels in several languages: a control whose words say delete, pay, log out, send,
confirm… is `risky`, and a crawl never taps it unless told to.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from visor.ui.hit import reaches
from visor.ui.tree import Located, Node, UiTree

#: Words of a risky control (substring match on its lower-cased labels), in English, German, French, Spanish,
#: Italian, Portuguese and Dutch.
RISKY_WORDS = (
    "delete", "remove", "logout", "log out", "sign out", "submit", "send", "pay", "deposit", "sell", "withdraw",
    "purchase", "buy", "confirm", "destroy", "archive", "erase", "reset", "uninstall", "unsubscribe",
    "löschen", "entfernen", "abmelden", "senden", "bezahlen", "kaufen", "bestätigen",
    "supprimer", "déconnexion", "se déconnecter", "envoyer", "payer", "acheter", "confirmer",
    "eliminar", "borrar", "cerrar sesión", "enviar", "pagar", "comprar", "confirmar",
    "elimina", "cancella", "esci", "invia", "paga", "acquista", "conferma",
    "excluir", "sair", "verwijderen", "uitloggen", "verzenden", "betalen", "kopen", "bevestigen",
)  # fmt: skip
NEEDS_INPUT_WORDS = ("password", "email", "username", "search", "input", "text field", "textfield")
AUTH_WORDS = ("login", "log in", "sign in", "password", "username", "auth", "authentication")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_CARD = re.compile(r"\b(?:\d[ -]?){13,19}\b")
_PHONE = re.compile(r"\+?\d[\d .()-]{7,}\d")
_HEX = re.compile(r"[0-9a-f]{8,}", re.IGNORECASE)
_TIME = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b")
_NUMBER = re.compile(r"\b\d+\b")


def redact(label: str) -> str:
    """Replace emails, card numbers and phone numbers in a label."""
    label = _EMAIL.sub("<redacted-email>", label)
    label = _CARD.sub("<redacted-card>", label)
    return _PHONE.sub("<redacted-phone>", label)


def normalize(label: str) -> str:
    """Return a label's normalized form: hex runs, times and numbers replaced; whitespace collapsed; lower case."""
    label = _HEX.sub("<id>", label)
    label = _TIME.sub("<time>", label)
    label = _NUMBER.sub("<number>", label)
    return " ".join(label.split()).lower()


def safety(labels: Iterable[str], kind: str, clickable: bool) -> str:
    """Classify a control: `risky`, `needs-input`, `safe` or `unknown` (upstream's order of checks)."""
    haystack = " ".join([*labels, kind]).lower()
    if any(word in haystack for word in RISKY_WORDS):
        return "risky"
    if any(word in haystack for word in NEEDS_INPUT_WORDS):
        return "needs-input"
    if "button" in kind.lower() or clickable:
        return "safe"
    return "unknown"


@dataclass(frozen=True, slots=True)
class ScreenElement:
    """One element of a screen as the map stores it."""

    tag: str
    selector: str
    targets: tuple[str, ...]
    labels: tuple[str, ...]
    stable: bool
    safety: str
    enabled: bool
    visible: bool
    clickable: bool
    x: int
    y: int
    width: int
    height: int
    #: It sits inside a scrollable container (a list row): its labels do not identify the screen.
    in_list: bool = False
    #: A touch at its centre reaches it (nothing, such as a dialog, lies over it).
    reachable: bool = True
    #: It covers (nearly) the whole screen: a backdrop, whose tap only dismisses what is over it.
    backdrop: bool = False

    def to_dict(self) -> dict[str, object]:
        """Return the map file's form (upstream's SourceElement)."""
        return {"tag": self.tag, "selector": self.selector, "targets": list(self.targets),
                "labels": list(self.labels), "stable": self.stable, "safety": self.safety,
                "enabled": self.enabled, "visible": self.visible, "clickable": self.clickable,
                "x": self.x, "y": self.y, "width": self.width, "height": self.height}  # fmt: skip


@dataclass(frozen=True, slots=True)
class ScreenObservation:
    """A screen, observed: its elements and the keys and fingerprints that identify it."""

    elements: tuple[ScreenElement, ...]
    element_keys: tuple[str, ...]
    normalized_fingerprint: str
    #: A digest of everything the screen shows (labels in lists too): it changes when anything does.
    fingerprint: str
    auth_required: bool
    #: Keys of the controls (not static text, not list rows): what tells two screens apart when texts change.
    control_keys: tuple[str, ...] = field(default=())

    @property
    def scrollable(self) -> bool:
        """Return True when the screen has a scrollable surface."""
        return any(key.startswith("scroll-container=") for key in self.element_keys)


def observe_screen(tree: UiTree) -> ScreenObservation:
    """Read the screen a tree shows."""
    lists = [item for item in tree.flat if item.node.scrollable and tree.on_screen(item.node)]
    elements = [
        element
        for item in tree.flat
        if tree.on_screen(item.node) and (element := _element(tree, item, lists)) is not None
    ]
    keys: set[str] = set()
    controls: set[str] = set()
    everything: list[str] = []
    for element in elements:
        everything.extend(element.targets)
        own = _identity(element)
        keys.update(own)
        if element.safety != "unknown" and not element.in_list:
            controls.update(own)
    ordered = tuple(sorted(keys))
    labels = [normalize(label) for element in elements if not element.in_list for label in element.labels]
    return ScreenObservation(
        elements=tuple(elements),
        element_keys=ordered,
        normalized_fingerprint=digest(ordered),
        fingerprint=digest(everything),
        auth_required=any(word in label for label in labels for word in AUTH_WORDS),
        control_keys=tuple(sorted(controls)),
    )


def digest(value: object) -> str:
    """Return the first 16 hex digits of the SHA-256 of a value's canonical JSON."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _element(tree: UiTree, item: Located, lists: list[Located]) -> ScreenElement | None:
    node = item.node
    kind = node.class_name.rsplit(".", 1)[-1]
    form = node.editable or node.password
    labels = _labels(node, form) or (_inner_labels(tree, item) if node.clickable and not form else [])
    rid = node.resource_id
    structural = f"scroll-container={kind}={node.bounds.left}={node.bounds.top}" if node.scrollable else ""
    is_leaf = not node.children
    if not (is_leaf or node.clickable or node.scrollable) or not (labels or rid or structural):
        return None
    targets = list(dict.fromkeys([*labels, *(f"text={label}" for label in labels if not form)]))
    if rid:
        targets.append(f"id={rid}")
    if structural:
        targets.append(structural)
    in_list = any(other.node is not node and _inside(tree, item, other) for other in lists)
    # A row of a list is told from its siblings by what it says (they share an id), when it says something.
    selector = f"text={labels[0]}" if in_list and labels and node.clickable else ""
    bounds = node.bounds
    visible = bounds.intersect(tree.screen)
    reachable = reaches(tree, visible.center, item) is None if not visible.empty else False
    backdrop = visible.width * visible.height >= 0.9 * tree.size.width * tree.size.height
    return ScreenElement(
        tag=kind, selector=selector or (f"id={rid}" if rid else _said(node, labels[0]) if labels else targets[0]),
        targets=tuple(targets),
        labels=tuple(labels), stable=bool(labels or rid or structural), safety=safety(labels, kind, node.clickable),
        enabled=node.enabled, visible=node.displayed, clickable=node.clickable, x=bounds.left, y=bounds.top,
        width=bounds.width, height=bounds.height, in_list=in_list, reachable=reachable, backdrop=backdrop,
    )  # fmt: skip


def _said(node: Node, label: str) -> str:
    """Return a selector that finds an element by what it says (its description, text or hint).

    A description is written as a bare accessibility id, as upstream writes one; a text as `text=`; a field's
    hint as a `match=` of its texts. A bare label alone matches descriptions only: a link or a button that has
    a text and no description (most of a web page's, many of an app's) would be mapped with a selector that
    finds nothing.
    """
    if label == redact(node.content_desc.strip()):
        return label
    if label == redact(node.text.strip()):
        return f"text={label}"
    return "match=" + json.dumps({"text": label}, ensure_ascii=False)


def _labels(node: Node, form: bool) -> list[str]:
    raw = [node.content_desc, node.hint] if form else [node.text, node.content_desc]
    return list(dict.fromkeys(redact(label.strip()) for label in raw if label and label.strip()))


def _inner_labels(tree: UiTree, item: Located) -> list[str]:
    """Return the texts inside a clickable container that says nothing itself (a list row, a card): up to 3.

    The texts belong to the row a person taps, not to the text views the toolkit draws them with.
    """
    found: list[str] = []
    for other in tree.flat[item.index + 1 :]:
        if not _inside(tree, other, item):
            break  # the flat tree lists a node's descendants right after it
        if other.node.clickable:
            continue
        found.extend(label for label in _labels(other.node, False) if label not in found)
        if len(found) >= 3:
            break
    return found[:3]


def _inside(tree: UiTree, item: Located, container: Located) -> bool:
    parent = item.parent
    while parent is not None:
        if parent == container.index:
            return True
        parent = tree.flat[parent].parent
    return False


def _identity(element: ScreenElement) -> set[str]:
    """Return an element's keys: its structure inside a list, else its normalized targets and labels."""
    if element.in_list:
        rid = next((target for target in element.targets if target.startswith("id=")), "")
        return {f"list-row:{element.tag}:{rid}"}
    return {normalize(target) for target in element.targets} | {normalize(label) for label in element.labels}
