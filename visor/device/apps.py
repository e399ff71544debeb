"""What a device may do beyond the protocol's app commands: launch an app with options, and take media files.

Not every runtime can: a device that can is an `AppLauncher` (a `MediaLibrary`), and the kernel refuses the
command on one that is not, before anything is sent (`UnsupportedInput`). `ObservingDevice` forwards both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from visor.device.protocol import Device, UnsupportedInput

#: What a permission is set to: granted, denied, or back to undecided (asked on first use).
PermissionChoice = Literal["allow", "deny", "unset"]
#: The name that sets every permission the device knows at once.
ALL_PERMISSIONS = "all"
#: The home screens' apps (launchers): the phone's own on Android makers' phones and the iPhone, and the simulated
#: phone's. An app that gives way to one of them without a step asking is gone (crashed, or closed itself).
HOME_SCREENS = frozenset({
    "com.visor.launcher", "com.android.launcher", "com.android.launcher2", "com.android.launcher3",
    "com.google.android.apps.nexuslauncher", "com.sec.android.app.launcher", "com.miui.home",
    "com.huawei.android.launcher", "com.hihonor.android.launcher", "com.oppo.launcher", "com.bbk.launcher2",
    "net.oneplus.launcher", "com.motorola.launcher3", "com.apple.springboard",
})  # fmt: skip


@dataclass(frozen=True, slots=True)
class LaunchOptions:
    """How to launch an app: stopped first, its data and keychain cleared, its permissions, its arguments."""

    stop_first: bool = True
    clear_state: bool = False
    clear_keychain: bool = False
    #: Permission name (or `all`) -> its choice, applied in order (`all` first, then the names it overrides).
    permissions: Mapping[str, PermissionChoice] = field(default_factory=dict)
    #: Launch arguments the app reads, by key.
    arguments: Mapping[str, str | int | float | bool] = field(default_factory=dict)


@runtime_checkable
class AppLauncher(Protocol):
    """A device that launches an app with options and tells which app is in front."""

    def launch_with(self, app_id: str, options: LaunchOptions) -> None:
        """Launch `app_id` as `options` say.

        Raises:
            InputRejected: the app is not installed, a permission or an argument is unknown, or the device
                refused; what can be checked is checked before anything changes.
            UnsupportedInput: the device cannot do one of the options.
        """
        ...

    def app_in_front(self, app_id: str) -> bool:
        """Say whether `app_id` is the app in front, running."""
        ...


@runtime_checkable
class MediaLibrary(Protocol):
    """A device whose photo library takes pictures and videos."""

    def add_media(self, name: str, data: bytes) -> str:
        """Add one picture or video (`name` is its file name) to the library; return where the device keeps it.

        Raises:
            InputRejected: the device refused it.
            UnsupportedInput: this device cannot add media.
        """
        ...


def ordered(permissions: Mapping[str, PermissionChoice]) -> list[tuple[str, PermissionChoice]]:
    """Return the permissions in the order they apply: `all` first, so that a named one overrides it."""
    return sorted(permissions.items(), key=lambda item: item[0] != ALL_PERMISSIONS)


def launcher(device: Device) -> AppLauncher:
    """Return `device` as an `AppLauncher`, or refuse, sending nothing."""
    if isinstance(device, AppLauncher):
        return device
    raise cannot(device, "launch an app with options")


def library(device: Device) -> MediaLibrary:
    """Return `device` as a `MediaLibrary`, or refuse, sending nothing."""
    if isinstance(device, MediaLibrary):
        return device
    raise cannot(device, "add media to its library")


def cannot(device: Device, what: str) -> UnsupportedInput:
    """Return the refusal of a device whose runtime cannot do `what` (nothing was sent)."""
    return UnsupportedInput(
        f"this device ({device.info.runtime}) cannot {what}",
        likely_cause="Its runtime has no command for it.",
        next_step="Run the step on the simulated phone or on Appium.",
    )
