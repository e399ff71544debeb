"""Screens as the app map knows them: keys robust to typed text, scrolled lists and numbers; safety; redaction."""

from __future__ import annotations

from tests.simkit import demo_device
from visor.device.protocol import PathPoint
from visor.ui.geometry import Point
from visor.ui.screens import normalize, observe_screen, redact, safety


def test_typing_into_a_form_does_not_make_a_new_screen() -> None:
    device = demo_device()
    before = observe_screen(device.observe().tree)
    device.tap(Point(540, 464))
    device.type_text("ada.lovelace@example.com")
    after = observe_screen(device.observe().tree)
    assert before.normalized_fingerprint == after.normalized_fingerprint and before.auth_required
    assert all("ada.lovelace" not in label for element in after.elements for label in element.labels)


def test_a_scrolled_feed_is_one_screen_and_each_detail_page_another() -> None:
    device = demo_device(seed=2)  # no promotion over the feed with this seed
    device.open_url("demo://feed")
    top = observe_screen(device.observe().tree)
    for _ in range(8):
        device.gesture([[PathPoint(540, 1700, 0), PathPoint(540, 400, 300)]])
    scrolled = observe_screen(device.observe().tree)
    assert top.normalized_fingerprint == scrolled.normalized_fingerprint and top.scrollable
    assert top.fingerprint != scrolled.fingerprint  # what the screen shows did change
    device.open_url("demo://item/7")
    seven = observe_screen(device.observe().tree)
    device.open_url("demo://item/93")
    ninety_three = observe_screen(device.observe().tree)
    device.open_url("demo://settings")
    settings = observe_screen(device.observe().tree)
    assert seven.normalized_fingerprint == ninety_three.normalized_fingerprint
    assert len({top.normalized_fingerprint, seven.normalized_fingerprint, settings.normalized_fingerprint}) == 3
    assert {element.selector: element.safety for element in settings.elements}["id=com.visor.demo:id/logout"] == "risky"


def test_safety_words_in_several_languages() -> None:
    for label in ("Delete account", "Abmelden", "Supprimer", "Cerrar sesión", "Conferma", "Pay now", "Log out"):
        assert safety([label], "android.widget.Button", True) == "risky", label
    assert safety(["Search"], "EditText", True) == "needs-input"
    assert safety(["Next"], "android.widget.Button", True) == "safe"
    assert safety(["Welcome"], "TextView", False) == "unknown"


def test_labels_are_redacted_and_normalized() -> None:
    assert redact("Call +1 (555) 010-1234 or mail ada@example.com") == "Call <redacted-phone> or mail <redacted-email>"
    assert redact("Card 4111 1111 1111 1111") == "Card <redacted-card>"
    assert normalize("Order 3f2a9c81b7 at 12:45, 3 items") == "order <id> at <time>, <number> items"
