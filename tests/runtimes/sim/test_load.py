from __future__ import annotations

from pathlib import Path

import pytest

from visor.errors import InputError
from visor.runtimes.sim.load import (
    AppModelError,
    builtin_apps,
    choose_platform,
    load_app,
    resolve_app,
    validate_app_file,
)

GOOD = """\
app: {id: com.example.tiny, name: Tiny, start: home}
screens:
  home:
    title: Home
    elements:
      - {type: button, id: go, text: Go, on_tap: [{go: next}]}
  next:
    elements: [{type: text, text: Next}]
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "tiny.app.yaml"
    path.write_text(text)
    return str(path)


def test_shipped_apps_load() -> None:
    assert "demo" in builtin_apps()
    model = load_app(resolve_app("demo", "."))
    assert model.app.id == "com.visor.demo" and set(model.screens) == {"login", "feed", "detail", "settings", "player"}


def test_a_small_model_loads(tmp_path: Path) -> None:
    assert load_app(write(tmp_path, GOOD)).app.start == "home"


@pytest.mark.parametrize(
    ("change", "code", "message", "line"),
    [
        (("{go: next}", "{go: nxt}"), "UNKNOWN_REFERENCE", "no screen named 'nxt'", 6),
        (("text: Go,", "txt: Go,"), "UNKNOWN_FIELD", "Unknown field 'txt'", 6),
        (("type: button", "type: buton"), "TYPE_ERROR", "'buton' is not supported", 6),
        (("start: home", "start: hom"), "UNKNOWN_REFERENCE", "no screen named 'hom'", 1),
        (("id: com.example.tiny", "id: Tiny"), "TYPE_ERROR", "app.id must be", 1),
        (("[{go: next}]", "[{go: next, show: x}]"), "TYPE_ERROR", "needs exactly one of", 6),
    ],
)
def test_model_errors_name_line_and_column(
    tmp_path: Path, change: tuple[str, str], code: str, message: str, line: int
) -> None:
    with pytest.raises(AppModelError) as caught:
        load_app(write(tmp_path, GOOD.replace(*change)))
    issue = next(i for i in caught.value.issues if message in i.message)
    assert (str(issue.code), issue.line) == (code, line)
    assert caught.value.message.startswith(f"{tmp_path / 'tiny.app.yaml'}:{line}:")


def test_element_ids_must_be_unique_per_screen(tmp_path: Path) -> None:
    text = GOOD.replace(
        "elements: [{type: text, text: Next}]", "elements: [{type: text, id: a, text: A}, {type: text, id: a, text: B}]"
    )
    with pytest.raises(AppModelError, match="Duplicate element id 'a'"):
        load_app(write(tmp_path, text))


def test_unknown_app_name_suggests_a_shipped_one() -> None:
    with pytest.raises(InputError) as caught:
        resolve_app("dmeo", ".")
    assert "demo" in caught.value.next_step


def test_paths_resolve_against_the_scenario_folder(tmp_path: Path) -> None:
    assert resolve_app("apps/x.app.yaml", str(tmp_path)) == str(tmp_path / "apps" / "x.app.yaml")


PLAYER = """\
app: {id: com.example.player, name: Player, start: home}
screens:
  home:
    elements:
      - {type: slider, id: speed, min: 0, max: 10}
      - {type: timeline, id: t, value: 60}
      - {type: button, id: b, text: B, on_tap: [{nudge: {speed: 1}}], on_long_press: [{toggle: panel}]}
    overlays:
      panel: {type: panel, elements: [{type: text, text: "{t:clock}"}]}
