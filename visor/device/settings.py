"""What a device may do to its own settings: its orientation, permissions, keychain, airplane mode, location.

Not every runtime can, nor every platform: a device that can is a `DeviceSettings`, and the kernel refuses the
command on one that is not, before anything is sent (`UnsupportedInput`). Each setter has a reader beside it, so
the step that set something can check it took: a reader answers None where the device cannot tell (a real
phone's permissions over Appium), and the step then reports its effect unverified rather than guess.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from visor.device.apps import PermissionChoice, cannot
from visor.device.protocol import Device


@runtime_checkable
class DeviceSettings(Protocol):
    """A device that turns its screen, sets permissions, clears the keychain, sets airplane mode and its location."""

    def set_orientation(self, orientation: str) -> None:
        """Turn the screen: `portrait`, `landscape_left`, `upside_down` or `landscape_right`.

        Raises:
            UnsupportedInput: the device cannot be turned that way.
        """
        ...

    def orientation(self) -> str | None:
        """Say how the screen is turned, by the names `set_orientation` takes (None: it cannot tell)."""
        ...

    def set_permissions(self, app_id: str, permissions: Mapping[str, PermissionChoice]) -> Mapping[str, str]:
        """Set `app_id`'s permissions (`all` first, then the named ones); return each one set and its new state.

        Raises:
            InputRejected: the app is not installed, or a permission name is unknown (nothing changed).
            UnsupportedInput: the device cannot set permissions.
        """
        ...

    def permission_states(self, app_id: str) -> Mapping[str, str] | None:
        """Return `app_id`'s permissions as the device reads them now, by the names `set_permissions` returned.

        None: the device cannot read them back.
        """
        ...

    def clear_keychain(self) -> None:
        """Erase every item of the keychain.

        Raises:
            UnsupportedInput: the device has no keychain (an Android phone), or no command for it.
        """
        ...

    def keychain_items(self) -> int | None:
        """Return how many items the keychain holds now (None: the device cannot tell)."""
        ...

    def set_airplane_mode(self, enabled: bool) -> None:
        """Turn airplane mode on (`enabled`) or off.

        Raises:
            UnsupportedInput: the platform has no airplane mode a test can set (an iPhone).
        """
        ...

    def airplane_mode(self) -> bool | None:
        """Say whether airplane mode is on (None: the device can set it but not tell).

        Raises:
            UnsupportedInput: the platform has no airplane mode a test can reach (an iPhone).
        """
        ...

    def set_location(self, latitude: float, longitude: float) -> None:
        """Put the GPS at `latitude`, `longitude` (degrees): the position apps read from now on."""
        ...

    def location(self) -> tuple[float, float] | None:
        """Return the position apps read (latitude, longitude), or None when the device cannot tell."""
        ...


def device_settings(device: Device) -> DeviceSettings:
    """Return `device` as a `DeviceSettings`, or refuse, sending nothing."""
    if isinstance(device, DeviceSettings):
        return device
    raise cannot(device, "change its settings (orientation, permissions, keychain, airplane mode, location)")
