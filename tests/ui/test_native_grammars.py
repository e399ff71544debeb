"""The native grammars evaluated on visor's tree: UiSelector on UiAutomator2 page source, NSPredicate and class
chains on XCUITest page source; page order, ties, instances and scopes as their drivers define them."""

from __future__ import annotations

import pytest

from visor.selectors.parse import parse_selector
from visor.ui.query import QueryError, find
from visor.ui.source import parse_xml
from visor.ui.tree import Node, UiTree

IOS = """<?xml version="1.0" encoding="UTF-8"?>
<AppiumAUT>
  <XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Settings" label="Settings" enabled="true"
      visible="true" accessible="false" x="0" y="0" width="390" height="844" index="0">
    <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" x="0" y="0" width="390"
        height="844" index="0">
      <XCUIElementTypeNavigationBar type="XCUIElementTypeNavigationBar" name="General" enabled="true"
          visible="true" x="0" y="47" width="390" height="44" index="0">
        <XCUIElementTypeButton type="XCUIElementTypeButton" name="Settings" label="Settings" enabled="true"
            visible="true" x="8" y="47" width="100" height="44" index="0"/>
        <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="General" label="General" value="General"
            enabled="true" visible="true" x="160" y="58" width="70" height="22" index="1"/>
      </XCUIElementTypeNavigationBar>
      <XCUIElementTypeTable type="XCUIElementTypeTable" enabled="true" visible="true" x="0" y="91" width="390"
          height="753" index="1">
        <XCUIElementTypeCell type="XCUIElementTypeCell" name="About" label="About" enabled="true" visible="true"
            x="16" y="120" width="358" height="44" index="0">
          <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="About" label="About" enabled="true"
              visible="true" x="32" y="131" width="60" height="22" index="0"/>
          <XCUIElementTypeButton type="XCUIElementTypeButton" name="chevron" label="More" enabled="true"
              visible="true" x="340" y="131" width="20" height="22" index="1"/>
        </XCUIElementTypeCell>
        <XCUIElementTypeCell type="XCUIElementTypeCell" name="Airplane Mode" label="Airplane Mode" enabled="true"
            visible="true" x="16" y="164" width="358" height="44" index="1">
          <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="Airplane Mode" label="Airplane Mode"
              enabled="true" visible="true" x="32" y="175" width="120" height="22" index="0"/>
          <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="Airplane Mode" label="Airplane Mode" value="0"
              enabled="true" visible="true" x="311" y="170" width="51" height="31" index="1"/>
        </XCUIElementTypeCell>
        <XCUIElementTypeCell type="XCUIElementTypeCell" name="Wi-Fi" label="Wi-Fi" enabled="false" visible="true"
            x="16" y="208" width="358" height="44" index="2">
          <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="Wi-Fi" label="Wi-Fi" value="Café Net"
              enabled="false" visible="true" x="32" y="219" width="60" height="22" index="0"/>
          <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="Wi-Fi" label="Wi-Fi" value="1" enabled="false"
              visible="true" x="311" y="214" width="51" height="31" index="1"/>
        </XCUIElementTypeCell>
        <XCUIElementTypeCell type="XCUIElementTypeCell" name="Reset" label="Reset" enabled="true" visible="false"
            x="16" y="900" width="358" height="44" index="3">
          <XCUIElementTypeButton type="XCUIElementTypeButton" name="Reset" label="Reset" enabled="true"
              visible="false" x="32" y="911" width="60" height="22" index="0"/>
        </XCUIElementTypeCell>
      </XCUIElementTypeTable>
    </XCUIElementTypeWindow>
    <XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="false" x="0" y="0" width="390"
        height="844" index="1">
      <XCUIElementTypeButton type="XCUIElementTypeButton" name="Hidden" label="Hidden" enabled="true"
          visible="false" x="0" y="0" width="10" height="10" index="0"/>
    </XCUIElementTypeWindow>
  </XCUIElementTypeApplication>
</AppiumAUT>
"""

