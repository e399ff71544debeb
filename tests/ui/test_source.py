from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.simkit import demo_device
from visor.ui import source
from visor.ui.geometry import Rect, Size
from visor.ui.source import PageSourceError, parse_xml, to_xml, xcui_node
from visor.ui.tree import Node, RangeInfo, UiTree

texts = st.text(st.characters(exclude_categories=("Cs", "Cc"), exclude_characters="\ufffe\uffff"), max_size=12)
rects = st.builds(
    lambda left, top, w, h: Rect(left, top, left + w, top + h),
    st.integers(0, 900),
    st.integers(0, 1800),
    st.integers(0, 300),
    st.integers(0, 300),
)
leaf = st.builds(
    Node,
    class_name=st.sampled_from(["android.widget.TextView", "android.widget.Button"]),
    bounds=rects,
    resource_id=texts,
    text=texts,
    content_desc=texts,
    hint=texts,
    checked=st.booleans(),
    enabled=st.booleans(),
    focused=st.booleans(),
    password=st.booleans(),
    displayed=st.booleans(),
)
nodes = st.recursive(
    leaf,
    lambda kids: st.builds(
        Node,
        class_name=st.just("android.widget.LinearLayout"),
        bounds=rects,
        children=st.lists(kids, max_size=3).map(tuple),
    ),
    max_leaves=10,
)


@given(st.lists(nodes, min_size=1, max_size=3))
def test_page_source_round_trips(roots: list[Node]) -> None:
    tree = UiTree(Size(1080, 1920), tuple(roots))
    assert parse_xml(to_xml(tree)) == tree


XCUI_TYPES = [
    f"XCUIElementType{name}"
    for name in (
        "Other", "StaticText", "Button", "TextField", "SecureTextField", "Switch", "Slider", "Cell", "Table", "Image",
        "Alert", "Key", "Icon", "ProgressIndicator", "NavigationBar",
    )
]  # fmt: skip
#: Values XCUITest gives: free text, a switch's 0/1, a slider's percentage (or past 100, which is no range).
xcui_values = st.one_of(texts, st.sampled_from(["0", "1", "50%", "7.5%", "150%"]))


def _xcui(children: st.SearchStrategy[tuple[Node, ...]]) -> st.SearchStrategy[Node]:
    return st.builds(
        xcui_node,
        st.sampled_from(XCUI_TYPES),
        rects,
        name=texts,
        label=texts,
        value=xcui_values,
        placeholder=texts,
        enabled=st.booleans(),
        visible=st.booleans(),
        selected=st.booleans(),
        focused=st.booleans(),
        children=children,
    )


xcui_nodes = st.recursive(_xcui(st.just(())), lambda kids: _xcui(st.lists(kids, max_size=3).map(tuple)), max_leaves=10)


@settings(deadline=None)  # a tree of up to 30 elements, read with lxml: a busy machine may take a while
@given(st.lists(xcui_nodes, min_size=1, max_size=3))
def test_xcuitest_page_source_round_trips(roots: list[Node]) -> None:
    # XCUITest's page source says no screen size: it is the extent of the elements, as a reader finds it.
    size = Size(max(node.bounds.right for node in roots), max(node.bounds.bottom for node in roots))
    tree = UiTree(size, tuple(roots), platform="ios")
    xml = to_xml(tree)
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<AppiumAUT>\n')
    assert parse_xml(xml) == tree


def test_xcuitest_page_source_is_written_as_webdriveragent_writes_it() -> None:
    field = xcui_node("XCUIElementTypeSecureTextField", Rect(16, 131, 344, 179), name="password", value="Password",
                      placeholder="Password", focused=True)  # fmt: skip
    button = xcui_node("XCUIElementTypeButton", Rect(16, 187, 344, 235), name="login", label="Log in", enabled=False)
    app = xcui_node("XCUIElementTypeApplication", Rect(0, 0, 360, 640), name="Demo", label="Demo",
                    children=(field, button))  # fmt: skip
    xml = to_xml(UiTree(Size(360, 640), (app,), platform="ios"))
    assert (
        '    <XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField" name="password" value="Password" '
        'placeholderValue="Password" enabled="true" visible="true" accessible="true" x="16" y="131" width="328" '
        'height="48" index="0" focused="true"/>\n'
    ) in xml
    # Absent (nil) attributes are left out; containers are not accessibility elements.
    assert '<XCUIElementTypeButton type="XCUIElementTypeButton" name="login" label="Log in" enabled="false"' in xml
    assert 'label="Demo" enabled="true" visible="true" accessible="false" x="0" y="0" width="360" height="640"' in xml


