"""The Appium runtime: the device protocol over a WebDriver session with an Appium 2/3 server.

One session per run (a benchmark keeps it for every run unless told otherwise); it is always closed, also on
errors and Ctrl-C. A lost session is recreated once and the step runs again. Taps and gestures are W3C pointer
actions (one to five fingers); text goes to the target element (found natively by its resource id,
accessibility id, or XPath) or to the focused one; keys are Android key codes or iOS buttons. Native actions
run the driver command `native.py` maps them to, on the element found natively; apps are launched and stopped
with the drivers' `mobile:` app commands.
"""

from __future__ import annotations

import base64
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from visor.device.apps import LaunchOptions, PermissionChoice
from visor.device.data import DeviceData
from visor.device.logs import DEVICE_LINES, LogLine
from visor.device.protocol import (
    Capabilities,
    DeviceInfo,
    ElementHandle,
    InputRejected,
    Key,
    NativeAction,
    NativeElement,
    NativeFound,
    Observation,
    PathPoint,
    SessionRestarted,
    UnsupportedInput,
)
from visor.device.video import Changes, Video
from visor.errors import ActionError, TargetError
from visor.jsontypes import JsonObject, JsonValue
from visor.runtimes.adb import Adb
from visor.runtimes.appium import device_logs, device_settings, keys, launching, native, web
from visor.runtimes.appium.android_data import AndroidData
from visor.runtimes.appium.capabilities import AppiumSettings, build_capabilities
from visor.runtimes.appium.described import described, find_described, settings_for
from visor.runtimes.appium.error_mapping import START, SessionLost, client_missing, mapped
from visor.runtimes.appium.locators import NATIVE_STRATEGIES, exact_locator, locator, selector_locator
from visor.runtimes.appium.recording import page_picture, recording_options
from visor.scenario import contexts
from visor.ui.geometry import Point, Rect, Size
from visor.ui.source import PageSourceError, parse_xml
from visor.ui.tree import Node

if TYPE_CHECKING:
    from appium.options.common import AppiumOptions
    from appium.webdriver.client_config import AppiumClientConfig
    from appium.webdriver.webdriver import WebDriver
    from appium.webdriver.webelement import WebElement
    from selenium.webdriver.remote.webelement import WebElement as SeleniumElement

    from visor.runtimes.appium.transport import DeadlineConnection

TAP_MS = 60
#: A real device: wall time, page sources reused for 0.1 s, apps it may not list (launchable by id all the same),
#: and a session that takes seconds to start.
CAPABILITIES = Capabilities(expensive_sessions=True, element_handles=True, soft_keyboard=True, lock_state=True)
#: A web page: no element handles (the tree finds every element), no soft keyboard, and a session cheap enough
#: (under a second) for each run of a benchmark to start its own, in a fresh browser: a warm cache is state one
#: run leaves the next (a page's first load may lay it out otherwise than later ones, as Swagger UI's does).
WEB_CAPABILITIES = Capabilities(expensive_sessions=False)
#: The emulated phone's screen in CSS pixels: the web platform's screen (a mobile page's viewport is as large).
_VIEWPORT = "return {width: screen.width, height: screen.height}"
#: The one context of a browser's session, as Appium names a Chrome browser's.
_BROWSER = "CHROMIUM"
#: The attribute naming an element's class, by platform (UiAutomator2's `class`, XCUITest's `type`).
_CLASS_ATTRIBUTE = {"android": "class", "ios": "type"}
_T = TypeVar("_T")


