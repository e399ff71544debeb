"""The app map's file: where it lives, reading it, writing it atomically under a lock, and screens in it.

As upstream keeps it (docs/app-map.md): `<root>/<digest>.json`, where the root is `--map-dir`, else
`VISOR_APP_MAP_DIR`, else `./.visor/maps`, and the digest is the first 16 hex digits of the SHA-256 of the map's
identity, `<platform>:<app id>`. The file is `schema_version` 1: screens, their variants (one per way a screen
looks, identified by its normalized fingerprint) and the edges between variants.

Unlike upstream, which silently starts over on a file it cannot read: a corrupt file, one of a newer schema or
one of another app is an INPUT_ERROR saying so, and the file is left as it is. Two processes never write the map
at once: a writer holds an exclusive lock on `<file>.lock`; another waits up to 10 s, then fails clearly.

The map is data anyone may have edited, so it is read and written at visor's one edge: read with the bounded
reader (a regular file only, never a FIFO; its size, nesting and numbers capped), checked against the app-map
schema and for the references between its parts, then used by code that trusts nothing else of it; every file
named after something in it (a screen's thumbnail) is written and read below the maps' folder only, never
through a link. The environment variables its fields are filled from are only those it declares (`inputs`),
and the text of a secret one never leaves visor in what an agent is shown.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import hashlib
import json
import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from visor.clock import Clock, isoformat
from visor.device.protocol import Device, DeviceInfo, InputRejected
from visor.errors import InputError, SourceError, TargetError
from visor.ext.appmap.document import (
    Contract,
    Edge,
    EdgeArgs,
    Element,
    InputDecl,
    MapDocument,
    MapShapeError,
    Safety,
    Screen,
    Variant,
    parse_document,
    parse_element,
    present,
    to_json,
)
from visor.files import UnsafePath, regular_file, write_confined
from visor.inputs.data import read_data
from visor.report.console import printable
from visor.scenario.schema import schema_issue, shipped_schema
from visor.ui.screens import ScreenObservation, observe_screen
from visor.ui.secrets import KeptPart, mask_text, maskable, redact
from visor.ui.shown_secrets import secret_areas, shown_texts, thumbnail
from visor.ui.tree import Node, UiTree

SCHEMA_VERSION = 1
MAP_DIR_VARIABLE = "VISOR_APP_MAP_DIR"
#: Environment variables that turn the map off as `--no-map` does (upstream's), and the values that do.
NO_MAP_VARIABLES = ("VISOR_NO_MAP", "VISOR_DISABLE_MAP")
_TRUE = frozenset({"1", "true", "yes", "on"})
#: How long a second writer waits for the map's lock (s).
LOCK_WAIT_S = 10.0
#: Similarity at or above which an observation is a known variant (upstream's thresholds).
MATCH, MATCH_SCROLLING = 0.45, 0.62
#: Edges below this confidence are not followed.
MIN_CONFIDENCE = 0.25
#: The largest map file read (bytes): a crawl of a thousand screens is well under it.
MAX_MAP_BYTES = 32 * 1024 * 1024
#: A name visor may use as a file name as it is (a variant's id, for its thumbnail); any other is hashed.
_FILE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Variable names that read as secrets: their values are masked wherever an agent could see them.
_SECRET_NAME = re.compile(r"PASS|SECRET|TOKEN|KEY|PIN|OTP|CREDENTIAL|AUTH", re.IGNORECASE)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MapPlace:
    """Which map a command uses: its identity and its file."""

    identity: str
    app_id: str
    platform: str
    path: str

    @classmethod
    def of(cls, platform: str, app_id: str | None, map_dir: str | None) -> MapPlace:
        """Return the map of an app (`default-<platform>` when no app id is known)."""
        app = app_id or f"default-{platform}"
        identity = f"{platform}:{app}"
        root = maps_root(map_dir)
        digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
        return cls(identity, app, platform, os.path.abspath(os.path.join(root, f"{digest}.json")))

    def metadata(self, *, used: bool, updated: bool, repairs: int = 0, **extra: object) -> dict[str, object]:
        """Return upstream's map metadata (`data.map`, `data.run.map`) for this map, with `extra` after it."""
        return {"enabled": True, "used": used, "updated": updated, "repaired": repairs > 0, "repairs": repairs,
                "schema_version": SCHEMA_VERSION, "path": self.path, "identity": self.identity, **extra}  # fmt: skip

    def disabled(self) -> dict[str, object]:
        """Return the map metadata of a command told to use no map (`--no-map`): nothing read or written."""
        return {"enabled": False, "used": False, "updated": False, "repaired": False, "repairs": 0,
                "schema_version": SCHEMA_VERSION, "identity": self.identity}  # fmt: skip

    @classmethod
    def of_device(cls, info: DeviceInfo, app_id: str | None, map_dir: str | None) -> MapPlace:
        """Return the map of the app a device runs (`app_id` when given, else the device's own)."""
        return cls.of(info.platform, app_id or info.app_id or None, map_dir)