"""


def test_the_new_verbs_and_the_timeline_load(tmp_path: Path) -> None:
    model = load_app(write(tmp_path, PLAYER))
    assert [e.type for e in model.screens["home"].elements] == ["slider", "timeline", "button"]


@pytest.mark.parametrize(
    ("change", "code", "message"),
    [
        (("{nudge: {speed: 1}}", "{nudge: {sped: 1}}"), "UNKNOWN_REFERENCE", "no slider of this screen named 'sped'"),
        (("{nudge: {speed: 1}}", "{nudge: {t: 1}}"), "UNKNOWN_REFERENCE", "no slider of this screen named 't'"),
        (("{nudge: {speed: 1}}", "{nudge: {speed: 1.5}}"), "TYPE_ERROR", "integer"),
        (("{toggle: panel}", "{toggle: pane}"), "UNKNOWN_REFERENCE", "no overlay of this screen named 'pane'"),
        (("on_long_press: [{toggle: panel}]", "on_long_press: [{go: nowhere}]"), "UNKNOWN_REFERENCE", "no screen"),
        (("value: 60}", "value: 60, min: 100}"), "TYPE_ERROR", "timeline needs min < max"),
        (("value: 60}", "value: 60, scale: 500}"), "TYPE_ERROR", "timeline needs min_scale <= scale <= max_scale"),
    ],
)
def test_new_verbs_and_the_timeline_are_checked(
    tmp_path: Path, change: tuple[str, str], code: str, message: str
) -> None:
    with pytest.raises(AppModelError) as caught:
        load_app(write(tmp_path, PLAYER.replace(*change)))
    issue = next(i for i in caught.value.issues if message in i.message)
    assert str(issue.code) == code


# -- config.app: only app models, only from the scenario's project -------------------------------------------------


def project(tmp_path: Path) -> Path:
    """A project folder (marked by visor.toml) with scenarios below it and an app model in apps/."""
    root = tmp_path / "proj"
    (root / "scenarios" / "deep").mkdir(parents=True)
    (root / "apps").mkdir()
    (root / "visor.toml").write_text("")
    (root / "apps" / "tiny.app.yaml").write_text(GOOD)
    return root


def test_a_path_must_name_an_app_model_file_and_is_not_read_otherwise(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "notes.txt").write_text("secret-token: 12345\n")
    for reference in ("../notes.txt", "/etc/shadow", "../apps/tiny.yaml"):
        with pytest.raises(InputError) as caught:
            resolve_app(reference, str(root / "scenarios"))
        assert "must end in .app.yaml or .app.yml" in caught.value.message
        assert "secret" not in caught.value.message


def test_a_path_must_stay_inside_the_project(tmp_path: Path) -> None:
    root = project(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.app.yaml").write_text(GOOD)
    # The nearest folder holding visor.toml, pyproject.toml or .git is the project: its subfolders are in.
    assert resolve_app("../../apps/tiny.app.yaml", str(root / "scenarios" / "deep")) == str(
        root / "apps" / "tiny.app.yaml"
    )
    with pytest.raises(InputError) as caught:
        resolve_app("../../elsewhere/x.app.yaml", str(root / "scenarios"))
    assert "outside the scenario's project folder" in caught.value.message
    assert str(root) in caught.value.message
    with pytest.raises(InputError, match="outside"):
        resolve_app(str(outside / "x.app.yaml"), str(root / "scenarios"))


def test_symlinks_are_followed_before_the_project_check(tmp_path: Path) -> None:
    root = project(tmp_path)
    (tmp_path / "secret.app.yaml").write_text(GOOD)
    (root / "apps" / "link.app.yaml").symlink_to(tmp_path / "secret.app.yaml")
    (root / "notes.txt").write_text("not a model")
    (root / "apps" / "notes.app.yaml").symlink_to(root / "notes.txt")
    (root / "apps" / "alias.app.yaml").symlink_to(root / "apps" / "tiny.app.yaml")
    with pytest.raises(InputError, match="outside the scenario's project folder"):
        resolve_app("../apps/link.app.yaml", str(root / "scenarios"))
    with pytest.raises(InputError, match="must end in"):
        resolve_app("../apps/notes.app.yaml", str(root / "scenarios"))
    assert load_app(resolve_app("../apps/alias.app.yaml", str(root / "scenarios"))).app.id == "com.example.tiny"


def test_without_a_project_marker_the_scenario_folder_is_the_project(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.app.yaml").write_text(GOOD)
    if any((parent / marker).exists() for parent in tmp_path.parents for marker in (".git", "pyproject.toml")):
        pytest.skip("the temporary folder lies inside a project")
    with pytest.raises(InputError, match="outside"):
        resolve_app("../b/x.app.yaml", str(tmp_path / "a"))
    assert resolve_app("x.app.yaml", str(tmp_path / "b")) == str(tmp_path / "b" / "x.app.yaml")


def test_shipped_apps_are_found_by_name_from_anywhere(tmp_path: Path) -> None:
    assert load_app(resolve_app("demo", str(tmp_path))).app.id == "com.visor.demo"


def test_a_file_that_is_not_an_app_model_gets_one_issue_and_no_echo(tmp_path: Path) -> None:
    path = tmp_path / "x.app.yaml"
    for text in ("password: hunter2\nroot: x:0:0\n", "root:x:0:0:root:/root:/bin/bash\n", "- a\n- b\n"):
        path.write_text(text)
        issues = validate_app_file(str(path))
        assert len(issues) == 1 and "not an app model" in issues[0].message, issues
        assert "hunter2" not in repr(issues[0].to_dict()) and "root" not in issues[0].message


def test_unknown_content_is_echoed_short_and_escaped(tmp_path: Path) -> None:
    long_key = "k" * 200 + "\\u0007\\n" + "tail"
    text = GOOD.replace("    title: Home\n", f'    title: Home\n    "{long_key}": 1\n')
    issues = validate_app_file(write(tmp_path, text))
    issue = next(i for i in issues if str(i.code) == "UNKNOWN_FIELD")
    shown = repr(issue.to_dict())
    assert "k" * 41 not in shown and "tail" not in shown and "\x07" not in shown
    assert "k" * 30 in issue.message and "…" in issue.message
    bad_type = GOOD.replace("type: button", 'type: "' + "b" * 100 + '\\u001b[31m"')
    issue = next(i for i in validate_app_file(write(tmp_path, bad_type)) if "not supported" in i.message)
    assert "b" * 41 not in issue.message and "\x1b" not in issue.message


def test_runs_refuse_config_app_outside_the_project(cli_runner, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "visor.toml").write_text("")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "meta: {name: x, version: '1'}\nconfig: {seed: 1, runtime: sim, app: /etc/passwd}\n"
        "steps:\n  - {id: a, command: wait, args: {ms: 1}}\n"
    )
    result = cli_runner.run("run", str(scenario))
    error = result.envelope["error"]
    assert error["code"] == "INPUT_ERROR" and "must end in .app.yaml" in error["message"]
    assert "Unknown field" not in result.stdout and "root" not in error["message"].replace("/etc/passwd", "")


# -- one pass: schema and reference problems together -------------------------------------------------------------

BROKEN = """\
app: {id: com.example.tiny, name: Tiny, start: hom}
deeplinks: {"tiny://x": nowhere}
screens:
  home:
    titel: Home
    elements:
      - {type: button, id: go, text: Go, on_tap: [{go: nxt}, {focus: nofield}]}
      - {type: field, id: f, hint: 3}
      - {type: button, text: B, on_tap: [{clear: f}, {nudge: {nos: 1}}, {show: nope, hide: nope}]}
  next:
    elements: [{type: text, text: Next, colour: red}]