class AppiumDevice:
    """A phone, emulator or simulator behind an Appium server."""

    def __init__(self, settings: AppiumSettings, *, installed_drivers: Callable[[], list[str]] | None = None) -> None:
        self.settings = settings
        self.capabilities = build_capabilities(settings)
        #: A local browser's own profile folder: its processes are ended by it, even when its driver died.
        self._profile = (
            web.own_profile(self.capabilities)
            if settings.platform == "web" and "appium:executable" in (self.capabilities)
            else None
        )
        self._installed_drivers = installed_drivers
        self._driver: WebDriver | None = None
        self._info: DeviceInfo | None = None
        #: The phone's data through adb, made when first asked for.
        self._data: DeviceData | None = None
        #: Native strategies the driver answered "unknown" to, with what it said.
        self._refused: dict[str, str] = {}
        #: Why the driver cannot say whether the screen is locked (asked once a session; "": not refused).
        self._lock_refused = ""
        #: The element the last `type_text` typed into (read back by `typed_text`).
        self._typed: SeleniumElement | None = None
        #: The elements found for `find_element`, by reference (the last find's only).
        self._handles: dict[str, WebElement] = {}
        #: The app's package as the last page source showed it (completes short resource ids).
        self._package = settings.app_id or ""
        #: The web page as last read: its elements' CSS paths find them again.
        self._page: web.WebPage | None = None
        #: The context input goes to (`contexts.NATIVE`, or a web view's: then the screen is its page).
        self._context = contexts.NATIVE
        #: The session's start in the device log's clock (epoch milliseconds): its lines' times count from it.
        self._started_ms = 0
        #: Why the driver keeps no device log ("": it keeps one, or was not asked yet); asked once, never again.
        self.log_refused = ""
        #: The driver is recording the screen (a phone), or the page's pictures as it is read (the web).
        self._recording = False
        self._pictures: Changes[bytes] | None = None
        self.sessions = 0
        self._start()

    # -- session -------------------------------------------------------------------------------------------

    def _start(self) -> None:
        """Create a session and read the device's size; on any failure, delete the session the server created."""
        client = appium_client()
        settings = self.settings
        config = client.config(
            remote_server_addr=settings.server_url,
            keep_alive=True,
            timeout=settings.connection_timeout_s,
            username=settings.username,
            password=settings.password,
        )
        executor = client.connection(
            config,
            request_s=settings.connection_timeout_s,
            connect_s=settings.connect_timeout_s,
            shown=settings.public_url,
        )
        options = client.options().load_capabilities(self.capabilities)
        try:
            with self._mapped(START):
                driver = client.remote(executor, options=options)
                returned = driver.capabilities if isinstance(driver.capabilities, dict) else {}
                platform = self.settings.platform or _platform(returned)
                web_page = platform == "web"
                # The page's viewport is its screen (the window around it is the desktop's).
                rect = driver.execute_script(_VIEWPORT) if web_page else driver.get_window_rect()
                size = _window_size(rect)
                if not web_page:
                    _describe_finds(driver, platform, returned)
        except BaseException:
            # The server may have created the session before the failure (or Ctrl-C): a device farm would keep
            # the phone until the session's newCommandTimeout, so it is deleted here, within its deadline.
            _discard(executor)
            raise
        self._driver = driver
        self._started_ms = int(time.time() * 1000)
        self.sessions += 1
        self._context = _BROWSER if platform == "web" else contexts.NATIVE
        self._page = None
        name = str(returned.get("deviceName") or returned.get("appium:deviceName") or settings.device or "appium")
        self._package = self._package or str(returned.get("appPackage") or returned.get("appium:appPackage") or "")
        self._info = DeviceInfo(
            platform=platform,
            name=name,
            runtime="appium",
            size=size,
            model=str(returned.get("deviceModel") or returned.get("automationName") or ""),
            app_id=settings.app_id or "",
            native_actions=native.native_actions(platform),
            capabilities=WEB_CAPABILITIES
            if platform == "web"
            else replace(CAPABILITIES, native_locators=frozenset(NATIVE_STRATEGIES.get(platform, {}))),
        )
        if platform == "web" and settings.app_id and not settings.attach:
            self._open_app_page(settings.app_id)

    def _open_app_page(self, app_id: str) -> None:
        """Open the web app's site as a session starts, as a phone's session starts its app; ended if it fails."""
        try:
            self.launch_app(app_id)
        except BaseException:
            self._quit()  # the caller gets no device to close
            raise

    def _mapped(self, operation: str) -> contextlib.AbstractContextManager[None]:
        """Translate the client's exceptions while doing `operation` (errors.py), secrets scrubbed."""
        settings = self.settings
        return mapped(operation, settings.public_url, self._installed_drivers, secrets=settings.secrets)

    def _call(self, operation: str, action: Callable[[WebDriver], _T]) -> _T:
        """Run one WebDriver command; on a lost session start a new one and ask for the step to run again."""
        try:
            with self._mapped(operation):
                return action(self.driver)
        except SessionLost as lost:
            inside = self._context
            self._quit()
            self._start()
            again = self._reentered(inside)
            raise SessionRestarted(
                f"the Appium session was lost while trying to {operation} and was recreated ({lost}){again}",
                next_step="If this repeats, raise appium:newCommandTimeout or check the device's connection.",
            ) from lost

    def _reentered(self, context: str) -> str:
        """Switch a recreated session back into the web view the lost one was in; return what to add to the news."""
        if context == self._context:
            return ""
        with contextlib.suppress(ActionError):  # the web view may not be back yet: the step then says so
            with self._mapped(f"switch back to {context}"):
                self._enter(context)
            return f"; back in {context}"
        return f"; its web view {context} is not back, so it is on the native screen"

    @property
    def driver(self) -> WebDriver:
        """Return the live session."""
        if self._driver is None:
            raise TargetError("the Appium session is closed", next_step="Run the scenario again.")
        return self._driver

    @property
    def session_id(self) -> str:
        """Return the current session's id."""
        return str(self.driver.session_id)

    # -- observe --------------------------------------------------------------------------------------------

    @property
    def info(self) -> DeviceInfo:
        """Describe the device (read when the session started; in a web view, its screen is the page's)."""
        assert self._info is not None
        page = self._page
        if page is not None and self._context != contexts.NATIVE and self._info.platform != "web":
            return replace(self._info, size=page.tree.size, native_actions=native.native_actions("web"))
        return self._info

    @property
    def _on_page(self) -> bool:
        """Say whether the screen is a web page: the web platform's, or a hybrid app's web view."""
        return self._context != contexts.NATIVE

    def observe(self) -> Observation:
        """Read the page source and parse it (a web page: its tree, from the live DOM in one script call)."""
        if self._on_page:
            script, settle = web.tree_script(), (web.MAX_ELEMENTS, web.QUIET_MS, web.SETTLE_MS)
            reply = self._read_page(script, settle)
            page = self._page = web.read_page(reply, self._hit_test)
            quiet = page.quiet_ms * 1000
            if self._pictures is not None:
                self._pictures.saw(_now_us(), self.screenshot())
            return Observation(page.tree, quiet_us=quiet, css=lambda selector: self._css(page, selector))
        xml = str(self._call("read the page source", lambda d: d.page_source))
        try:
            tree = parse_xml(xml)
        except PageSourceError as exc:
            raise ActionError(str(exc), likely_cause="The driver returned a page source visor cannot read.") from exc
        self._package = tree.package or self._package
        return Observation(tree, xml)

    def _read_page(self, script: str, settle: tuple[int, ...]) -> object:
        """Run the tree script in the page; a web view's driver that runs no script says which web view it is."""
        try:
            return self._call("read the page", lambda d: d.execute_async_script(script, *settle))
        except UnsupportedInput as exc:
            if self.info.platform == "web":
                raise
            raise UnsupportedInput(
                f"the web view {self._context} cannot be read: its driver runs no script in it ({exc.message})",
                likely_cause="The driver does not drive web views (a web view is read by its page's DOM, through "
                "the driver's chromedriver or Safari's web inspector).",
                next_step="Run on UiAutomator2 or XCUITest, whose web views run scripts; on another driver keep "
                "the steps in the native context.",
            ) from exc

    def _hit_test(self, point: Point) -> object:
        """Ask the browser what it paints topmost at `point`: the CSS path of that element (None: none)."""
        script = web.hit_script()
        return self._call(f"hit-test {point.x},{point.y}", lambda d: d.execute_script(script, point.x, point.y))

    def _css(self, page: web.WebPage, selector: str) -> list[Node]:
        """Return the nodes of `page` a css= selector matches, as the browser's querySelectorAll finds them."""
        script, limit = web.css_script(), web.MAX_ELEMENTS
        reply = self._call(f"find css={selector}", lambda d: d.execute_script(script, selector, limit))
        return web.css_nodes(page, selector, reply)

    def screenshot(self) -> bytes:
        """Take a screenshot."""
        return bytes(self._call("take a screenshot", lambda d: d.get_screenshot_as_png()))

    def busy_ms(self) -> int:
        """Real devices report no busy time: the drivers wait for the app to idle themselves."""
        return 0

    def find_element(self, kind: str, value: str) -> ElementHandle | None:
        """Find a selector's elements with the driver's locators; return the first, by reference (None: none).

        Raises:
            UnsupportedInput: the selector has no driver locator (it needs the tree), or the driver lacks it.
        """
        found = selector_locator(self.info.platform, kind, value, self._package) if not self._on_page else None
        if found is None:
            raise UnsupportedInput(f"{kind}= needs the screen's tree")
        strategy, expression = found
        elements = self._find_all(strategy, expression)
        if not elements:
            return None
        first = elements[0][0]
        self._handles = {str(first.id): first}
        return ElementHandle(str(first.id), len(elements), strategy, expression)

    def click_element(self, handle: ElementHandle) -> None:
        """Click an element found by `find_element`."""
        self._call("click the element", lambda d: self._handle(handle).click())

    def type_into_element(self, handle: ElementHandle, text: str) -> None:
        """Send keys to an element found by `find_element`."""
        self._call("type into the element", lambda d: self._handle(handle).send_keys(text))

    def element_text(self, handle: ElementHandle) -> str:
        """Read the text of an element found by `find_element`."""
        return str(self._call("read the element's text", lambda d: self._handle(handle).text) or "")

    def _find_all(self, strategy: str, expression: str) -> list[tuple[WebElement, Mapping[str, object]]]:
        """Find elements by a driver strategy, each with its answer (one refused as unknown is not asked again).

        Raises:
            UnsupportedInput: the driver does not know the strategy (now, or earlier in this session).
            InputRejected: the driver refused the expression.
        """
        refused = self._refused.get(strategy)
        if refused is not None:
            raise UnsupportedInput(refused)
        try:
            found = self._call(f"find elements by {strategy}", lambda d: find_described(d, strategy, expression))
        except UnsupportedInput as exc:
            self._refused[strategy] = f"the driver does not know the {strategy!r} strategy ({exc.message})"
            raise UnsupportedInput(self._refused[strategy]) from exc
        return found

    def _handle(self, handle: ElementHandle) -> WebElement:
        element = self._handles.get(handle.ref)
        if element is None:
            raise InputRejected("the element found is no longer known", next_step="Find the element again.")
        return element

    def find_native(self, kind: str, expression: str, limit: int) -> NativeFound:
        """Find elements with the driver's own strategy for `kind`; read the box and class of the first `limit`.

        A strategy the driver answered "unknown" to is not asked again in this session.

        Raises:
            UnsupportedInput: the driver does not know the strategy.
            InputRejected: the driver refused the expression.
        """
        strategy = NATIVE_STRATEGIES.get(self.info.platform, {}).get(kind)
        if strategy is None or self._on_page:
            where = f"in the web view {self._context}" if self._on_page else f"on {self.info.platform}"
            raise UnsupportedInput(f"{kind}= is not resolved natively {where}")
        elements = self._find_all(strategy, expression)
        platform = self.info.platform
        attribute = _CLASS_ATTRIBUTE.get(platform, "class")

        def describe(driver: WebDriver) -> tuple[NativeElement, ...]:
            # The find's answer carries box and class where the driver honours the session's settings.
            first = elements[:limit]
            return tuple(described(raw, platform) or _native_element(found, attribute) for found, raw in first)

        return NativeFound(len(elements), self._call(f"read the elements found by {strategy}", describe), strategy)

    # -- input -------------------------------------------------------------------------------------------------

    def tap(self, point: Point) -> None:
        """Tap with one finger (W3C pointer actions)."""
        self.gesture([[PathPoint(point.x, point.y, 0), PathPoint(point.x, point.y, TAP_MS)]])

    def gesture(self, fingers: Sequence[Sequence[PathPoint]]) -> None:
        """Move one to five fingers along their paths, in one W3C actions request."""
        if not 1 <= len(fingers) <= 5 or any(not path for path in fingers):
            raise InputRejected("a gesture needs one to five fingers, each with at least one point")
        if self._on_page:
            fingers = [_held_at_the_end(path) for path in fingers]
        payload = {"actions": [_finger(f"finger{index + 1}", path) for index, path in enumerate(fingers)]}
        self._call("perform pointer actions", lambda d: d.execute("actions", payload))

    def type_text(self, text: str, into: Node | None = None) -> None:
        """Send text to `into` (found natively) or to the focused element."""
        self._typed = None

        def send(driver: WebDriver) -> None:
            element = self._element(driver, into) if into is not None else _focused(driver, "type into")
            element.send_keys(text)
            self._typed = element

        self._call("type into the element" if into is not None else "type into the focused element", send)

    def typed_text(self) -> str | None:
        """Read the text of the element the last `type_text` typed into (None: it is gone, or none is known)."""
        element = self._typed
        if element is None:
            return None
        web_page = self._on_page
        try:
            return str(self._call("read the typed field's text", lambda d: _field_text(element, web_page)) or "")
        except InputRejected:  # gone: typing submitted the form, or the screen changed
            return None

    def perform(self, node: Node, action: NativeAction) -> None:
        """Run the driver command mapped to `action` (native.py) on the element observed as `node`.

        Raises:
            UnsupportedInput: the platform has no command for the action (nothing was sent).
            InputRejected: a wrong argument or element (nothing was sent), or the element is gone or refuses.
        """
        platform = "web" if self._on_page else self.info.platform
        if action.name not in native.native_actions(platform):
            raise native.unsupported(platform, action.name)
        native.check(platform, action, node)

        def run(driver: WebDriver) -> None:
            element = self._element(driver, node)
            for step in native.native_command(platform, action, str(element.id), node):
                _run(driver, element, step)

        self._call(f"perform {action.name.value} on {node.describe()}", run)

    def _element(self, driver: WebDriver, node: Node) -> WebElement:
        """Find `node` natively: by its id when that is unique on the screen, else by its exact place.

        On a web page, by the CSS path the last read wrote for it.
        """
        platform = self.info.platform
        if self._on_page:
            return self._page_element(driver, node)
        found: list[WebElement] = []
        for by, value in dict.fromkeys((locator(platform, node), exact_locator(platform, node))):
            found = driver.find_elements(by, value)
            if len(found) == 1:
                return found[0]
        raise InputRejected(
            f"{node.describe()} is {'not' if not found else 'no longer uniquely'} on the screen",
            likely_cause="The screen changed since it was last read.",
            next_step="Read the screen again and retarget the element.",
        )

    def _page_element(self, driver: WebDriver, node: Node) -> WebElement:
        """Find a web page's element by the CSS path the last read of the page wrote for it."""
        page = self._page
        if page is None:
            raise InputRejected("the page has not been read yet", next_step="Read the screen first.")
        found = driver.find_elements("css selector", web.path_of(page, node))
        if len(found) != 1:
            raise InputRejected(
                f"{node.describe()} is no longer where the page had it",
                likely_cause="The page changed since it was last read.",
                next_step="Read the screen again and retarget the element.",
            )
        return found[0]

    def press_key(self, key: Key) -> None:
        """Press a key: Android key codes; on iOS home and the volume buttons, the keyboard's keys; lock and unlock.

        Raises:
            UnsupportedInput: an iPhone lacks the key (keys.py; nothing was sent).
        """
        call = keys.key_call(self.info.platform, key)
        doing = f"press {key.value}"
        if isinstance(call, keys.Screen):
            self._call("lock the screen" if call.locked else "unlock the screen", lambda d: _screen_lock(d, call))
        elif isinstance(call, keys.Button):
            self._call(doing, lambda d: d.execute_script("mobile: pressButton", {"name": call.name}))
        elif isinstance(call, keys.Typed):
            self._call(doing, lambda d: _focused(d, f"{doing} in").send_keys(call.text))
        elif isinstance(call, keys.History):
            self._call("go back", lambda d: d.back())
        elif isinstance(call, keys.WebKey):
            press = [{"type": "keyDown", "value": call.value}, {"type": "keyUp", "value": call.value}]
            payload = {"actions": [{"type": "key", "id": "keyboard", "actions": press}]}
            self._call(doing, lambda d: d.execute("actions", payload))
        else:
            self._call(doing, lambda d: d.press_keycode(call.code))

    def screen_locked(self) -> bool:
        """Ask the driver whether the screen is locked (`mobile: isLocked`; a page in Chromium has no lock screen).

        A driver without the call is asked once a session: then the screen tells.

        Raises:
            UnsupportedInput: the driver does not know the call.
        """
        if self.info.platform == "web":
            return False
        if self._lock_refused:
            raise UnsupportedInput(self._lock_refused)
        try:
            return bool(self._call("tell whether the screen is locked", lambda d: d.is_locked()))
        except UnsupportedInput as exc:
            self._lock_refused = exc.message
            raise

    def keyboard_shown(self) -> bool:
        """Ask the driver whether the soft keyboard is up (`mobile: isKeyboardShown`; a page in Chromium has none)."""
        if self.info.platform == "web":
            return False
        return bool(self._call("tell whether the keyboard is shown", lambda d: d.is_keyboard_shown()))

    def hide_keyboard(self) -> None:
        """Ask the driver to take the soft keyboard down (`mobile: hideKeyboard`; on a web page there is none)."""
        if self.info.platform == "web":
            return
        self._call("hide the keyboard", lambda d: d.hide_keyboard())

    # -- contexts -------------------------------------------------------------------------------------------------

    def contexts(self) -> tuple[str, ...]:
        """Return the session's contexts (a browser's one page is `CHROMIUM`)."""
        if self.info.platform == "web":
            return (_BROWSER,)
        listed = self._call("list the contexts", lambda d: d.contexts)
        return tuple(str(name) for name in listed) if isinstance(listed, list) else ()

    def current_context(self) -> str:
        """Return the context the driver says input goes to."""
        if self.info.platform == "web":
            return _BROWSER
        return str(self._call("read the current context", lambda d: d.current_context) or "")

    def switch_context(self, name: str) -> None:
        """Switch input and reading to `name`: a web view is then read and driven as a web page.

        Raises:
            UnsupportedInput: a browser's page has no other context (nothing was sent).
            InputRejected: the driver did not switch (the context is gone, its debugger unreachable).
        """
        if self.info.platform == "web":
            if name != _BROWSER:
                raise UnsupportedInput(
                    f"a web page has no {name} context: the browser's page is its only one ({_BROWSER})",
                    next_step="Run the scenario on the hybrid app (--platform android or ios) to reach its "
                    "native screen.",
                )
            return
        self._call(f"switch to the context {name}", lambda d: self._enter(name))

    def _enter(self, name: str) -> None:
        """Switch the driver to `name` and check it did; what was found in the other context is forgotten."""
        driver = self.driver
        driver.switch_to.context(name)
        now = str(driver.current_context or "")
        self._context, self._page, self._typed, self._handles = now or name, None, None, {}
        if now != name:
            raise InputRejected(
                f"the driver was asked to switch to {name} but is in {now or 'no context'}",
                likely_cause="The web view went away as it was switched to, or the driver mapped it to another.",
                next_step="Check the app shows its web view, and that its debugging is on (Android: "
                "WebView.setWebContentsDebuggingEnabled; iOS: isInspectable).",
            )

    def open_url(self, url: str) -> None:
        """Open a deep link in the app under test (or let the system choose the app)."""
        app = self.settings.app_id
        if self._on_page:
            self._open_page(url)
        elif app:
            name = "bundleId" if self.info.platform == "ios" else "package"
            self._call("open a deep link", lambda d: d.execute_script("mobile: deepLink", {"url": url, name: app}))
        else:
            self._call("open a URL", lambda d: d.get(url))

    def _open_page(self, url: str) -> None:
        """Open a page; one that does not load within the session's page-load timeout fails, saying so."""
        try:
            self._call(f"open {url}", lambda d: d.get(url))
        except ActionError as exc:
            if "timed out" not in exc.message.lower() and "timeout" not in exc.message.lower():
                raise
            limit = self.capabilities.get("timeouts")
            ms = limit.get("pageLoad") if isinstance(limit, dict) else None
            raise ActionError(
                f"the page {url} did not load within {ms} ms" if ms else f"the page {url} did not load in time",
                likely_cause="Its server never answered, or the page keeps loading (a request that never ends).",
                next_step="Open it in a browser to see; if it is only slow, raise VISOR_WEB_PAGE_LOAD_MS.",
            ) from exc

    def installed_apps(self) -> Mapping[str, str]:
        """Return the app under test (id -> id): listing every app is neither cheap nor the same everywhere."""
        app = self.settings.app_id
        return {app: app} if app else {}

    def launch_app(self, app_id: str) -> None:
        """Start an app, or bring it to the front when it runs (a web page's app is its address: opened)."""
        if self.info.platform == "web":
            self._open_page(web.app_url(app_id))
            return
        self._app_command("start", "launch", app_id)

    def stop_app(self, app_id: str) -> None:
        """Stop an app (Android: force-stop; iOS: XCTest's terminate; a web page: leave it for a blank one)."""
        if self.info.platform == "web":
            web.app_url(app_id)
            self._call(f"leave {app_id}", lambda d: d.get("about:blank"))
            return
        self._app_command("stop", "stop", app_id)

    def reset_app(self) -> None:
        """Terminate and start the app under test again."""
        app = self.settings.app_id
        if not app:
            raise InputRejected(
                "resetting the app needs its id",
                likely_cause="No --app-id, config.app or VISOR_ANDROID_APP_PACKAGE / VISOR_IOS_BUNDLE_ID was given.",
                next_step="Pass --app-id com.example.app.",
            )
        self.stop_app(app)
        self.launch_app(app)

    def launch_with(self, app_id: str, options: LaunchOptions) -> None:
        """Launch an app with options, as `launching.launch_plan` maps them (all refused before any is sent).

        A web app is its site: stopped first is a blank page first, its state cleared is the browser's cookies
        and the site's storage; a phone's keychain, permissions and launch arguments are refused.
        """
        if self.info.platform == "web":
            self._open_site(app_id, options)
            return
        for call in launching.launch_plan(self.info.platform, app_id, options):
            self._script(f"launch the app {app_id} ({call.script})", call)

    def _open_site(self, app_id: str, options: LaunchOptions) -> None:
        """Open a web app's site as `launch_with` says (what only a phone has refused before anything is sent)."""
        url = web.app_url(app_id)
        if options.clear_keychain or options.permissions or options.arguments:
            self._not_on_the_web("launch an app with a keychain cleared, permissions or launch arguments")
        if options.stop_first or options.clear_state:
            self.stop_app(app_id)
        if options.clear_state:
            # The site's storage is its origin's: cleared on its own page, before the app shows anything.
            self._open_page(url)
            self._call(f"clear the state of {app_id}", _clear_site)
        self._open_page(url)

    def app_in_front(self, app_id: str) -> bool:
        """Say whether the app runs in the foreground (`mobile: queryAppState`)."""
        if self.info.platform == "web":
            current = str(self._call("read the page's address", lambda d: d.current_url) or "")
            return web.same_site(current, web.app_url(app_id))
        query = launching.app_state_query(self.info.platform, app_id)
        state: object = self._script(f"ask the state of {app_id}", query)
        return state == launching.RUNNING_IN_FRONT

    # -- DeviceSettings ---------------------------------------------------------------------------------------

    def set_orientation(self, orientation: str) -> None:
        """Turn the screen with WebDriver's orientation (`device_settings.orientation_value`)."""
        value = device_settings.orientation_value(orientation)
        self._call(f"turn the screen to {value}", lambda d: setattr(d, "orientation", value))

    def orientation(self) -> str | None:
        """Read WebDriver's orientation back (None: an answer visor does not know)."""
        return device_settings.orientation_name(self._call("read the orientation", lambda d: d.orientation))

    def set_permissions(self, app_id: str, permissions: Mapping[str, PermissionChoice]) -> Mapping[str, str]:
        """Set an app's permissions (`device_settings.permissions_plan`); return each name and its choice, as sent."""
        for call in device_settings.permissions_plan(self.info.platform, app_id, permissions):
            self._script(f"set the permissions of {app_id} ({call.script})", call)
        return dict(permissions)

    def permission_states(self, app_id: str) -> None:
        """Return None: neither driver reads back what `all` set, so the step reports its effect unverified."""
        return None

    def clear_keychain(self) -> None:
        """Clear the keychain (`mobile: clearKeychains`, iOS simulators); refused on Android, which has none."""
        self._script("clear the keychain", device_settings.keychain_plan(self.info.platform))

    def keychain_items(self) -> None:
        """Return None: XCUITest cannot count the keychain's items."""
        return None

    def set_airplane_mode(self, enabled: bool) -> None:
        """Turn airplane mode on or off (`mobile: setConnectivity`, Android); refused on iOS."""
        call = device_settings.airplane_plan(self.info.platform, enabled)
        self._script(f"turn airplane mode {'on' if enabled else 'off'}", call)

    def airplane_mode(self) -> bool | None:
        """Read airplane mode (`mobile: getConnectivity`, Android; None when the answer does not say it)."""
        answer = self._script("read airplane mode", device_settings.airplane_plan(self.info.platform, None))
        found = answer.get("airplaneMode") if isinstance(answer, dict) else None
        return found if isinstance(found, bool) else None

    def set_location(self, latitude: float, longitude: float) -> None:
        """Put the GPS at a place (WebDriver's location endpoint: UiAutomator2's mock location, a simulator's)."""
        self._call(f"set the location to {latitude}, {longitude}", lambda d: d.set_location(latitude, longitude))

    def location(self) -> tuple[float, float] | None:
        """Read the location back (None: an answer without both coordinates as numbers)."""
        return device_settings.location_read(self._call("read the location", lambda d: d.location))

    def _script(self, operation: str, call: native.ScriptCall) -> object:
        """Run one `mobile:` command; return its answer (refused on a web page, which would run it as its own JS)."""
        self._not_on_the_web(operation)
        answer: object = self._call(operation, lambda d: d.execute_script(call.script, dict(call.args)))
        return answer

    def _not_on_the_web(self, operation: str) -> None:
        """Refuse, sending nothing, what only a phone's driver does (a page would take it for its own JavaScript)."""
        if self.info.platform == "web":
            raise UnsupportedInput(
                f"a web page cannot {operation}: that is a phone's",
                likely_cause="The web platform drives a page in Chromium; the phone's apps, settings and files are "
                "not the page's.",
                next_step="Run the step on a phone (--platform android or ios), or drop it for the web "
                "(a when: {platform: android} block).",
            )

    def add_media(self, name: str, data: bytes) -> str:
        """Push a picture or a video to Android's shared storage, where the media scanner finds it."""
        self._not_on_the_web(f"add {name} to the photo library")
        destination = launching.media_destination(self.info.platform, name)
        encoded = base64.b64encode(data).decode("ascii")
        self._call(f"push {name} to {destination}", lambda d: d.push_file(destination, encoded))
        return destination

    def device_data(self) -> DeviceData:
        """Return an Android phone's data, through adb (its serial is the session's device).

        Raises:
            UnsupportedInput: not an Android phone that adb reaches (an iOS device, a remote farm).
        """
        serial = self.settings.device
        if self.settings.platform != "android" or not serial:
            raise UnsupportedInput(
                "the phone's personal data (photos, calendar, files…) is read through adb, on Android phones only",
                next_step="Pass --device SERIAL for an Android phone adb lists, or use the simulated phone "
                "(--runtime sim, with --profile).",
            )
        if self._data is None:
            self._data = AndroidData(Adb(serial))
        return self._data

    def _app_command(self, operation: str, verb: Literal["launch", "stop"], app_id: str) -> None:
        if not app_id:
            raise InputRejected(f"to {operation} an app visor needs its id", next_step="Give its package or bundle id.")
        step = native.app_command(self.info.platform, verb, app_id)
        self._call(f"{operation} the app {app_id}", lambda d: d.execute_script(step.script, dict(step.args)))

    # -- screen recording ---------------------------------------------------------------------------------

    def start_video(self) -> None:
        """Start recording: the driver records a phone's screen; a web page is photographed as it is read."""
        if self.info.platform == "web":
            self._pictures = Changes(_now_us())
            return
        options = recording_options(self.info.platform)
        self._call("start recording the screen", lambda d: d.start_recording_screen(**options))
        self._recording = True

    def stop_video(self, keep: bool = True) -> Video | None:
        """Stop recording; return the driver's MP4, or the page's pictures encoded (None: none, or not kept)."""
        pictures, self._pictures = self._pictures, None
        if pictures is not None:
            return pictures.video(page_picture, _now_us()) if keep else None
        if not self._recording:
            return None
        self._recording = False
        # Stopped whether kept or not: a phone left recording records on into the next run.
        encoded = self._call("stop recording the screen", lambda d: d.stop_recording_screen())
        if not encoded or not keep:
            return None
        try:
            data = base64.b64decode(str(encoded), validate=True)
        except ValueError as exc:
            raise TargetError(f"the driver's recording is not base64 ({exc})") from exc
        return Video(data, "mp4") if data else None

    # -- log ----------------------------------------------------------------------------------------------

    def log_since(self, cursor: int) -> tuple[tuple[LogLine, ...], int]:
        """Return the device log's lines written since the last read, and the cursor after them.

        The driver hands each entry out once (logcat, syslog, the browser's console: `device_logs`), so one
        request reads them all. A driver that keeps no such log is asked once, never again (`log_refused`); a
        session lost meanwhile gives nothing here, and the next command recreates it.
        """
        kind = device_logs.LOG_TYPES.get(self.info.platform)
        if kind is None or self.log_refused:
            return (), cursor
        try:
            with self._mapped(f"read the device log ({kind})"):
                entries = self.driver.get_log(kind)
        except SessionLost:
            return (), cursor
        except ActionError as refused:
            self.log_refused = refused.message
            return (), cursor
        listed = entries if isinstance(entries, list) else []
        kept = [entry for entry in listed[-DEVICE_LINES:] if isinstance(entry, dict)]
        lines = tuple(device_logs.log_line(kind, entry, self._started_ms) for entry in kept)
        return lines, cursor + len(listed)

    def close(self) -> None:
        """End the session (quietly: a session already gone is not an error), and a local browser with it."""
        self._quit(remove=True)

    def _quit(self, remove: bool = False) -> None:
        driver, self._driver = self._driver, None
        if driver is not None:
            with contextlib.suppress(Exception):  # closing must never hide the run's own outcome
                driver.quit()
        if self._profile is not None:  # a browser whose driver was killed outlives the session: ended here
            web.end_browser(self._profile, remove)


