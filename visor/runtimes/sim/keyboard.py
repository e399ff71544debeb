"""The iPhone's on-screen keyboard: up while a field on the screen has focus (the iOS flavour only).

It takes the bottom 216 pt of the screen, over the app (a dialog and a panel included), and covers what lies
there: a touch on it never reaches the app. It has an iPhone's two main layers, row by row:

- letters: `q`…`p`; `a`…`l`; `shift`, `z`…`m`, `delete`; the `123` key, `space`, `Return`;
- numbers and symbols: `1`…`0`; `-/:;()$&@"`; `.,?!'`, `delete`; the `ABC` key, `space`, `Return`.

Its keys are real. A character key types itself into the focused field (at its selection, as typing does),
`space` a space, `delete` the character before the cursor (or the selection), and `Return` submits the field
(its `on_submit`, as the enter key does). `shift` makes the next letter uppercase, once (tapped again before
that, it is off again); while it is on, the letter keys show uppercase letters. `123` and `ABC` switch layers
(and turn shift off); the keyboard stays on a layer until one of them is tapped, typing included.

The layer and shift are the app's `KeyboardState`, reset whenever the focus moves; the layout shows the keyboard
as that state says. Left out: caps lock (a double tap on shift: the sim's
taps are 50 ms of device time apart, so every second tap would lock), the `#+=` layer, and auto-capitalization
(a field does not say whether it holds prose, an e-mail address or a URL). `act type` does not go through the
keys. The Android flavour has no keyboard on screen, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import partial

from visor.runtimes.sim.boxes import Box
from visor.runtimes.sim.metrics import POINT, SIZE
from visor.runtimes.sim.state import KeyboardState, Layer
from visor.runtimes.sim.widgets import Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node

#: Where the keyboard starts: 216 pt above the bottom of the screen.
TOP = SIZE.height - 216 * POINT
#: The keyboard as it comes up: letters, shift off.
START = KeyboardState()
#: Each layer's three rows of characters (an iPhone's, US English).
ROWS: dict[Layer, tuple[str, str, str]] = {
    Layer.LETTERS: ("qwertyuiop", "asdfghjkl", "zxcvbnm"),
    Layer.NUMBERS: ("1234567890", '-/:;()$&@"', ".,?!'"),
}
#: A character key's size, the room between keys and rows, and the keyboard's side margin, in pixels.
KEY_WIDTH, KEY_HEIGHT, KEY_GAP, ROW_GAP, SIDE = 90, 126, 18, 36, 9
#: The width of `shift`, `delete` and the layer key; of the numbers layer's third-row characters (five share
#: the room nine letters and shift take); where the space bar ends and the return key starts.
SIDE_KEY_WIDTH, WIDE_KEY_WIDTH, SPACE_RIGHT, RETURN_LEFT = 126, 138, 800, 818
#: The keys that are not characters, by what they do (their `ref`).
DELETE, SPACE, RETURN, SHIFT, MORE = "delete", "space", "return", "shift", "more"
#: What each key that is not a character says (its label; the layer key's is in `LAYER_KEY`).
LABELS = {DELETE: "delete", SPACE: "space", RETURN: "Return", SHIFT: "shift"}
#: The layer key on each layer: what it shows, and its label (it switches to the other layer).
LAYER_KEY = {Layer.LETTERS: ("123", "numbers"), Layer.NUMBERS: ("ABC", "letters")}
#: The keys XCUITest shows as buttons of the keyboard (the others are keys).
BUTTONS = frozenset({SHIFT, RETURN})
#: The keys XCUITest names by an identifier of their own (the others by their label).
NAMES = {MORE: "more"}


@dataclass(frozen=True, slots=True)
class Key:
    """A key as the keyboard shows it."""

    #: What it does: the character it types, or one of DELETE, SPACE, RETURN, SHIFT and MORE.
    ref: str
    #: What is written on it.
    caption: str
    #: What it says to VoiceOver (XCUITest's label).
    label: str
    bounds: Rect
    #: A shift key that is on.
    on: bool = False


def keyboard(state: KeyboardState = START) -> Box:
    """Return the keyboard with its keys, as `state` shows them."""
    node = partial(Node, "android.inputmethodservice.KeyboardView", Rect(0, TOP, SIZE.width, SIZE.height))
    board = Box(node, partial(Widget, kind=WidgetKind.KEYBOARD))
    board.children.extend(_box(key) for key in keys(state))
    return board


def keys(state: KeyboardState = START) -> tuple[Key, ...]:
    """Return the keys of the keyboard in `state`, row by row, each row left to right."""
    first, second, third = (row.upper() if state.shift else row for row in ROWS[state.layer])
    top = [TOP + 24 + index * (KEY_HEIGHT + ROW_GAP) for index in range(4)]
    letters = state.layer is Layer.LETTERS
    shift = Key(SHIFT, LABELS[SHIFT], LABELS[SHIFT], _row_end(top[2], left=True), on=state.shift)
    caption, label = LAYER_KEY[state.layer]
    bottom = top[3] + KEY_HEIGHT
    return (
        *_characters(first, KEY_WIDTH, top[0]),
        *_characters(second, KEY_WIDTH, top[1]),
        *((shift,) if letters else ()),
        *_characters(third, KEY_WIDTH if letters else WIDE_KEY_WIDTH, top[2]),
        Key(DELETE, LABELS[DELETE], LABELS[DELETE], _row_end(top[2], left=False)),
        Key(MORE, caption, label, _row_end(top[3], left=True)),
        Key(SPACE, LABELS[SPACE], LABELS[SPACE], Rect(SIDE + SIDE_KEY_WIDTH + KEY_GAP, top[3], SPACE_RIGHT, bottom)),
        Key(RETURN, LABELS[RETURN], LABELS[RETURN], Rect(RETURN_LEFT, top[3], SIZE.width - SIDE, bottom)),
    )


def _characters(characters: str, width: int, top: int) -> Iterator[Key]:
    """Yield a row of character keys `width` px wide, centred on the screen."""
    span = len(characters) * width + (len(characters) - 1) * KEY_GAP
    left = (SIZE.width - span) // 2
    for index, character in enumerate(characters):
        x = left + index * (width + KEY_GAP)
        yield Key(character, character, character, Rect(x, top, x + width, top + KEY_HEIGHT))


def _row_end(top: int, *, left: bool) -> Rect:
    """Return the bounds of the key at the left or right end of a row (shift, the layer key; delete)."""
    x = SIDE if left else SIZE.width - SIDE - SIDE_KEY_WIDTH
    return Rect(x, top, x + SIDE_KEY_WIDTH, top + KEY_HEIGHT)


def _box(key: Key) -> Box:
    node = partial(
        Node, "android.view.View", key.bounds, text=key.caption, content_desc=key.label, clickable=True, selected=key.on
    )
    return Box(node, partial(Widget, kind=WidgetKind.KEY, ref=key.ref))


def press(state: KeyboardState, ref: str) -> tuple[KeyboardState, str]:
    """Return the keyboard after a tap on the key `ref`, and what the tap types ("" for nothing).

    `delete` and `Return` act on the field, not on the keyboard: they leave it as it is and type nothing here.
    """
    if ref == SHIFT:
        return replace(state, shift=not state.shift), ""
    if ref == MORE:
        return KeyboardState(Layer.NUMBERS if state.layer is Layer.LETTERS else Layer.LETTERS), ""
    if ref == SPACE:
        return state, " "  # shift waits for the next letter
    if len(ref) == 1:
        return replace(state, shift=False), ref  # a character key: shift has been used up
    return state, ""


def wants_keyboard(root: Box) -> bool:
    """Return True when a laid-out screen shows a focused field (the keyboard then comes up)."""
    stack = [root]
    while stack:
        part = stack.pop()
        if part.widget.keywords.get("kind") == WidgetKind.FIELD and part.node.keywords.get("focused"):
            return True
        stack.extend(part.children)
    return False
