from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.simkit import demo_device
from visor.ui.geometry import Rect, Size
from visor.ui.source import PageSourceError, parse_xml, to_xml
from visor.ui.tree import Node, UiTree

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
