"""Draw a laid-out simulated screen as a PNG a person can read.

The picture is made from the same widgets as the UI tree, so what a screenshot shows is what the page source
says: texts, buttons (disabled ones greyed), field values or hints, switch and checkbox states, slider
positions, timelines (ticks, labels and the indicator), dialogs over a dimmed screen, panels and toasts. The
same state always gives the same bytes.

The iOS flavour draws the same widgets the way an iPhone does where it differs: a light status bar and
navigation bar with a centred title and a tinted `< Back`, switches for switches and checkboxes alike, thin
slider tracks with a white thumb, alerts with centred texts over their row of tinted buttons, and the
keyboard while a field has focus (its shift key white with a filled arrow while on).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import pickle
from collections import OrderedDict
from collections.abc import Callable, Hashable

from PIL import Image, ImageDraw, ImageFont

from visor.errors import SourceError
from visor.files import read_regular, write_atomic
from visor.runtimes.sim.keyboard import SHIFT, SPACE
from visor.runtimes.sim.layout import (
    SIZE,
    SLIDER_VALUE_WIDTH,
    STATUS_BAR,
    TICK_LABEL_HEIGHT,
    Frame,
    Widget,
    WidgetKind,
    slider_track,
    timeline_ticks,
)
from visor.runtimes.sim.png import PngEncoder
from visor.ui.geometry import Rect

BACKGROUND = (250, 250, 250)
#: An iPhone's navigation and status bars, its hairlines, switches that are on, and its alerts.
BAR = (248, 248, 248)
HAIRLINE = (198, 198, 200)
IOS_GREEN = (52, 199, 89)
IOS_OFF = (229, 229, 234)
ALERT = (242, 242, 247)
KEYBOARD = (209, 212, 217)
SPECIAL_KEY = (171, 176, 186)
INK = (33, 33, 33)
MUTED = (117, 117, 117)
LINE = (224, 224, 224)
ERROR = (198, 40, 40)
WHITE = (255, 255, 255)
FONT_SIZES = {"title": 56, "body": 40, "caption": 32, "error": 40}


@functools.lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def load_fonts() -> None:
    """Load every font the pictures use (worker processes forked afterwards share them instead of each loading)."""
    for size in FONT_SIZES.values():
        _font(size)


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def _darker(color: tuple[int, int, int], amount: float = 0.75) -> tuple[int, int, int]:
    return int(color[0] * amount), int(color[1] * amount), int(color[2] * amount)


#: Rendered screens kept for reuse: the same state always gives the same picture, so a benchmark's runs
#: (or a scenario taking several screenshots of an unchanged screen) draw it once.
_CACHE: OrderedDict[Hashable, bytes] = OrderedDict()
_CACHE_SIZE = 32

#: The pictures' encoder: a screen a step costs the rows that changed (`visor.runtimes.sim.png`).
_ENCODER = PngEncoder()


def render_png(frame: Frame, accent: str = "#3F51B5", clock_text: str = "9:00", *, ios: bool = False) -> bytes:
    """Render a frame to PNG bytes (from the cache when this exact screen was drawn before)."""
    key = (
        frame.tree,
        tuple((w.kind, w.style, w.color, w.low, w.high, w.value, w.scale) for w in frame.widgets),
        accent,
        clock_text,
        ios,
    )
    cached = _CACHE.get(key)
    if cached is not None:
        _CACHE.move_to_end(key)
        return cached
    shared = _shared_path(key)
    data = _read_shared(shared) if shared else None
    if data is None:
        data = _draw_png(frame, accent, clock_text, ios)
        if shared:
            _write_shared(shared, data)
    _CACHE[key] = data
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return data


#: The folder the processes of one suite share pictures through (`share_pictures`), if any.
_MAX_PICTURE_BYTES = 64 * 1024 * 1024
_SHARED: list[str] = []


def share_pictures(folder: str | None) -> None:
    """Share drawn pictures through `folder` with the processes forked from now on (None: share no more).

    A suite's workers are forked from one process: a screen one of them drew (a login screen every scenario
    shows) is read by the others instead of drawn again, as a serial run takes it from its cache. A picture is
    named by a digest of everything it is drawn from, so what is read is what would have been drawn.
    """
    _SHARED[:] = [folder] if folder else []


def _shared_path(key: Hashable) -> str | None:
    if not _SHARED:
        return None
    try:
        digest = hashlib.blake2b(pickle.dumps(key, protocol=pickle.HIGHEST_PROTOCOL), digest_size=20).hexdigest()
    except (pickle.PicklingError, TypeError, AttributeError):  # a key that cannot be written out is not shared
        return None
    return os.path.join(_SHARED[0], f"{digest}.png")


def _read_shared(path: str) -> bytes | None:
    try:
        return read_regular(path, noun="shared picture", limit=_MAX_PICTURE_BYTES)
    except SourceError:
        return None


def _write_shared(path: str, data: bytes) -> None:
    with contextlib.suppress(OSError):  # sharing is a saving, never a failure: the picture is drawn anyway
        write_atomic(path, data)


def _draw_png(frame: Frame, accent: str, clock_text: str, ios: bool) -> bytes:
    return encode_png(draw_screen(frame, accent, clock_text, ios=ios))


def encode_png(image: Image.Image) -> bytes:
    """Encode a picture of the screen as PNG (the same picture, the same bytes)."""
    return _ENCODER.encode(image)


def draw_screen(frame: Frame, accent: str = "#3F51B5", clock_text: str = "9:00", *, ios: bool = False) -> Image.Image:
    """Draw a frame as an RGB picture of the screen (not encoded, not cached); `ios`: the iPhone's look."""
    image = Image.new("RGB", (SIZE.width, SIZE.height), BACKGROUND)
    draw = ImageDraw.Draw(image, "RGBA")
    color = _rgb(accent)
    launcher = frame.widgets and frame.widgets[0].style == "launcher"
    if launcher:
        draw.rectangle((0, 0, SIZE.width, SIZE.height), fill=(38, 50, 56))
    painters = {**_PAINTERS, **_IOS_PAINTERS} if ios else _PAINTERS
    for widget in frame.widgets:
        _draw(draw, widget, color, painters)
    # An iPhone's status bar lies over the app's light navigation bar: dark ink on it, light on the home screen.
    dark = ios and not launcher
    ink = INK if dark else WHITE
    draw.rectangle((0, 0, SIZE.width, STATUS_BAR), fill=BAR if dark else (20, 20, 20) if launcher else _darker(color))
    draw.text((48, STATUS_BAR // 2), clock_text, font=_font(36), fill=ink, anchor="lm")
    draw.rectangle((SIZE.width - 120, 22, SIZE.width - 60, 50), outline=ink, width=3)
    draw.rectangle((SIZE.width - 116, 26, SIZE.width - 74, 46), fill=ink)
    return image


def _box(rect: Rect) -> tuple[int, int, int, int]:
    return rect.left, rect.top, rect.right - 1, rect.bottom - 1


def _text(
    draw: ImageDraw.ImageDraw,
    rect: Rect,
    text: str,
    size: int,
    fill: tuple[int, int, int],
    *,
    center: bool = False,
    pad: int = 0,
) -> None:
    if not text or rect.empty:
        return
    font = _font(size)
    lines = text.split("\n")
    step = size + 14
    top = rect.top + (rect.height - step * len(lines)) // 2 + step // 2
    for index, line in enumerate(lines):
        y = top + index * step
        if not -2 * step <= y <= SIZE.height + 2 * step:
            continue  # a line this far off the picture draws nothing: measuring it would be wasted
        shown = _fit(draw, line, font, rect.width - 2 * pad)
        if center:
            draw.text((rect.center.x, y), shown, font=font, fill=fill, anchor="mm")
        else:
            draw.text((rect.left + pad, y), shown, font=font, fill=fill, anchor="lm")


def _fit(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int) -> str:
    """Return `text`, or its longest prefix that fits in `width` with an ellipsis after it ("…" if none does)."""

    def measure(part: str) -> float:
        return draw.textlength(part, font=font)

    # A prefix is never narrower than a shorter one (the font has no kerning: widths add up, advances are
    # positive), so the cut is searched for rather than found by dropping one character at a time and measuring
    # the rest each time (257 s for 16,000 characters). Doubling first bounds every measured prefix by twice the
    # shown length: the cost follows what fits in the box, not what the text holds.
    too_long = 1
    while too_long < len(text) and measure(text[:too_long]) <= width:
        too_long *= 2
    if too_long >= len(text) and measure(text) <= width:
        return text
    # Every prefix of `too_long` characters or more is too wide even without the ellipsis.
    fitting, too_long = 0, min(too_long, len(text))
    while too_long - fitting > 1:
        middle = (fitting + too_long) // 2
        if measure(text[:middle] + "…") <= width:
            fitting = middle
        else:
            too_long = middle
    return text[:fitting] + "…"


def _draw(
    draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int], painters: dict[WidgetKind, _Painter]
) -> None:
    painter = painters.get(widget.kind)
    if painter is not None and not widget.node.bounds.empty:
        painter(draw, widget, accent)


def _plain_text(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int], center: bool = False) -> None:
    color = ERROR if widget.style == "error" else (MUTED if widget.style == "caption" else INK)
    _text(draw, widget.node.bounds, widget.node.text, FONT_SIZES.get(widget.style, 40), color, center=center)


