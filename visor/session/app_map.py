"""The app map's file: where it lives, reading it, writing it atomically under a lock, and screens in it.

As upstream keeps it (docs/app-map.md): `<root>/<digest>.json`, where the root is `--map-dir`, else
`VISOR_APP_MAP_DIR`, else `./.visor/maps`, and the digest is the first 16 hex digits of the SHA-256 of the map's
identity, `<platform>:<app id>`. The file is `schema_version` 1: screens, their variants (one per way a screen
looks, identified by its normalized fingerprint) and the edges between variants.

Unlike upstream, which silently starts over on a file it cannot read: a corrupt file, one of a newer schema or
one of another app is an INPUT_ERROR saying so, and the file is left as it is. Two processes never write the map
at once: a writer holds an exclusive lock on `<file>.lock`; another waits up to 10 s, then fails clearly.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from visor.actions.device import Device, DeviceInfo, InputRejected
from visor.clock import Clock, isoformat
from visor.errors import InputError, TargetError
from visor.files import write_atomic
from visor.ui.screens import ScreenObservation, observe_screen

SCHEMA_VERSION = 1
MAP_DIR_VARIABLE = "VISOR_APP_MAP_DIR"
#: How long a second writer waits for the map's lock (s).
LOCK_WAIT_S = 10.0
#: Similarity at or above which an observation is a known variant (upstream's thresholds).
MATCH, MATCH_SCROLLING = 0.45, 0.62
#: Edges below this confidence are not followed.
MIN_CONFIDENCE = 0.25


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

    def metadata(self, *, used: bool, updated: bool, repairs: int = 0, **extra: Any) -> dict[str, Any]:
        """Return upstream's map metadata (`data.map`, `data.run.map`) for this map, with `extra` after it."""
        return {"enabled": True, "used": used, "updated": updated, "repaired": repairs > 0, "repairs": repairs,
                "schema_version": SCHEMA_VERSION, "path": self.path, "identity": self.identity, **extra}  # fmt: skip

    def disabled(self) -> dict[str, Any]:
        """Return the map metadata of a command told to use no map (`--no-map`): nothing read or written."""
        return {"enabled": False, "used": False, "updated": False, "repaired": False, "repairs": 0,
                "schema_version": SCHEMA_VERSION, "identity": self.identity}  # fmt: skip

    @classmethod
    def of_device(cls, info: DeviceInfo, app_id: str | None, map_dir: str | None) -> MapPlace:
        """Return the map of the app a device runs (`app_id` when given, else the device's own)."""
        return cls.of(info.platform, app_id or info.app_id or None, map_dir)


def maps_root(map_dir: str | None) -> str:
    """Return the folder maps live in: `map_dir`, else VISOR_APP_MAP_DIR, else `./.visor/maps`."""
    return map_dir or os.environ.get(MAP_DIR_VARIABLE) or os.path.join(os.curdir, ".visor", "maps")


def map_places(root: str) -> list[MapPlace]:
    """Return the maps in a folder, by the identity each file holds (files that are no map are left out)."""
    places = []
    for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        path = os.path.join(root, name)
        if name.endswith(".json") and os.path.isfile(path):
            with contextlib.suppress(InputError):
                places.append(place_of_file(path))
    return places