def _now_us() -> int:
    """Return the host's monotonic clock in µs: a recording's pictures are at the time they were taken."""
    return time.monotonic_ns() // 1000


@dataclass(frozen=True, slots=True)
class AppiumClient:
    """The parts of Appium-Python-Client a session is made of (imported when the first session starts)."""

    config: type[AppiumClientConfig]
    connection: type[DeadlineConnection]
    options: type[AppiumOptions]
    remote: type[WebDriver]


def appium_client() -> AppiumClient:
    """Import the Appium client library.

    Raises:
        TargetError: it is not installed (visor's plain install has only the simulated device).
    """
    try:
        # lazy: the Appium client is an optional extra, heavy to import; only an Appium session needs it
        from appium import webdriver
        from appium.options.common import AppiumOptions  # lazy: the Appium client, as above
        from appium.webdriver.client_config import AppiumClientConfig  # lazy: the Appium client, as above

        from visor.runtimes.appium.transport import DeadlineConnection  # lazy: it is built on the Appium client
    except ImportError as exc:
        raise client_missing(exc) from exc
    return AppiumClient(AppiumClientConfig, DeadlineConnection, AppiumOptions, webdriver.Remote)


def _discard(executor: DeadlineConnection) -> None:
    """Delete the session the server created, if it did; never raises (but lets Ctrl-C through)."""
    session = executor.created_session
    untyped: Any = executor  # selenium's methods are untyped
    with contextlib.suppress(Exception):
        if session is not None:
            untyped.execute("quit", {"sessionId": session})
    with contextlib.suppress(Exception):
        untyped.close()