ANDROID = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="1920">
  <android.widget.FrameLayout index="0" package="com.shop" class="android.widget.FrameLayout" text=""
      content-desc="" resource-id="" clickable="false" enabled="true" scrollable="false" bounds="[0,0][1080,1920]">
    <android.widget.TextView index="0" package="com.shop" class="android.widget.TextView" text="Cart"
        content-desc="" resource-id="com.shop:id/title" bounds="[0,60][1080,200]"/>
    <android.widget.ListView index="1" package="com.shop" class="android.widget.ListView" text="" content-desc=""
        resource-id="com.shop:id/items" scrollable="true" bounds="[0,200][1080,1700]">
      <android.widget.LinearLayout index="0" package="com.shop" class="android.widget.LinearLayout" text=""
          content-desc="row apples" resource-id="com.shop:id/row" clickable="true" bounds="[0,200][1080,400]">
        <android.widget.TextView index="0" package="com.shop" class="android.widget.TextView" text="Apples"
            content-desc="" resource-id="com.shop:id/name" bounds="[40,220][700,300]"/>
        <android.widget.Button index="1" package="com.shop" class="android.widget.Button" text="Remove"
            content-desc="remove apples" resource-id="com.shop:id/remove" clickable="true"
            bounds="[760,220][1040,380]"/>
      </android.widget.LinearLayout>
      <android.widget.LinearLayout index="1" package="com.shop" class="android.widget.LinearLayout" text=""
          content-desc="row pears" resource-id="com.shop:id/row" clickable="true" bounds="[0,400][1080,600]">
        <android.widget.TextView index="0" package="com.shop" class="android.widget.TextView" text="Pears"
            content-desc="" resource-id="com.shop:id/name" bounds="[40,420][700,500]"/>
        <android.widget.Button index="1" package="com.shop" class="android.widget.Button" text="Remove"
            content-desc="remove pears" resource-id="com.shop:id/remove" clickable="true"
            bounds="[760,420][1040,580]"/>
      </android.widget.LinearLayout>
      <android.widget.LinearLayout index="2" package="com.shop" class="android.widget.LinearLayout" text="Plums"
          content-desc="row plums" resource-id="com.shop:id/row" clickable="true" bounds="[0,600][1080,800]">
        <android.widget.CheckBox index="0" package="com.shop" class="android.widget.CheckBox" text="Gift"
            content-desc="" resource-id="com.shop:id/gift" checkable="true" checked="true" clickable="true"
            bounds="[40,620][400,780]"/>
      </android.widget.LinearLayout>
    </android.widget.ListView>
    <android.widget.Button index="2" package="com.shop" class="android.widget.Button" text="Pay" content-desc=""
        resource-id="com.shop:id/pay" clickable="true" enabled="false" bounds="[40,1720][1040,1880]"/>
  </android.widget.FrameLayout>
</hierarchy>
"""


@pytest.fixture(scope="module")
def ios() -> UiTree:
    tree = parse_xml(IOS)
    assert tree.platform == "ios"
    return tree


@pytest.fixture(scope="module")
def android() -> UiTree:
    return parse_xml(ANDROID)


def shown(node: Node) -> str:
    """Name an element by its type and its label (or text), enough to tell this page's elements apart."""
    kind = node.class_name.removeprefix("XCUIElementType").rsplit(".", 1)[-1]
    return f"{kind}:{node.label or node.text or node.content_desc}"


def on(tree: UiTree, selector: str) -> list[str]:
    return [shown(node) for node in find(tree, parse_selector(selector), platform=tree.platform)]


# -- NSPredicate ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("predicate=type == 'XCUIElementTypeSwitch'", ["Switch:Airplane Mode", "Switch:Wi-Fi"]),
        ("predicate=label == 'Airplane Mode'", ["Cell:Airplane Mode", "StaticText:Airplane Mode", "Switch:Airplane Mode"]),
        ("predicate=type == 'XCUIElementTypeSwitch' AND value == 1", ["Switch:Wi-Fi"]),
        ("predicate=type == 'XCUIElementTypeCell' AND enabled == 0", ["Cell:Wi-Fi"]),
        ("predicate=type == 'XCUIElementTypeButton' AND visible == 1", ["Button:Settings", "Button:More"]),
        ("predicate=name BEGINSWITH[c] 'air' AND type != 'XCUIElementTypeStaticText'", ["Cell:Airplane Mode", "Switch:Airplane Mode"]),
        ("predicate=value CONTAINS[cd] 'cafe'", ["StaticText:Wi-Fi"]),
        ("predicate=label LIKE '*-*'", ["Cell:Wi-Fi", "StaticText:Wi-Fi", "Switch:Wi-Fi"]),
        ("predicate=label MATCHES 'A[a-z]+' AND type == 'XCUIElementTypeCell'", ["Cell:About"]),
        ("predicate=type == 'XCUIElementTypeCell' AND rect.y BETWEEN {150, 250}", ["Cell:Airplane Mode", "Cell:Wi-Fi"]),
        ("predicate=elementType == 75 AND rect.y >= 900", ["Cell:Reset"]),
        ("predicate=label IN {'About', 'Reset'} AND type == 'XCUIElementTypeCell'", ["Cell:About", "Cell:Reset"]),
        ("predicate=name == 'General' AND NOT (type == 'XCUIElementTypeStaticText')", ["NavigationBar:General"]),
        ("predicate=FALSEPREDICATE", []),
    ],
)  # fmt: skip
def test_predicates_on_an_xcuitest_page(ios: UiTree, selector: str, expected: list[str]) -> None:
    assert on(ios, selector) == expected


