"""Pictures of an app map: laid out by networkx, the same picture every time, in SVG and PNG."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable, Iterable
from typing import Any

from lxml import etree
from PIL import Image

from tests.conftest import ROOT
from tests.ext.appmap import parts
from visor.ext.appmap import picture as pictures
from visor.ext.appmap.document import parse_document
from visor.ext.appmap.picture import CARD_W, COLUMN_GAP, Scene, to_png, to_svg


def variant(number: int, screen: int, label: str) -> dict[str, object]:
    elements = [parts.element(labels=["Navigate up"]), parts.element(labels=[label])]
    return parts.variant(number, screen_id=f"screen_{screen}", elements=elements)


def edge(number: int, source: int, target: int, tap: str, **extra: object) -> dict[str, object]:
    return parts.edge(number, f"variant_{source}", f"variant_{target}", tap, **extra)


def scene(data: dict[str, Any], thumbnails: Callable[[str], bytes | None], route: Iterable[str] = ()) -> Scene:
    """Lay out a map document given as its file's data."""
    return pictures.scene(parse_document(data), thumbnails, route)


#: Start -> A, B (two columns away: C); C goes back to start; a stale tap from A to B.
DOCUMENT: dict[str, Any] = {
    **parts.HEAD,
    "screens": [{"id": f"screen_{n}", "variant_ids": [f"variant_{n}"]} for n in range(1, 5)],
    "variants": [variant(1, 1, "Home"), variant(2, 2, "Alpha"), variant(3, 3, "Beta"), variant(4, 4, "Gamma")],
    "edges": [
        edge(1, 1, 2, "id=com.example:id/alpha"),
        edge(2, 1, 3, "text=Beta", args={"target": "text=Beta", "fill": {"user": "USER"}}),
        edge(3, 3, 4, "text=Gamma"),
        edge(4, 4, 1, "Navigate up", intent="back"),
        edge(5, 2, 3, "text=Next", stale=True),
    ],
}
DOCUMENT["screens"][0]["label"] = "Start"


def test_screens_are_placed_by_taps_from_the_start() -> None:
    picture = scene(DOCUMENT, lambda _: None)
    columns = {card.variant_id: card.x for card in picture.cards}
    step = CARD_W + COLUMN_GAP
    assert columns == {"variant_1": 24, "variant_2": 24 + step, "variant_3": 24 + step, "variant_4": 24 + 2 * step}
    captions = {card.variant_id: card.caption for card in picture.cards}
    assert captions["variant_1"] == "screen_1 · Start" and captions["variant_2"] == "screen_2 · Alpha"
    kinds = {arrow.labels: arrow.kind for arrow in picture.arrows}
    assert kinds[("tap alpha · 0.45",)] == "forward"
    assert kinds[("tap Beta + fill · 0.45",)] == "forward"
    assert kinds[("tap Navigate up · 0.45",)] == "back"
    assert kinds[("tap Next · 0.45",)] == "stale"
    assert picture.title == "android:com.example: 4 screens, 4 variants, 5 edges"


def test_a_route_is_drawn_in_blue_with_its_screens() -> None:
    picture = scene(DOCUMENT, lambda _: None, route=("edge_2", "edge_3"))
    assert {card.variant_id for card in picture.cards if card.highlighted} == {"variant_1", "variant_3", "variant_4"}
    assert sorted(arrow.labels[0] for arrow in picture.arrows if arrow.kind == "route") == [
        "tap Beta + fill · 0.45",
        "tap Gamma · 0.45",
    ]
    svg = to_svg(picture)
    assert svg.count("stroke='#1565c0' stroke-width='3' marker-end") == 2


def test_svg_and_png_show_the_same_scene() -> None:
    look = Image.new("RGB", (216, 480), "#3f51b5")
    out = io.BytesIO()
    look.save(out, format="PNG")
    looked = {**DOCUMENT, "variants": [{**item, "thumbnail": f"{item['id']}.png"} for item in DOCUMENT["variants"]]}
    picture = scene(looked, lambda _: out.getvalue())
    svg = etree.fromstring(to_svg(picture).encode())
    assert svg.get("width") == str(picture.width) and len(list(svg.iter("{http://www.w3.org/2000/svg}image"))) == 4
    texts = {text.text for text in svg.iter("{http://www.w3.org/2000/svg}text")}
    assert {"screen_1 · Start", "tap Navigate up · 0.45", "tap Next · 0.45"} <= texts
    with Image.open(io.BytesIO(to_png(picture))) as drawn:
        assert drawn.size == (picture.width, picture.height)
        card = picture.cards[0]
        # The thumbnail is pasted into its card (152 px wide, its aspect kept: 338 px tall).
        assert drawn.getpixel((card.x + 84, card.y + 100)) == (63, 81, 181)
        assert card.thumb_h == 338


def test_the_picture_is_the_same_in_every_process() -> None:
    """networkx groups a layer's nodes in a set; the picture must not follow string hashing."""
    code = (
        "from tests.ext.appmap.test_picture import DOCUMENT, scene\n"
        "from visor.ext.appmap.picture import to_svg\n"
        "import sys; sys.stdout.write(to_svg(scene(DOCUMENT, lambda _: None)))\n"
    )
    pictures = {
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}).stdout
        for seed in ("1", "2", "3", "4")
    }  # fmt: skip
    assert len(pictures) == 1


def test_text_from_the_map_is_shown_escaped_and_the_svg_stays_well_formed() -> None:
    """Labels an editor (or an app) wrote: no control character reaches the SVG, the PNG or a terminal."""
    hostile = "\x1b[2J\x00<script>alert('x')</script>&\u202e\ud800"
    document = {**DOCUMENT, "identity": f"android:{hostile}",
                "screens": [{**DOCUMENT["screens"][0], "label": hostile}, *DOCUMENT["screens"][1:]],
                "edges": [edge(1, 1, 2, f"text={hostile}"), *DOCUMENT["edges"][1:]]}  # fmt: skip
    picture = scene(document, lambda _: None)
    texts = [
        picture.title,
        *(card.caption for card in picture.cards),
        *(line for a in picture.arrows for line in a.labels),
    ]
    assert not any(char in text for text in texts for char in "\x1b\x00\u202e\ud800")
    assert "\\x1b[2J\\x00" in picture.cards[0].caption
    svg = to_svg(picture)
    root = etree.fromstring(svg.encode("utf-8"))  # well-formed: no control character, every markup escaped
    assert not root.xpath("//*[local-name()='script']") and "&lt;script&gt;" in svg
    to_png(picture)  # Pillow draws the escapes (a NUL would stop it)


def test_a_map_too_large_to_draw_is_refused_not_drawn() -> None:
    import pytest

    from visor.errors import InputError
    from visor.ext.appmap.picture import MAX_CARDS

    many = {**DOCUMENT, "screens": [], "variants": [variant(n, n, "x") for n in range(MAX_CARDS + 1)], "edges": []}
    with pytest.raises(InputError, match="more than one picture shows"):
        scene(many, lambda _: None)
    wide = {**DOCUMENT, "screens": [], "variants": [variant(n, n, "x") for n in range(MAX_CARDS)], "edges": []}
    with pytest.raises(InputError, match="too large for a PNG"):
        to_png(scene(wide, lambda _: None))  # screens no tap leads to take a column each