"""


def test_one_pass_reports_schema_and_reference_problems_sorted(tmp_path: Path) -> None:
    issues = validate_app_file(write(tmp_path, BROKEN))
    found = [(i.line, str(i.code), i.message) for i in issues]
    expected = [
        (1, "UNKNOWN_REFERENCE", "no screen named 'hom'"),
        (2, "UNKNOWN_REFERENCE", "no screen named 'nowhere'"),
        (5, "UNKNOWN_FIELD", "Unknown field 'titel'"),
        (7, "UNKNOWN_REFERENCE", "no screen named 'nxt'"),
        (7, "UNKNOWN_REFERENCE", "no field of this screen named 'nofield'"),
        (8, "TYPE_ERROR", "hint must be a string"),
        (9, "UNKNOWN_REFERENCE", "no slider of this screen named 'nos'"),
        (9, "TYPE_ERROR", "needs exactly one of"),
        (9, "UNKNOWN_REFERENCE", "no overlay of this screen named 'nope'"),
        (11, "UNKNOWN_FIELD", "Unknown field 'colour'"),
    ]
    for line, code, words in expected:
        assert any((f_line, f_code) == (line, code) and words in m for f_line, f_code, m in found), (line, code, words)
    assert [f[0] or 0 for f in found] == sorted(f[0] or 0 for f in found)
    with pytest.raises(AppModelError) as caught:
        load_app(write(tmp_path, BROKEN))
    assert len(caught.value.issues) == len(issues)


def test_validate_app_file_reports_unreadable_files_as_issues(tmp_path: Path) -> None:
    path = tmp_path / "bad.app.yaml"
    path.write_text("app: [\n")
    issues = validate_app_file(str(path))
    assert len(issues) == 1 and issues[0].line == 2 and "YAML syntax error" in issues[0].message
    missing = validate_app_file(str(tmp_path / "missing.app.yaml"))
    assert len(missing) == 1 and missing[0].message == "no such file"


def test_the_flavour_is_the_option_then_the_scenario_then_the_models_first(tmp_path: Path) -> None:
    both = load_app(resolve_app("demo", "."))
    assert both.app.platforms == ["android", "ios"]
    assert choose_platform(both, None, None) == "android"
    assert choose_platform(both, None, "ios") == "ios"
    assert choose_platform(both, "android", "ios") == "android"
    ios_only = load_app(write(tmp_path, GOOD.replace("start: home}", "start: home, platforms: [ios]}")))
    assert choose_platform(ios_only, None, None) == "ios"
    with pytest.raises(InputError) as raised:
        choose_platform(ios_only, "android", None)
    assert raised.value.message == (
        "the app model com.example.tiny does not run on 'android' (--platform): its app.platforms is [ios]"
    )
    assert raised.value.next_step == "Run it on ios, or add android to app.platforms in its app model."


@pytest.mark.parametrize(
    ("platforms", "message"),
    [
        ("[ios, ios]", "platforms lists a platform twice"),
        ("[]", "must name at least one platform"),
        ("[windows]", "'android' or"),
    ],
)
def test_app_platforms_are_checked(tmp_path: Path, platforms: str, message: str) -> None:
    issues = validate_app_file(write(tmp_path, GOOD.replace("start: home}", f"start: home, platforms: {platforms}}}")))
    assert issues and message in issues[0].message, [issue.message for issue in issues]


@pytest.mark.parametrize("spelling", ["dismissable", "dismissible"])
def test_a_dialog_takes_either_spelling_of_dismissable(tmp_path: Path, spelling: str) -> None:
    """Authors type the dictionary's `dismissible`; it was an unknown field."""
    dialog = f"    overlays:\n      d: {{type: dialog, title: Hi, buttons: [{{text: OK}}], {spelling}: false}}\n"
    model = load_app(write(tmp_path, GOOD.replace("  next:\n", dialog + "  next:\n")))
    assert model.screens["home"].overlays["d"].dismissable is False
