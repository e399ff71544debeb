"""Finds that describe their elements: Appium's element response attributes.

UiAutomator2 and XCUITest can put attributes of each element found into the find's own answer (the session
settings `shouldUseCompactResponses: false` and `elementResponseAttributes`). visor asks them for each element's
box and class, so matching what a native strategy found to the observed tree costs no request per element: on a
phone, two round trips of about 20 ms for each of the first three elements of every native selector. A driver
that does not honour the settings (the fake driver, an older server) answers as before, and the box and class are
read element by element.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from visor.device.protocol import NativeElement
from visor.jsontypes import JsonObject
from visor.ui.geometry import Rect

if TYPE_CHECKING:
    from appium.webdriver.webdriver import WebDriver
    from appium.webdriver.webelement import WebElement

#: The key of an element's reference in a W3C answer, and the legacy one older servers also send.
W3C_ELEMENT, LEGACY_ELEMENT = "element-6066-11e4-a52e-4f735466cecf", "ELEMENT"
#: The drivers known to honour the settings, by `automationName` in lower case.
HONOURING = frozenset({"uiautomator2", "xcuitest"})
#: What every element found is to carry, by platform: its box, and its class (UiAutomator2's `class` attribute,
#: XCUITest's `type`).
ATTRIBUTES = {"android": "rect,attribute/class", "ios": "rect,type"}
#: Where the class is in an answer, by platform.
_CLASS_KEYS = {"android": ("attribute/class", "class"), "ios": ("type",)}


def settings_for(platform: str, automation: str) -> JsonObject | None:
    """Return the session settings that make finds describe their elements (None: the driver ignores them)."""
    if automation.lower() not in HONOURING or platform not in ATTRIBUTES:
        return None
    return {"shouldUseCompactResponses": False, "elementResponseAttributes": ATTRIBUTES[platform]}


def find_described(driver: WebDriver, strategy: str, expression: str) -> list[tuple[WebElement, Mapping[str, object]]]:
    """Find elements and keep each one's answer as sent (the client's own find drops all but the reference).

    Raises:
        selenium's exceptions, as the client's `find_elements` would (the caller maps them).
    """
    params = {"using": strategy, "value": expression, "sessionId": driver.session_id}
    executor: Any = driver.command_executor  # selenium's connection is untyped
    response = executor.execute("findElements", params)
    driver.error_handler.check_response(response)
    found: list[tuple[WebElement, Mapping[str, object]]] = []
    for raw in response.get("value") or []:
        reference = raw.get(W3C_ELEMENT) or raw.get(LEGACY_ELEMENT) if isinstance(raw, Mapping) else None
        if isinstance(reference, str):
            found.append((driver.create_web_element(reference), raw))
    return found


def described(raw: Mapping[str, object], platform: str) -> NativeElement | None:
    """Return the box and class an element's answer carries (None: it does not carry both)."""
    rect = raw.get("rect")
    if not isinstance(rect, Mapping):
        return None
    try:
        left, top = round(_number(rect["x"])), round(_number(rect["y"]))
        width, height = round(_number(rect["width"])), round(_number(rect["height"]))
    except (KeyError, TypeError, ValueError):
        return None
    names = (raw.get(key) for key in _CLASS_KEYS.get(platform, ()))
    class_name = next((name for name in names if isinstance(name, str)), None)
    if class_name is None:
        return None
    return NativeElement(Rect(left, top, left + width, top + height), class_name)


def _number(value: object) -> float:
    """Read a side of an answer's box as `float` does (a number, or a number's text).

    Raises:
        TypeError: it is neither.
        ValueError: it is a text that is no number.
    """
    if isinstance(value, int | float | str):
        return float(value)
    raise TypeError(f"not a number: {type(value).__name__}")