#: Where maps live when neither `--map-dir` nor VISOR_APP_MAP_DIR says (relative to the current folder).
DEFAULT_ROOT = os.path.join(os.curdir, ".visor", "maps")


def maps_root(map_dir: str | None) -> str:
    """Return the folder maps live in: `map_dir`, else VISOR_APP_MAP_DIR, else `./.visor/maps`."""
    return map_dir or os.environ.get(MAP_DIR_VARIABLE) or DEFAULT_ROOT


def map_disabled(no_map: bool) -> bool:
    """Say whether the map is off: `--no-map`, or VISOR_NO_MAP (or VISOR_DISABLE_MAP) set to 1, true, yes or on."""
    return no_map or any(os.environ.get(name, "").strip().lower() in _TRUE for name in NO_MAP_VARIABLES)


def map_places(root: str) -> list[MapPlace]:
    """Return the maps in a folder, by the identity each file holds (files that are no map are left out)."""
    places = []
    try:
        names = sorted(os.listdir(root)) if os.path.isdir(root) else []
    except OSError:
        names = []  # an unreadable folder holds no map visor can use
    for name in names:
        path = os.path.join(root, name)
        if name.endswith(".json") and regular_file(path):
            with contextlib.suppress(InputError):
                places.append(place_of_file(path))
    return places


def place_of_file(path: str) -> MapPlace:
    """Return the map a file holds, by the identity written in it.

    Raises:
        InputError: the file cannot be read as JSON, or holds no `platform:app` identity.
    """
    document = read_json(path, "app map", next_step="Give the path of a map file (visor discover writes them).")
    identity = document.get("identity") if isinstance(document, dict) else None
    if not isinstance(identity, str) or ":" not in identity:
        raise InputError(f"{path} is not an app map (it has no identity)", next_step="Give a map file.")
    platform, app = identity.split(":", 1)
    return MapPlace(identity, app, platform, os.path.abspath(path))


def read_json(path: str, noun: str, *, next_step: str) -> object:
    """Return the data of a JSON file visor did not necessarily write (a map, a checkpoint), read at the edge.

    Raises:
        InputError: the file is not a regular file, is too large, or is not well-formed JSON (naming it, and
            the line and column of what is wrong).
    """
    try:
        return read_data(path, noun=noun, limit=MAX_MAP_BYTES).data
    except SourceError as exc:
        where = "" if exc.line is None else f" (line {exc.line}, column {exc.column})"
        raise InputError(
            f"the {noun} {path} cannot be used: {exc.problem}{where}",
            likely_cause=exc.likely_cause or "The file was edited by hand, cut short, or written by another tool.",
            next_step=next_step,
            details=exc.details,
        ) from exc


def write_below(root: str, relative: str, data: bytes, noun: str) -> str:
    """Write `data` at `relative` below `root` (made when missing), never leaving it nor through a link.

    For every file visor keeps beside a map (the map itself, thumbnails, the agent memory, checkpoints): a
    name that comes from the map's content cannot lead the write elsewhere.

    Raises:
        InputError: the path leaves `root`, a link or a folder stands in the way, or the folder cannot be written.
    """
    shown = os.path.join(root, relative)
    try:
        os.makedirs(root, exist_ok=True)
        return write_confined(root, relative, data)
    except UnsafePath as exc:
        raise InputError.from_unwritable(
            shown,
            exc,
            noun=noun,
            likely_cause="A symbolic link or a folder stands where visor writes it, or the name leaves its folder.",
            next_step="Remove what stands there (visor never writes through a link), then run the command again.",
        ) from exc
    except OSError as exc:
        raise InputError.from_unwritable(
            shown,
            exc,
            noun=noun,
            likely_cause="The folder is not writable by this user, or the disk is full.",
            next_step="Check the folder's permissions and free space, or use another --map-dir.",
        ) from exc


def secret_name(variable: str) -> bool:
    """Return True for a variable named like a secret (a password, a token, a key, a PIN…)."""
    return _SECRET_NAME.search(variable) is not None


def file_name(text: str) -> str:
    """Return `text` as one safe file name: as it is when plain (`variant_3`), else a digest of it.

    A name from a map (a variant's id) may hold `/`, `..`, a NUL or anything else an editor typed.
    """
    if _FILE_NAME.fullmatch(text):
        return text
    return "x-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def similarity(first: tuple[str, ...] | set[str], second: tuple[str, ...] | set[str]) -> float:
    """Return how alike two key sets are: Jaccard, or containment when one holds 80% of the other.

    Containment counts only when the smaller set has at least 3 keys: one "Navigate up" shared by two small
    screens says nothing about their being the same.
    """
    a, b = set(first), set(second)
    if not a and not b:
        return 1.0
    shared = len(a & b)
    jaccard = shared / len(a | b)
    smaller = min(len(a), len(b))
    containment = shared / smaller if smaller >= 3 else 0.0
    return max(jaccard, containment) if containment >= 0.8 else jaccard


