from __future__ import annotations

from pathlib import Path

import pytest

from visor.devices.sim.load import AppModelError, builtin_apps, load_app, resolve_app
from visor.errors import InputError

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