def place_of_file(path: str) -> MapPlace:
    """Return the map a file holds, by the identity written in it.

    Raises:
        InputError: the file cannot be read as JSON, or holds no `platform:app` identity.
    """
    try:
        with open(path, encoding="utf-8") as file:
            identity = json.load(file).get("identity")
    except (OSError, ValueError, AttributeError) as exc:
        raise InputError(f"{path} is not an app map: {exc}", next_step="Give the path of a map file.") from None
    if not isinstance(identity, str) or ":" not in identity:
        raise InputError(f"{path} is not an app map (it has no identity)", next_step="Give a map file.")
    platform, app = identity.split(":", 1)
    return MapPlace(identity, app, platform, os.path.abspath(path))


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
    """An app map in memory: its document, as the file holds it."""

    def __init__(self, place: MapPlace, document: dict[str, Any]) -> None:
        self.place = place
        self.document = document
        self.changed = False

    @classmethod
    def new(cls, place: MapPlace, now: str) -> AppMap:
        """Return an empty map."""
        document = {"schema_version": SCHEMA_VERSION, "identity": place.identity, "app_id": place.app_id,
                    "platform": place.platform, "created_at": now, "updated_at": now, "screens": [],
                    "variants": [], "edges": []}  # fmt: skip
        made = cls(place, document)
        made.changed = True
        return made

    @property
    def variants(self) -> list[dict[str, Any]]:
        """Return the variants."""
        return list(self.document["variants"])

    def upsert(self, seen: ScreenObservation, now: str) -> tuple[dict[str, Any], bool]:
        """Record an observed screen: the variant it matches (updated), or a new one; return it and if it is new."""
        best = self.match(seen)
        fields = {"fingerprint": seen.fingerprint, "normalized_fingerprint": seen.normalized_fingerprint,
                  "elements": [element.to_dict() for element in seen.elements],
                  "element_keys": list(seen.element_keys), "control_keys": list(seen.control_keys),
                  "auth_required": seen.auth_required, "last_observed_at": now}  # fmt: skip
        self.changed = True
        if best is not None:
            best.update(fields)
            apply_marks(best)  # the elements were observed again: an annotation's safety still holds
            best["observations"] += 1
            best["confidence"] = round(min(1.0, best["confidence"] + 0.05), 2)
            return best, False
        screen: dict[str, Any] = {"id": f"screen_{len(self.document['screens']) + 1}", "variant_ids": []}
        variant = {"id": f"variant_{len(self.document['variants']) + 1}", "screen_id": screen["id"], **fields,
                   "items": [], "exit_recipes": [], "actions": [], "observations": 1, "confidence": 0.6}  # fmt: skip
        screen["variant_ids"].append(variant["id"])
        self.document["screens"].append(screen)
        self.document["variants"].append(variant)
        return variant, True

    def record_tap(
        self,
        source: str,
        reached: dict[str, Any],
        target: str,
        now: str,
        *,
        fills: Mapping[str, str] | None = None,
        intent: str = "tap",
        candidate: bool = True,
    ) -> dict[str, Any] | None:
        """Record a tap on `target` from variant `source` that reached `reached`; return its edge (None: no move).

        An edge seen again gains confidence and points where the tap went this time. A new one is a candidate
        (confidence 0.45, as upstream's crawl records them) unless a verified route step made it (0.65). `fills`
        are the fields filled before the tap, with the environment variables holding their values: a route
        replays them from the environment, and the map never holds a value.
        """
        if source == reached["id"]:
            return None
        edges = self.document["edges"]
        contract = {"variant_id": reached["id"], "required_targets": contract_targets(reached),
                    "normalized_fingerprint": reached["normalized_fingerprint"]}  # fmt: skip
        self.changed = True
        existing = self.edge_from(source, target)
        if existing is not None:
            learn(existing, True, now)
            existing.update({"to_variant_id": reached["id"], "destination_contract": contract})
            return existing
        number = max((int(edge["id"].rsplit("_", 1)[-1]) for edge in edges), default=0) + 1
        edge = {"id": f"edge_{number}", "from_variant_id": source, "to_variant_id": reached["id"], "command": "tap",
                "args": {"target": target, **({"fill": dict(fills)} if fills else {})}, "target": target,
                "intent": intent, "confidence": 0.45 if candidate else 0.65, "successes": 1, "failures": 0,
                "stale": False, "candidate": candidate, "destination_contract": contract,
                "last_observed_at": now}  # fmt: skip
        edges.append(edge)
        return edge

    def edge_from(self, source: str, target: str) -> dict[str, Any] | None:
        """Return the tap edge on `target` from variant `source`, if the map has one."""
        return next((edge for edge in self.document["edges"] if edge["from_variant_id"] == source
                     and edge["target"] == target and edge["command"] == "tap"), None)  # fmt: skip

    def match(self, seen: ScreenObservation) -> dict[str, Any] | None:
        """Return the variant an observed screen is (None: a screen the map has not seen), recording nothing."""
        best, score = self._closest(seen)
        return best if best is not None and score >= (MATCH_SCROLLING if seen.scrollable else MATCH) else None

    def _closest(self, seen: ScreenObservation) -> tuple[dict[str, Any] | None, float]:
        best, best_score = None, -1.0
        for variant in self.document["variants"]:
            if variant["normalized_fingerprint"] == seen.normalized_fingerprint:
                return variant, 1.0
            controls = similarity(variant.get("control_keys", []), seen.control_keys)
            scrolling = seen.scrollable or any(key.startswith("scroll-container=") for key in variant["element_keys"])
            if scrolling and controls < 0.3:
                continue
            # The same controls make the same screen whatever its text says, when there are enough of them to
            # tell: two small screens that only share "Navigate up" are not one.
            telling = min(len(variant.get("control_keys", [])), len(seen.control_keys)) >= 3
            score = similarity(variant["element_keys"], seen.element_keys)
            score = max(score, controls) if telling else score
            if score > best_score:
                best, best_score = variant, score
        return best, best_score

    def summary(self) -> dict[str, Any]:
        """Return the path-free inventory (`data.map.summary`)."""
        document = self.document
        return {
            "schema_version": document["schema_version"], "identity": document["identity"],
            "app_id": document["app_id"], "platform": document["platform"], "screens": len(document["screens"]),
            "variants": len(document["variants"]), "edges": len(document["edges"]),
            "actions": sum(len(variant["actions"]) for variant in document["variants"]),
            "auth_required_variants": sum(1 for variant in document["variants"] if variant["auth_required"]),
            "updated_at": document["updated_at"],
        }  # fmt: skip