class AppMap:
    """An app map in memory: its document, and the one writer of it (each change puts a new part in place)."""

    def __init__(self, place: MapPlace, document: MapDocument, secrets: Collection[str] = ()) -> None:
        self.place = place
        #: The document as it stands: a frozen value, replaced (never changed) as the map learns.
        self.document = document
        self.changed = False
        #: Texts never kept nor shown besides the declared secret inputs' values: the command line's `--secret`s.
        self.extra_secrets = frozenset(secrets)
        #: What fields showed of secrets typed into them (`keep_secret`): a part is no longer the secret's text.
        self.kept: set[str] = set()
        #: Told of each text to mask from now on, as it becomes one (`listen`): a run's artifacts.
        self._listeners: list[Callable[[str], None]] = []
        #: The file as it was read (`file_stamp`; None: there was none): a writer tells if another wrote it since.
        self.stamp: tuple[int, int, int] | None = None

    def inputs(self) -> dict[str, bool]:
        """Return the environment variables the map declares its fields are filled from, each with if it is secret.

        A declaration without `secret` is a secret: only what its author said is not is ever shown. A variable
        named like a secret (`AWS_SECRET_ACCESS_KEY`, `API_TOKEN`) is one whatever the map says, as a crawl
        declares it: an edited `"secret": false` would show its value to an agent.
        """
        return {name: entry.secret is not False or secret_name(name) for name, entry in self.document.inputs.items()}

    def declare_inputs(self, variables: Mapping[str, bool]) -> None:
        """Declare variables the map's fields are filled from (variable -> secret), as a crawl's annotation says.

        A variable declared secret stays so: a crawl never makes one shown. The map has `inputs` from then on,
        none declared as it may be.
        """
        known = self.inputs()
        declared = dict(self.document.inputs)
        for name, secret in sorted(variables.items()):
            wanted = secret or known.get(name, False)
            entry = declared.get(name)
            if entry is None or to_json(entry) != {"secret": wanted}:
                declared[name] = InputDecl(secret=wanted, order=("secret",))
                self.changed = True
        document = self.document
        self.document = replace(document, inputs=declared, order=present(document, "inputs"))

    def secrets(self) -> frozenset[str]:
        """Return the texts never kept in the map nor shown to an agent.

        The secret inputs' values, the command line's `--secret`s, and what fields showed of secrets typed into them.
        """
        values = {os.environ.get(name, "") for name, secret in self.inputs().items() if secret}
        return frozenset(value for value in values | self.extra_secrets | self.kept if value)

    def keep_secret(self, shown: str) -> None:
        """Hold `shown`, what a field shows of a secret typed into it, as a secret too (masked wherever it appears).

        A field may keep only part of what is typed (six digits of an eight-digit PIN): that part is not the
        secret's text, so masking the secret alone would leave it, in the field and wherever the app shows it back.
        It is masked as the run masks what a field kept (`KeptPart`: a part under 4 characters as a whole word).
        """
        self.kept.add(KeptPart(shown))
        for listener in self._listeners:
            listener(shown)

    def listen(self, hide: Callable[[str], None]) -> None:
        """Tell `hide` every text to mask: the map's secrets now, and each part a field keeps from now on.

        A run masks its artifacts by what it is told (`ArtifactStore.hide`): the map's secret inputs a detour types
        are not the run's `--secret`s, and would be shown in its screenshots' page sources and its envelope.
        """
        self._listeners.append(hide)
        for secret in sorted(self.secrets()):
            hide(secret)

    def masked(self, value: T) -> T:
        """Return `value` (JSON-like) with every secret's text masked (`visor.ui.secrets.redact`)."""
        return redact(value, self.secrets())

    def observe(self, tree: UiTree) -> ScreenObservation:
        """Read the screen a tree shows, every secret's text masked in it first.

        Masked before the screen is read, not after: its keys are normalized (lower-cased, numbers replaced),
        and a secret's text normalized so is no longer the secret's text the masker looks for; the keys'
        fingerprints are made of the masked text too.
        """
        return observe_screen(masked_tree(tree, self.secrets()))

    def fills(self, edge: Edge) -> dict[str, str]:
        """Return the fields an edge fills before its tap (field id -> variable), each variable declared.

        Raises:
            InputError: the edge fills a field from a variable the map does not declare among its `inputs`.
        """
        fill = edge.args.fill
        declared = self.inputs()
        undeclared = {field: name for field, name in sorted(fill.items()) if name not in declared}
        if undeclared:
            listed = ", ".join(f"{field} from {name}" for field, name in undeclared.items())
            raise InputError(
                f"the app map's edge {edge.id} fills {printable(listed)}, which the map does not declare among "
                "its inputs",
                likely_cause="The map was edited: an edge may type only the environment variables the map's "
                "`inputs` declare (a crawl declares its annotation's).",
                next_step="Crawl again with the annotation naming the inputs (visor discover --crawl "
                '--annotate-current FILE), or declare them in the map: "inputs": {"NAME": {"secret": true}}.',
                details={"undeclared_inputs": undeclared},
            )
        return dict(fill)

    @classmethod
    def new(cls, place: MapPlace, now: str, secrets: Collection[str] = ()) -> AppMap:
        """Return an empty map."""
        document = MapDocument(schema_version=SCHEMA_VERSION, identity=place.identity, app_id=place.app_id,
                               platform=place.platform, created_at=now, updated_at=now, screens=(), variants=(),
                               edges=(), order=_NEW_DOCUMENT)  # fmt: skip
        made = cls(place, document, secrets)
        made.changed = True
        return made

    def variant(self, variant_id: str) -> Variant | None:
        """Return the variant of an id, if the map has it."""
        return next((variant for variant in self.document.variants if variant.id == variant_id), None)

    def put_variant(self, variant: Variant) -> None:
        """Put a variant in place of the one of its id (the map has it)."""
        self.document = replace(self.document, variants=_put(self.document.variants, variant))
        self.changed = True

    def put_screen(self, screen: Screen) -> None:
        """Put a screen in place of the one of its id (the map has it)."""
        self.document = replace(self.document, screens=_put(self.document.screens, screen))
        self.changed = True

    def put_edge(self, edge: Edge) -> None:
        """Put an edge in place of the one of its id (the map has it)."""
        self.document = replace(self.document, edges=_put(self.document.edges, edge))
        self.changed = True

    def learn(self, edge: Edge, verified: bool, now: str) -> Edge:
        """Strengthen an edge of the map that held, demote one that did not (`learnt`); return it as it is now."""
        learnt_edge = learnt(edge, verified, now)
        self.put_edge(learnt_edge)
        return learnt_edge

    def upsert(self, seen: ScreenObservation, now: str) -> tuple[Variant, bool]:
        """Record an observed screen: the variant it matches (updated), or a new one; return it and if it is new."""
        best = self.match(seen)
        # A secret the app shows back (a name typed, echoed in a greeting) is never kept.
        elements = tuple(parse_element(item) for item in self.masked([element.to_dict() for element in seen.elements]))
        element_keys = tuple(self.masked(list(seen.element_keys)))
        control_keys = tuple(self.masked(list(seen.control_keys)))
        self.changed = True
        if best is not None:
            looked = replace(best, fingerprint=seen.fingerprint, normalized_fingerprint=seen.normalized_fingerprint,
                             elements=elements, element_keys=element_keys, control_keys=control_keys,
                             auth_required=seen.auth_required, extra={**best.extra, "last_observed_at": now},
                             order=present(best, *_LOOKS))  # fmt: skip
            looked = apply_marks(looked)  # the elements were observed again: an annotation's safety still holds
            looked = replace(looked, observations=looked.observations + 1,
                             confidence=round(min(1.0, looked.confidence + 0.05), 2))  # fmt: skip
            self.put_variant(looked)
            return looked, False
        document = self.document
        screen_id = _next_id("screen", [screen.id for screen in document.screens])
        variant = Variant(id=_next_id("variant", [variant.id for variant in document.variants]), screen_id=screen_id,
                          fingerprint=seen.fingerprint, normalized_fingerprint=seen.normalized_fingerprint,
                          elements=elements, element_keys=element_keys, control_keys=control_keys,
                          auth_required=seen.auth_required, observations=1, confidence=0.6,
                          extra={"last_observed_at": now, "items": []}, order=_NEW_VARIANT)  # fmt: skip
        screen = Screen(id=screen_id, variant_ids=(variant.id,), order=("id", "variant_ids"))
        self.document = replace(document, screens=(*document.screens, screen), variants=(*document.variants, variant))
        return variant, True

    def record_tap(
        self,
        source: str,
        reached: Variant,
        target: str,
        now: str,
        *,
        fills: Mapping[str, str] | None = None,
        intent: str = "tap",
        candidate: bool = True,
    ) -> Edge | None:
        """Record a tap on `target` from variant `source` that reached `reached`; return its edge (None: no move).

        An edge seen again gains confidence and points where the tap went this time. A new one is a candidate
        (confidence 0.45, as upstream's crawl records them) unless a verified route step made it (0.65). `fills`
        are the fields filled before the tap, with the environment variables holding their values: a route
        replays them from the environment, and the map never holds a value.
        """
        if source == reached.id:
            return None
        contract = Contract(variant_id=reached.id, required_targets=tuple(contract_targets(reached)),
                            normalized_fingerprint=reached.normalized_fingerprint, order=_CONTRACT)  # fmt: skip
        self.changed = True
        existing = self.edge_from(source, target)
        if existing is not None:
            edge = replace(learnt(existing, True, now), to_variant_id=reached.id, destination_contract=contract)
            self.put_edge(edge)
            return edge
        edges = self.document.edges
        number = max((int(edge.id.rsplit("_", 1)[-1]) for edge in edges), default=0) + 1
        args = EdgeArgs(target=target, fill=dict(fills or {}), order=("target", "fill") if fills else ("target",))
        edge = Edge(id=f"edge_{number}", from_variant_id=source, to_variant_id=reached.id, command="tap", args=args,
                    target=target, intent=intent, confidence=0.45 if candidate else 0.65, successes=1, failures=0,
                    stale=False, candidate=candidate, destination_contract=contract,
                    extra={"last_observed_at": now}, order=_NEW_EDGE)  # fmt: skip
        self.document = replace(self.document, edges=(*edges, edge))
        return edge

    def edge_from(self, source: str, target: str) -> Edge | None:
        """Return the tap edge on `target` from variant `source`, if the map has one."""
        return next((edge for edge in self.document.edges if edge.from_variant_id == source
                     and edge.target == target and edge.command == "tap"), None)  # fmt: skip

    def match(self, seen: ScreenObservation) -> Variant | None:
        """Return the variant an observed screen is (None: a screen the map has not seen), recording nothing."""
        best, score = self._closest(seen)
        return best if best is not None and score >= (MATCH_SCROLLING if seen.scrollable else MATCH) else None

    def _closest(self, seen: ScreenObservation) -> tuple[Variant | None, float]:
        best, best_score = None, -1.0
        for variant in self.document.variants:
            if variant.normalized_fingerprint == seen.normalized_fingerprint:
                return variant, 1.0
            controls = similarity(variant.control_keys, seen.control_keys)
            scrolling = seen.scrollable or any(key.startswith("scroll-container=") for key in variant.element_keys)
            if scrolling and controls < 0.3:
                continue
            # The same controls make the same screen whatever its text says, when there are enough of them to
            # tell: two small screens that only share "Navigate up" are not one.
            telling = min(len(variant.control_keys), len(seen.control_keys)) >= 3
            score = similarity(variant.element_keys, seen.element_keys)
            score = max(score, controls) if telling else score
            if score > best_score:
                best, best_score = variant, score
        return best, best_score

    def summary(self) -> dict[str, object]:
        """Return the path-free inventory (`data.map.summary`)."""
        document = self.document
        return {
            "schema_version": document.schema_version, "identity": document.identity, "app_id": document.app_id,
            "platform": document.platform, "screens": len(document.screens), "variants": len(document.variants),
            "edges": len(document.edges), "actions": sum(len(variant.actions) for variant in document.variants),
            "auth_required_variants": sum(1 for variant in document.variants if variant.auth_required),
            "updated_at": document.updated_at,
        }  # fmt: skip


