"""Pictures of an app map: screens as thumbnails, the taps between them as labelled arrows (SVG or PNG).

networkx lays the graph out (imported only to draw): screens are placed in
columns by how many taps they are from the app's start (breadth first over forward edges), left to right, and
networkx's multipartite layout orders each column. Both formats are drawn from one scene, so they show the same
picture. Arrows are labelled with what to tap (and "+ fill" when fields are filled first) and the edge's
confidence; arrows that go back are dashed grey, stale ones red, and a route being shown thick blue.

A map is data anyone may have edited: its texts (screen names, labels, targets) are shown with control
characters as visible escapes (`visor.report.console.printable`) and escaped for XML in the SVG; a thumbnail
that is not a picture of a sensible size is left out, and a map too large to draw is refused, not drawn into
a picture no memory holds.
"""

from __future__ import annotations

import base64
import io
import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from visor.errors import InputError
from visor.ext.appmap.document import Edge, MapDocument, Screen
from visor.report.console import printable
from visor.ui.images import png_size

if TYPE_CHECKING:  # Pillow is imported only to draw a PNG
    from PIL import ImageDraw

#: Sizes in px: the card of a screen, its thumbnail, the gaps between columns (room for labels) and rows.
CARD_W, THUMB_W, THUMB_H, CAPTION_H = 168, 152, 330, 40  # THUMB_H: when no thumbnail says otherwise
COLUMN_GAP, ROW_GAP, MARGIN, TITLE_H = 170, 44, 24, 40
COLOURS = {"forward": "#455a64", "back": "#9e9e9e", "stale": "#c62828", "route": "#1565c0"}
#: The most screens (variants) one picture shows, and the most pixels a PNG has.
MAX_CARDS, MAX_PIXELS = 400, 60_000_000
#: The largest thumbnail read (bytes), and its largest sides (px): a 216 px wide screen of a tall phone fits.
MAX_THUMBNAIL_BYTES, MAX_THUMBNAIL_SIDE = 4 * 1024 * 1024, 4096


@dataclass(frozen=True, slots=True)
class Card:
    """A screen (variant) drawn at (x, y): its caption and thumbnail (PNG, None when none was kept)."""

    variant_id: str
    caption: str
    detail: str
    x: int
    y: int
    thumbnail: bytes | None
    highlighted: bool
    #: The height of the thumbnail's place (every card has the same: the tallest thumbnail's, scaled).
    thumb_h: int = THUMB_H

    @property
    def height(self) -> int:
        """Return the card's height."""
        return self.thumb_h + CAPTION_H + 16


