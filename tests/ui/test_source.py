from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.simkit import demo_device
from visor.ui.geometry import Rect, Size
from visor.ui.source import PageSourceError, parse_xml, to_xml
from visor.ui.tree import Node, RangeInfo, UiTree

texts = st.text(st.characters(exclude_categories=("Cs", "Cc")), max_size=12)
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