#: The keys of what visor makes, in the order it writes them (an edit's order is kept: see `document`).
_NEW_DOCUMENT = ("schema_version", "identity", "app_id", "platform", "created_at", "updated_at", "screens",
                 "variants", "edges")  # fmt: skip
_NEW_VARIANT = ("id", "screen_id", "fingerprint", "normalized_fingerprint", "elements", "element_keys",
                "control_keys", "auth_required", "last_observed_at", "items", "exit_recipes", "actions",
                "observations", "confidence")  # fmt: skip
_NEW_EDGE = ("id", "from_variant_id", "to_variant_id", "command", "args", "target", "intent", "confidence",
             "successes", "failures", "stale", "candidate", "destination_contract", "last_observed_at")  # fmt: skip
_CONTRACT = ("variant_id", "required_targets", "normalized_fingerprint")
#: What a variant observed again takes from the observation (a key it lacked goes after its others, in this order).
_LOOKS = ("fingerprint", "normalized_fingerprint", "elements", "element_keys", "control_keys", "auth_required",
          "last_observed_at")  # fmt: skip

Identified = TypeVar("Identified", Screen, Variant, Edge)


def _put(items: tuple[Identified, ...], item: Identified) -> tuple[Identified, ...]:
    """Return `items` with `item` in place of the one of its id."""
    return tuple(item if old.id == item.id else old for old in items)


