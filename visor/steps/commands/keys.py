"""`press` and `hide_keyboard`: a key pressed and its effect seen; the soft keyboard taken down and seen gone.

`press` looks at the screen before and after the key, and reports the effect it saw (`details.effect`):

- `backspace` must shorten the focused field by one character, and `space` lengthen it by one (`text_deleted`,
  `text_typed`); with no field focused, or an empty one for backspace, the step fails: the key did nothing.
- `back`, `home`, `app_switch`, `lock` and `unlock` must change the screen (`screen_changed`), or the step fails.
- The other keys act as the app makes them (enter submits, tab moves the focus, the d-pad moves a TV's focus) or
  on the phone beyond the screen (volume, media, camera): a changed screen is `screen_changed`, and one that did
  not change passes with `details.unverified` saying so, as `act type` does when it cannot read a field back.

A key the platform lacks (most keys on an iPhone) is refused before anything is sent, with the reason.
"""

from __future__ import annotations

from typing import TypedDict

from visor.device.protocol import Key
from visor.device.targets import refind
from visor.scenario.commands import HideKeyboardArgs, PressArgs
from visor.scenario.keys import lacking
from visor.steps.commands.text import described, field_text
from visor.steps.context import ActionContext, StepFailure
from visor.steps.entry import Entries, entry
from visor.ui.description import ElementInfo
from visor.ui.fingerprint import fingerprint
from visor.ui.tree import Node, UiTree

#: The keys whose effect is on the screen whatever the app: nothing changing means they did nothing.
SCREEN_KEYS = frozenset({Key.BACK, Key.HOME, Key.APP_SWITCH, Key.LOCK, Key.UNLOCK})
#: The keys that change the focused field's length, by how much.
FIELD_KEYS = {Key.BACKSPACE: -1, Key.SPACE: 1}
#: The class names (their last part) of a soft keyboard in a page source: Android's input view, XCUITest's.
KEYBOARD_CLASSES = ("KeyboardView", "XCUIElementTypeKeyboard")


class PressDetails(TypedDict, total=False):
    """A key pressed: which (its name), the effect seen, the field it acted on."""

    args: dict[str, object]
    key: str
    #: What changed: `text_deleted`, `text_typed`, `screen_changed` or `keyboard_hidden` (absent: nothing seen).
    effect: str
    field: ElementInfo
    #: Why no effect could be seen (the step is ok: the key's effect is the app's or beyond the screen).
    unverified: str


class HideKeyboardDetails(TypedDict):
    """The soft keyboard: whether it was up, and that it is down now."""

    args: dict[str, object]
    was_shown: bool


def press(args: PressArgs, ctx: ActionContext) -> PressDetails:
    """Press the key and check its effect on the screen (see the module's docstring)."""
    key = Key(args.key)
    reason = lacking(key.value, ctx.platform)
    if reason is not None:
        raise StepFailure(
            f"{ctx.platform} has no {key.value} key: nothing was pressed",
            likely_cause=f"{reason}.",
            next_step="Press the key on a platform that has it, or guard the step (when: {platform: android}).",
        )
    ctx.wait_idle()
    before = ctx.observe().tree
    field = before.focused()
    # Asked only where it can be the effect: on a phone it is a round trip.
    keyboard = None if key in FIELD_KEYS else ctx.keyboard_shown()
    ctx.press_key(key)
    after = ctx.observe().tree
    details: PressDetails = {"args": args.as_written(), "key": key.value}
    if key in FIELD_KEYS:
        return details | _field_effect(ctx, key, field, after)
    if keyboard and ctx.keyboard_shown() is False:
        return details | {"effect": "keyboard_hidden"}
    if fingerprint(before) != fingerprint(after):
        return details | {"effect": "screen_changed"}
    if key in SCREEN_KEYS:
        raise StepFailure(
            f"{key.value} changed nothing on the screen",
            likely_cause=f"The device took {key.value} but nothing happened: the screen was already where it leads"
            " (home on the home screen, back with nowhere to go), or the app ignores it.",
            next_step="Check the failure screenshot: the screen is where the step started.",
            details={"args": args.as_written()},
        )
    return details | {
        "unverified": f"the screen did not change: what {key.value} does here is the app's, or beyond the screen"
    }


def _field_effect(ctx: ActionContext, key: Key, field: Node | None, after: UiTree) -> PressDetails:
    """Check that backspace or space changed the focused field's length by one character."""
    if field is None or not field.editable:
        raise StepFailure(
            f"no text field has focus: {key.value} had nothing to act on",
            likely_cause="No field was tapped first, or the app took the focus away.",
            next_step="Tap the field first (tap with its target), then press the key.",
        )
    again = refind(after, field)
    now = again.node if again is not None else None
    length, change = len(field_text(field)), FIELD_KEYS[key]
    if now is None or len(field_text(now)) != length + change:
        seen = "is gone from the screen" if now is None else f"holds {len(field_text(now))} characters"
        raise StepFailure(
            f"{key.value} did not {'delete' if change < 0 else 'type'} a character: the field held {length} and"
            f" {seen}" + (" (it was empty)" if change < 0 and length == 0 else ""),
            likely_cause="The field was empty, ignores the key, or the app changed its text.",
            next_step="Check the field in the failure screenshot.",
            details={"field": described(ctx, now or field, field_text(field))},
        )
    return {"effect": "text_deleted" if change < 0 else "text_typed", "field": described(ctx, now, field_text(field))}


def hide_keyboard(args: HideKeyboardArgs, ctx: ActionContext) -> HideKeyboardDetails:
    """Take the soft keyboard down (nothing is sent when it is down already), and check it is gone."""
    ctx.wait_idle()
    shown = _keyboard_up(ctx)
    if shown:
        ctx.hide_keyboard()
        if _keyboard_up(ctx):
            raise StepFailure(
                "the soft keyboard is still up after hiding it",
                likely_cause="The app or the keyboard keeps itself up (a field that asks for it again at once).",
                next_step="Tap outside the field, or press back (Android), to take the keyboard down.",
            )
    return {"args": args.as_written(), "was_shown": shown}


def _keyboard_up(ctx: ActionContext) -> bool:
    """Say whether the keyboard is up: as the device says, or as its page source shows (an iPhone's keyboard).

    Raises:
        UnsupportedInput: the device can tell nothing of a keyboard (nothing was sent).
    """
    said = ctx.keyboard_shown()
    tree = ctx.observe(fresh=True).tree
    drawn = any(
        node.class_name.rsplit(".", 1)[-1] in KEYBOARD_CLASSES and tree.on_screen(node) for node in tree.nodes()
    )
    if said is None and not drawn:
        ctx.hide_keyboard()  # refuses on such a device, saying why; nothing is sent
    return bool(said) or drawn


ENTRIES: Entries = (entry(HideKeyboardArgs, hide_keyboard, HideKeyboardDetails), entry(PressArgs, press, PressDetails))
