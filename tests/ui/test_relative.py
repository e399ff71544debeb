"""`match=` selectors on a screen: patterns as Maestro matches them, states, sides (nearest first), containment, index
(counted as Maestro counts it).
"""

from __future__ import annotations

import pytest

from visor.selectors.parse import parse_selector
from visor.selectors.patterns import PatternTimeout
from visor.ui.query import find
from visor.ui.source import parse_xml

# A form (two labelled fields, a disabled and an enabled button) above a list of rows, each a title and a switch.
PAGE = """<?xml version="1.0" encoding="UTF-8"?>
<hierarchy rotation="0" width="1080" height="2400">
 <node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
  <node class="android.widget.TextView" text="Email" bounds="[40,100][400,160]"/>
  <node class="android.widget.EditText" resource-id="com.app:id/email" text="" hint="you@example.com"
        bounds="[40,170][1040,270]"/>
  <node class="android.widget.TextView" text="Password" bounds="[40,300][400,360]"/>
  <node class="android.widget.EditText" resource-id="com.app:id/password" password="true"
        bounds="[40,370][1040,470]"/>
  <node class="android.widget.Button" text="Sign in (beta)" enabled="false" bounds="[40,500][520,600]"/>
  <node class="android.widget.Button" text="SIGN IN" bounds="[560,500][1040,600]"/>
  <node class="android.widget.LinearLayout" resource-id="com.app:id/row_wifi" bounds="[0,700][1080,800]">
   <node class="android.widget.TextView" text="Wi-Fi" bounds="[40,720][400,780]"/>
   <node class="android.widget.Switch" resource-id="com.app:id/toggle" checked="true" bounds="[900,720][1040,780]"/>
  </node>
  <node class="android.widget.LinearLayout" resource-id="com.app:id/row_bt" bounds="[0,800][1080,900]">
   <node class="android.widget.TextView" text="Bluetooth&#10;Off" bounds="[40,820][400,880]"/>
   <node class="android.widget.Switch" resource-id="com.app:id/toggle" checked="false" bounds="[900,820][1040,880]"/>
  </node>
 </node>
</hierarchy>"""


def picked(selector: str) -> list[str]:
    """Return what each matched node shows: its text, else its id, else its class."""
    tree = parse_xml(PAGE)
    nodes = find(tree, parse_selector(selector), platform="android")
    return [node.text or node.resource_id or node.class_name for node in nodes]


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        # Patterns match the whole text, ignoring case; a pattern that is the text itself matches too.
        ('match={"text": "sign in"}', ["SIGN IN"]),
        ('match={"text": "Sign in (beta)"}', ["Sign in (beta)"]),
        ('match={"text": "Sign.*"}', ["Sign in (beta)", "SIGN IN"]),
        ('match={"text": "Sign"}', []),
        ('match={"text": "Bluetooth Off"}', ["Bluetooth\nOff"]),  # newlines read as spaces, as Maestro
        ('match={"text": "you@.*"}', ["com.app:id/email"]),  # a field's hint counts
        ('match={"id": "row_.*"}', ["com.app:id/row_wifi", "com.app:id/row_bt"]),
        # States.
        ('match={"text": "Sign.*", "enabled": true}', ["SIGN IN"]),
        ('match={"id": "toggle", "checked": false}', ["com.app:id/toggle"]),
        # Sides: wholly on that side, nearest first.
        (
            'match={"selector": "xpath=//android.widget.EditText", "below": "text=Email"}',
            ["com.app:id/email", "com.app:id/password"],
        ),
        ('match={"selector": "xpath=//android.widget.EditText", "below": "text=Password"}', ["com.app:id/password"]),
        (
            'match={"selector": "xpath=//android.widget.TextView", "above": "text=SIGN IN"}',
            ["Password", "Email"],
        ),
        ('match={"selector": "xpath=//android.widget.Button", "right_of": "text=Sign in (beta)"}', ["SIGN IN"]),
        ('match={"selector": "xpath=//android.widget.Button", "left_of": {"text": "sign in"}}', ["Sign in (beta)"]),
        # Containment and index.
        ('match={"id": "toggle", "child_of": {"contains_child": "text=Wi-Fi"}}', ["com.app:id/toggle"]),
        (
            'match={"id": "row_.*", "contains_descendants": [{"id": "toggle", "checked": false}]}',
            ["com.app:id/row_bt"],
        ),
        ('match={"id": "toggle", "index": 1}', ["com.app:id/toggle"]),
        ('match={"id": "toggle", "index": 2}', []),
        (
            'match={"selector": "xpath=//android.widget.EditText", "below": "text=Email", "index": 1}',
            ["com.app:id/password"],
        ),
    ],
)
def test_match_selectors(selector: str, expected: list[str]) -> None:
    assert picked(selector) == expected


def test_an_index_tells_twins_apart_as_states_do() -> None:
    tree = parse_xml(PAGE)
    first = find(tree, parse_selector('match={"id": "toggle", "index": 0}'), platform="android")
    unchecked = find(tree, parse_selector('match={"id": "toggle", "checked": false}'), platform="android")
    assert [node.checked for node in first] == [True] and [node.checked for node in unchecked] == [False]


def test_an_index_counts_top_to_bottom_then_left_to_right_whatever_else_ordered_the_matches() -> None:
    # Above SIGN IN, nearest first is Password then Email; Maestro counts the index from the top: Email first.
    above = '"selector": "xpath=//android.widget.TextView", "above": "text=SIGN IN"'
    assert picked(f'match={{{above}, "index": 0}}') == ["Email"]
    assert picked(f'match={{{above}, "index": 1}}') == ["Password"]
    # Side by side at the same height: left first.
    assert picked('match={"selector": "xpath=//android.widget.Button", "index": 1}') == ["SIGN IN"]
    # Listed in the page right to left, counted left to right.
    mirrored = PAGE.replace('bounds="[40,500][520,600]"', 'bounds="[560,500][1040,600]" x="1"', 1).replace(
        'text="SIGN IN" bounds="[560,500][1040,600]"', 'text="SIGN IN" bounds="[40,500][520,600]"'
    )
    nodes = find(parse_xml(mirrored), parse_selector('match={"text": "sign in.*", "index": 0}'), platform="android")
    assert [node.text for node in nodes] == ["SIGN IN"]


def test_a_catastrophic_pattern_is_stopped() -> None:
    long_text = PAGE.replace("Wi-Fi", "a" * 5000)
    with pytest.raises(PatternTimeout):
        find(parse_xml(long_text), parse_selector('match={"text": "(a|aa)+b"}'), platform="android")