def _next_id(kind: str, taken: list[str]) -> str:
    """Return the id of a new screen or variant: `<kind>_<n>`, one past the count (past any id an edit took)."""
    known = set(taken)
    number = len(taken) + 1
    while f"{kind}_{number}" in known:
        number += 1
    return f"{kind}_{number}"


#: Width of the thumbnails kept of each variant (px): `visor map show` draws the map with them.
THUMBNAIL_WIDTH = 216


def record_screen(
    app_map: AppMap, device: Device, now: str, seen: ScreenObservation | None = None
) -> tuple[Variant, bool]:
    """Record the screen on the device (or `seen`, observed on it just now); keep its look the first time.

    Returns the variant and whether it is new. The thumbnail (`<root>/screens/<map digest>/<variant>.png`, named
    relative to the root in the variant's `thumbnail`) costs one screenshot per variant, ever. It is written below
    the root only, under a file name of its own (a variant id an editor made `../../x` names no folder). What the
    screen shows of a secret is blanked in it, where the tree says that text is (`secret_areas`).
    """
    tree = None
    if seen is None:
        tree = device.observe().tree
        seen = app_map.observe(tree)
    variant, created = app_map.upsert(seen, now)
    if not variant.thumbnail:
        secrets = app_map.secrets()
        if tree is None and secrets:
            tree = device.observe().tree  # where the screen shows a secret (read as the screenshot is taken)
        hidden = secret_areas(tree, secrets) if tree is not None else ()
        try:
            shot = device.screenshot()
        except InputRejected:
            return variant, created  # a runtime that cannot take one: the picture shows the screen without it
        small = thumbnail(shot, THUMBNAIL_WIDTH, hidden, tree.size if tree is not None else None)
        if small is None:
            return variant, created  # a screenshot that is no picture: the screen is drawn without it
        root, name = os.path.split(app_map.place.path)
        relative = f"screens/{name.removesuffix('.json')}/{file_name(variant.id)}.png"
        write_below(root, relative, small, "screen's thumbnail")
        variant = replace(variant, thumbnail=relative, order=present(variant, "thumbnail"))
        app_map.put_variant(variant)
    return variant, created