def test_truepredicate_matches_every_element_in_page_order(ios: UiTree) -> None:
    assert len(on(ios, "predicate=TRUEPREDICATE")) == len(ios.flat)
    assert find(ios, parse_selector("predicate=TRUEPREDICATE"), platform="ios") == list(ios.nodes())


# -- class chains --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("classchain=XCUIElementTypeWindow", ["Window:", "Window:"]),
        ("classchain=XCUIElementTypeWindow[1]/*", ["NavigationBar:General", "Table:"]),
        ("classchain=XCUIElementTypeWindow/XCUIElementType*", ["NavigationBar:General", "Table:", "Button:Hidden"]),
        ("classchain=XCUIElementTypeWindow[-1]/XCUIElementTypeButton", ["Button:Hidden"]),
        ("classchain=**/XCUIElementTypeButton", ["Button:Settings", "Button:More", "Button:Reset", "Button:Hidden"]),
        ("classchain=**/XCUIElementTypeButton[`label == \"Reset\"`]", ["Button:Reset"]),
        ("classchain=**/XCUIElementTypeCell/XCUIElementTypeSwitch[2]", ["Switch:Wi-Fi"]),
        ("classchain=**/XCUIElementTypeCell[`enabled == 1`][-1]", ["Cell:Reset"]),
        ("classchain=**/XCUIElementTypeCell[2][`enabled == 1`]", ["Cell:Airplane Mode"]),
        ("classchain=**/XCUIElementTypeCell[3][`enabled == 1`]", []),
        ("classchain=**/XCUIElementTypeCell[$type == 'XCUIElementTypeSwitch' AND value == 1$]", ["Cell:Wi-Fi"]),
        ("classchain=**/XCUIElementTypeCell[$type == 'XCUIElementTypeSwitch'$]/XCUIElementTypeStaticText", ["StaticText:Airplane Mode", "StaticText:Wi-Fi"]),
        ("classchain=**/XCUIElementTypeTable/**/XCUIElementTypeStaticText[1]", ["StaticText:About"]),
        ("classchain=XCUIElementTypeButton", []),  # the application's children are windows
        ("classchain=XCUIElementTypeApplication", []),  # a chain starts below the application
        ("classchain=**/XCUIElementTypeCell[9]", []),
    ],
)  # fmt: skip
def test_class_chains_on_an_xcuitest_page(ios: UiTree, selector: str, expected: list[str]) -> None:
    assert on(ios, selector) == expected


def test_nested_descendant_steps_give_each_element_once_in_page_order(ios: UiTree) -> None:
    # `**/*` below every window and then `**/…` again reaches the same buttons through several ancestors.
    assert on(ios, "classchain=**/*/**/XCUIElementTypeButton") == on(ios, "classchain=**/XCUIElementTypeButton")


def test_a_fragment_without_an_application_is_read_from_above_its_roots() -> None:
    fragment = parse_xml(
        '<AppiumAUT><XCUIElementTypeButton type="XCUIElementTypeButton" name="OK" label="OK" x="0" y="0" '
        'width="10" height="10"/></AppiumAUT>'
    )
    assert on(fragment, "classchain=XCUIElementTypeButton") == ["Button:OK"]