#: The largest screen side visor believes, in pixels (a reply beyond it is not a screen size).
MAX_SIDE = 100_000


def _window_size(rect: object) -> Size:
    """Read the window rect the server returned.

    Raises:
        BadReply: not an object with a positive width and height.
    """
    from visor.runtimes.appium.transport import BadReply  # lazy: it is built on the optional Appium client

    sides: list[int] = []
    for key in ("width", "height"):
        value = rect.get(key) if isinstance(rect, dict) else None
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_SIDE:
            raise BadReply(f"the window rect {str(rect)[:120]!r} has no usable {key}")
        sides.append(round(value))
    return Size(max(1, sides[0]), max(1, sides[1]))


#: How long a finger that moved rests where it stopped before lifting, on a web page (ms).
WEB_REST_MS = 100


def _held_at_the_end(path: Sequence[PathPoint]) -> Sequence[PathPoint]:
    """Return a moving finger's path ending with a rest, so a page scrolls by the distance swiped: no fling.

    A browser flings a page on from a finger lifted while moving, by a length that depends on the timing of
    the last moves: a real engine's timing, different every run.
    """
    last = path[-1]
    if all((point.x, point.y) == (last.x, last.y) for point in path):
        return path  # a tap or a long press: nothing to fling
    return [*path, PathPoint(last.x, last.y, last.at_ms + WEB_REST_MS)]