def masked_tree(tree: UiTree, secrets: Collection[str]) -> UiTree:
    """Return `tree` with every secret's text masked in what its nodes show (the same tree when none shows one)."""
    if not maskable(secrets):
        return tree
    roots = tuple(_masked_node(root, secrets) for root in tree.roots)
    if all(new is old for new, old in zip(roots, tree.roots, strict=True)):
        return tree
    return dataclasses.replace(tree, roots=roots)


def _masked_node(node: Node, secrets: Collection[str]) -> Node:
    children = tuple(_masked_node(child, secrets) for child in node.children)
    shown = shown_texts(node)
    text, content_desc, hint, label, value = (mask_text(item, secrets) for item in shown)
    if (text, content_desc, hint, label, value) == shown and all(
        new is old for new, old in zip(children, node.children, strict=True)
    ):
        return node
    return dataclasses.replace(
        node, children=children, text=text, content_desc=content_desc, hint=hint, label=label, value=value
    )


def learnt(edge: Edge, verified: bool, now: str) -> Edge:
    """Return an edge strengthened when it held, demoted when it did not (stale after two failures or below 0.25)."""
    extra, order = {**edge.extra, "last_observed_at": now}, present(edge, "last_observed_at")
    if verified:
        successes = edge.successes + 1
        return replace(edge, successes=successes, failures=0, stale=False,
                       confidence=round(min(1.0, edge.confidence + 0.15), 2),
                       candidate=edge.candidate and successes < 2, extra=extra, order=order)  # fmt: skip
    failures = edge.failures + 1
    confidence = round(max(0.0, edge.confidence - 0.25), 2)
    return replace(edge, failures=failures, confidence=confidence,
                   stale=failures >= 2 or confidence < MIN_CONFIDENCE, extra=extra, order=order)  # fmt: skip


def satisfied(contract: Contract, reached: Variant) -> bool:
    """Return True when the screen reached is the contract's (the same variant, or 60% of its targets)."""
    if reached.id == contract.variant_id:
        return True
    required = contract.required_targets
    if not required:
        return reached.normalized_fingerprint == contract.normalized_fingerprint
    present_targets = {target for element in reached.elements for target in element.targets}
    return sum(1 for target in required if target in present_targets) / len(required) >= 0.6


def safety_marks(variant: Variant | None) -> dict[str, Safety]:
    """Return the safety an annotation gave a variant's tap targets (target -> safe, risky, needs-input…)."""
    if variant is None:
        return {}
    return {action.target: action.safety for action in variant.actions
            if action.command == "tap" and action.target and action.safety}  # fmt: skip


def apply_marks(variant: Variant) -> Variant:
    """Return a variant whose elements have the safety its annotation says (over visor's reading of their labels)."""
    marks = safety_marks(variant)
    if not marks:
        return variant
    elements = tuple(_marked(element, marks) for element in variant.elements)
    return replace(variant, elements=elements)


def _marked(element: Element, marks: Mapping[str, Safety]) -> Element:
    marked = next((marks[target] for target in (element.selector, *element.targets) if target in marks), None)
    return element if marked is None or marked == element.safety else replace(element, safety=marked)


