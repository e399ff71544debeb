"""Selectors of one platform's grammar in a scenario that declares the other platform: refused when validating."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.scenario.helpers import scenario, triples, validate
from visor.errors import ExitCode

PREDICATE = "predicate=label == 'Log in'"
CLASSCHAIN = "classchain=**/XCUIElementTypeButton"
UIAUTOMATOR = 'uiautomator=new UiSelector().text("Log in")'
HINT = (
    "use predicate= or classchain= on iOS / uiautomator= on Android / css= on the web, or a selector for every "
    "platform such as text= or id="
)


def on(platform: str | None, **parts: Any) -> dict[str, Any]:
    """Return a valid scenario with `meta.platform` set (left out for None) and parts replaced."""
    meta = {"name": "t", "version": "1"} | ({"platform": platform} if platform else {})
    return scenario(meta=meta, **parts)


def every_place(selector: str) -> dict[str, Any]:
    """Return the parts of a scenario with `selector` in every field that holds a selector."""
    return {
        "config": {"seed": 1, "mask": ["text=12:00", selector]},
        "steps": [
            {"id": "tap", "command": "tap", "args": {"target": selector}},
            {"id": "wait", "command": "wait", "args": {"for": selector}},
            {"id": "type", "command": "act", "args": {"name": "type", "target": selector, "value": "x"}},
            {"id": "slide", "command": "act", "args": {"name": "slider", "target": selector, "value": 0.5}},
        ],
        "assertions": [
            {"id": "shown", "type": "visible", "target": selector},
            {"id": "count", "type": "count", "target": selector, "value": 1},
            {"id": "said", "type": "text_equals", "target": selector, "value": "x"},
            {"id": "at", "type": "value", "target": selector, "value": 1},
        ],
    }


@pytest.mark.parametrize(
    ("platform", "selector", "kind", "works_on"),
    [
        ("android", PREDICATE, "predicate", "iOS"),
        ("android", CLASSCHAIN, "classchain", "iOS"),
        ("ios", UIAUTOMATOR, "uiautomator", "Android"),
    ],
)
def test_every_selector_field_is_checked_against_meta_platform(
    platform: str, selector: str, kind: str, works_on: str
) -> None:
    result = validate(on(platform, **every_place(selector)))
    assert not result.valid and result.scenario is None
    assert triples(result) == [
        ("error", "SELECTOR_ERROR", "$.config.mask[1]"),
        ("error", "SELECTOR_ERROR", "$.steps[0].args"),
        ("error", "SELECTOR_ERROR", "$.steps[1].args"),
        ("error", "SELECTOR_ERROR", "$.steps[2].args"),
        ("error", "SELECTOR_ERROR", "$.steps[3].args"),
        ("error", "SELECTOR_ERROR", "$.assertions[0].target"),
        ("error", "SELECTOR_ERROR", "$.assertions[1].target"),
        ("error", "SELECTOR_ERROR", "$.assertions[2].target"),
        ("error", "SELECTOR_ERROR", "$.assertions[3].target"),
    ]
    tail = f"is a {kind}= selector, which works on {works_on} only, but meta.platform is {platform}"
    assert [issue.message for issue in result.issues] == [
        f"config.mask[1] {tail}",
        f"tap args.target {tail}",
        f"wait args.for {tail}",
        f"act type args.target {tail}",
        f"act slider args.target {tail}",
        f"assertions[0].target {tail}",
        f"assertions[1].target {tail}",
        f"assertions[2].target {tail}",
        f"assertions[3].target {tail}",
    ]
    assert {issue.hint for issue in result.issues} == {HINT}


@pytest.mark.parametrize(
    ("platform", "selector"),
    [
        (None, PREDICATE),
        (None, CLASSCHAIN),
        (None, UIAUTOMATOR),
        ("ios", PREDICATE),
        ("ios", CLASSCHAIN),
        ("android", UIAUTOMATOR),
        ("android", "text=Log in"),
        ("ios", "id=login"),
        ("android", "xpath=//*[@text='Log in']"),
        ("ios", "Log in"),
    ],
)
def test_selectors_the_platform_can_evaluate_validate_clean(platform: str | None, selector: str) -> None:
    result = validate(on(platform, **every_place(selector)))
    assert result.valid and result.issues == ()


def test_the_issue_is_located_at_the_selector_itself() -> None:
    (issue,) = validate(on("android", steps=[{"id": "s", "command": "tap", "args": {"target": PREDICATE}}])).issues
    # Dumped as block YAML: meta on lines 1-4, config on 5-6, steps from 7 with `target:` last, in column 5.
    assert (issue.path, issue.line, issue.column) == (("steps", 0, "args"), 11, 5)


def test_a_device_assertion_target_is_no_selector() -> None:
    doc = on("android", assertions=[{"id": "f", "type": "file_exists", "target": PREDICATE}])
    assert validate(doc).issues == ()


def test_a_malformed_selector_is_reported_once_for_its_syntax() -> None:
    broken = "predicate=label =="
    (issue,) = validate(on("android", steps=[{"id": "s", "command": "tap", "args": {"target": broken}}])).issues
    assert str(issue.code) == "SELECTOR_ERROR" and issue.message.startswith("tap args.target is not an NSPredicate")


def test_other_problems_in_the_step_are_reported_too() -> None:
    args = {"target": PREDICATE, "x": 1}
    result = validate(on("android", steps=[{"id": "s", "command": "tap", "args": args}]))
    assert [issue.message for issue in result.issues] == [
        "tap cannot mix args.target with args.x/args.y",
        "tap args.target is a predicate= selector, which works on iOS only, but meta.platform is android",
    ]


SCENARIO = """\
meta:
  name: wrong-grammar
  version: "1"
  platform: android
