"""`erase_text`, `copy_text_from`, `paste_text`, `input_random`: text taken from fields and put into them, checked.

- `erase_text` deletes with the backspace key, as many times as there are characters before the cursor (at most
  `chars`), and checks the field lost exactly those: its length, for a password field, whose text is masked.
- `copy_text_from` keeps an element's text in the run's memory (`AgentState.copied_text`, the `ActionContext`'s
  `agent`): what `paste_text` types and what a script reads as `maestro.copiedText`. The phone's clipboard is left
  as it is, as Maestro leaves it.
- `paste_text` and `input_random` type as `act type` does, and check as it does that the text arrived.
  `input_random` draws from the step's own stream of the scenario's seed (`ActionContext.step_random`), so the
  same seed types the same text in every run; the value is in the details, signed (masked in a password field).
"""

from __future__ import annotations

from typing import TypedDict

from visor.device.protocol import Key
from visor.device.targets import refind
from visor.scenario.commands import (
    RANDOM_LENGTH,
    ActTypeArgs,
    CopyTextFromArgs,
    EraseTextArgs,
    InputRandomArgs,
    PasteTextArgs,
)
from visor.steps.commands.act import TypeDetails, act_type, text_field
from visor.steps.context import ActionContext, StepFailure
from visor.steps.details import TargetInfo
from visor.steps.entry import Entries, entry
from visor.steps.random_text import draw
from visor.steps.targets import element_details, locate
from visor.ui.description import MASK, ElementInfo
from visor.ui.secrets import holds
from visor.ui.tree import Node


class EraseDetails(TypedDict, total=False):
    """Characters erased: from which field, its length before and after (a password's too: never its text)."""

    args: dict[str, object]
    target: TargetInfo
    field: ElementInfo
    before: int
    after: int
    #: How many backspaces were sent: the characters before the cursor, at most `chars`.
    pressed: int


class CopyDetails(TypedDict):
    """Text copied from an element (kept for `paste_text` and `maestro.copiedText`)."""

    args: dict[str, object]
    target: TargetInfo
    text: str


class PasteDetails(TypedDict, total=False):
    """Text typed by `paste_text` or `input_random`: the text (masked in a password field) and the field after it."""

    args: dict[str, object]
    text: str
    target: TargetInfo
    field: ElementInfo | None
    #: Why the text could not be read back to check it arrived (the step is ok, unchecked).
    unverified: str


def described(ctx: ActionContext, node: Node, held: str) -> ElementInfo:
    """Describe a field for details; one that held a `--secret` value (`held`) with its text masked, as act type does.

    What is left of a secret after erasing part of it is no longer found by masking by value, so the run's store is
    told to mask that too, in every file from now on.
    """
    info = element_details(node)
    if node.password or not holds(held, ctx.sink.secrets):
        return info
    if node.text:
        ctx.sink.hide(node.text)
    return {**info, "text": MASK}


def field_text(node: Node) -> str:
    """Return a field's text: an empty iPhone field shows its placeholder as its value, which is not its text."""
    return "" if node.hint and node.text == node.hint else node.text


def _before_cursor(node: Node, text: str) -> int:
    """Return how many characters precede the cursor (the end of the text when the device does not say)."""
    if node.selection is None or node.password:
        return len(text)
    start = node.selection[0]
    units = 0
    for index, character in enumerate(text):  # the selection counts UTF-16 units; the text, characters
        if units >= start:
            return index
        units += 2 if ord(character) > 0xFFFF else 1
    return len(text)