#: Width of the thumbnails kept of each variant (px): `visor map show` draws the map with them.
THUMBNAIL_WIDTH = 216


def record_screen(
    app_map: AppMap, device: Device, now: str, seen: ScreenObservation | None = None
) -> tuple[dict[str, Any], bool]:
    """Record the screen on the device (or `seen`, observed on it just now); keep its look the first time.

    Returns the variant and whether it is new. The thumbnail (`<root>/screens/<map digest>/<variant>.png`, named
    relative to the root in the variant's `thumbnail`) costs one screenshot per variant, ever.
    """
    variant, created = app_map.upsert(seen or observe_screen(device.observe().tree), now)
    if not variant.get("thumbnail"):
        try:
            shot = device.screenshot()
        except InputRejected:
            return variant, created  # a runtime that cannot take one: the picture shows the screen without it
        root, name = os.path.split(app_map.place.path)
        relative = f"screens/{name.removesuffix('.json')}/{variant['id']}.png"
        try:
            write_atomic(os.path.join(root, relative), thumbnail(shot, THUMBNAIL_WIDTH), make_folders=True)
        except OSError as exc:
            raise InputError(f"cannot write a screen's thumbnail in {root}: {exc.strerror}") from None
        variant["thumbnail"] = relative
    return variant, created


def thumbnail(png: bytes, width: int) -> bytes:
    """Return a PNG scaled down to `width` (its aspect kept; a narrower one unchanged)."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.load()
        picture = image.convert("RGB")
    if picture.width > width:
        height = max(1, round(picture.height * width / picture.width))
        picture = picture.resize((width, height), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    picture.save(out, format="PNG", optimize=True)
    return out.getvalue()


def learn(edge: dict[str, Any], verified: bool, now: str) -> None:
    """Strengthen an edge that held, demote one that did not (stale after two failures or below 0.25)."""
    if verified:
        edge["successes"] += 1
        edge["failures"] = 0
        edge["stale"] = False
        edge["confidence"] = round(min(1.0, edge["confidence"] + 0.15), 2)
        edge["candidate"] = edge["candidate"] and edge["successes"] < 2
    else:
        edge["failures"] += 1
        edge["confidence"] = round(max(0.0, edge["confidence"] - 0.25), 2)
        edge["stale"] = edge["failures"] >= 2 or edge["confidence"] < MIN_CONFIDENCE
    edge["last_observed_at"] = now


def satisfied(contract: Mapping[str, Any], reached: Mapping[str, Any]) -> bool:
    """Return True when the screen reached is the contract's (the same variant, or 60% of its targets)."""
    if reached["id"] == contract["variant_id"]:
        return True
    required = contract["required_targets"]
    if not required:
        return bool(reached["normalized_fingerprint"] == contract["normalized_fingerprint"])
    present = {target for element in reached["elements"] for target in element["targets"]}
    return sum(1 for target in required if target in present) / len(required) >= 0.6


def safety_marks(variant: Mapping[str, Any] | None) -> dict[str, str]:
    """Return the safety an annotation gave a variant's tap targets (target -> safe, risky, needs-input…)."""
    if variant is None:
        return {}
    return {action["target"]: action["safety"] for action in variant.get("actions", [])
            if action.get("command") == "tap" and action.get("target")}  # fmt: skip


def apply_marks(variant: dict[str, Any]) -> None:
    """Give a variant's elements the safety its annotation says (over visor's reading of their labels)."""
    marks = safety_marks(variant)
    for element in variant["elements"]:
        marked = next((marks[target] for target in (element["selector"], *element["targets"]) if target in marks), None)
        if marked is not None:
            element["safety"] = marked


def contract_targets(variant: Mapping[str, Any]) -> list[str]:
    """Return up to 8 targets that prove a screen was reached: an annotation's, then stable ones (ids first)."""
    targets = [target for element in variant["elements"] if element["stable"] for target in element["targets"]]
    ordered = list(variant.get("required_targets", []))
    ordered += [target for target in targets if target.startswith("id=")]
    ordered += [target for target in targets if not target.startswith("id=")]
    return list(dict.fromkeys(ordered))[:8]