config:
  seed: 1
steps:
  - id: sign-in
    command: tap
    args:
      target: "predicate=label == 'Log in'"
"""


def test_validate_reports_it_on_the_command_line(cli_runner: Cli, tmp_path: Path) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    result = cli_runner.run("validate", str(path))
    assert result.exit_code == ExitCode.ERROR
    assert result.data["issues"] == [
        {
            "severity": "error",
            "code": "SELECTOR_ERROR",
            "message": "tap args.target is a predicate= selector, which works on iOS only, but meta.platform is android",
            "path": "$.steps[0].args",
            "line": 11,
            "column": 7,
            "hint": HINT,
            "file": str(path),
        }
    ]


def test_upstream_mode_reports_it_as_a_warning(cli_runner: Cli, tmp_path: Path) -> None:
    path = tmp_path / "wrong.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    result = cli_runner.run("validate", "--upstream", str(path))
    assert result.exit_code == ExitCode.OK
    ((severity, code, message),) = [(i["severity"], i["code"], i["message"]) for i in result.data["issues"]]
    assert (severity, code) == ("warning", "SELECTOR_ERROR")
    assert message.endswith("meta.platform is android (upstream Visor accepts this)")


@pytest.mark.parametrize(("selector", "platform"), [("css=button.primary", "android"), (UIAUTOMATOR, "web")])
def test_a_web_page_and_a_phone_refuse_each_others_selectors(selector: str, platform: str) -> None:
    (issue,) = validate(on(platform, steps=[{"id": "s", "command": "tap", "args": {"target": selector}}])).issues
    only = "web pages" if selector.startswith("css=") else "Android"
    kind = selector.split("=", 1)[0]
    assert (
        issue.message
        == f"tap args.target is a {kind}= selector, which works on {only} only, but meta.platform is {platform}"
    )


def test_css_is_at_home_on_the_web() -> None:
    doc = on("web", steps=[{"id": "s", "command": "tap", "args": {"target": "css=form > button[type=submit]"}}])
    assert validate(doc).issues == ()


def _tap(step_id: str, selector: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "command": "tap", "args": {"target": selector}, **extra}


@pytest.mark.parametrize("platform", ["android", "ios", None])
def test_a_web_view_is_on_the_webs_platform_and_its_native_blocks_on_the_phones(platform: str | None) -> None:
    steps = [
        {"id": "offers", "context": "webview", "steps": [
            _tap("claim", "css=#claim"),
            _tap("native-grammar", UIAUTOMATOR),
            {"id": "inside", "context": "native", "steps": [_tap("phone", "css=#phone")]},
        ]},
        _tap("exact", "css=#exact", context="WEBVIEW_com.example.shop"),
        _tap("outside", "css=#outside"),
        {"id": "key", "command": "press", "args": {"key": "home"}, "context": "webview"},
    ]  # fmt: skip
    messages = {issue.to_dict()["path"]: issue.message for issue in validate(on(platform, steps=steps)).issues}
    declared = {
        "$.steps[0].steps[2].steps[0].args": "tap args.target is a css= selector, which works on web pages only, "
        f"but meta.platform is {platform}",
        "$.steps[2].args": f"tap args.target is a css= selector, which works on web pages only, "
        f"but meta.platform is {platform}",
    }
    assert messages == {
        "$.steps[0].steps[1].args": "tap args.target is a uiautomator= selector, which works on Android only, "
        "but it is in the web view 'webview'",
        **(declared if platform else {}),
    }  # a phone's key is the phone's in a web view too: `home` refused on none
