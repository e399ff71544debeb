"""The iPhone's on-screen keyboard: up while a field on the screen has focus (the iOS flavour only).

It takes the bottom 216 pt of the screen, over the app (a dialog and a panel included), and covers what lies
there: a touch on it never reaches the app. Its keys are real: a letter types itself into the focused field (at
its selection, as typing does), `space` a space, `delete` the character before the cursor (or the selection),
and `Return` submits the field (its `on_submit`, as the enter key does). It has no shift or number keys: what a
scenario types goes through `act type`. The Android flavour has no keyboard on screen, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from visor.devices.sim.boxes import Box
from visor.devices.sim.metrics import POINT, SIZE
from visor.devices.sim.widgets import Widget, WidgetKind
from visor.ui.geometry import Rect
from visor.ui.tree import Node

#: Where the keyboard starts: 216 pt above the bottom of the screen.
TOP = SIZE.height - 216 * POINT
ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
#: A letter key's size, the room between keys and rows, and the keyboard's side margin, in pixels.
KEY_WIDTH, KEY_HEIGHT, KEY_GAP, ROW_GAP, SIDE = 90, 126, 18, 36, 9
#: The keys that are not letters, by what they do (their `ref`).
DELETE, SPACE, RETURN = "delete", "space", "return"
#: What each key that is not a letter says (its label).
LABELS = {DELETE: "delete", SPACE: "space", RETURN: "Return"}


def keyboard() -> Box:
    """Return the keyboard with its keys."""
    node = partial(Node, "android.inputmethodservice.KeyboardView", Rect(0, TOP, SIZE.width, SIZE.height))
    board = Box(node, partial(Widget, kind=WidgetKind.KEYBOARD))
    board.children.extend(_key(ref, bounds) for ref, bounds in _keys())
    return board


def _keys() -> Iterator[tuple[str, Rect]]:
    """Yield each key's `ref` (its letter, or what it does) and bounds, row by row."""
    top = TOP + 24
    for letters in ROWS:
        width = len(letters) * KEY_WIDTH + (len(letters) - 1) * KEY_GAP
        left = (SIZE.width - width) // 2
        for index, letter in enumerate(letters):
            x = left + index * (KEY_WIDTH + KEY_GAP)
            yield letter, Rect(x, top, x + KEY_WIDTH, top + KEY_HEIGHT)
        top += KEY_HEIGHT + ROW_GAP
    last_row = top - KEY_HEIGHT - ROW_GAP
    yield DELETE, Rect(SIZE.width - SIDE - 126, last_row, SIZE.width - SIDE, last_row + KEY_HEIGHT)
    yield SPACE, Rect(SIDE, top, 800, top + KEY_HEIGHT)
    yield RETURN, Rect(818, top, SIZE.width - SIDE, top + KEY_HEIGHT)


def _key(ref: str, bounds: Rect) -> Box:
    node = partial(Node, "android.view.View", bounds, text=LABELS.get(ref, ref), clickable=True)
    return Box(node, partial(Widget, kind=WidgetKind.KEY, ref=ref))


def wants_keyboard(root: Box) -> bool:
    """Return True when a laid-out screen shows a focused field (the keyboard then comes up)."""
    stack = [root]
    while stack:
        part = stack.pop()
        if part.widget.keywords.get("kind") == WidgetKind.FIELD and part.node.keywords.get("focused"):
            return True
        stack.extend(part.children)
    return False
