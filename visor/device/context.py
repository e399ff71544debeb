"""The one context every front end acts through: it waits for an idle app, sends input, counts it and observes.

Time is whole microseconds (see `visor.clock`). Every wait is bounded by a deadline and every poll sleeps at
least `visor.clock.MIN_POLL_US`, so a wait ends after a bounded number of looks at the screen.

What differs between front ends is only how they word two facts, so those are the two hooks a front end
overrides: what to do when the app stays busy (`_busy`), and what a device error while sending means
(`_send_failed`). A scenario step fails with a step failure; an agent tool answers with a tool code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NoReturn, TypeVar, cast

from visor.clock import Clock, ms_to_us, pause, us_to_ms
from visor.device.apps import LaunchOptions, PermissionChoice, launcher, library
from visor.device.contexts import switcher
from visor.device.logs import LogLine, log_of
from visor.device.observer import ObservingDevice
from visor.device.protocol import (
    Device,
    DeviceInfo,
    ElementDriver,
    ElementHandle,
    Key,
    KeyboardDriver,
    LockReader,
    NativeAction,
    NativeActionName,
    NativeFinder,
    NativeFound,
    Observation,
    PathPoint,
    UnsupportedInput,
)
from visor.device.settings import device_settings
from visor.errors import VisorError
from visor.ui.coords import Screen, Space
from visor.ui.geometry import Point, Size
from visor.ui.tree import Node

T = TypeVar("T")
#: How many of the elements a device's own locator engine found are described (and matched to the tree): the
#: first on screen is nearly always among them, and each costs the device a round trip or two.
NATIVE_LIMIT = 3


class Kernel:
    """A device, a clock and a start time; every input sent through it is waited for, counted and checked."""

    def __init__(self, device: Device, clock: Clock, poll_us: int) -> None:
        self.device = device
        self.clock = clock
        self.poll_us = poll_us
        self.started_us = clock.monotonic_us()
        #: Inputs sent, and whether one of them may have applied without an answer (its outcome is unknown).
        self.sent = 0
        self.unknown = False
        #: Texts put into (or expected of) fields known not to be password fields: results may show them.
        self.disclosed: set[str] = set()

    # -- the device and time -----------------------------------------------------------------------------------

    @property
    def info(self) -> DeviceInfo:
        """Describe the device."""
        return self.device.info

    @property
    def platform(self) -> str:
        """Return the device's platform."""
        return self.device.info.platform

    @property
    def size(self) -> Size:
        """Return the screen size in device coordinates."""
        return self.device.info.size

    def screen(self, space: Space = Space.DEVICE) -> Screen:
        """Return the coordinate model of the screen, able to convert from `space`."""
        return Screen(self.size, self.pixel_scale() if space == Space.PIXEL else 1.0)

    def pixel_scale(self) -> float:
        """Return screenshot pixels per device coordinate (1 unless a front end measures it)."""
        return 1.0

    def now_us(self) -> int:
        """Return the clock in µs."""
        return self.clock.monotonic_us()

    def restart(self) -> None:
        """Start the time again (the action runs again after its session was recreated)."""
        self.started_us = self.clock.monotonic_us()

    def elapsed_us(self) -> int:
        """Return how long the action has run."""
        return self.clock.monotonic_us() - self.started_us

    def elapsed_ms(self) -> int:
        """Return how long the action has run, in whole ms."""
        return us_to_ms(self.elapsed_us())

    def since_ms(self, started_us: int) -> int:
        """Return the whole ms elapsed since `started_us` (a reading of `now_us`)."""
        return us_to_ms(self.clock.monotonic_us() - started_us)

    def sleep_ms(self, ms: int) -> None:
        """Let `ms` milliseconds pass."""
        if ms > 0:
            self.clock.sleep_us(ms_to_us(ms))

    def pause_until(self, deadline_us: int, poll_us: int | None = None) -> bool:
        """Sleep one poll interval, or until the deadline if sooner; False once it has passed (`visor.clock.pause`)."""
        return pause(self.clock, deadline_us, self.poll_us if poll_us is None else poll_us)

    # -- observing ---------------------------------------------------------------------------------------------

    def observe(self, *, fresh: bool = False) -> Observation:
        """Look at the screen: a new look with `fresh`, else the last one while nothing can have changed it."""
        if fresh and isinstance(self.device, ObservingDevice):
            self.device.forget()
        return self._read(self.device.observe)

    def screenshot(self) -> bytes:
        """Take a screenshot."""
        return self._read(self.device.screenshot)

    def find_element(self, kind: str, value: str) -> ElementHandle | None:
        """Find an element with the device's own locators (where `info.capabilities.element_handles`).

        Raises:
            UnsupportedInput: the selector has no equivalent locator on the device.
        """
        driver = cast(ElementDriver, self.device)
        return self._read(lambda: driver.find_element(kind, value))

    def click_element(self, handle: ElementHandle) -> None:
        """Click an element the device found (an input: waited for, counted)."""
        driver = cast(ElementDriver, self.device)
        self._send(lambda: driver.click_element(handle))

    def type_into_element(self, handle: ElementHandle, text: str) -> None:
        """Type into an element the device found (an input: waited for, counted)."""
        driver = cast(ElementDriver, self.device)
        self._send(lambda: driver.type_into_element(handle, text))

    def element_text(self, handle: ElementHandle) -> str:
        """Read the text of an element the device found."""
        driver = cast(ElementDriver, self.device)
        return self._read(lambda: driver.element_text(handle))

    def typed_text(self) -> str | None:
        """Read back the field the last `type_text` went into, where the device reads elements itself.

        None elsewhere, or when the field is gone: the screen's tree is then the check.
        """
        if not self.info.capabilities.element_handles:
            return None
        driver = cast(ElementDriver, self.device)
        return self._read(driver.typed_text)

    def find_native(self, kind: str, expression: str) -> NativeFound:
        """Find with the device's own locator engine: only for the kinds `info.capabilities.native_locators` lists.

        Raises:
            UnsupportedInput: the device's driver does not know the strategy.
            InputRejected: the device refused the expression.
        """
        finder = cast(NativeFinder, self.device)
        return self._read(lambda: finder.find_native(kind, expression, NATIVE_LIMIT))

    def keyboard_shown(self) -> bool | None:
        """Say whether the soft keyboard is up (None: the device cannot tell, `capabilities.soft_keyboard`)."""
        if not self.info.capabilities.soft_keyboard:
            return None
        driver = cast(KeyboardDriver, self.device)
        return self._read(driver.keyboard_shown)

    def screen_locked(self) -> bool | None:
        """Say whether the screen is locked, in one cheap call (None: the device cannot tell without the screen)."""
        if not self.info.capabilities.lock_state:
            return None
        driver = cast(LockReader, self.device)
        try:
            return self._read(driver.screen_locked)
        except UnsupportedInput:
            return None

    def installed_apps(self) -> Mapping[str, str]:
        """Return the apps the device knows."""
        return self._read(self.device.installed_apps)

    def native_actions(self) -> frozenset[NativeActionName]:
        """Return the native actions the runtime can perform."""
        return self.info.native_actions

    def _read(self, read: Callable[[], T]) -> T:
        """Read from the device (a front end may word a failed read its own way)."""
        return read()

    # -- input -------------------------------------------------------------------------------------------------

    def disclose(self, node: Node, *texts: str | None) -> None:
        """Let results show texts that went into (or are expected of) `node`, unless it is a password field."""
        if not node.password:
            self.disclosed.update(text for text in texts if text)

    def tap(self, point: Point) -> None:
        """Tap a point."""
        self._send(lambda: self.device.tap(point))

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """Move one to five fingers."""
        self._send(lambda: self.device.gesture(fingers))

    def type_text(self, text: str, into: Node | None) -> None:
        """Type text (into `into`, else the focused field)."""
        if into is not None:
            self.disclose(into, text)
        self._send(lambda: self.device.type_text(text, into))

    def press_key(self, key: Key) -> None:
        """Press a key."""
        self._send(lambda: self.device.press_key(key))

    def hide_keyboard(self) -> None:
        """Take the soft keyboard down (an input: waited for, counted).

        Raises:
            UnsupportedInput: the device has no keyboard it can hide (`capabilities.soft_keyboard`); nothing was sent.
        """
        if not self.info.capabilities.soft_keyboard:
            raise UnsupportedInput(
                f"this device ({self.info.runtime}) cannot tell or hide its soft keyboard",
                next_step="Tap outside the field, or press back (Android) to take the keyboard down.",
            )
        driver = cast(KeyboardDriver, self.device)
        self._send(driver.hide_keyboard)

    def open_url(self, url: str) -> None:
        """Open a URL (a deep link)."""
        self._send(lambda: self.device.open_url(url))

    def perform(self, node: Node, action: NativeAction) -> None:
        """Perform a native action on an element."""
        self.disclose(node, action.text)
        self._send(lambda: self.device.perform(node, action))

    def launch_app(self, app_id: str) -> None:
        """Start an app."""
        self._send(lambda: self.device.launch_app(app_id))

    def stop_app(self, app_id: str) -> None:
        """Force-stop an app."""
        self._send(lambda: self.device.stop_app(app_id))

    def launch_with(self, app_id: str, options: LaunchOptions) -> None:
        """Launch an app with options (refused, nothing sent, on a device that cannot)."""
        apps = launcher(self.device)
        self._send(lambda: apps.launch_with(app_id, options))

    def log_since(self, cursor: int) -> tuple[tuple[LogLine, ...], int]:
        """Return the device's log lines written after `cursor`, and the cursor after them (none: it keeps no log)."""
        reader = log_of(self.device)
        return self._read(lambda: reader.log_since(cursor)) if reader is not None else ((), cursor)

    def contexts(self) -> tuple[str, ...]:
        """Return the session's contexts: its native screen and the web views it can drive.

        Raises:
            UnsupportedInput: the device has no contexts (nothing was sent).
        """
        device = switcher(self.device)
        return self._read(device.contexts)

    def current_context(self) -> str:
        """Return the context input goes to and the screen is read from."""
        device = switcher(self.device)
        return self._read(device.current_context)

    def switch_context(self, name: str) -> None:
        """Make `name` the context input goes to and the screen is read from (waited for, counted as an input)."""
        device = switcher(self.device)
        self._send(lambda: device.switch_context(name))

    def app_in_front(self, app_id: str) -> bool:
        """Say whether `app_id` is the app in front."""
        apps = launcher(self.device)
        return self._read(lambda: apps.app_in_front(app_id))

    def add_media(self, name: str, data: bytes) -> str:
        """Add a picture or a video to the device's library; return where it went."""
        media = library(self.device)
        kept: list[str] = []
        self._send(lambda: kept.append(media.add_media(name, data)))
        return kept[0]

    def set_orientation(self, orientation: str) -> None:
        """Turn the screen (refused, nothing sent, where the device cannot)."""
        settings = device_settings(self.device)
        self._send(lambda: settings.set_orientation(orientation))

    def orientation(self) -> str | None:
        """Say how the screen is turned (None: the device cannot tell)."""
        return self._read(device_settings(self.device).orientation)

    def set_permissions(self, app_id: str, permissions: Mapping[str, PermissionChoice]) -> Mapping[str, str]:
        """Set an app's permissions; return each one set and its new state (refused, nothing sent, where it cannot)."""
        settings = device_settings(self.device)
        states: list[Mapping[str, str]] = []
        self._send(lambda: states.append(settings.set_permissions(app_id, permissions)))
        return states[0]

    def permission_states(self, app_id: str) -> Mapping[str, str] | None:
        """Read an app's permissions back (None: the device cannot)."""
        settings = device_settings(self.device)
        return self._read(lambda: settings.permission_states(app_id))

    def clear_keychain(self) -> None:
        """Erase the keychain (refused, nothing sent, on a device without one)."""
        settings = device_settings(self.device)
        self._send(settings.clear_keychain)

    def keychain_items(self) -> int | None:
        """Count the keychain's items (None: the device cannot)."""
        return self._read(device_settings(self.device).keychain_items)

    def set_airplane_mode(self, enabled: bool) -> None:
        """Turn airplane mode on or off (refused, nothing sent, where the platform cannot)."""
        settings = device_settings(self.device)
        self._send(lambda: settings.set_airplane_mode(enabled))

    def airplane_mode(self) -> bool | None:
        """Say whether airplane mode is on (None: the device cannot tell)."""
        return self._read(device_settings(self.device).airplane_mode)

    def set_location(self, latitude: float, longitude: float) -> None:
        """Put the GPS at a place (refused, nothing sent, where the device cannot)."""
        settings = device_settings(self.device)
        self._send(lambda: settings.set_location(latitude, longitude))

    def location(self) -> tuple[float, float] | None:
        """Return where the GPS says the phone is (None: the device cannot tell)."""
        return self._read(device_settings(self.device).location)

    def reset_app(self) -> None:
        """Restart the app under test (no idle wait: a reset is how a stuck app is left)."""
        self._deliver(self.device.reset_app)

    def _send(self, send: Callable[[], None]) -> None:
        self.wait_idle()
        self._deliver(send)

    def _deliver(self, send: Callable[[], None]) -> None:
        try:
            send()
        except VisorError as exc:
            self._send_failed(exc)
        self.sent += 1

    # -- what a front end words its own way --------------------------------------------------------------------

    def wait_idle(self) -> None:
        """Wait until the app accepts input, within what the front end allows (`_idle_budget_us`)."""
        busy_us = ms_to_us(self.device.busy_ms())
        if busy_us <= 0:
            return
        budget = self._idle_budget_us()
        if busy_us > budget:
            self.clock.sleep_us(max(0, budget))
            self._busy(budget)
        self.clock.sleep_us(busy_us)

    def _idle_budget_us(self) -> int:
        """Return how long a busy app may be waited for before input is refused."""
        raise NotImplementedError

    def _busy(self, waited_us: int) -> NoReturn:
        """Refuse input: the app stayed busy for `waited_us`."""
        raise NotImplementedError

    def _send_failed(self, exc: VisorError) -> NoReturn:
        """Report a device error raised while sending an input (by default, as it is)."""
        raise exc