def _finger(name: str, path: Sequence[PathPoint]) -> JsonObject:
    first = path[0]
    actions: list[JsonValue] = [
        {"type": "pointerMove", "duration": 0, "x": first.x, "y": first.y, "origin": "viewport"},
        {"type": "pointerDown", "button": 0},
    ]
    previous = first.at_ms
    for point in path[1:]:
        actions.append(
            {
                "type": "pointerMove",
                "duration": max(0, point.at_ms - previous),
                "x": point.x,
                "y": point.y,
                "origin": "viewport",
            }
        )
        previous = point.at_ms
    actions.append({"type": "pointerUp", "button": 0})
    return {"type": "pointer", "id": name, "parameters": {"pointerType": "touch"}, "actions": actions}


def _focused(driver: WebDriver, doing: str) -> SeleniumElement:
    """Return the element that has the focus.

    Raises:
        InputRejected: none has it (the server answers no active element): there is nothing to type into.
    """
    element: SeleniumElement | None = driver.switch_to.active_element  # None all the same, from some servers
    if element is None:
        raise InputRejected(
            f"no element has the focus: there is nothing to {doing}",
            likely_cause="No text field was tapped first, or the app took the focus away (a keyboard closed).",
            next_step="Tap the field first, or give the typing step a target (act type with target: id=...).",
        )
    return element