def test_xcuitest_types_imply_the_roles_visor_uses() -> None:
    xml = """<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" x="0" y="0" width="390"
      height="844"><XCUIElementTypeTable type="XCUIElementTypeTable" x="0" y="0" width="390" height="400">
        <XCUIElementTypeCell type="XCUIElementTypeCell" x="0" y="0" width="390" height="44"/></XCUIElementTypeTable>
      <XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField" name="pin" value="••••"
        placeholderValue="PIN" x="0" y="400" width="390" height="44"/>
      <XCUIElementTypeKey type="XCUIElementTypeKey" name="q" label="q" x="3" y="600" width="30" height="42"/>
    </XCUIElementTypeApplication></AppiumAUT>"""
    table, cell, pin, key = list(parse_xml(xml).nodes())[1:]
    assert (table.scrollable, cell.clickable, key.clickable) == (True, True, True)
    assert (pin.password, pin.editable, pin.hint, pin.text) == (True, True, "PIN", "••••")


def test_demo_page_source_is_uiautomator2_xml() -> None:
    xml = demo_device().observe().xml
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy ")
    assert '<android.widget.EditText index="1" package="com.visor.demo" class="android.widget.EditText"' in xml
    assert 'resource-id="com.visor.demo:id/username"' in xml and 'hint="Username"' in xml
    assert 'bounds="[48,392][1032,536]"' in xml


def test_ios_page_source_maps_onto_the_same_attributes() -> None:
    xml = """<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication"
      name="Demo" label="Demo" enabled="true" visible="true" x="0" y="0" width="390" height="844">
      <XCUIElementTypeButton type="XCUIElementTypeButton" name="login" label="Log in" enabled="true" visible="true"
        x="20" y="400" width="350" height="48"/>
      <XCUIElementTypeSwitch type="XCUIElementTypeSwitch" name="alerts" value="1" enabled="false" visible="true"
        x="20" y="500" width="60" height="30"/></XCUIElementTypeApplication></AppiumAUT>"""
    tree = parse_xml(xml)
    button, switch = list(tree.nodes())[1:]
    assert (button.class_name, button.text, button.content_desc, button.clickable) == (
        "XCUIElementTypeButton",
        "Log in",
        "login",
        True,
    )
    assert button.bounds == Rect(20, 400, 370, 448)
    assert (switch.checked, switch.enabled) == (True, False)
    assert tree.size == Size(390, 844)


def test_an_ios_text_field_holds_its_value_not_its_label_nor_its_placeholder() -> None:
    xml = """<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" x="0" y="0"
      width="390" height="844">
      <XCUIElementTypeTextField type="XCUIElementTypeTextField" name="email" label="E-mail" value="ada@x.io"
        placeholderValue="you@example.com" x="20" y="100" width="350" height="44"/>
      <XCUIElementTypeTextField type="XCUIElementTypeTextField" name="city" value="City" placeholderValue="City"
        x="20" y="150" width="350" height="44"/>
      <XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField" name="password" value="Password"
        placeholderValue="Password" x="20" y="200" width="350" height="44"/>
      <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="hint" label="Shown" value="v"
        x="20" y="250" width="350" height="44"/></XCUIElementTypeApplication></AppiumAUT>"""
    typed, empty, secret, label = list(parse_xml(xml).nodes())[1:]
    # XCUITest gives an empty field its placeholder as value: the field holds nothing all the same.
    assert (typed.text, empty.text, secret.text, label.text) == ("ada@x.io", "", "", "Shown")
    assert (empty.value, empty.hint, typed.label) == ("City", "City", "E-mail")


def test_malformed_page_source() -> None:
    with pytest.raises(PageSourceError):
        parse_xml("<hierarchy><node></hierarchy>")


