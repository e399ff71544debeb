"""What visor's scenario language says now, converted: blocks (runFlow when, repeat, retry), match= selectors,
optional steps and labels; what it cannot say is still named with its line. Every scenario written validates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.conftest import Cli
from tests.ext.maestro.test_convert import flow, left, one, steps
from visor.ext.maestro.commands import PENDING
from visor.ext.maestro.convert import Converted, scenario_text
from visor.ext.maestro.selectors import condition, element, maestro_truth, script
from visor.ext.maestro.values import strings
from visor.inputs.data import parse_data
from visor.inputs.parameters import substitute
from visor.inputs.templates import is_template
from visor.scenario.validate import validate_document
from visor.scripting.sandbox import Globals, run_script
from visor.selectors.parse import parse_selector


def valid(converted: Converted) -> Converted:
    """Assert the scenario as written validates (its env put in), and return it."""
    written = parse_data(scenario_text("f.yaml", converted).encode(), "written.yaml")
    document, _ = substitute(written, converted.env)
    assert [issue.message for issue in validate_document(document).issues if issue.is_error] == []
    return converted


def reasons(converted: Converted) -> list[str]:
    """Return why each thing was left out."""
    return [item["reason"] for item in converted.left_out]


# --- selectors -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("maestro", "visor"),
    [
        ("Log in", "text=Log in"),
        ({"id": "login"}, "id=login"),
        ({"text": "${USER}"}, "text=${USER}"),  # a parameter is no pattern
        ("Item \\d+", 'match={"text":"Item \\\\d+"}'),
        ({"text": "+10"}, 'match={"text":"\\\\+10"}'),  # no pattern: Maestro finds the text itself
        ({"id": "row_.*"}, 'match={"id":"row_.*"}'),
        ({"id": "toggle", "text": "Wi-Fi"}, 'match={"id":"toggle","text":"Wi-Fi"}'),
        ({"text": "Next", "index": 1}, 'match={"index":1,"text":"Next"}'),
        ({"text": "OK", "enabled": True, "checked": False}, 'match={"checked":false,"enabled":true,"text":"OK"}'),
        ({"id": "f", "focused": "true", "selected": False}, 'match={"focused":true,"id":"f","selected":false}'),
        ({"text": "Edit", "below": "Email"}, 'match={"below":{"text":"Email"},"text":"Edit"}'),
        ({"id": "x", "rightOf": {"id": "label"}}, 'match={"id":"x","right_of":{"id":"label"}}'),
        ({"id": "x", "leftOf": "A", "above": "B"}, 'match={"above":{"text":"B"},"id":"x","left_of":{"text":"A"}}'),
        ({"text": "Buy", "childOf": {"id": "card"}}, 'match={"child_of":{"id":"card"},"text":"Buy"}'),
        ({"id": "card", "containsChild": "Buy"}, 'match={"contains_child":{"text":"Buy"},"id":"card"}'),
        (
            {"id": "row", "containsDescendants": ["A", {"id": "b"}]},
            'match={"contains_descendants":[{"text":"A"},{"id":"b"}],"id":"row"}',
        ),
        (
            {"below": {"text": "Name", "below": "Title"}, "id": "v"},
            'match={"below":{"below":{"text":"Title"},"text":"Name"},"id":"v"}',
        ),
    ],
)
def test_a_maestro_selector_becomes_the_visor_selector_that_means_the_same(maestro: Any, visor: str) -> None:
    target, notes = element(maestro, {}, "tapOn")
    assert (target, notes) == (visor, [])
    parse_selector(visor)  # what is written is a selector visor reads


@pytest.mark.parametrize(
    ("maestro", "found"),
    [
        ({"text": "Go", "width": 100, "tolerance": 5}, ("text=Go", ["width", "tolerance"])),
        ({"id": "x", "traits": "text"}, ("id=x", ["traits"])),
        ({"text": "Go", "bogus": 1}, (None, ["'bogus' is no key of Maestro's selectors: Maestro refuses it too"])),
        ({"text": ["A", "B"]}, (None, ["is not one text: Maestro refuses it too"])),
        ({"index": 2}, (None, ["only by index"])),
        ({"text": "A", "enabled": "maybe"}, (None, ["enabled must be true or false"])),
        ({"text": "A", "index": -1}, (None, ["index -1 is no whole number"])),
        ([1, 2], (None, ["is no element selector"])),
    ],
)
def test_what_a_selector_says_beyond_visor_is_named(maestro: Any, found: tuple[str | None, list[str]]) -> None:
    target, notes = element(maestro, {}, "tapOn")
    expected, words = found
    assert target == expected and len(notes) == len(words)
    assert all(word in note for word, note in zip(words, notes, strict=True))


_KEYS = ["text", "id", "index", "enabled", "checked", "below", "leftOf", "childOf", "containsDescendants", "width"]
_LEAVES = st.one_of(st.text(max_size=6), st.booleans(), st.integers(-3, 3), st.sampled_from(["a.*", "(", "${X}"]))
_SELECTORS = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(st.sampled_from(_KEYS), inner, max_size=3)),
    max_leaves=8,
)


@given(_SELECTORS)
@settings(max_examples=300, deadline=None)
def test_any_selector_converts_into_a_selector_visor_reads_or_says_why(maestro: Any) -> None:
    target, notes = element(maestro, {"X": "x"}, "tapOn")
    if target is None:
        assert notes and "tapOn" in notes[0]
    elif isinstance(target, dict):  # a script's value in it: a mapping the step fills in as it runs
        assert any(is_template(text) for text in strings(target))
    else:
        parse_selector(target.replace("${X}", "x"))


# --- conditions ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("maestro", "visor"),
    [
        ({"platform": "Android"}, {"platform": "android"}),
        ({"platform": "iOS", "visible": "Allow"}, {"platform": "ios", "visible": "text=Allow", "within_ms": 7000}),
        ({"notVisible": {"id": "spinner.*"}}, {"not_visible": 'match={"id":"spinner.*"}', "within_ms": 7000}),
        ({"true": "${output.count > 1}"}, {"true": "output.count > 1"}),  # true or false: as it is
        ({"true": True}, {"true": "true"}),
        ({"true": "CLEAR_STATE"}, {"true": "true"}),  # a text with no script: Maestro takes it for true
        ({"true": "false"}, {"true": "false"}),
        ({"true": "0"}, {"true": "false"}),
    ],
)
def test_a_condition_becomes_visors_when(maestro: dict[str, Any], visor: dict[str, str]) -> None:
    assert condition(maestro, {}, "when") == (visor, [])


@pytest.mark.parametrize(
    ("maestro", "why"),
    [
        ({"platform": "Windows"}, "is not Android, iOS or Web"),
        ({"true": "  "}, "is not one ${…} expression"),
        ({"visible": "${output.name}"}, "holds JavaScript"),
        ({"bogus": 1}, "is not converted"),
        ("visible", "is not a mapping"),
    ],
)
def test_a_condition_visor_cannot_say_is_named(maestro: Any, why: str) -> None:
    converted, notes = condition(maestro, {}, "when")
    assert converted is None and why in notes[0]


@pytest.mark.parametrize(
    ("text", "holds"),
    [("", False), (" ", False), ("false", False), ("FALSE", False), ("undefined", False), ("null", False),
     ("0", False), (" 0.0 ", False), ("-0e5", False), ("0f", False), (".0d", False), ("0x0", True), ("nan", True),
     (" false", True), ("Undefined", True), ("1", True), ("x", True), ("00.", False)],
)  # fmt: skip
def test_a_texts_truth_is_maestros(text: str, holds: bool) -> None:
    assert maestro_truth(text) is holds


@given(st.one_of(st.text(max_size=8), st.from_regex(r"\A[ \t]?[+-]?[0.]{1,3}(e[+-]?0)?[fd]?[ \t]?\Z")))
@example("\x85")  # blank to Python's strip, not to the script: the import read it as false
@example("\x1c\u3000")
def test_a_texts_truth_is_the_same_read_when_importing_and_filled_in_as_the_run_goes(text: str) -> None:
    js = script("${output.t}")  # judged as the run fills it in
    assert js is not None
    assert run_script(js, Globals(output={"t": text})).value is maestro_truth(text)


@pytest.mark.parametrize(
    ("text", "values", "holds"),
    [
        ("${output.count > 1}", {"output": {"count": 2}}, True),
        ("${output.count > 1}", {"output": {"count": 1}}, False),
        ("${output.n}", {"output": {"n": "0"}}, False),  # the text "0": Maestro reads a number 0
        ("${output.n}", {"output": {"n": "false"}}, False),
        ("${output.n}", {"output": {"n": []}}, False),  # blank once filled in
        ("${output.n}", {"output": {"n": "no"}}, True),
        ("${IS_IOS}", {"env": {"IS_IOS": "yes"}}, True),  # a parameter is a global, read as a text
        ("${IS_IOS}", {"env": {"IS_IOS": "false"}}, False),
    ],
)
def test_a_scripts_value_in_a_condition_is_judged_as_maestro_judges_its_text(
    text: str, values: dict[str, Any], holds: bool
) -> None:
    js = script(text)
    assert js is not None and run_script(js, Globals(**values)).value is holds


# --- blocks --------------------------------------------------------------------------------------------------------


def test_run_flow_when_becomes_a_block_with_its_file_and_env(tmp_path: Path) -> None:
    flow(tmp_path, "sub/allow.yaml", "- tapOn: ${BUTTON}\n")
    commands = (
        "- runFlow:\n    when:\n      platform: Android\n      notVisible: Signed in\n"
        "    file: sub/allow.yaml\n    env:\n      BUTTON: Allow\n"
        "- runFlow:\n    when:\n      true: ${output.onboarding}\n    commands:\n      - tapOn: Skip\n"
    )
    converted = valid(one(tmp_path, commands))
    assert steps(converted) == [
        ("block", {"when": {"platform": "android", "not_visible": "text=Signed in", "within_ms": 7000},
                   "steps": [("tap", {"target": "text=Allow"})]}),
        ("block", {"when": {"true": script("${output.onboarding}")}, "steps": [("tap", {"target": "text=Skip"})]}),
    ]  # fmt: skip
    assert [item["id"] for item in converted.scenario["steps"]] == ["01-when", "03-when"]
    assert not converted.left_out
    # Maestro looks for a condition's element up to 7 s: so does the block (`within_ms`), so no comment says it
    assert "7 s" not in scenario_text("f.yaml", converted)


def test_a_run_flow_whose_condition_cannot_be_said_is_left_out_unread(tmp_path: Path) -> None:
    converted = one(tmp_path, "- runFlow:\n    when:\n      platform: Windows\n    file: missing.yaml\n- back\n")
    assert steps(converted) == [("act", {"name": "back"})]
    assert left(converted) == [("f.yaml", 3, "runFlow")] and "its commands unread" in reasons(converted)[0]


def test_repeat_while_and_times_become_repeat_blocks(tmp_path: Path) -> None:
    commands = (
        "- repeat:\n    while:\n      notVisible: Done\n    commands:\n      - scroll\n"
        "- repeat:\n    times: 3\n    while:\n      visible: {text: 'Next.*'}\n    commands:\n      - tapOn: Next\n"
        "- repeat:\n    times: ${N}\n    commands:\n      - back\n"
        "- repeat:\n    times: 1\n    commands:\n      - back\n"
    )
    converted = valid(one(tmp_path, commands, "appId: a\nenv:\n  N: 2\n"))
    scroll, back = ("scroll", {"direction": "down"}), ("act", {"name": "back"})
    assert steps(converted) == [
        ("block", {"repeat": {"while": {"not_visible": "text=Done", "within_ms": 7000}, "max": 1000}, "steps": [scroll]}),
        ("block", {"repeat": {"times": 3, "while": {"visible": 'match={"text":"Next.*"}', "within_ms": 7000}},
                   "steps": [("tap", {"target": "text=Next"})]}),
        ("block", {"repeat": {"times": 2}, "steps": [back]}),
        back,  # once is no repeat
    ]  # fmt: skip
    assert reasons(converted) == ["repeat times ${N} is written as 2, its env value"]


def test_retry_becomes_a_retry_block_bounded_as_maestro_bounds_it(tmp_path: Path) -> None:
    flow(tmp_path, "upload.yaml", "- tapOn: Upload\n- assertVisible: Uploaded\n")
    commands = (
        "- retry:\n    maxRetries: 2\n    commands:\n      - tapOn: Sync\n"
        "- retry:\n    file: upload.yaml\n"
        "- retry:\n    maxRetries: 9\n    commands:\n      - back\n"
        "- retry:\n    maxRetries: 0\n    commands:\n      - back\n"
    )
    converted = valid(one(tmp_path, commands))
    upload = [("tap", {"target": "text=Upload"}), ("wait", {"for": "text=Uploaded", "timeout": 5000})]
    assert steps(converted) == [
        ("block", {"retry": {"times": 2}, "steps": [("tap", {"target": "text=Sync"})]}),
        ("block", {"retry": {"times": 1}, "steps": upload}),  # Maestro's default: one retry
        ("block", {"retry": {"times": 3}, "steps": [("act", {"name": "back"})]}),
        ("act", {"name": "back"}),
    ]
    assert not left(converted)  # Maestro retries at most 3 times too: no change of meaning


def test_blocks_deeper_than_visor_nests_are_left_out_whole_with_the_validators_words(tmp_path: Path) -> None:
    nested = "- tapOn: Go\n"
    for _ in range(10):
        nested = "- retry:\n    commands:\n" + "".join(f"      {line}\n" for line in nested.splitlines())
    converted = valid(one(tmp_path, nested + "- back\n"))
    assert steps(converted) == [("act", {"name": "back"})]
    assert len(converted.left_out) == 1 and "visor refuses" in reasons(converted)[0]


# --- optional, labels, waits, taps ---------------------------------------------------------------------------------


def test_optional_and_label_are_kept_on_the_step(tmp_path: Path) -> None:
    commands = (
        "- tapOn:\n    text: Not now\n    optional: true\n    label: Dismiss the promo\n"
        "- swipe:\n    direction: UP\n    optional: true\n"
        "- inputText:\n    text: ada\n    optional: true\n"
        "- assertVisible:\n    id: banner\n    optional: ${MAYBE}\n"
    )
    converted = valid(one(tmp_path, commands))
    written = converted.scenario["steps"]
    assert [(item["id"], item.get("optional", False)) for item in written] == [
        ("01-tap-dismiss-the-promo", True), ("02-swipe", True), ("03-type", True), ("04-see", False)]  # fmt: skip
    assert left(converted) == [("f.yaml", 13, "assertVisible")] and "neither true nor false" in reasons(converted)[0]


def test_an_optional_run_flow_is_an_optional_block(tmp_path: Path) -> None:
    converted = valid(one(tmp_path, "- runFlow:\n    optional: true\n    commands:\n      - back\n"))
    assert steps(converted) == [("block", {"optional": True, "steps": [("act", {"name": "back"})]})]
    assert not left(converted)


def test_extended_wait_until_with_both_waits_for_one_then_the_other_to_go(tmp_path: Path) -> None:
    commands = (
        "- extendedWaitUntil:\n    visible: Feed\n    notVisible: Loading\n    timeout: 8000\n"
        "- extendedWaitUntil:\n    notVisible: {id: 'spinner.*'}\n    timeout: 60000\n    optional: true\n"
    )
    converted = valid(one(tmp_path, commands))
    assert steps(converted) == [
        ("wait", {"for": "text=Feed", "timeout": 8000}),
        ("wait", {"gone": "text=Loading", "timeout": 8000}),
        ("wait", {"gone": 'match={"id":"spinner.*"}', "timeout": 60000}),
    ]
    assert converted.scenario["steps"][2].get("optional") is True
    assert not converted.left_out


def test_tap_options_become_taps_or_are_named(tmp_path: Path) -> None:
    commands = (
        "- tapOn:\n    text: Like\n    repeat: 2\n    delay: 300\n"
        "- tapOn:\n    id: send\n    retryTapIfNoChange: true\n    waitUntilVisible: true\n"
        "- tapOn:\n    point: 50%, 50%\n    retryTapIfNoChange: false\n"
        "- tapOn: {text: Like, repeat: 3}\n"
        "- tapOn: {text: Like, repeat: 2, delay: -1}\n"
        "- tapOn: {text: Like, repeat: 0}\n"
    )
    converted = valid(one(tmp_path, commands))
    like = ("tap", {"target": "text=Like"})
    retried = ("tap", {"target": "id=send", "retry_if_no_change": True})
    assert steps(converted) == [("tap", {"target": "text=Like", "count": 2, "interval_ms": 300}), retried,
                                ("tap", {"x": 0.5, "y": 0.5, "normalized": True}),
                                ("tap", {"target": "text=Like", "count": 3}),  # 100 ms apart, as Maestro
                                ("tap", {"target": "text=Like", "count": 2}),  # a negative delay: Maestro's 100
                                like]  # fmt: skip
    assert [item["reason"] for item in converted.left_out] == ["tapOn repeat 0 is left out: one tap is sent"]


def test_a_double_tap_is_two_taps_at_the_point_found_first(tmp_path: Path) -> None:
    commands = "- doubleTapOn: Item 1\n- doubleTapOn: {id: row, delay: 40}\n- doubleTapOn: {point: '10,20'}\n"
    converted = valid(one(tmp_path, commands))
    assert steps(converted) == [("tap", {"target": "text=Item 1", "count": 2}),
                                ("tap", {"target": "id=row", "count": 2, "interval_ms": 40}),
                                ("tap", {"x": 10.0, "y": 20.0, "count": 2})]  # fmt: skip
    assert not converted.left_out


def test_a_long_press_on_a_point_holds_it_and_a_point_with_options_is_named(tmp_path: Path) -> None:
    commands = (
        "- longPressOn: {point: '50%,15%'}\n- longPressOn: {point: '${output.p}'}\n- longPressOn: {point: here}\n"
    )
    converted = one(tmp_path, commands)
    assert steps(converted) == [("long_tap", {"x": 0.5, "y": 0.15, "normalized": True}),
                                ("long_tap", {"point": "${output.p}"})]  # fmt: skip
    assert [item["reason"] for item in converted.left_out] == ["longPressOn point 'here' is not x,y in pixels or x%,y%"]


def test_set_location_takes_degrees_as_numbers_or_texts_and_names_the_rest(tmp_path: Path) -> None:
    commands = ("- setLocation: {latitude: '48.150636', longitude: 17.111754}\n"
                "- setLocation: {latitude: 91, longitude: 0}\n- setLocation: {latitude: 1}\n")  # fmt: skip
    converted = one(tmp_path, commands)
    assert steps(converted) == [("set_location", {"latitude": 48.150636, "longitude": 17.111754})]
    assert [item["reason"] for item in converted.left_out] == [
        "setLocation latitude 91 is no number of degrees from -90 to 90",
        "setLocation {'latitude': 1}: only latitude and longitude are converted",
    ]


#: Each Maestro command that waited for its visor command, and what it converts into.
_LANDED: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
    ("- eraseText\n", [("erase_text", {})]),
    ("- eraseText: 5\n", [("erase_text", {"chars": 5})]),
    ("- eraseText: {charactersToErase: '${N}'}\n", [("erase_text", {"chars": 3})]),
    ("- hideKeyboard\n", [("hide_keyboard", {})]),
    ("- longPressOn: Item 1\n", [("long_tap", {"target": "text=Item 1"})]),
    ("- longPressOn: {id: row, index: 1}\n", [("long_tap", {"target": 'match={"id":"row","index":1}'})]),
    ("- pressKey: Remote Dpad Up\n", [("press", {"key": "dpad_up"})]),
    ("- pressKey: {key: Volume Up}\n", [("press", {"key": "volume_up"})]),
    ("- copyTextFrom: {id: username}\n", [("copy_text_from", {"target": "id=username"})]),
    ("- pasteText\n", [("paste_text", {})]),
    ("- inputRandomText\n", [("input_random", {"kind": "text"})]),
    ("- inputRandomText: {length: 12}\n", [("input_random", {"kind": "text", "length": 12})]),
    ("- inputRandomNumber: {length: 4}\n", [("input_random", {"kind": "number", "length": 4})]),
    ("- inputRandomEmail\n", [("input_random", {"kind": "email"})]),
    ("- inputRandomPersonName\n", [("input_random", {"kind": "person_name"})]),
    (
        "- scrollUntilVisible: {element: Sync now}\n",
        [("scroll_until_visible", {"target": "text=Sync now", "direction": "down", "max_scrolls": 12, "speed": 40,
                                   "visibility": 100, "centered": False})],
    ),
    (
        "- scrollUntilVisible:\n    element: {id: row_9}\n    direction: UP\n    timeout: 5000\n    speed: 100\n"
        "    visibilityPercentage: 50\n    centerElement: true\n    waitToSettleTimeoutMs: 300\n",
        [("scroll_until_visible", {"target": "id=row_9", "direction": "up", "max_scrolls": 4, "speed": 100,
                                   "visibility": 50, "centered": True})],
    ),
    (
        "- scrollUntilVisible: {element: Far, timeout: 600000, speed: 0}\n",
        [("scroll_until_visible", {"target": "text=Far", "direction": "down", "max_scrolls": 100, "speed": 0,
                                   "visibility": 100, "centered": False})],
    ),
    ("- evalScript: ${output.n = 1}\n", [("eval_script", {"script": "output.n = 1"})]),
    ("- evalScript: ${output.s = \"${\" + 'x'}\n", [("eval_script", {"script": "output.s = \"${\" + 'x'"})]),
    ("- assertTrue: ${output.n === 1}\n", [("assert_true", {"condition": "output.n === 1"})]),
    ("- assertTrue: {condition: '${maestro.copiedText.length > 2}'}\n",
     [("assert_true", {"condition": "maestro.copiedText.length > 2"})]),
    ("- runScript: scripts/setup.js\n", [("run_script", {"file": "scripts/setup.js"})]),
    ("- runScript: {file: setup.js, env: {USER: ada, N: 2}}\n",
     [("run_script", {"file": "setup.js", "env": {"USER": "ada", "N": "2"}})]),
    ("- runScript: {file: a.js, when: {platform: iOS}}\n",
     [("block", {"when": {"platform": "ios"}, "steps": [("run_script", {"file": "a.js"})]})]),
    ("- runScript: {file: a.js, when: {true: '${!output.skip}'}}\n",
     [("block", {"when": {"true": "!output.skip"}, "steps": [("run_script", {"file": "a.js"})]})]),
    ("- addMedia: [a.png, media/b.mp4]\n", [("add_media", {"files": ["a.png", "media/b.mp4"]})]),
    ("- addMedia: {files: [a.png]}\n", [("add_media", {"files": ["a.png"]})]),
    ("- runScript: {file: a.js, env: {X: '${output.y}'}}\n", [("run_script", {"file": "a.js", "env": {"X": "${output.y}"}})]),
    ("- inputText: ${output.user}\n", [("act", {"name": "type", "value": "${output.user}"})]),
    ("- action: back\n", [("act", {"name": "back"})]),
    ("- action: hideKeyboard\n", [("hide_keyboard", {})]),
    ("- tapOn: ${output.name}\n", [("tap", {"target": {"text": "${output.name}"}})]),
    ("- clearState\n", [("launch_app", {"clear_state": True}),
                        ("manage_app", {"action": "stop", "app_name": "com.visor.demo"})]),
    ("- clearState: com.other\n", [("launch_app", {"app_id": "com.other", "clear_state": True}),
                                   ("manage_app", {"action": "stop", "app_name": "com.other"})]),
]  # fmt: skip


@pytest.mark.parametrize(("commands", "expected"), _LANDED)
def test_a_command_whose_visor_command_landed_converts_into_it(
    tmp_path: Path, commands: str, expected: list[tuple[str, dict[str, Any]]]
) -> None:
    converted = valid(one(tmp_path, commands, "appId: com.visor.demo\nenv:\n  N: 3\n"))
    assert steps(converted) == expected and not converted.left_out and not PENDING


@pytest.mark.parametrize(
    ("commands", "why"),
    [
        ("- eraseText: lots\n", "eraseText 'lots' is not 1 to 10,000 characters"),
        ("- pressKey: Turbo\n", "pressKey 'Turbo' is no key Maestro knows: it refuses it too"),
        ("- hideKeyboard: {now: true}\n", "hideKeyboard takes no options"),
        ("- inputRandomEmail: {length: 5}\n", "only no option is converted"),
        ("- scrollUntilVisible: {direction: UP}\n", "it needs an element"),
        ("- scrollUntilVisible: {element: X, direction: SIDEWAYS, speed: 400}\n", "direction 'SIDEWAYS' is left out"),
        ("- evalScript: {script: [1]}\n", "is not a text holding ${…} JavaScript"),
        ("- runScript: ../outside.js\n", "is outside the flows' folder"),
        ("- addMedia: ['${PHOTO}']\n", "is not a file name visor can read"),
    ],
)
def test_what_a_landed_command_cannot_say_is_named(tmp_path: Path, commands: str, why: str) -> None:
    converted = valid(one(tmp_path, commands + "- back\n"))
    assert left(converted)[0][1] == 3 and why in reasons(converted)[0]


def test_a_script_file_an_included_flow_names_is_read_from_the_flows_folder(tmp_path: Path) -> None:
    flow(tmp_path, "sub/login.yaml", "- runScript: helpers/user.js\n- addMedia: [../pic.png]\n")
    converted = valid(one(tmp_path, "- runFlow: sub/login.yaml\n"))
    assert steps(converted) == [("run_script", {"file": "sub/helpers/user.js"}), ("add_media", {"files": ["pic.png"]})]
    text = scenario_text("f.yaml", converted)
    assert "beside this scenario (same sub-folders): pic.png, sub/helpers/user.js." in text


def test_clear_keychain_is_clear_keychain_on_ios_only_the_app_left_as_it_was(tmp_path: Path) -> None:
    # Before, it was a launch_app clear_keychain then a stop: the app was started and stopped, which Maestro's is not.
    converted = valid(one(tmp_path, "- clearKeychain\n"))
    assert steps(converted) == [("block", {"when": {"platform": "ios"}, "steps": [("clear_keychain", {})]})]
    assert reasons(converted) == []


def test_scripts_share_the_runs_output_with_when_true_on_the_simulated_phone(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "f.yaml").write_text(
        "appId: com.visor.demo\n---\n- launchApp\n- evalScript: ${output.go = 2}\n- assertTrue: ${output.go > 1}\n"
        "- runFlow:\n    when:\n      true: ${output.go === 3}\n    commands:\n      - tapOn: Nowhere\n"
        "- tapOn: {id: username}\n- inputRandomPersonName\n- hideKeyboard\n"
    )
    row = cli_runner.run("import", "maestro", "flows", "-o", "scenarios").data["imported"][0]
    assert row["valid"] and row["left_out"] == [], row
    run = cli_runner.run("run", "scenarios/f.yaml", "--runtime", "sim", "--app", "demo", "--output", "out")
    assert run.exit_code == 0, run.envelope.get("error")
    statuses = {step["id"]: step["status"] for step in run.data["run"]["steps"]}
    assert statuses["03-assert"] == "ok" and statuses["04-when"] == "skipped", statuses


# --- run on the simulated phone --------------------------------------------------------------------------------------


def test_a_converted_flow_with_blocks_runs_on_the_simulated_phone(cli_runner: Cli, tmp_path: Path) -> None:
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "f.yaml").write_text(
        "appId: com.visor.demo\n---\n- launchApp\n"
        "- runFlow:\n    when:\n      visible: Log in\n    commands:\n"
        "      - tapOn: {id: username}\n      - inputText: ada\n"
        "      - tapOn: {id: password}\n      - inputText: lovelace\n      - tapOn: Log in\n"
        "- tapOn: {text: Not there, optional: true}\n"
        "- runFlow:\n    when:\n      platform: iOS\n    commands:\n      - tapOn: Nowhere\n"
        "- assertVisible: 'Item \\d+'\n"
    )
    row = cli_runner.run("import", "maestro", "flows", "-o", "scenarios").data["imported"][0]
    assert row["valid"] and row["left_out"] == [], row
    run = cli_runner.run("run", "scenarios/f.yaml", "--runtime", "sim", "--app", "demo", "--output", "out")
    assert run.exit_code == 0, run.envelope.get("error")
    statuses = {step["id"]: step["status"] for step in run.data["run"]["steps"]}
    assert statuses["08-tap"] == "skipped" and statuses["09-when"] == "skipped" and statuses["02-when"] == "ok"


def test_a_javascript_text_literal_is_its_text_and_other_scripts_are_kept_for_the_run(tmp_path: Path) -> None:
    commands = (
        "- tapOn: ${\"Sign in.*\"}\n- assertVisible: ${'Feed'}\n- inputText: ${output.user}\n- pressKey: {key: Enter}\n"
    )
    converted = valid(one(tmp_path, commands))
    assert steps(converted) == [
        ("tap", {"target": 'match={"text":"Sign in.*"}'}),
        ("wait", {"for": "text=Feed", "timeout": 5000}),
        ("act", {"name": "type", "value": "${output.user}"}),  # filled in as the step runs
        ("press", {"key": "enter"}),
    ]
    assert not left(converted)