def _appbar(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    draw.rectangle(_box(widget.node.bounds), fill=_rgb(widget.color) if widget.color else accent)


def _title(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    _text(draw, widget.node.bounds, widget.node.text, 56, WHITE)


def _back(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    c = widget.node.bounds.center
    draw.line((c.x - 28, c.y, c.x + 28, c.y), fill=WHITE, width=8)
    draw.line((c.x - 28, c.y, c.x - 4, c.y - 24), fill=WHITE, width=8)
    draw.line((c.x - 28, c.y, c.x - 4, c.y + 24), fill=WHITE, width=8)


def _button(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    node, rect = widget.node, widget.node.bounds
    style = "primary" if node.selected else widget.style
    fill = {"danger": ERROR, "secondary": WHITE}.get(style, accent)
    ink = accent if style == "secondary" else WHITE
    if not node.enabled:
        fill, ink = (224, 224, 224), (158, 158, 158)
    draw.rounded_rectangle(
        _box(rect), radius=24, fill=fill, outline=accent if widget.style == "secondary" else None, width=4
    )
    _text(draw, rect, node.text, 44, ink, center=True)


def _field(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    node, rect = widget.node, widget.node.bounds
    draw.rounded_rectangle(
        _box(rect),
        radius=16,
        fill=WHITE,
        outline=accent if node.focused else (189, 189, 189),
        width=6 if node.focused else 3,
    )
    end = rect.left + 32
    if node.password and node.text:
        for index in range(min(len(node.text), (rect.width - 64) // 36)):
            x = rect.left + 48 + index * 36
            draw.ellipse((x - 10, rect.center.y - 10, x + 10, rect.center.y + 10), fill=INK)
        end = rect.left + 32 + 36 * len(node.text)
    elif node.text:
        _text(draw, rect, node.text, 44, INK, pad=32)
        if node.focused:  # measuring a long text costs, and only the cursor needs it
            # After the last line: Pillow refuses to measure text with a line break in it.
            end += int(draw.textlength(node.text.rsplit("\n", 1)[-1], font=_font(44)))
    else:
        _text(draw, rect, node.hint, 44, (158, 158, 158), pad=32)
    if node.focused:
        draw.line((end + 4, rect.center.y - 28, end + 4, rect.center.y + 28), fill=accent, width=4)


def _toggle(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    node, rect = widget.node, widget.node.bounds
    c = rect.center
    if widget.kind == WidgetKind.SWITCH:
        track = (rect.right - 132, c.y - 36, rect.right, c.y + 36)
        draw.rounded_rectangle(track, radius=36, fill=accent if node.checked else (189, 189, 189))
        knob = rect.right - 36 if node.checked else rect.right - 96
        draw.ellipse((knob - 30, c.y - 30, knob + 30, c.y + 30), fill=WHITE)
        _text(draw, Rect(rect.left, rect.top, rect.right - 160, rect.bottom), node.text, 40, INK)
        return
    square = (rect.left, c.y - 32, rect.left + 64, c.y + 32)
    draw.rounded_rectangle(square, radius=8, fill=accent if node.checked else WHITE, outline=accent, width=5)
    if node.checked:
        draw.line((rect.left + 14, c.y, rect.left + 28, c.y + 16, rect.left + 52, c.y - 16), fill=WHITE, width=8)
    _text(draw, Rect(rect.left + 96, rect.top, rect.right, rect.bottom), node.text, 40, INK)


def _slider(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    c = rect.center
    span = widget.high - widget.low
    fraction = (widget.value - widget.low) / span if span else 0.0
    left, right = slider_track(rect)
    x = int(left + fraction * (right - left))
    draw.rounded_rectangle((left, c.y - 8, right, c.y + 8), radius=8, fill=(207, 216, 220))
    draw.rounded_rectangle((left, c.y - 8, x, c.y + 8), radius=8, fill=accent)
    draw.ellipse((x - 30, c.y - 30, x + 30, c.y + 30), fill=accent)
    _text(
        draw, Rect(rect.right + 24, rect.top, rect.right + SLIDER_VALUE_WIDTH, rect.bottom), widget.node.text, 40, INK
    )


def _timeline(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    draw.rounded_rectangle(_box(rect), radius=16, fill=(38, 50, 56))
    base = rect.bottom - TICK_LABEL_HEIGHT
    draw.line((rect.left, base, rect.right - 1, base), fill=(96, 125, 139), width=2)
    for _, x in timeline_ticks(rect, widget.value, widget.scale, widget.low, widget.high):
        draw.line((x, base - 48, x, base), fill=(207, 216, 220), width=3)


def _indicator(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    draw.rectangle(_box(rect), fill=ERROR)
    c = rect.center.x
    draw.polygon([(c - 16, rect.top), (c + 16, rect.top), (c, rect.top + 20)], fill=ERROR)


def _tick(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    # Centred on its tick; a label that would stick out of the timeline is left out rather than cut.
    font = _font(FONT_SIZES["caption"])
    half = draw.textlength(widget.node.text, font=font) / 2
    if widget.low <= widget.value - half and widget.value + half <= widget.high:
        y = widget.node.bounds.center.y
        draw.text((widget.value, y), widget.node.text, font=font, fill=WHITE, anchor="mm")


def _image(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    draw.rounded_rectangle(_box(rect), radius=24, fill=_rgb(widget.color or "#90A4AE"))
    draw.polygon(
        [(rect.left + 60, rect.bottom - 40), (rect.left + 260, rect.top + 90), (rect.left + 460, rect.bottom - 40)],
        fill=(255, 255, 255, 90),
    )
    _text(
        draw,
        Rect(rect.left, rect.bottom - 80, rect.right, rect.bottom - 16),
        widget.node.content_desc,
        32,
        WHITE,
        center=True,
    )


def _spinner(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    c = widget.node.bounds.center
    draw.arc((c.x - 44, c.y - 44, c.x + 44, c.y + 44), start=-90, end=180, fill=accent, width=10)


def _list(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    draw.rectangle(_box(widget.node.bounds), fill=WHITE, outline=LINE, width=2)


def _item(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    draw.line((rect.left + 32, rect.bottom - 1, rect.right - 32, rect.bottom - 1), fill=LINE, width=2)
    c = rect.center
    draw.line((rect.right - 64, c.y - 16, rect.right - 48, c.y, rect.right - 64, c.y + 16), fill=MUTED, width=5)


def _scrim(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    draw.rectangle(_box(widget.node.bounds), fill=(0, 0, 0, 128))


def _sheet(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    if widget.kind == WidgetKind.DIALOG:
        draw.rounded_rectangle(_box(rect), radius=36, fill=WHITE)
        return
    draw.rectangle((rect.left, rect.top - 6, rect.right, rect.top), fill=(0, 0, 0, 40))
    draw.rounded_rectangle((rect.left, rect.top, rect.right, rect.bottom + 40), radius=40, fill=WHITE)
    draw.rounded_rectangle((rect.center.x - 60, rect.top + 16, rect.center.x + 60, rect.top + 26), radius=5, fill=LINE)


def _toast(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    draw.rounded_rectangle(_box(rect), radius=60, fill=(50, 50, 50, 235))
    _text(draw, rect, widget.node.text, 38, WHITE, center=True)


def _heading(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    _text(draw, widget.node.bounds, widget.node.text, FONT_SIZES.get(widget.style, 40), WHITE)


def _launcher_entry(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect, node = widget.node.bounds, widget.node
    color = _rgb(widget.color) if widget.color else accent
    if widget.kind == WidgetKind.CARD:
        draw.rounded_rectangle(_box(rect), radius=32, fill=WHITE)
        draw.rounded_rectangle((rect.left + 32, rect.top + 48, rect.left + 176, rect.top + 192), radius=28, fill=color)
        _text(draw, Rect(rect.left + 216, rect.top, rect.right, rect.bottom), node.text, 48, INK)
        return
    icon = (rect.center.x - 84, rect.top + 16, rect.center.x + 84, rect.top + 184)
    draw.rounded_rectangle(icon, radius=40, fill=color)
    draw.text((rect.center.x, rect.top + 100), node.text[:1].upper(), font=_font(88), fill=WHITE, anchor="mm")
    _text(draw, Rect(rect.left, rect.top + 200, rect.right, rect.bottom), node.text, 36, WHITE, center=True)


_Painter = Callable[[ImageDraw.ImageDraw, Widget, tuple[int, int, int]], None]
#: How each kind of widget is drawn; the others (the root, the content, rows) draw nothing.
_PAINTERS: dict[WidgetKind, _Painter] = {
    WidgetKind.TEXT: _plain_text,
    WidgetKind.APPBAR: _appbar,
    WidgetKind.TITLE: _title,
    WidgetKind.BACK: _back,
    WidgetKind.BUTTON: _button,
    WidgetKind.FIELD: _field,
    WidgetKind.SWITCH: _toggle,
    WidgetKind.CHECKBOX: _toggle,
    WidgetKind.SLIDER: _slider,
    WidgetKind.TIMELINE: _timeline,
    WidgetKind.INDICATOR: _indicator,
    WidgetKind.TICK: _tick,
    WidgetKind.IMAGE: _image,
    WidgetKind.SPINNER: _spinner,
    WidgetKind.LIST: _list,
    WidgetKind.ITEM: _item,
    WidgetKind.SCRIM: _scrim,
    WidgetKind.DIALOG: _sheet,
    WidgetKind.PANEL: _sheet,
    WidgetKind.TOAST: _toast,
    WidgetKind.HEADING: _heading,
    WidgetKind.ICON: _launcher_entry,
    WidgetKind.CARD: _launcher_entry,
}


# -- the iOS flavour's look ---------------------------------------------------------------------------------------


def _ios_bar(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    draw.rectangle(_box(rect), fill=BAR)
    draw.line((rect.left, rect.bottom - 1, rect.right - 1, rect.bottom - 1), fill=HAIRLINE, width=2)


def _ios_title(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    _text(draw, widget.node.bounds, widget.node.text, 52, INK, center=True)


def _ios_back(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    y = rect.center.y
    draw.line((rect.left + 60, y - 30, rect.left + 32, y, rect.left + 60, y + 30), fill=accent, width=8, joint="curve")
    draw.text((rect.left + 76, y), "Back", font=_font(44), fill=accent, anchor="lm")


def _ios_switch(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    # iOS has no checkbox: both are drawn as a switch (51 x 31 pt), labelled on its left.
    node, rect = widget.node, widget.node.bounds
    c = rect.center
    track = (rect.right - 153, c.y - 46, rect.right, c.y + 46)
    draw.rounded_rectangle(track, radius=46, fill=IOS_GREEN if node.checked else IOS_OFF)
    knob = rect.right - 46 if node.checked else rect.right - 107
    draw.ellipse((knob - 40, c.y - 40, knob + 40, c.y + 40), fill=WHITE, outline=HAIRLINE, width=2)
    _text(draw, Rect(rect.left, rect.top, rect.right - 180, rect.bottom), node.text, 40, INK)


def _ios_slider(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    c = rect.center
    span = widget.high - widget.low
    fraction = (widget.value - widget.low) / span if span else 0.0
    left, right = slider_track(rect, ios=True)
    x = int(left + fraction * (right - left))
    draw.rounded_rectangle((left, c.y - 6, right, c.y + 6), radius=6, fill=IOS_OFF)
    draw.rounded_rectangle((left, c.y - 6, x, c.y + 6), radius=6, fill=accent)
    draw.ellipse((x - 42, c.y - 42, x + 42, c.y + 42), fill=WHITE, outline=HAIRLINE, width=3)
    _text(
        draw, Rect(rect.right + 24, rect.top, rect.right + SLIDER_VALUE_WIDTH, rect.bottom), widget.node.text, 40, INK
    )


def _ios_sheet(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    if widget.kind != WidgetKind.DIALOG:
        _sheet(draw, widget, accent)
        return
    draw.rounded_rectangle(_box(widget.node.bounds), radius=42, fill=ALERT)


def _ios_button(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    node, rect = widget.node, widget.node.bounds
    if not node.resource_id.startswith("android:id/button"):
        _button(draw, widget, accent)
        return
    # An alert's button: tinted text under a hairline, the default action's in bold (drawn a pixel wider).
    draw.line((rect.left - 12, rect.top, rect.right + 12, rect.top), fill=HAIRLINE, width=2)
    ink = ERROR if widget.style == "danger" else accent
    _text(draw, rect, node.text, 44, ink, center=True)
    if widget.style == "primary":
        _text(draw, rect.offset(1, 0), node.text, 44, ink, center=True)


def _ios_text(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    # An alert's title and message (Android's dialog ids) are centred.
    _plain_text(draw, widget, accent, center=widget.node.resource_id.startswith("android:id/"))


def _ios_keyboard(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    draw.rectangle(_box(widget.node.bounds), fill=KEYBOARD)


def _ios_key(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    node, rect, text = widget.node, widget.node.bounds, widget.node.text
    character = len(text) == 1
    # Character keys and the space bar are white; the others grey, but a shift that is on turns white.
    white = character or widget.ref == SPACE or node.selected
    draw.rounded_rectangle((rect.left, rect.top + 3, rect.right - 1, rect.bottom + 2), radius=15, fill=(137, 139, 143))
    draw.rounded_rectangle(_box(rect), radius=15, fill=WHITE if white else SPECIAL_KEY)
    if widget.ref == SHIFT:
        _shift_arrow(draw, rect, on=node.selected)
    else:
        _text(draw, rect, text, 56 if character else 36, INK, center=True)


def _shift_arrow(draw: ImageDraw.ImageDraw, rect: Rect, *, on: bool) -> None:
    """Draw the shift key's arrow: filled while shift is on, an outline while it is off (as an iPhone does)."""
    x, y = rect.center.x, rect.center.y
    head = [(x - 36, y + 2), (x, y - 36), (x + 36, y + 2)]
    stem = [(x + 16, y + 2), (x + 16, y + 30), (x - 16, y + 30), (x - 16, y + 2)]
    draw.polygon(head + stem, fill=INK if on else None, outline=INK, width=5)


def _ios_item(draw: ImageDraw.ImageDraw, widget: Widget, accent: tuple[int, int, int]) -> None:
    rect = widget.node.bounds
    draw.line((rect.left + 32, rect.bottom - 1, rect.right, rect.bottom - 1), fill=HAIRLINE, width=2)
    c = rect.center
    draw.line((rect.right - 60, c.y - 18, rect.right - 42, c.y, rect.right - 60, c.y + 18), fill=HAIRLINE, width=6)


#: Where the iOS flavour draws a kind of widget its own way (the others as on Android).
_IOS_PAINTERS: dict[WidgetKind, _Painter] = {
    WidgetKind.TEXT: _ios_text,
    WidgetKind.APPBAR: _ios_bar,
    WidgetKind.TITLE: _ios_title,
    WidgetKind.BACK: _ios_back,
    WidgetKind.SWITCH: _ios_switch,
    WidgetKind.CHECKBOX: _ios_switch,
    WidgetKind.SLIDER: _ios_slider,
    WidgetKind.DIALOG: _ios_sheet,
    WidgetKind.BUTTON: _ios_button,
    WidgetKind.ITEM: _ios_item,
    WidgetKind.KEYBOARD: _ios_keyboard,
    WidgetKind.KEY: _ios_key,
}
