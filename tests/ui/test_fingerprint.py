"""Screen fingerprints: stable for a screen, changed by any difference, and never an oracle for a secret."""

from __future__ import annotations

from tests.simkit import demo_device, the_node
from visor.ui.fingerprint import fingerprint
from visor.ui.secrets import concealer
from visor.ui.tree import UiTree


def _login(username: str, password: str = "") -> UiTree:
    device = demo_device()
    device.open_url("demo://login")
    device.type_text(username, the_node(device, "id=username"))
    if password:
        device.type_text(password, the_node(device, "id=password"))
    return device.observe().tree


def test_a_secret_on_screen_gives_the_fingerprint_any_other_secret_gives() -> None:
    """Hashing guesses of what a plain field shows would find the secret: the published hash is of it masked."""
    shown = {fingerprint(_login(secret), conceal=concealer([secret])) for secret in ("summer2024", "hunter22")}
    assert len(shown) == 1
    assert fingerprint(_login("summer2024")) != fingerprint(_login("hunter22"))  # unmasked, each has its own


def test_a_concealed_fingerprint_still_changes_with_the_rest_of_the_screen() -> None:
    conceal = concealer(["summer2024"])
    assert fingerprint(_login("summer2024"), conceal=conceal) != fingerprint(_login("summer2024x"), conceal=conceal)
    assert fingerprint(_login("summer2024"), conceal=conceal) == fingerprint(_login("summer2024"), conceal=conceal)


def test_a_password_fields_length_does_not_count() -> None:
    """Its bullets would give the password's length; filled or empty still counts."""
    assert fingerprint(_login("ada", "lovelace")) == fingerprint(_login("ada", "a-much-longer-password"))
    assert fingerprint(_login("ada", "lovelace")) != fingerprint(_login("ada"))