def _field_text(element: SeleniumElement, web_page: bool) -> object:
    """Return a typed field's text: on a web page its value (an input shows no text between its tags)."""
    return element.get_property("value") if web_page else element.text


def _clear_site(driver: WebDriver) -> None:
    """Clear the browser's cookies and the shown site's storage."""
    driver.delete_all_cookies()
    driver.execute_script(web.CLEAR)


def _screen_lock(driver: WebDriver, call: keys.Screen) -> None:
    """Lock the screen, or wake the device and dismiss the lock screen."""
    if call.locked:
        driver.lock()
    else:
        driver.unlock()


def _run(driver: WebDriver, element: WebElement, step: native.Step) -> None:
    if isinstance(step, native.ScriptCall):
        driver.execute_script(step.script, dict(step.args))
    elif step.method == "click":
        element.click()
    elif step.method == "clear":
        element.clear()
    else:
        element.send_keys(step.text)


def _native_element(element: WebElement, class_attribute: str) -> NativeElement:
    """Describe an element found natively: its box (a round trip) and its class (another)."""
    rect = element.rect
    left, top = round(float(rect["x"])), round(float(rect["y"]))
    bounds = Rect(left, top, left + round(float(rect["width"])), top + round(float(rect["height"])))
    return NativeElement(bounds, str(element.get_attribute(class_attribute) or ""))


def _describe_finds(driver: WebDriver, platform: str, returned: Mapping[str, object]) -> None:
    """Ask a driver that can for finds that describe their elements (described.py); a refusal changes nothing."""
    # lazy: selenium comes with the optional Appium client; only an Appium session meets its errors
    from selenium.common.exceptions import WebDriverException

    wanted = settings_for(platform, str(returned.get("automationName") or returned.get("appium:automationName") or ""))
    if wanted is not None:
        with contextlib.suppress(WebDriverException):  # the finds then answer as before; nothing depends on it
            driver.update_settings(wanted)


def _platform(capabilities: Mapping[str, object]) -> str:
    name = str(capabilities.get("platformName", "")).lower()
    if str(capabilities.get("automationName", capabilities.get("appium:automationName", ""))).lower() == "chromium":
        return "web"
    return "ios" if name == "ios" else "android"