# -- UiSelector ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ('uiautomator=new UiSelector().text("Remove")', ["Button:Remove", "Button:Remove"]),
        ('uiautomator=new UiSelector().text("Remove").instance(1)', ["Button:Remove"]),
        ('uiautomator=new UiSelector().className("android.widget.Button").instance(2)', ["Button:Pay"]),
        ('uiautomator=new UiSelector().className("android.widget.Button").instance(3)', []),
        ('uiautomator=.packageName("com.shop").resourceIdMatches(".*:id/(name|gift)")', ["TextView:Apples", "TextView:Pears", "CheckBox:Gift"]),
        ('uiautomator=.packageNameMatches("com\\\\.(shop|other)").text("Cart")', ["TextView:Cart"]),
        ('uiautomator=.checkable(true).checked(true)', ["CheckBox:Gift"]),
        ('uiautomator=.className("android.widget.Button").enabled(false)', ["Button:Pay"]),
        ('uiautomator=.resourceId("com.shop:id/row").index(2)', ["LinearLayout:Plums"]),
        # childSelector: a descendant of a match; instance on the outer level picks the row, on the inner the child.
        ('uiautomator=.descriptionStartsWith("row").childSelector(new UiSelector().text("Remove"))', ["Button:Remove", "Button:Remove"]),
        ('uiautomator=.resourceId("com.shop:id/row").instance(1).childSelector(new UiSelector().text("Remove"))', ["Button:Remove"]),
        ('uiautomator=.resourceId("com.shop:id/row").childSelector(new UiSelector().className("android.widget.TextView").instance(1))', ["TextView:Pears"]),
        ('uiautomator=.scrollable(true).childSelector(new UiSelector().clickable(true).childSelector(new UiSelector().checked(true)))', ["CheckBox:Gift"]),
        # fromParent: among the descendants of the match's parent (its siblings and what they hold).
        ('uiautomator=.text("Pears").fromParent(new UiSelector().className("android.widget.Button"))', ["Button:Remove"]),
        ('uiautomator=.text("Cart").fromParent(new UiSelector().resourceId("com.shop:id/pay"))', ["Button:Pay"]),
        ('uiautomator=.text("Apples"); .text("Cart"); .text("Apples")', ["TextView:Cart", "TextView:Apples"]),
    ],
)  # fmt: skip
def test_uiselectors_on_a_uiautomator2_page(android: UiTree, selector: str, expected: list[str]) -> None:
    assert on(android, selector) == expected


def test_the_ties_of_a_child_selector_come_in_page_order_once(android: UiTree) -> None:
    # Every row is inside the list and the frame: a descendant reached through several matches counts once.
    assert on(android, 'uiautomator=.clickable(false).childSelector(new UiSelector().text("Remove"))') == [
        "Button:Remove",
        "Button:Remove",
    ]
    with_the_remove_buttons = on(android, 'uiautomator=.text("Remove").fromParent(new UiSelector().clickable(true))')
    assert with_the_remove_buttons == ["Button:Remove", "Button:Remove"]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        # What the tree holds, inside the first scrollable on screen; scrolling is the action layer's.
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).scrollIntoView(new UiSelector().text("Pears"))', ["TextView:Pears"]),
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).scrollIntoView(new UiSelector().text("Cart"))', []),
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).scrollTextIntoView("Gift")', ["CheckBox:Gift"]),
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).scrollDescriptionIntoView("remove pears")', ["Button:Remove"]),
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).getChildByText(new UiSelector().resourceId("com.shop:id/row"), "Pears")', ["LinearLayout:row pears"]),
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).getChildByText(new UiSelector().resourceId("com.shop:id/row"), "Plums", false)', ["LinearLayout:Plums"]),
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).getChildByDescription(new UiSelector().clickable(true), "remove apples")', ["LinearLayout:row apples"]),  # the first clickable holding it
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true)).getChildByInstance(new UiSelector().resourceId("com.shop:id/row"), 1)', ["LinearLayout:row pears"]),
        ('uiautomator=new UiScrollable(new UiSelector().scrollable(true))', ["ListView:"]),
        ('uiautomator=new UiScrollable(new UiSelector().resourceId("nope")).scrollTextIntoView("Pears")', []),
    ],
)  # fmt: skip
def test_uiscrollables_return_their_target_when_the_tree_holds_it(
    android: UiTree, selector: str, expected: list[str]
) -> None:
    assert on(android, selector) == expected


def test_each_grammar_stays_on_its_platform(ios: UiTree, android: UiTree) -> None:
    with pytest.raises(QueryError, match="classchain= selectors are iOS only; this device is android"):
        find(android, parse_selector("classchain=**/*"), platform="android")
    with pytest.raises(QueryError, match="uiautomator= selectors are Android only; this device is ios"):
        find(ios, parse_selector('uiautomator=.text("About")'), platform="ios")


def test_a_runaway_predicate_pattern_fails_the_query_with_a_next_step() -> None:
    tree = parse_xml(
        '<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" x="0" y="0" width="10" height="10">'
        f'<XCUIElementTypeStaticText type="XCUIElementTypeStaticText" label="{"a" * 60}" x="0" y="0" width="10" '
        'height="10"/></XCUIElementTypeApplication></AppiumAUT>'
    )
    with pytest.raises(QueryError, match="backtracks catastrophically"):
        find(tree, parse_selector("predicate=label MATCHES '(a|aa)+b'"), platform="ios")