@dataclass(frozen=True, slots=True)
class Arrow:
    """The taps from one card to another: where it starts and ends, its bend, its label lines and its kind."""

    start: tuple[int, int]
    end: tuple[int, int]
    bend: int
    labels: tuple[str, ...]
    kind: str  # forward, back, stale or route

    def point(self, t: float) -> tuple[float, float]:
        """Return the point at `t` (0..1) along the arrow (a quadratic curve)."""
        (x0, y0), (x2, y2) = self.start, self.end
        cx, cy = (x0 + x2) / 2, (y0 + y2) / 2 + self.bend
        return ((1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t**2 * x2,
                (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t**2 * y2)  # fmt: skip

    @property
    def label_at(self) -> tuple[float, float]:
        """Return where the label goes: mid-way, or in the first gap between columns when it crosses several."""
        span = abs(self.end[0] - self.start[0])
        return self.point(min(0.5, COLUMN_GAP / 2 / span) if span else 0.5)

    @property
    def control(self) -> tuple[float, float]:
        """Return the curve's control point."""
        (x0, y0), (x2, y2) = self.start, self.end
        return (x0 + x2) / 2, (y0 + y2) / 2 + self.bend


@dataclass(frozen=True, slots=True)
class Scene:
    """A whole picture."""

    title: str
    width: int
    height: int
    cards: tuple[Card, ...]
    arrows: tuple[Arrow, ...]


def scene(document: MapDocument, thumbnails: Callable[[str], bytes | None], route: Iterable[str] = ()) -> Scene:
    """Lay a map document out; `route` lists edge ids to show as a route (their screens highlighted).

    Raises:
        InputError: networkx is not installed.
    """
    try:
        # lazy: networkx is heavy, and only laying out a map's picture needs it
        import networkx as nx
    except ImportError as exc:
        raise InputError.from_missing_library("networkx", "graph", needed_by="drawing the app map") from exc
    variants = document.variants
    if len(variants) > MAX_CARDS:
        raise InputError(
            f"the app map has {len(variants):,} screen variants: more than one picture shows ({MAX_CARDS})",
            likely_cause="The map was crawled very wide, or edited to hold that many.",
            next_step="Draw a smaller map: crawl with --crawl-include or a lower --crawl-depth into another --map-dir.",
        )
    edges = document.edges
    on_route = set(route)
    layers = _layers([v.id for v in variants], [e for e in edges if e.intent != "back"])
    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(variant.id for variant in variants)
    # Each column's screens as a list in the map's order (networkx's own grouping is a set: its order would change
    # from one process to the next).
    columns: dict[int, list[str]] = {}
    for variant in variants:
        columns.setdefault(layers[variant.id], []).append(variant.id)
    place = nx.multipartite_layout(graph, subset_key=columns, align="vertical") if variants else {}
    xs = [float(point[0]) for point in place.values()] or [0.0]
    ys = [float(point[1]) for point in place.values()] or [0.0]
    # The layout is scaled alike on both axes: one column apart is the unit, and a column's screens are spread
    # by the same unit (half units when centred), so rows keep networkx's centring.
    unit = _unit(xs) if len(set(xs)) > 1 else _unit(ys)
    names = {screen.id: screen_name(document, screen) for screen in document.screens}
    highlighted = {end for e in edges if e.id in on_route for end in (e.from_variant_id, e.to_variant_id)}
    looks = {v.id: thumbnails(v.thumbnail) if v.thumbnail else None for v in variants}
    thumb_h = max((_scaled_height(look) for look in looks.values() if look is not None), default=THUMB_H)
    row_h = thumb_h + CAPTION_H + 16 + ROW_GAP
    cards = {}
    for variant in variants:
        x, y = place[variant.id]
        column, row = round((float(x) - min(xs)) / unit), (float(y) - min(ys)) / unit
        cards[variant.id] = Card(
            variant.id, printable(f"{variant.screen_id} · {names.get(variant.screen_id, '')}")[:34],
            printable(variant.id)[:34] + (" (auth)" if variant.auth_required else ""),
            MARGIN + column * (CARD_W + COLUMN_GAP), MARGIN + TITLE_H + round(row * row_h),
            looks[variant.id], variant.id in highlighted, thumb_h,
        )  # fmt: skip
    arrows = _arrows(cards, edges, on_route)
    width = max((card.x for card in cards.values()), default=MARGIN) + CARD_W + MARGIN
    height = max((card.y + card.height for card in cards.values()), default=MARGIN + TITLE_H) + MARGIN
    title = f"{printable(document.identity)[:80]}: {len(document.screens)} screens, "
    title += f"{len(variants)} variants, {len(edges)} edges"
    return Scene(title, width, height, tuple(cards.values()), tuple(arrows))


def sound_thumbnail(png: bytes) -> bool:
    """Return True when `png` is a whole PNG of a sensible size (at most `MAX_THUMBNAIL_SIDE` a side), decoded once.

    A thumbnail is a file anyone may have replaced: a header claiming a picture a mile high, or data that does
    not decode, would stop the drawing (or its memory) instead of being left out.
    """
    size = png_size(png[:24])
    if size is None or not (0 < size.width <= MAX_THUMBNAIL_SIDE and 0 < size.height <= MAX_THUMBNAIL_SIDE):
        return False
    # lazy: Pillow costs start-up time, and only drawing or reading a picture needs it
    from PIL import Image

    try:
        with Image.open(io.BytesIO(png)) as image:
            image.load()
    except Exception:  # Pillow's decoders raise many kinds (OSError, ValueError, SyntaxError, zlib's…)
        return False
    return True


def _scaled_height(png: bytes) -> int:
    """Return the height a thumbnail takes at the cards' width."""
    size = png_size(png[:24])
    return THUMB_H if size is None or not size.width else round(size.height * THUMB_W / size.width)


def _layers(variant_ids: list[str], forward: list[Edge]) -> dict[str, int]:
    """Return each variant's column: taps from the start (the first variant), breadth first; others after."""
    import networkx as nx  # lazy: heavy, as in `scene`, which imported it first (or said how to install it)

    graph: nx.DiGraph[str] = nx.DiGraph()
    graph.add_nodes_from(variant_ids)
    graph.add_edges_from((edge.from_variant_id, edge.to_variant_id) for edge in forward)
    layers: dict[str, int] = {}
    for source in variant_ids:  # each unreached variant starts a new breadth-first pass, after the deepest so far
        if source in layers:
            continue
        base = max(layers.values(), default=-1) + 1
        rest = graph.subgraph(node for node in variant_ids if node not in layers)
        for depth, nodes in enumerate(nx.bfs_layers(rest, [source])):
            layers.update(dict.fromkeys(nodes, base + depth))
    return layers


def _unit(values: list[float]) -> float:
    """Return the layout's unit: the smallest gap between two distinct coordinates (1 when there is none)."""
    distinct = sorted({round(float(value), 9) for value in values})
    gaps = [b - a for a, b in itertools.pairwise(distinct) if b - a > 1e-9]
    return min(gaps) if gaps else 1.0


def screen_name(document: MapDocument, screen: Screen) -> str:
    """Return what to call a screen, one name everywhere: `map show` draws it, `route --to` and the map tools take it.

    Its label (given by an annotation), else the first words its first variant shows ("" when it shows none).
    """
    if screen.label:
        return screen.label
    first = next(iter(screen.variant_ids), None)
    variant = next((item for item in document.variants if item.id == first), None)
    if variant is None:
        return ""
    for element in variant.elements:
        for label in element.labels:
            if label and label.casefold() != "navigate up":
                return label
    return ""


def _arrows(cards: Mapping[str, Card], edges: tuple[Edge, ...], on_route: set[str]) -> list[Arrow]:
    grouped: dict[tuple[str, str], list[Edge]] = {}
    for edge in edges:
        if edge.from_variant_id in cards and edge.to_variant_id in cards:
            grouped.setdefault((edge.from_variant_id, edge.to_variant_id), []).append(edge)
    arrows = []
    for (source, target), group in grouped.items():
        a, b = cards[source], cards[target]
        kind = "forward"
        if any(edge.id in on_route for edge in group):
            kind = "route"
        elif all(edge.stale for edge in group):
            kind = "stale"
        elif all(edge.intent == "back" for edge in group):
            kind = "back"
        mid_a, mid_b = a.y + a.height // 2, b.y + b.height // 2
        if b.x > a.x:
            start, end, bend = (a.x + CARD_W, mid_a - 14), (b.x, mid_b - 14), 0
        elif b.x < a.x:
            start, end, bend = (a.x, mid_a + 14), (b.x + CARD_W, mid_b + 14), 60
        else:  # the same column: around the side
            start, end, bend = (a.x + CARD_W, mid_a), (b.x + CARD_W, mid_b), 0
        labels = tuple(_label(edge) for edge in sorted(group, key=lambda edge: edge.id))
        arrows.append(Arrow(start, end, bend, labels, kind))
    return arrows


def _label(edge: Edge) -> str:
    """Say what an edge taps, briefly: `tap login + fill · 0.60`."""
    target = edge.target
    short = target.split(":id/", 1)[-1] if ":id/" in target else target.split("=", 1)[-1]
    fill = " + fill" if edge.args.fill else ""
    return f"{printable(edge.command)[:12]} {printable(short)[:22]}{fill} · {edge.confidence:.2f}"


def to_svg(picture: Scene) -> str:
    """Return the picture as a standalone SVG document (thumbnails embedded)."""
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{picture.width}' height='{picture.height}' "
        f"viewBox='0 0 {picture.width} {picture.height}' font-family='system-ui,sans-serif' font-size='12'>",
        "<defs>" + "".join(
            f"<marker id='head-{kind}' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='8' markerHeight='8' "
            f"orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' fill='{colour}'/></marker>"
            for kind, colour in COLOURS.items()
        ) + "</defs>",
        f"<rect width='100%' height='100%' fill='#fafafa'/><text x='{MARGIN}' y='{MARGIN + 14}' font-size='16' "
        f"font-weight='600' fill='#212121'>{_xml(picture.title)}</text>",
    ]  # fmt: skip
    for arrow in picture.arrows:  # under the cards: an arrow across the picture passes behind them
        colour = COLOURS[arrow.kind]
        dash = " stroke-dasharray='6 4'" if arrow.kind in ("back", "stale") else ""
        (x0, y0), (x2, y2), (cx, cy) = arrow.start, arrow.end, arrow.control
        width = 3 if arrow.kind == "route" else 1.5
        parts.append(f"<path d='M{x0},{y0} Q{cx:.1f},{cy:.1f} {x2},{y2}' fill='none' stroke='{colour}' "
                     f"stroke-width='{width}'{dash} marker-end='url(#head-{arrow.kind})'/>")  # fmt: skip
    for card in picture.cards:
        border = COLOURS["route"] if card.highlighted else "#bdbdbd"
        parts.append(f"<g><rect x='{card.x}' y='{card.y}' width='{CARD_W}' height='{card.height}' rx='8' "
                     f"fill='#fff' stroke='{border}' stroke-width='{3 if card.highlighted else 1}'/>")  # fmt: skip
        tx, ty = card.x + (CARD_W - THUMB_W) // 2, card.y + 8
        if card.thumbnail is not None:
            data = base64.b64encode(card.thumbnail).decode("ascii")
            parts.append(f"<image x='{tx}' y='{ty}' width='{THUMB_W}' height='{card.thumb_h}' "
                         f"preserveAspectRatio='xMidYMin meet' href='data:image/png;base64,{data}'/>")  # fmt: skip
        else:
            parts.append(f"<rect x='{tx}' y='{ty}' width='{THUMB_W}' height='{card.thumb_h}' fill='#eceff1'/>")
        base = ty + card.thumb_h + 18
        caption = _xml(card.caption)
        parts.append(f"<text x='{card.x + 8}' y='{base}' font-weight='600' fill='#212121'>{caption}</text>")
        parts.append(f"<text x='{card.x + 8}' y='{base + 16}' fill='#757575'>{_xml(card.detail)}</text></g>")
    for arrow in picture.arrows:  # over everything: a label is never hidden
        lx, ly = arrow.label_at
        for number, line in enumerate(arrow.labels):
            y = ly - 6 + (number - (len(arrow.labels) - 1) / 2) * 15
            parts.append(f"<text x='{lx:.0f}' y='{y:.0f}' text-anchor='middle' fill='{COLOURS[arrow.kind]}' "
                         f"stroke='#fafafa' stroke-width='4' paint-order='stroke'>{_xml(line)}</text>")  # fmt: skip
    parts.append("</svg>\n")
    return "".join(parts)


def _xml(text: str) -> str:
    """Return text for an SVG element: control characters shown as escapes (XML has no place for most), escaped."""
    return escape(printable(text))


def to_png(picture: Scene) -> bytes:
    """Return the picture as a PNG (drawn with Pillow).

    Raises:
        InputError: the picture would be larger than `MAX_PIXELS` (the SVG has no such bound).
    """
    # lazy: Pillow costs start-up time, and only drawing or reading a picture needs it
    from PIL import Image, ImageDraw, ImageFont

    if picture.width * picture.height > MAX_PIXELS:
        raise InputError(
            f"the app map's picture would be {picture.width:,} by {picture.height:,} px: too large for a PNG",
            likely_cause="The map has many screens side by side (screens no tap leads to each take a column).",
            next_step="Draw it as SVG (--format svg), or draw a smaller map.",
        )

    image = Image.new("RGB", (picture.width, picture.height), "#fafafa")
    draw = ImageDraw.Draw(image)
    font, bold, title = (ImageFont.load_default(size=size) for size in (12, 13, 16))
    draw.text((MARGIN, MARGIN), picture.title, fill="#212121", font=title)
    for arrow in picture.arrows:  # under the cards, as in the SVG
        colour = COLOURS[arrow.kind]
        points = [arrow.point(step / 24) for step in range(25)]
        width = 3 if arrow.kind == "route" else 2
        if arrow.kind in ("back", "stale"):
            for first, second in itertools.pairwise(points[::2]):
                draw.line([first, (first[0] + (second[0] - first[0]) * 0.6, first[1] + (second[1] - first[1]) * 0.6)],
                          fill=colour, width=width)  # fmt: skip
        else:
            draw.line(points, fill=colour, width=width, joint="curve")
        _head(draw, points[-2], points[-1], colour)
    for card in picture.cards:
        border = COLOURS["route"] if card.highlighted else "#bdbdbd"
        box = (card.x, card.y, card.x + CARD_W, card.y + card.height)
        draw.rounded_rectangle(box, 8, fill="#ffffff", outline=border, width=3 if card.highlighted else 1)
        tx, ty = card.x + (CARD_W - THUMB_W) // 2, card.y + 8
        if card.thumbnail is not None:
            with Image.open(io.BytesIO(card.thumbnail)) as shot:
                fitted = shot.convert("RGB")
                fitted.thumbnail((THUMB_W, card.thumb_h))
            image.paste(fitted, (tx + (THUMB_W - fitted.width) // 2, ty))
        else:
            draw.rectangle((tx, ty, tx + THUMB_W, ty + card.thumb_h), fill="#eceff1")
        base = ty + card.thumb_h + 6
        draw.text((card.x + 8, base), card.caption, fill="#212121", font=bold)
        draw.text((card.x + 8, base + 16), card.detail, fill="#757575", font=font)
    for arrow in picture.arrows:
        lx, ly = arrow.label_at
        for number, line in enumerate(arrow.labels):
            y = ly - 12 + (number - (len(arrow.labels) - 1) / 2) * 15
            draw.text((lx, y), line, fill=COLOURS[arrow.kind], font=font, anchor="mm", stroke_width=3,
                      stroke_fill="#fafafa")  # fmt: skip
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _head(draw: ImageDraw.ImageDraw, before: tuple[float, float], tip: tuple[float, float], colour: str) -> None:
    """Draw an arrowhead at `tip`, pointing away from `before`."""
    angle = math.atan2(tip[1] - before[1], tip[0] - before[0])
    left = (tip[0] - 10 * math.cos(angle - 0.45), tip[1] - 10 * math.sin(angle - 0.45))
    right = (tip[0] - 10 * math.cos(angle + 0.45), tip[1] - 10 * math.sin(angle + 0.45))
    draw.polygon([tip, left, right], fill=colour)