def erase_text(args: EraseTextArgs, ctx: ActionContext) -> EraseDetails:
    """Delete up to `chars` characters before the cursor of the field, and check the field lost them."""
    ctx.wait_idle()
    details: EraseDetails = {"args": args.as_written()}
    if args.target is not None:
        target = locate(ctx, args.target, touch=True)
        field = text_field(target, args.target)
        details["target"] = target.details(args.target)
        if not field.focused:
            ctx.tap(target.touch_point())  # erasing works on the focused field, as the keyboard's key does
    else:
        focused = ctx.observe().tree.focused()
        if focused is None or not focused.editable:
            raise StepFailure(
                "no text field has focus: there is nothing to erase from",
                likely_cause="No field was tapped first, or the app took the focus away.",
                next_step="Give erase_text a target (target: id=...), or tap the field first.",
            )
        field = focused
    field = _again(ctx, field) or field
    text = field_text(field)
    pressed = min(args.chars, _before_cursor(field, text))
    details |= {"field": described(ctx, field, text), "before": len(text), "pressed": pressed}
    for _ in range(pressed):
        ctx.press_key(Key.BACKSPACE)
    after = _again(ctx, field)
    if after is None:
        raise StepFailure(
            "the field erased from is no longer on the screen: whether its characters went cannot be seen",
            likely_cause="The app replaced the screen while the characters were deleted.",
            next_step="Check the failure screenshot; erase before anything moves the app on.",
            details=dict(details),
        )
    left = len(field_text(after))
    details |= {"field": described(ctx, after, text), "after": left}
    if left != len(text) - pressed:
        hidden = field.password or holds(text, ctx.sink.secrets)
        shown = "" if hidden else f" ({field_text(after)!r})"
        raise StepFailure(
            f"erase_text sent {pressed} backspaces but the field went from {len(text)} to {left} characters{shown},"
            f" not {len(text) - pressed}",
            likely_cause="The field ignores the delete key (read-only, an input filter) or the app changed its text.",
            next_step="Check the field in the failure screenshot; set its text with act type after clearing it.",
            details=dict(details),
        )
    return details


def _again(ctx: ActionContext, node: Node) -> Node | None:
    """Find a field on the screen as it is now (the same element again)."""
    found = refind(ctx.observe().tree, node)
    return found.node if found is not None else None


def copy_text_from(args: CopyTextFromArgs, ctx: ActionContext) -> CopyDetails:
    """Keep the target's text for the run (`AgentState.copied_text`): its text, else its accessibility label."""
    ctx.wait_idle()
    target = locate(ctx, args.target)
    node = target.node
    if node.password:
        raise StepFailure(
            f"{args.target} is a password field: its text is masked, so nothing was copied",
            likely_cause="The selector matches a password field, whose text no screen shows.",
            next_step="Copy from an element that shows its text.",
            details={"target": target.details(args.target)},
        )
    text = (field_text(node) if node.editable else node.text) or node.content_desc
    if not text:
        raise StepFailure(
            f"{args.target} shows no text: nothing was copied",
            likely_cause="The element is empty, or shows a picture rather than text.",
            next_step="Copy from an element that shows its text (the failure's page source lists them).",
            details={"target": target.details(args.target)},
        )
    ctx.agent.copied_text = text
    return {"args": args.as_written(), "target": target.details(args.target), "text": text}


def paste_text(args: PasteTextArgs, ctx: ActionContext) -> PasteDetails:
    """Type the text the run copied into the target or the focused field, checking it arrived (as `act type`)."""
    copied = ctx.agent.copied_text
    if copied is None or not copied.strip():
        raise StepFailure(
            "nothing was copied to paste: no copy_text_from step ran before this one"
            if copied is None
            else "the text copied is only blank space, which cannot be checked to arrive",
            likely_cause="paste_text types what an earlier copy_text_from step of the run copied.",
            next_step="Copy the text first (copy_text_from with a target).",
        )
    return _typed(ctx, args.as_written(), copied, args.target)


def input_random(args: InputRandomArgs, ctx: ActionContext) -> PasteDetails:
    """Type a value drawn from the scenario's seed and the step's id, checking it arrived (as `act type`)."""
    value = draw(ctx.step_random(), args.kind, args.length or RANDOM_LENGTH)
    return _typed(ctx, args.as_written(), value, args.target)


def _typed(ctx: ActionContext, written: dict[str, object], text: str, target: str | None) -> PasteDetails:
    """Type `text` as `act type` does and report it as this step's: the text, masked where act type masks it."""
    # Built as validated arguments: the text is the step's own (copied or drawn), the target already checked.
    typing = ActTypeArgs.model_construct(None, name="type", value=text, target=target)
    typed: TypeDetails = act_type(typing, ctx)
    masked = typed["args"].get("value") == MASK
    details: PasteDetails = {"args": written, "text": MASK if masked else text}
    if "target" in typed:
        details["target"] = typed["target"]
    details["field"] = typed.get("field")
    if "unverified" in typed:
        details["unverified"] = typed["unverified"]
    return details


ENTRIES: Entries = (
    entry(EraseTextArgs, erase_text, EraseDetails),
    entry(CopyTextFromArgs, copy_text_from, CopyDetails),
    entry(PasteTextArgs, paste_text, PasteDetails),
    entry(InputRandomArgs, input_random, PasteDetails),
)