def read_map(place: MapPlace, clock: Clock) -> AppMap:
    """Read the map file (a new map when there is none).

    Raises:
        InputError: the file is corrupt, of a newer schema, or another app's map.
    """
    try:
        with open(place.path, encoding="utf-8") as file:
            document = json.load(file)
    except FileNotFoundError:
        return AppMap.new(place, isoformat(clock.now()))
    except (OSError, ValueError) as exc:
        raise _unreadable(place, f"it is not a readable JSON map ({exc})") from None
    if not isinstance(document, dict) or not isinstance(document.get("schema_version"), int):
        raise _unreadable(place, "it has no schema_version")
    if document["schema_version"] > SCHEMA_VERSION:
        raise _unreadable(place, f"it is schema_version {document['schema_version']}, newer than this visor's 1")
    if document["schema_version"] != SCHEMA_VERSION or document.get("identity") != place.identity:
        raise _unreadable(place, f"it is the map of {document.get('identity')!r}, not {place.identity!r}")
    problem = _shape_problem(document)
    if problem is not None:
        raise _unreadable(place, problem)
    app_map = AppMap(place, document)
    app_map.changed = _scrub(document)
    return app_map


def _shape_problem(document: dict[str, Any]) -> str | None:
    """Say where a map breaks the app-map schema (visor/schemas/app-map.schema.json), and how; None if it fits."""
    from visor.scenario.document import dotted
    from visor.scenario.schema import schema_problem, shipped_schema

    problem = schema_problem(shipped_schema("app-map"), document)
    if problem is not None:
        where, message = problem
        return f"{dotted(where) if where else 'the document'}: {message}"
    known = {variant["id"] for variant in document["variants"]}
    lost = next((edge for edge in document["edges"] if {edge["from_variant_id"], edge["to_variant_id"]} - known), None)
    return None if lost is None else f"edge {lost['id']} joins a variant the map does not have"


#: What an edge's arguments never keep: typed values, and how a device was reached (an older writer kept them).
_SCRUBBED = ("value", "text", "server_url", "serverUrl", "capabilities", "device", "udid", "password")


def _scrub(document: dict[str, Any]) -> bool:
    """Drop typed values and transport options from the edges' arguments; return whether any were there."""
    found = False
    for edge in document["edges"]:
        for key in _SCRUBBED:
            if key in edge["args"]:
                del edge["args"][key]
                found = True
    return found


def _unreadable(place: MapPlace, why: str) -> InputError:
    return InputError(
        f"the app map {place.path} cannot be used: {why}",
        likely_cause="The file was edited by hand, cut short, or written by a newer visor or another tool.",
        next_step="Move the file away to start a new map (visor leaves it as it is), or use another --map-dir.",
    )


def write_map(app_map: AppMap, clock: Clock) -> bool:
    """Write the map if it changed (atomically); return whether it was written."""
    if not app_map.changed:
        return False
    app_map.document["updated_at"] = isoformat(clock.now())
    text = json.dumps(app_map.document, indent=2, ensure_ascii=False) + "\n"
    try:
        write_atomic(app_map.place.path, text.encode("utf-8"), make_folders=True)
    except OSError as exc:
        raise InputError(f"cannot write the app map {app_map.place.path}: {exc.strerror}") from None
    app_map.changed = False
    return True


@contextlib.contextmanager
def map_lock(
    place: MapPlace, *, wait_s: float = LOCK_WAIT_S, sleep: Callable[[float], None], now: Callable[[], float]
) -> Iterator[None]:
    """Hold the map's lock (an exclusive `flock` on `<file>.lock`) while reading and writing it.

    Raises:
        TargetError: another process held it for `wait_s` seconds.
    """
    os.makedirs(os.path.dirname(place.path), exist_ok=True)
    handle = os.open(place.path + ".lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = now() + wait_s
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if now() >= deadline:
                    raise TargetError(
                        f"the app map {place.path} is locked by another visor for over {wait_s:g} s",
                        likely_cause="Another discover, run or route on the same app is writing the map.",
                        next_step="Wait for it to finish, or use another --map-dir.",
                    ) from None
                sleep(0.05)
        yield
    finally:
        os.close(handle)  # closing the file releases the lock


def observation_token(app_map: AppMap, variant: dict[str, Any]) -> str:
    """Return the token naming an observed variant (upstream's: it changes when the screen's content does)."""
    seed = f"{app_map.place.identity}:{variant['id']}:{variant['fingerprint']}"
    return f"{variant['id']}.{hashlib.sha256(seed.encode('utf-8')).hexdigest()[:16]}"
