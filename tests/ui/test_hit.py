"""Where a touch lands, on page sources as real devices return them (UiAutomator2's and XCUITest's)."""

from __future__ import annotations

from visor.ui.geometry import Point
from visor.ui.hit import aim, seen, topmost
from visor.ui.source import parse_xml
from visor.ui.tree import Located, UiTree

_ANDROID = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0" width="1080" height="1920">
  <node class="android.widget.FrameLayout" resource-id="app:id/root" bounds="[0,0][1080,1920]">
    <node class="android.widget.Switch" resource-id="app:id/wifi" text="Wi-Fi" checkable="true"
          bounds="[48,272][1032,392]" />
    <node class="android.widget.TextView" resource-id="app:id/row" text="Row 9" clickable="true"
          bounds="[48,1784][1032,1872]" />
  </node>
  {overlay}
</hierarchy>
"""
_BACKDROP = """<node class="android.widget.FrameLayout" resource-id="android:id/content" clickable="true"
      bounds="[0,0][1080,1920]">
    <node class="android.widget.LinearLayout" resource-id="android:id/parentPanel" bounds="[72,738][1008,1182]">
      <node class="android.widget.TextView" resource-id="android:id/alertTitle" text="Special offer"
            bounds="[136,802][944,882]" />
    </node>
  </node>"""
_SHEET = """<node class="android.widget.FrameLayout" resource-id="app:id/sheet" clickable="true"
      bounds="[0,1200][1080,1920]">
    <node class="android.widget.Button" resource-id="app:id/refresh" text="Refresh" clickable="true"
          bounds="[48,1344][1032,1488]" />
  </node>"""
_PASSIVE = """<node class="android.widget.FrameLayout" resource-id="app:id/overlay" bounds="[0,1200][1080,1920]" />"""

_IOS = """<?xml version="1.0" encoding="UTF-8"?>
<AppiumAUT>
  <XCUIElementTypeApplication type="XCUIElementTypeApplication" name="App" x="0" y="0" width="360" height="640">
    <XCUIElementTypeWindow type="XCUIElementTypeWindow" x="0" y="0" width="360" height="640">
      <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="wifi" label="Wi-Fi" value="1"
          x="16" y="91" width="328" height="40"/>
      <XCUIElementTypeCell type="XCUIElementTypeCell" name="row" x="16" y="595" width="328" height="29"/>
      {overlay}
    </XCUIElementTypeWindow>
  </XCUIElementTypeApplication>
</AppiumAUT>
"""
_ALERT = """<XCUIElementTypeOther type="XCUIElementTypeOther" x="0" y="0" width="360" height="640">
        <XCUIElementTypeAlert type="XCUIElementTypeAlert" name="Log out?" label="Log out?"
            x="24" y="246" width="312" height="148">
          <XCUIElementTypeButton type="XCUIElementTypeButton" name="Cancel" label="Cancel"
              x="40" y="340" width="136" height="48"/>
        </XCUIElementTypeAlert>
      </XCUIElementTypeOther>"""
_ACTION_SHEET = """<XCUIElementTypeSheet type="XCUIElementTypeSheet" name="Share" label="Share"
          x="8" y="440" width="344" height="192">
        <XCUIElementTypeButton type="XCUIElementTypeButton" name="Copy" label="Copy"
            x="8" y="440" width="344" height="56"/>
      </XCUIElementTypeSheet>"""
_PANEL = """<XCUIElementTypeOther type="XCUIElementTypeOther" name="panel" x="0" y="400" width="360" height="240">
        <XCUIElementTypeButton type="XCUIElementTypeButton" name="refresh" label="Refresh"
            x="16" y="448" width="328" height="48"/>
      </XCUIElementTypeOther>"""
_EMPTY_OTHER = """<XCUIElementTypeOther type="XCUIElementTypeOther" x="0" y="400" width="360" height="240"/>"""


def android(overlay: str = "") -> UiTree:
    return parse_xml(_ANDROID.replace("{overlay}", overlay))


def ios(overlay: str = "") -> UiTree:
    return parse_xml(_IOS.replace("{overlay}", overlay))


def by_id(tree: UiTree, rid: str) -> Located:
    return next(item for item in tree.flat if item.node.resource_id == rid)


def test_an_android_bottom_sheet_takes_the_touches_on_its_area_and_is_named_as_what_covers() -> None:
    tree = android(_SHEET)
    hit = topmost(tree, Point(540, 1828))
    assert hit is not None and hit.node.resource_id == "app:id/sheet"
    aimed = aim(tree, by_id(tree, "app:id/row"))
    assert aimed.point is None and aimed.covered_by is not None
    assert aimed.covered_by.node.resource_id == "app:id/sheet"  # not its button, nor the screen


def test_a_container_that_is_not_clickable_lets_touches_through_on_android() -> None:
    tree = android(_PASSIVE)
    assert aim(tree, by_id(tree, "app:id/row")).point == Point(540, 1828)


def test_an_android_dialog_covers_as_the_dialog_not_as_its_backdrop() -> None:
    tree = android(_BACKDROP)
    backdrop = topmost(tree, Point(540, 332))
    assert backdrop is not None and backdrop.node.resource_id == "android:id/content"  # the backdrop takes it
    aimed = aim(tree, by_id(tree, "app:id/wifi"))
    assert aimed.point is None and aimed.covered_by is not None
    assert aimed.covered_by.node.resource_id == "android:id/parentPanel"
    assert seen(tree, by_id(tree, "app:id/row")).node.resource_id == "app:id/row"  # not a backdrop: itself


def test_an_ios_alert_takes_every_touch_behind_it_anywhere_on_the_screen() -> None:
    tree = ios(_ALERT)
    outside = topmost(tree, Point(180, 111))  # on the switch, far from the alert
    assert outside is not None and outside.node.class_name == "XCUIElementTypeAlert"
    button = topmost(tree, Point(100, 360))
    assert button is not None and button.node.resource_id == "Cancel"  # its own buttons still answer
    aimed = aim(tree, by_id(tree, "wifi"))
    assert aimed.point is None and aimed.covered_by is not None
    assert aimed.covered_by.node.describe() == 'XCUIElementTypeAlert "Log out?" [24,246][336,394]'


def test_an_ios_action_sheet_is_modal_too() -> None:
    tree = ios(_ACTION_SHEET)
    aimed = aim(tree, by_id(tree, "wifi"))
    assert aimed.point is None and aimed.covered_by is not None
    assert aimed.covered_by.node.class_name == "XCUIElementTypeSheet"


def test_an_ios_container_holding_elements_takes_the_touches_on_its_background() -> None:
    tree = ios(_PANEL)
    aimed = aim(tree, by_id(tree, "row"))
    assert aimed.point is None and aimed.covered_by is not None
    assert aimed.covered_by.node.resource_id == "panel"
    assert aim(tree, by_id(tree, "wifi")).point == Point(180, 111)  # above the panel: reached


def test_an_empty_ios_container_lets_touches_through() -> None:
    tree = ios(_EMPTY_OTHER)
    assert aim(tree, by_id(tree, "row")).point == Point(180, 609)
    assert ios().flat and aim(ios(), by_id(ios(), "wifi")).covered_by is None
