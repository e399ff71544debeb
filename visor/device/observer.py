"""A device wrapper that remembers its last observation until something could have changed the screen.

Reading the screen is the costly part of a step on a real device (a page-source round trip). The screen a
step ends on is the one the next step starts from, so an observation is reused while no input was sent and
the clock moved at most `max_age_us`, which the device's capabilities give: 0.1 s on real devices (a fresh page
source takes longer than that to arrive anyway), 0 on the simulated device, whose clock only moves when something
takes time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from visor.clock import Clock
from visor.device.apps import LaunchOptions, PermissionChoice, launcher, library
from visor.device.contexts import switcher
from visor.device.data import DeviceData
from visor.device.logs import LogLine, log_of
from visor.device.protocol import (
    OBSERVATION_REUSE_US,
    Device,
    DeviceInfo,
    ElementDriver,
    ElementHandle,
    Key,
    KeyboardDriver,
    LockReader,
    NativeAction,
    NativeFinder,
    NativeFound,
    Observation,
    PathPoint,
)
from visor.device.settings import device_settings
from visor.ui.geometry import Point
from visor.ui.tree import Node


class ObservingDevice:
    """Wraps a device; `observe()` returns the last observation while it is still current."""

    def __init__(self, device: Device, clock: Clock, max_age_us: int = OBSERVATION_REUSE_US) -> None:
        self.device = device
        self.clock = clock
        self.max_age_us = max_age_us
        self._last: Observation | None = None
        self._taken = 0

    @classmethod
    def wrap(cls, device: Device, clock: Clock) -> ObservingDevice:
        """Wrap a device with the reuse window its capabilities allow (none on the simulated device)."""
        return cls(device, clock, device.info.capabilities.observation_reuse_us)

    @property
    def info(self) -> DeviceInfo:
        """Describe the device."""
        return self.device.info

    def observe(self) -> Observation:
        """Return the current screen, from memory when nothing can have changed it."""
        now = self.clock.monotonic_us()
        if self._last is None or now - self._taken > self.max_age_us:
            self._last = self.device.observe()
            self._taken = self.clock.monotonic_us()
        return self._last

    def forget(self) -> None:
        """Drop the remembered observation (something may have changed the screen)."""
        self._last = None

    def screenshot(self) -> bytes:
        """Return a PNG of the current screen."""
        return self.device.screenshot()

    def find_element(self, kind: str, value: str) -> ElementHandle | None:
        """Find an element with the device's own locators (only where `capabilities.element_handles`)."""
        return cast(ElementDriver, self.device).find_element(kind, value)

    def click_element(self, handle: ElementHandle) -> None:
        """Click an element found by the device, and forget the screen."""
        self.forget()
        cast(ElementDriver, self.device).click_element(handle)

    def type_into_element(self, handle: ElementHandle, text: str) -> None:
        """Send text to an element found by the device, and forget the screen."""
        self.forget()
        cast(ElementDriver, self.device).type_into_element(handle, text)

    def element_text(self, handle: ElementHandle) -> str:
        """Read an element's text."""
        return cast(ElementDriver, self.device).element_text(handle)

    def typed_text(self) -> str | None:
        """Read the text of the element the last typing went into."""
        return cast(ElementDriver, self.device).typed_text()

    def find_native(self, kind: str, expression: str, limit: int) -> NativeFound:
        """Find with the device's own locator engine (only for kinds its capabilities list)."""
        return cast(NativeFinder, self.device).find_native(kind, expression, limit)

    def busy_ms(self) -> int:
        """Return how long until the app accepts input."""
        return self.device.busy_ms()

    def tap(self, point: Point) -> None:
        """Tap, and forget the screen."""
        self.forget()
        self.device.tap(point)

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """Perform a gesture, and forget the screen."""
        self.forget()
        self.device.gesture(fingers)

    def type_text(self, text: str, into: Node | None = None) -> None:
        """Type, and forget the screen."""
        self.forget()
        self.device.type_text(text, into)

    def press_key(self, key: Key) -> None:
        """Press a key, and forget the screen."""
        self.forget()
        self.device.press_key(key)

    def screen_locked(self) -> bool:
        """Say whether the screen is locked (only where `capabilities.lock_state`)."""
        return cast(LockReader, self.device).screen_locked()

    def keyboard_shown(self) -> bool:
        """Say whether the soft keyboard is up (only where `capabilities.soft_keyboard`)."""
        return cast(KeyboardDriver, self.device).keyboard_shown()

    def hide_keyboard(self) -> None:
        """Hide the soft keyboard, and forget the screen."""
        self.forget()
        cast(KeyboardDriver, self.device).hide_keyboard()

    def open_url(self, url: str) -> None:
        """Open a URL, and forget the screen."""
        self.forget()
        self.device.open_url(url)

    def perform(self, node: Node, action: NativeAction) -> None:
        """Perform a native action, and forget the screen."""
        self.forget()
        self.device.perform(node, action)

    def installed_apps(self) -> Mapping[str, str]:
        """Return the apps the device knows."""
        return self.device.installed_apps()

    def launch_app(self, app_id: str) -> None:
        """Start an app, and forget the screen."""
        self.forget()
        self.device.launch_app(app_id)

    def stop_app(self, app_id: str) -> None:
        """Stop an app, and forget the screen."""
        self.forget()
        self.device.stop_app(app_id)

    def reset_app(self) -> None:
        """Restart the app, and forget the screen."""
        self.forget()
        self.device.reset_app()

    def launch_with(self, app_id: str, options: LaunchOptions) -> None:
        """Launch an app with options (when the device can), and forget the screen."""
        self.forget()
        launcher(self.device).launch_with(app_id, options)

    def app_in_front(self, app_id: str) -> bool:
        """Say whether an app is in front (when the device can tell)."""
        return launcher(self.device).app_in_front(app_id)

    def log_since(self, cursor: int) -> tuple[tuple[LogLine, ...], int]:
        """Return the device's log lines after `cursor` (none when it keeps no log), and the cursor after them."""
        reader = log_of(self.device)
        return reader.log_since(cursor) if reader is not None else ((), cursor)

    def contexts(self) -> tuple[str, ...]:
        """Return the session's contexts (when the device has them)."""
        return switcher(self.device).contexts()

    def current_context(self) -> str:
        """Return the context input goes to (when the device has contexts)."""
        return switcher(self.device).current_context()

    def switch_context(self, name: str) -> None:
        """Switch to another context (when the device has them), and forget the screen: it is another one's."""
        self.forget()
        switcher(self.device).switch_context(name)

    def add_media(self, name: str, data: bytes) -> str:
        """Add a picture or a video to the library (when the device can), and forget the screen."""
        self.forget()
        return library(self.device).add_media(name, data)

    def set_orientation(self, orientation: str) -> None:
        """Turn the screen (when the device can), and forget the screen."""
        self.forget()
        device_settings(self.device).set_orientation(orientation)

    def orientation(self) -> str | None:
        """Say how the screen is turned (None: the device cannot tell)."""
        return device_settings(self.device).orientation()

    def set_permissions(self, app_id: str, permissions: Mapping[str, PermissionChoice]) -> Mapping[str, str]:
        """Set an app's permissions (when the device can), and forget the screen."""
        self.forget()
        return device_settings(self.device).set_permissions(app_id, permissions)

    def permission_states(self, app_id: str) -> Mapping[str, str] | None:
        """Read an app's permissions back (None: the device cannot)."""
        return device_settings(self.device).permission_states(app_id)

    def clear_keychain(self) -> None:
        """Erase the keychain (when the device has one), and forget the screen."""
        self.forget()
        device_settings(self.device).clear_keychain()

    def keychain_items(self) -> int | None:
        """Count the keychain's items (None: the device cannot)."""
        return device_settings(self.device).keychain_items()

    def set_airplane_mode(self, enabled: bool) -> None:
        """Turn airplane mode on or off (when the device can), and forget the screen."""
        self.forget()
        device_settings(self.device).set_airplane_mode(enabled)

    def airplane_mode(self) -> bool | None:
        """Say whether airplane mode is on (None: the device cannot tell)."""
        return device_settings(self.device).airplane_mode()

    def set_location(self, latitude: float, longitude: float) -> None:
        """Put the GPS at a place (when the device can), and forget the screen (an app may show where it is)."""
        self.forget()
        device_settings(self.device).set_location(latitude, longitude)

    def location(self) -> tuple[float, float] | None:
        """Return where the GPS says the phone is (None: the device cannot tell)."""
        return device_settings(self.device).location()

    def device_data(self) -> DeviceData:
        """Return the phone's personal data; a change to it forgets the screen (a dialog, the shade may show)."""
        # The proxy forwards every member of DeviceData (by __getattr__), so it is one.
        return cast(DeviceData, _ForgettingData(self.device.device_data(), self.forget))

    def close(self) -> None:
        """Release the device."""
        self.device.close()


class _ForgettingData:
    """The phone's data, seen through the observer: what can change the screen makes it look again."""

    _CHANGES = frozenset({"change", "show_dialog", "open_shade", "take_photo"})

    def __init__(self, data: DeviceData, forget: Callable[[], None]) -> None:
        self._data = data
        self._forget = forget

    def __getattr__(self, name: str) -> Any:  # a proxy: whatever `DeviceData` has, as it has it
        found = getattr(self._data, name)
        if name not in self._CHANGES:
            return found

        def changing(*args: object, **kwargs: object) -> object:
            try:
                return found(*args, **kwargs)
            finally:
                self._forget()

        return changing