def test_uiautomator2_selection_offsets() -> None:
    xml = """<hierarchy rotation="0" width="1080" height="1920">
      <android.widget.EditText class="android.widget.EditText" text="héllo 👋" selection-start="3" selection-end="8"
        bounds="[0,0][1080,200]"/>
      <android.widget.EditText class="android.widget.EditText" text="caret only" bounds="[0,200][1080,400]"/>
      <android.widget.EditText class="android.widget.EditText" selection-start="2" bounds="[0,400][1080,600]"/>
      <android.widget.EditText class="android.widget.EditText" selection-start="5" selection-end="2"
        bounds="[0,600][1080,800]"/>
      <android.widget.EditText class="android.widget.EditText" selection-start="²" selection-end="3"
        bounds="[0,800][1080,1000]"/>
      <android.widget.SeekBar class="android.widget.SeekBar" text="40.0" bounds="[0,1000][1080,1100]"/>
    </hierarchy>"""
    nodes = list(parse_xml(xml).nodes())
    # UTF-16 offsets, as Android counts them: the emoji is two units.
    assert [node.selection for node in nodes[:5]] == [(3, 8), None, None, None, None]
    # UiAutomator2 writes a range's current value as text, but not its bounds: no range is made up.
    assert nodes[5].text == "40.0" and nodes[5].range is None


def test_a_selection_survives_the_page_source_but_a_bare_cursor_is_not_written() -> None:
    field = Node("android.widget.EditText", Rect(0, 0, 1080, 200), text="a👋b", selection=(1, 3))
    caret = Node("android.widget.EditText", Rect(0, 200, 1080, 400), text="abc", selection=(3, 3))
    tree = UiTree(Size(1080, 1920), (field, caret))
    assert [node.selection for node in parse_xml(to_xml(tree)).nodes()] == [(1, 3), None]


def test_xcuitest_slider_and_progress_values_are_normalized_ranges() -> None:
    xml = """<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Demo" x="0" y="0"
      width="390" height="844">
      <XCUIElementTypeSlider type="XCUIElementTypeSlider" name="volume" value="50%" x="20" y="100" width="350"
        height="30"/>
      <XCUIElementTypeProgressIndicator type="XCUIElementTypeProgressIndicator" value="8%" label="Progress" x="20"
        y="200" width="350" height="4"/>
      <XCUIElementTypeSlider type="XCUIElementTypeSlider" value="Loud" x="20" y="300" width="350" height="30"/>
      <XCUIElementTypeSlider type="XCUIElementTypeSlider" value="150%" x="20" y="400" width="350" height="30"/>
      <XCUIElementTypeStaticText type="XCUIElementTypeStaticText" value="50%" x="20" y="500" width="350" height="30"/>
    </XCUIElementTypeApplication></AppiumAUT>"""
    slider, progress, worded, over, label = list(parse_xml(xml).nodes())[1:]
    assert slider.range == RangeInfo(0.0, 1.0, 0.5) and slider.text == "50%"
    assert progress.range == RangeInfo(0.0, 1.0, 0.08) and progress.text == "Progress"
    assert (worded.range, over.range, label.range) == (None, None, None)
    assert slider.selection is None


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_an_apps_control_characters_leave_the_page_source_well_formed(platform: str) -> None:
    """An app showing ESC[2J: sources/*.xml was no XML (`not well-formed (invalid token)`)."""
    from lxml import etree

    shown = "\x1b[2J\x07red\x00"
    node = Node("android.widget.TextView", Rect(0, 0, 100, 50), text=shown, content_desc=shown, hint=shown)
    xml = to_xml(UiTree(Size(1080, 1920), (node,), platform=platform))
    etree.fromstring(xml.encode("utf-8"))  # raises when not well-formed
    assert "␛[2J␇red␀" in xml


@given(st.text())
@settings(max_examples=500)
def test_an_attribute_is_quoted_as_xml_writers_quote_it(text: str) -> None:
    # The standard library's writer is the oracle; visor writes its own to keep urllib out of start-up.
    from xml.sax.saxutils import quoteattr

    assert source._attr(text) == quoteattr(source.xml_text(text))
