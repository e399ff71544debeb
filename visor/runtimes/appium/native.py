"""Native actions over Appium: which driver command performs each one, per platform. Pure data, no I/O.

UiAutomator2 (Android) and XCUITest (iOS) offer no generic "perform this accessibility action" command, so
each action maps to the one command that does it on the element itself (found natively, never by visor's
coordinates). An action with no such command is not in the platform's table: it fails with `UnsupportedInput`
before anything is sent. docs/runtimes.md has the table and the reasons.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from visor.device.protocol import InputRejected, NativeAction, NativeActionName, UnsupportedInput
from visor.ui.tree import Node

A = NativeActionName

#: How long a long click holds: above Android's and iOS's default long-press timeouts (400-500 ms).
LONG_CLICK_MS = 1000
#: How far one scroll moves, as a share of the element: one page, as the platforms' own page scrolls do.
SCROLL_PAGE = 1.0
SCROLL_DIRECTIONS = {A.SCROLL_UP: "up", A.SCROLL_DOWN: "down", A.SCROLL_LEFT: "left", A.SCROLL_RIGHT: "right"}
IOS_SLIDER = "XCUIElementTypeSlider"


@dataclass(frozen=True, slots=True)
class ScriptCall:
    """One `mobile:` extension command and its arguments."""

    script: str
    args: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ElementCall:
    """One W3C element command on the found element: click, clear, or send keys (`text`)."""

    method: Literal["click", "clear", "send_keys"]
    text: str = ""


Step = ScriptCall | ElementCall
Builder = Callable[[NativeAction, str, Node], tuple[Step, ...]]


# -- the builders: (action, element id, node) -> driver commands ----------------------------------------------


def _click(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    return (ElementCall("click"),)


def _android_long_click(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    return (ScriptCall("mobile: longClickGesture", {"elementId": element, "duration": LONG_CLICK_MS}),)


def _ios_long_click(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    return (ScriptCall("mobile: touchAndHold", {"elementId": element, "duration": LONG_CLICK_MS / 1000}),)


def _android_scroll(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    direction = SCROLL_DIRECTIONS[action.name]
    return (
        ScriptCall("mobile: scrollGesture", {"elementId": element, "direction": direction, "percent": SCROLL_PAGE}),
    )


def _ios_scroll(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    return (ScriptCall("mobile: scroll", {"elementId": element, "direction": SCROLL_DIRECTIONS[action.name]}),)


def _ios_show_on_screen(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    return (ScriptCall("mobile: scrollToElement", {"elementId": element}),)


def _android_set_progress(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    # UiAutomator2 turns "send keys" on an element offering ACTION_SET_PROGRESS into that action (in the
    # range's own units); on a text field the same command would type the number, so fields are refused.
    if node.editable:
        raise _refused(action, node, "it is a text field, not a slider or progress bar")
    return (ElementCall("send_keys", repr(_finite(action))),)


def _ios_set_progress(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    # XCUITest adjusts a slider to a normalized position (0..1) when it is sent keys; any other element would
    # be typed into, so only sliders with a known range are accepted.
    if node.class_name != IOS_SLIDER:
        raise _refused(action, node, "XCUITest can set the value of sliders only")
    if node.range is None or node.range.max <= node.range.min:
        raise _refused(action, node, "its range is not known from the page source")
    value = _finite(action)
    low, high = node.range.min, node.range.max
    if not low <= value <= high:
        raise _refused(action, node, f"{value} is outside its range {low}..{high}")
    return (ElementCall("send_keys", repr((value - low) / (high - low))),)


def _android_set_text(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    text = _text(action)
    if not text:
        # The driver's replaceElementValue requires a non-empty text; clearing is ACTION_SET_TEXT with "".
        return (ElementCall("clear"),)
    return (ScriptCall("mobile: replaceElementValue", {"elementId": element, "text": text}),)


def _cleared_then_typed(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    # XCUITest cannot set a field's value: it clears it and types, with the keyboard, tapping it first to
    # focus it. On anything but a text field that tap would be a click, so only fields are accepted. A web
    # page's field is set alike (WebDriver's clear, then keys typed: the page sees each input event).
    _require_field(action, node)
    text = _text(action)
    return (ElementCall("clear"), ElementCall("send_keys", text)) if text else (ElementCall("clear"),)


def _return_key(action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    # The keyboard's return key runs the field's advertised return action (Go, Search, Done...); on a page, the
    # Enter key submits the field's form.
    _require_field(action, node)
    return (ElementCall("send_keys", "\n"),)


#: What each platform can do, and how. An action missing here is unsupported on that platform.
TABLES: Mapping[str, Mapping[NativeActionName, Builder]] = {
    "android": {
        A.CLICK: _click,
        A.LONG_CLICK: _android_long_click,
        A.SET_PROGRESS: _android_set_progress,
        A.SCROLL_UP: _android_scroll,
        A.SCROLL_DOWN: _android_scroll,
        A.SCROLL_LEFT: _android_scroll,
        A.SCROLL_RIGHT: _android_scroll,
        A.SET_TEXT: _android_set_text,
    },
    "ios": {
        A.CLICK: _click,
        A.LONG_CLICK: _ios_long_click,
        A.SHOW_ON_SCREEN: _ios_show_on_screen,
        A.SET_PROGRESS: _ios_set_progress,
        A.SCROLL_UP: _ios_scroll,
        A.SCROLL_DOWN: _ios_scroll,
        A.SCROLL_LEFT: _ios_scroll,
        A.SCROLL_RIGHT: _ios_scroll,
        A.SET_TEXT: _cleared_then_typed,
        A.IME_ENTER: _return_key,
    },
    # A web page's element, found by its CSS path: WebDriver's own element commands, no script (a `mobile:`
    # command would run as the page's JavaScript).
    "web": {
        A.CLICK: _click,
        A.SET_TEXT: _cleared_then_typed,
        A.IME_ENTER: _return_key,
    },
}

#: Why an action has no command, for the error message (the same reason on both platforms unless listed).
WHY_NOT: Mapping[NativeActionName, str] = {
    A.FOCUS: "neither UiAutomator2 nor XCUITest has a command that gives an element input focus",
    A.SHOW_ON_SCREEN: (
        "UiAutomator2's only scroll-into-view command (mobile: scroll) searches by selector, rewinding the "
        "list to its start, and cannot target the observed element"
    ),
    A.SCROLL_FORWARD: "the drivers' scroll commands need a direction; which one is forward depends on the list",
    A.SCROLL_BACKWARD: "the drivers' scroll commands need a direction; which one is backward depends on the list",
    A.SET_SELECTION: "neither UiAutomator2 nor XCUITest has a command that selects text in a field",
    A.REPLACE_SELECTION: "neither UiAutomator2 nor XCUITest has a command that selects or replaces selected text",
    A.IME_ENTER: (
        "UiAutomator2's mobile: performEditorAction needs the IME action's name, and the page source does not "
        "say which one the field advertises"
    ),
}

#: What to do instead of an unsupported action.
INSTEAD: Mapping[NativeActionName, str] = {
    A.FOCUS: "Use click on the field (a tap focuses it) or set_text.",
    A.SHOW_ON_SCREEN: "Use scroll_up/scroll_down on the list, or the scroll_to tool.",
    A.SCROLL_FORWARD: "Use scroll_down (vertical lists) or scroll_right (horizontal lists).",
    A.SCROLL_BACKWARD: "Use scroll_up (vertical lists) or scroll_left (horizontal lists).",
    A.SET_SELECTION: "Use set_text with the whole new text.",
    A.REPLACE_SELECTION: "Use set_text with the whole new text.",
    A.IME_ENTER: "Use press_key ENTER.",
}


def native_actions(platform: str) -> frozenset[NativeActionName]:
    """Return the native actions `platform` can perform over Appium."""
    return frozenset(TABLES.get(platform, {}))


def unsupported(platform: str, name: NativeActionName) -> UnsupportedInput:
    """Return the error for an action the platform has no command for."""
    return UnsupportedInput(
        f"{name.value} is not supported on {platform} over Appium: {WHY_NOT.get(name, 'no driver command does it')}",
        likely_cause="The automation driver has no command that performs this native action on an element.",
        next_step=INSTEAD.get(name, "Use another action."),
    )


def app_command(platform: str, verb: Literal["launch", "stop"], app_id: str) -> ScriptCall:
    """Return the command that launches (`launch`) or stops (`stop`) an app.

    iOS launches with `mobile: launchApp`: XCUITest's `mobile: activateApp` only fronts an app already running.
    """
    if platform == "ios":
        script = "mobile: launchApp" if verb == "launch" else "mobile: terminateApp"
        return ScriptCall(script, {"bundleId": app_id})
    script = "mobile: activateApp" if verb == "launch" else "mobile: terminateApp"
    return ScriptCall(script, {"appId": app_id})


def check(platform: str, action: NativeAction, node: Node) -> None:
    """Refuse what cannot be done, before anything is sent: the builders' checks, with a stand-in element id.

    Raises:
        UnsupportedInput: the platform has no command for the action.
        InputRejected: the action's argument is missing or wrong, or the element cannot take the action.
    """
    native_command(platform, action, "", node)


def native_command(platform: str, action: NativeAction, element: str, node: Node) -> tuple[Step, ...]:
    """Return the driver commands that perform `action` on the element with id `element` (observed as `node`).

    Raises:
        UnsupportedInput: the platform has no command for the action.
        InputRejected: the action's argument is missing or wrong, or the element cannot take the action.
    """
    builder = TABLES.get(platform, {}).get(action.name)
    if builder is None:
        raise unsupported(platform, action.name)
    _check_arguments(action)
    return builder(action, element, node)


_ARGUMENT = {A.SET_PROGRESS: "value", A.SET_TEXT: "text", A.REPLACE_SELECTION: "text", A.SET_SELECTION: "selection"}


def _check_arguments(action: NativeAction) -> None:
    given = {
        name
        for name, value in (("value", action.value), ("text", action.text), ("selection", action.selection))
        if value is not None
    }
    extra = given - {_ARGUMENT.get(action.name, "")}
    if extra:
        raise InputRejected(
            f"{action.name.value} takes no {' or '.join(sorted(extra))}",
            likely_cause="The action was given an argument only other actions use.",
            next_step="Leave value, text and selection out for this action.",
        )


def _finite(action: NativeAction) -> float:
    if action.value is None or not math.isfinite(action.value):
        raise InputRejected(
            f"{action.name.value} needs a finite value, not {action.value}",
            next_step="Give the value to set, in the control's range.",
        )
    return float(action.value)


def _text(action: NativeAction) -> str:
    if action.text is None:
        raise InputRejected(f"{action.name.value} needs a text (it may be empty)", next_step="Give the text to set.")
    return action.text


def _require_field(action: NativeAction, node: Node) -> None:
    if not node.editable:
        raise _refused(action, node, "it is not a text field, and XCUITest would tap it to focus it")


def _refused(action: NativeAction, node: Node, why: str) -> InputRejected:
    return InputRejected(
        f"{action.name.value} cannot be performed on {node.describe()}: {why}",
        likely_cause="The element does not offer this action.",
        next_step="Read the control again and use an action it supports.",
    )