def contract_targets(variant: Variant) -> list[str]:
    """Return up to 8 targets that prove a screen was reached: an annotation's, then stable ones (ids first)."""
    targets = [target for element in variant.elements if element.stable for target in element.targets]
    ordered = list(variant.required_targets)
    ordered += [target for target in targets if target.startswith("id=")]
    ordered += [target for target in targets if not target.startswith("id=")]
    return list(dict.fromkeys(ordered))[:8]


def read_map(place: MapPlace, clock: Clock, *, secrets: Collection[str] = ()) -> AppMap:
    """Read the map file (a new map when there is none); `secrets` are texts never kept in it (`--secret`s).

    The file's data is checked against the app-map schema, then becomes the map's typed document (`document`),
    whose references between parts are checked in turn.

    Raises:
        InputError: the file is not a regular file, too large, corrupt, of a newer schema, breaks the app-map
            schema or its own references, or is another app's map.
    """
    if not os.path.lexists(place.path):
        return AppMap.new(place, isoformat(clock.now()), secrets)
    data = read_json(place.path, "app map", next_step=_MOVE_AWAY)
    version = data.get("schema_version") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(version, int):
        raise _unreadable(place, "it has no schema_version")
    if version > SCHEMA_VERSION:
        raise _unreadable(place, f"it is schema_version {version}, newer than this visor's 1")
    if version != SCHEMA_VERSION or data.get("identity") != place.identity:
        raise _unreadable(place, f"it is the map of {data.get('identity')!r}, not {place.identity!r}")
    problem = _shape_problem(data)
    if problem is not None:
        raise _unreadable(place, problem)
    try:
        document = parse_document(data)
    except MapShapeError as exc:  # what the schema lets through, the parser takes: never, but never a traceback
        raise _unreadable(place, str(exc)) from exc
    problem = _reference_problem(document)
    if problem is not None:
        raise _unreadable(place, problem)
    document, scrubbed = _scrubbed(document)
    app_map = AppMap(place, document, secrets)
    app_map.changed = scrubbed
    app_map.stamp = file_stamp(place.path)
    return app_map


def file_stamp(path: str) -> tuple[int, int, int] | None:
    """Return a file's inode, size and modification time in ns (None: it is not there): it changes when it is written.

    Every write of a map replaces the file (a new inode), so a stamp seen again is the file read before.
    """
    try:
        found = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


#: What a map that cannot be read suggests (visor never replaces it on its own).
_MOVE_AWAY = "Move the file away to start a new map (visor leaves it as it is), or use another --map-dir."


def _shape_problem(data: Mapping[str, object]) -> str | None:
    """Say where a map breaks the app-map schema (visor/schemas/app-map.schema.json), and how; None if it fits."""
    problem = schema_issue(shipped_schema("app-map"), data)
    return None if problem is None else f"{problem[0] or 'the document'}: {problem[1]}"


def _reference_problem(document: MapDocument) -> str | None:
    """Say how a map's parts fail to refer to each other (ids twice, a screen or variant it does not have)."""
    parts: tuple[tuple[str, tuple[Screen, ...] | tuple[Variant, ...] | tuple[Edge, ...]], ...] = (
        ("screens", document.screens), ("variants", document.variants), ("edges", document.edges)
    )  # fmt: skip
    for kind, items in parts:
        counted = Counter(item.id for item in items)
        twice = next((item for item, count in counted.items() if count > 1), None)
        if twice is not None:
            return f"{kind}: the id {twice!r} is used twice"
    screens = {screen.id for screen in document.screens}
    variants = {variant.id for variant in document.variants}
    for screen in document.screens:
        lost = next((vid for vid in screen.variant_ids if vid not in variants), None)
        if lost is not None:
            return f"screen {screen.id!r} lists a variant the map does not have ({lost!r})"
    for variant in document.variants:
        if variant.screen_id not in screens:
            return f"variant {variant.id!r} belongs to a screen the map does not have ({variant.screen_id!r})"
    lost_edge = next((edge for edge in document.edges
                      if {edge.from_variant_id, edge.to_variant_id} - variants), None)  # fmt: skip
    return None if lost_edge is None else f"edge {lost_edge.id} joins a variant the map does not have"


#: What an edge's arguments never keep: typed values, and how a device was reached (an older writer kept them).
_SCRUBBED = ("value", "text", "server_url", "serverUrl", "capabilities", "device", "udid", "password")


def _scrubbed(document: MapDocument) -> tuple[MapDocument, bool]:
    """Return the document without typed values and transport options in its edges' arguments, and if it had any."""
    if not any(key in edge.args.extra for edge in document.edges for key in _SCRUBBED):
        return document, False
    edges = tuple(replace(edge, args=_scrubbed_args(edge.args)) for edge in document.edges)
    return replace(document, edges=edges), True


def _scrubbed_args(args: EdgeArgs) -> EdgeArgs:
    extra = {key: value for key, value in args.extra.items() if key not in _SCRUBBED}
    return replace(args, extra=extra, order=tuple(key for key in args.order if key not in _SCRUBBED))


def _unreadable(place: MapPlace, why: str) -> InputError:
    return InputError(
        f"the app map {place.path} cannot be used: {printable(why)}",
        likely_cause="The file was edited by hand, cut short, or written by a newer visor or another tool.",
        next_step=_MOVE_AWAY,
    )


def write_map(app_map: AppMap, clock: Clock) -> bool:
    """Write the map if it changed (atomically, below its folder, never through a link); return whether it was.

    A secret's text an older writer (or an edit) left in it is masked on the way.
    """
    if not app_map.changed:
        return False
    document = app_map.document
    app_map.document = replace(document, updated_at=isoformat(clock.now()), order=present(document, "updated_at"))
    data = map_bytes(app_map)
    root, name = os.path.split(app_map.place.path)
    write_below(root, name, data, "app map")
    app_map.changed = False
    return True


def map_bytes(app_map: AppMap) -> bytes:
    """Return a map's file, its secrets masked: indented JSON, or compact when indented it is past what visor reads.

    Raises:
        InputError: even compact, the map is larger than `MAX_MAP_BYTES`, which visor could not read again; the
            file on disk is left as it was.
    """
    document = app_map.masked(to_json(app_map.document))
    data = (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if len(data) <= MAX_MAP_BYTES:
        return data
    # The indentation is a third of a large map: without it, one that grew past the cap is still one visor reads.
    data = (json.dumps(document, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
    if len(data) <= MAX_MAP_BYTES:
        return data
    raise InputError(
        f"the app map {app_map.place.path} was not written: it would be {len(data):,} bytes, past the "
        f"{MAX_MAP_BYTES:,} bytes visor reads back (the file keeps the map as it was before this command)",
        likely_cause=f"The map holds {len(app_map.document.screens):,} screens and "
        f"{len(app_map.document.variants):,} variants, or very long texts: an app whose screens never match"
        " one another (a clock, a counter, a feed) grows one without end.",
        next_step="Move the map away (or use another --map-dir) to start a new one, or run with --no-map.",
    )


@contextlib.contextmanager
def map_lock(
    place: MapPlace, *, wait_s: float = LOCK_WAIT_S, sleep: Callable[[float], None], now: Callable[[], float]
) -> Iterator[None]:
    """Hold the map's lock (an exclusive `flock` on `<file>.lock`) while reading and writing it.

    Raises:
        TargetError: another process held it for `wait_s` seconds.
    """
    handle = _open_lock(place.path + ".lock")
    try:
        deadline = now() + wait_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as exc:
                if now() >= deadline:
                    raise TargetError(
                        f"the app map {place.path} is locked by another visor for over {wait_s:g} s",
                        likely_cause="Another discover, run or route on the same app is writing the map.",
                        next_step="Wait for it to finish, or use another --map-dir.",
                    ) from exc
                sleep(0.05)
        yield
    finally:
        os.close(handle)  # closing the file releases the lock


#: The lock file is opened without following a link, without blocking (a FIFO planted there) and kept from children.
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _open_lock(path: str) -> int:
    """Open (creating it) a map's lock file: a regular file of its own, never a link, a FIFO or a folder.

    Raises:
        InputError: the folder cannot be made, or something other than a regular file stands at `path`.
    """
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"cannot use {folder} as the app maps' folder: "
            + ("something other than a folder stands there" if os.path.lexists(folder) else str(exc.strerror or exc)),
            likely_cause="--map-dir (or .visor/maps) names a file, a pipe or a link to one, or cannot be created.",
            next_step="Give --map-dir a folder (visor makes it when it is missing).",
        ) from exc
    try:
        handle = os.open(path, _LOCK_FLAGS, 0o666)
    except OSError as exc:
        link = exc.errno in (errno.ELOOP, errno.EMLINK)
        raise InputError(
            f"cannot use the app map's lock file {path}: "
            + ("it is a symbolic link, which visor never follows" if link else str(exc.strerror or exc)),
            likely_cause="Something other than visor's lock file stands there, or the folder is not writable.",
            next_step="Remove it (visor makes its own), or use another --map-dir.",
        ) from exc
    if not stat.S_ISREG(os.fstat(handle).st_mode):
        os.close(handle)
        raise InputError(
            f"cannot use the app map's lock file {path}: it is not a regular file",
            likely_cause="A named pipe, a socket or a device stands where visor keeps the map's lock.",
            next_step="Remove it (visor makes its own), or use another --map-dir.",
        )
    return handle


def observation_token(app_map: AppMap, variant: Variant) -> str:
    """Return the token naming an observed variant (upstream's: it changes when the screen's content does)."""
    seed = f"{app_map.place.identity}:{variant.id}:{variant.fingerprint}"
    return f"{variant.id}.{hashlib.sha256(seed.encode('utf-8')).hexdigest()[:16]}"
