"""The web platform: a mobile page in Chromium, driven through Appium's Chromium driver.

A session is Chromium in mobile emulation: a named phone (`--device "Pixel 7"`, Chrome's own list) or a size
(`--device 412x915@2.625`: CSS pixels and pixel ratio), touch on, headless unless `VISOR_WEB_HEADFUL=1`. On a
server on this machine, the browser and its driver are found here (`VISOR_CHROMIUM`, `VISOR_CHROMEDRIVER`, else
`chromium` and `chromedriver` on the PATH), and the driver a free port; a remote server finds its own.

The screen is the emulated phone's, in CSS pixels: element boxes, touches and the tree share them (a
screenshot is in device pixels, the screen times the pixel ratio). The tree is read once the page has settled
on its own signals (loaded, no finite animation running, no DOM change and no scrolling for `QUIET_MS`; at
most `SETTLE_MS`), from the live DOM, in one asynchronous script call (`web_tree.js`). Each rendered element
is read as Chrome on Android shows it to accessibility — the classes of the WebView in a hybrid app, which
UiAutomator2 and Maestro see — so selectors mean the same in a browser, a WebView and a native screen; its
box is what of it shows, cut by the ancestors that clip their overflow:

- a button, a link or an input of type button is `android.widget.Button` (a link `android.view.View`), a text
  input or text area `android.widget.EditText` (its text is its value, its hint the placeholder, a password
  field's text masked wherever visor shows it), a checkbox `CheckBox`, a range `SeekBar`, a select `Spinner`,
  an image `Image`, a list `ListView`, an element with text of its own `TextView`, any other `android.view.View`;
  an ARIA role says the kind first;
- `id=` is the element's `data-testid`, else its DOM id; its accessible name (`aria-label`, `aria-labelledby`,
  its `<label>`, `alt`, `title`) is its content description; a button's or link's text is all the text inside
  it, another element's only its own;
- enabled, checked, focused, selected and scrollable are the DOM's (`disabled`, `checked`/`aria-checked`, the
  active element, overflow that scrolls); clickable is a control, an ARIA role that is one, an `onclick`, or a
  pointer cursor where the parent's is not one.

An element is found again for typing by a CSS path of child positions the walk wrote beside it; a `css=`
selector is evaluated by the browser (`querySelectorAll`) and its matches answered as those paths, so they map
onto the tree just read. Where a touch lands is the browser's hit test (`elementFromPoint`: what it paints
topmost, z-index and all), answered with the tree for each shown element's centres and asked at other points
as they are needed (`web_hit.js`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

from visor.device.protocol import InputRejected
from visor.errors import InputError
from visor.ui.geometry import Point, Rect, Size
from visor.ui.query import QueryError
from visor.ui.tree import Node, RangeInfo, UiTree

#: What a site keeps in the browser beside its cookies, cleared when its app's state is (`launch_with`).
CLEAR = "localStorage.clear(); sessionStorage.clear();"
#: The phone emulated when `--device` names none: a common Android phone of Chrome's own list.
DEFAULT_PHONE = "Pixel 7"
#: The most elements one read of the page takes (a page past it is read that far, and says so).
MAX_ELEMENTS = 20_000
#: The longest reply of the tree script visor reads (a page of `MAX_ELEMENTS` elements stays well inside).
MAX_REPLY_CHARS = 64 * 1024 * 1024
#: The deepest the tree goes (a page nested deeper is cut there: no reader recurses past it).
MAX_DEPTH = 256
#: How long the page must have shown no change (no DOM mutation, no finite animation) to be read, in ms.
QUIET_MS = 100
#: The longest a read waits for the page to settle, in ms: a page that never does is read as it is then.
SETTLE_MS = 3_000
#: The longest a page may take to load (`VISOR_WEB_PAGE_LOAD_MS`), in ms: a page that never loads fails its step.
PAGE_LOAD_MS = 30_000
#: The longest one of visor's scripts may run in the page, in ms (its reads settle within `SETTLE_MS`).
SCRIPT_MS = 30_000
_METRICS = re.compile(r"\s*(\d{2,5})\s*[xX]\s*(\d{2,5})\s*(?:@\s*(\d+(?:\.\d+)?))?\s*")
#: The host platform names Appium's Chromium driver takes, by Python's.
_HOSTS = {"linux": "linux", "darwin": "mac", "win32": "windows"}


@dataclass(frozen=True, slots=True)
class WebPage:
    """One read of the page: its tree, each element's CSS path in page order, and what the page said of itself."""

    tree: UiTree
    paths: tuple[str, ...]
    url: str
    ready: str
    #: Elements past `MAX_ELEMENTS`, not read.
    unread: int
    #: Whether the page had settled when it was read (False: it was still changing after `SETTLE_MS`).
    settled: bool = True
    #: How long the page had not changed when it was read, in ms (0: it had not settled).
    quiet_ms: int = 0


@functools.cache
def tree_script() -> str:
    """Return the script that reads the page (`web_tree.js`, shipped beside this module, with its paths')."""
    return _shipped("web_path.js") + _shipped("web_tree.js")


@functools.cache
def hit_script() -> str:
    """Return the script that answers where a touch at a point lands, by the browser's hit test (`web_hit.js`)."""
    return _shipped("web_path.js") + _shipped("web_hit.js")


@functools.cache
def css_script() -> str:
    """Return the script that answers a css= selector's matches as the tree's paths (`web_css.js`)."""
    return _shipped("web_path.js") + _shipped("web_css.js")


def _shipped(name: str) -> str:
    return resources.files(__package__ or "visor.runtimes.appium").joinpath(name).read_text("utf-8")


def css_nodes(page: WebPage, selector: str, reply: object) -> list[Node]:
    """Return the nodes of `page` a css= selector matched (`css_script`'s reply), in page order.

    An element matched that the tree does not hold (inside one not rendered, past `MAX_ELEMENTS`) is left out,
    as the tree leaves it out.

    Raises:
        QueryError: the browser refused the selector, or answered no list of paths.
    """
    error = reply.get("error") if isinstance(reply, dict) else None
    paths = reply.get("paths") if isinstance(reply, dict) else None
    if error is not None or not isinstance(paths, list):
        reason = str(error)[:300] if error is not None else "no list of paths came back"
        raise QueryError(
            f"css={selector!r}: the browser refused it ({reason})",
            "Fix the selector: the browser's querySelectorAll must accept it.",
        )
    wanted = {str(path) for path in paths}
    return [item.node for item, path in zip(page.tree.flat, page.paths, strict=True) if path in wanted]


def emulation(device: str | None) -> dict[str, object]:
    """Return Chrome's `mobileEmulation` for `--device`: a named phone, or `WIDTHxHEIGHT[@RATIO]` in CSS pixels.

    Raises:
        InputError: a size out of range (100 to 10,000 CSS pixels a side, a ratio of 0.5 to 8).
    """
    name = (device or DEFAULT_PHONE).strip()
    found = _METRICS.fullmatch(name)
    if found is None:
        return {"deviceName": name}
    width, height, ratio = int(found.group(1)), int(found.group(2)), float(found.group(3) or 1)
    if not (100 <= width <= 10_000 and 100 <= height <= 10_000 and 0.5 <= ratio <= 8):
        raise InputError(
            f"--device {name!r} is no phone screen visor emulates",
            next_step="Give a phone Chrome knows (--device 'Pixel 7') or WIDTHxHEIGHT@RATIO in CSS pixels, "
            "100 to 10,000 a side, a ratio of 0.5 to 8 (--device 412x915@2.625).",
        )
    return {"deviceMetrics": {"width": width, "height": height, "pixelRatio": ratio, "touch": True}}


def web_capabilities(
    device: str | None,
    local: bool,
    environ: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
    free_port: Callable[[], int] | None = None,
) -> dict[str, object]:
    """Return the capabilities of a Chromium session in mobile emulation.

    `local`: the server runs on this machine, so the browser and driver found here are given to it, and the
    driver a free port of its own (`free_port`): on its fixed default, two sessions at once on one machine (two
    CI jobs, two test workers) make the second driver crash as it starts.
    """
    env = os.environ if environ is None else environ
    headful = env.get("VISOR_WEB_HEADFUL", "").lower() in ("1", "true", "yes")
    # --no-sandbox: Chromium's sandbox needs user namespaces a container seldom gives; the page is the test's own.
    arguments = [*([] if headful else ["--headless=new"]), "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 "--disable-extensions", "--no-first-run", "--no-default-browser-check", "--mute-audio",
                 "--force-color-profile=srgb", "--font-render-hinting=none"]  # fmt: skip
    chrome: dict[str, object] = {"args": arguments, "mobileEmulation": emulation(device)}
    caps: dict[str, object] = {
        "platformName": _HOSTS.get(sys.platform, "linux"),
        "browserName": "chrome",
        "appium:automationName": "Chromium",
        "timeouts": {"pageLoad": _page_load_ms(env), "script": SCRIPT_MS},
        # The page's console, every level: the device log of the web platform (an uncaught error is its crash).
        "goog:loggingPrefs": {"browser": "ALL"},
    }
    if local:
        browser = env.get("VISOR_CHROMIUM") or _first(which, "chromium", "chromium-browser", "google-chrome")
        driver = env.get("VISOR_CHROMEDRIVER") or which("chromedriver")
        if browser:
            chrome["binary"] = browser
        if driver:
            caps["appium:executable"] = driver
        caps["appium:chromedriverPort"] = (free_port or loopback_port)()
    caps["goog:chromeOptions"] = chrome
    return caps


def own_profile(caps: dict[str, object]) -> str | None:
    """Give a local session's browser a profile folder of its own; return it (None: the capabilities set theirs).

    So the browser's processes are known by it (`end_browser`): a browser whose driver was killed lives on,
    orphaned, and nothing else would end it.
    """
    chrome = caps.get("goog:chromeOptions")
    arguments = chrome.get("args") if isinstance(chrome, dict) else None
    if not isinstance(arguments, list) or any(str(item).startswith("--user-data-dir") for item in arguments):
        return None
    folder = tempfile.mkdtemp(prefix="visor-chromium-")
    arguments.append(f"--user-data-dir={folder}")
    return folder


def end_browser(profile: str, remove: bool) -> int:
    """End every process of the browser started with `profile` (Linux: read from /proc); return how many.

    `remove`: delete the profile folder too (the session is over, not being recreated).
    """
    ended = 0
    for pid in processes_with(f"--user-data-dir={profile}"):
        with contextlib.suppress(OSError):  # gone meanwhile
            os.kill(pid, signal.SIGKILL)
            ended += 1
    if remove:
        shutil.rmtree(profile, ignore_errors=True)
    return ended


def processes_with(argument: str) -> list[int]:
    """Return the processes started with `argument` among their arguments (Linux: read from /proc)."""
    wanted = argument.encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):  # gone meanwhile, or not ours to read
            if wanted in (entry / "cmdline").read_bytes().split(b"\0"):
                found.append(int(entry.name))
    return found


def _page_load_ms(env: Mapping[str, str]) -> int:
    """Return how long a page may take to load: `VISOR_WEB_PAGE_LOAD_MS`, else `PAGE_LOAD_MS`.

    Raises:
        InputError: the variable is not a whole number of ms from 1,000 to 600,000.
    """
    written = env.get("VISOR_WEB_PAGE_LOAD_MS", "").strip()
    if not written:
        return PAGE_LOAD_MS
    if not written.isdigit() or not 1_000 <= int(written) <= 600_000:
        raise InputError(
            f"VISOR_WEB_PAGE_LOAD_MS={written!r} is not a number of ms visor takes",
            next_step="Set it to a whole number of ms from 1000 to 600000 (30000 unless set).",
        )
    return int(written)


def loopback_port() -> int:
    """Return a port free on 127.0.0.1 now (the system's pick)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _first(which: Callable[[str], str | None], *names: str) -> str | None:
    return next((found for name in names if (found := which(name))), None)


#: What the browser's hit test answers for: a point, to the CSS path of the element painted topmost there.
Ask = Callable[[Point], object]


def read_page(reply: object, ask: Ask | None = None) -> WebPage:
    """Read the tree script's reply into a page; `ask` asks the browser's hit test at a point it did not answer.

    Raises:
        InputRejected: the reply is not the script's (no JSON object with a root, or past `MAX_REPLY_CHARS`).
    """
    if not isinstance(reply, str) or len(reply) > MAX_REPLY_CHARS:
        raise InputRejected("the page's tree could not be read", likely_cause="The page replaced visor's script.")
    try:
        data = json.loads(reply)
    except ValueError as exc:
        raise InputRejected(f"the page's tree is no JSON ({exc})") from exc
    if isinstance(data, dict) and data.get("error") is not None:
        raise InputRejected(
            f"the page's tree could not be read: the page broke visor's script ({str(data['error'])[:500]})",
            likely_cause="The page replaced or patched a DOM method the walk uses (getComputedStyle, "
            "getBoundingClientRect…).",
        )
    if not isinstance(data, dict) or not isinstance(data.get("root"), dict):
        raise InputRejected("the page has no document to read", likely_cause="It is still loading, or blank.")
    paths: list[str] = []
    root = _node(data["root"], paths, 0)
    size = Size(max(1, _int(data.get("width"))), max(1, _int(data.get("height"))))
    unread = max(0, _int(data.get("total")) - _int(data.get("read")))
    by_path = {path: index for index, path in reversed(list(enumerate(paths))) if path}
    touches = _touches(data.get("hits"), by_path)
    touch_at = (lambda point: _read_at(by_path, ask(point))) if ask is not None else None
    tree = UiTree(size, (root,), platform="web", touches=touches, touch_at=touch_at)
    url, ready = str(data.get("url") or ""), str(data.get("ready") or "")
    settled = data.get("settled") is not False
    return WebPage(tree, tuple(paths), url, ready, unread, settled, _int(data.get("quiet")) if settled else 0)


#: The page itself (its document and body), where a touch lands on nothing on it.
_PAGE = re.compile(r"html( > body:nth-child\(\d+\))?")


def _touches(raw: object, by_path: Mapping[str, int]) -> dict[tuple[int, int], int | None]:
    """Read the tree script's hit tests: a point ("x,y") to the element read there (None: the page itself)."""
    touches: dict[tuple[int, int], int | None] = {}
    for key, path in raw.items() if isinstance(raw, dict) else ():
        x, _, y = str(key).partition(",")
        if x.isdigit() and y.isdigit():
            touches[int(x), int(y)] = _read_at(by_path, path)
    return touches


def _read_at(by_path: Mapping[str, int], path: object) -> int | None:
    """Return the page-order index of the element a hit test answered (its nearest ancestor read; None: none)."""
    if not isinstance(path, str):
        return None
    while not _PAGE.fullmatch(path):
        if path in by_path:
            return by_path[path]
        path, cut, _ = path.rpartition(" > ")
        if not cut:
            return None
    return None


def _node(raw: Mapping[str, object], paths: list[str], depth: int) -> Node:
    """Return one element of the script's reply, and its children (their CSS paths appended in page order)."""
    paths.append(str(raw.get("p") or ""))
    box = raw.get("b")
    left, top, right, bottom = (_int(v) for v in box) if isinstance(box, list) and len(box) == 4 else (0, 0, 0, 0)
    kids = raw.get("kids")
    children = [kid for kid in kids if isinstance(kid, dict)] if isinstance(kids, list) and depth < MAX_DEPTH else []
    return Node(
        class_name=str(raw.get("c") or "android.view.View"),
        bounds=Rect(left, top, max(left, right), max(top, bottom)),
        resource_id=str(raw.get("id") or ""),
        text=str(raw.get("t") or ""),
        content_desc=str(raw.get("d") or ""),
        hint=str(raw.get("h") or ""),
        checkable=raw.get("k") is True,
        checked=raw.get("on") is True,
        clickable=raw.get("cl") is True,
        enabled=raw.get("en") is not False,
        focusable=raw.get("fo") is True,
        focused=raw.get("f") is True,
        password=raw.get("pw") is True,
        scrollable=raw.get("s") is True,
        selected=raw.get("se") is True,
        displayed=raw.get("v") is not False,
        range=_range(raw.get("r")),
        selection=_selection(raw.get("sel")),
        children=tuple(_node(kid, paths, depth + 1) for kid in children),
    )


def _int(value: object) -> int:
    """Return a number of the reply as a whole number (0 when it is none)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:  # NaN is no number
        return 0
    return int(max(-(10**9), min(10**9, value)))


def _range(value: object) -> RangeInfo | None:
    if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, int | float) for v in value)):
        return None
    low, high, current = (float(v) for v in value)
    return RangeInfo(low, high, current) if low < high else None


def _selection(value: object) -> tuple[int, int] | None:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) and v >= 0 for v in value):
        return value[0], value[1]
    return None


def path_of(page: WebPage, node: Node) -> str:
    """Return the CSS path the walk wrote for `node` (the same object, else an equal one, of the last read).

    Raises:
        InputRejected: the node is not on the page last read.
    """
    flat = page.tree.flat
    index = next((item.index for item in flat if item.node is node), None)
    if index is None:
        index = next((item.index for item in flat if item.node == node), None)
    if index is None or not page.paths[index]:
        raise InputRejected(
            f"{node.describe()} is not on the page last read",
            likely_cause="The page changed since it was last read.",
            next_step="Read the screen again and retarget the element.",
        )
    return page.paths[index]


def app_url(app_id: str) -> str:
    """Return the address a web app's id names: the app of a web page is its site (`http(s)://…`).

    Raises:
        InputRejected: the id is no http(s) address.
    """
    parts = urlsplit(app_id.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputRejected(
            f"{app_id!r} is no web address: on the web platform an app is its site",
            next_step="Give the site's address as the app (--app-id http://127.0.0.1:8000/), or open pages with "
            "navigate.",
        )
    return app_id.strip()


def same_site(current: str, app: str) -> bool:
    """Say whether the page shown (`current`) is of the app's site: the same scheme, host and port."""
    shown, wanted = urlsplit(current), urlsplit(app)
    return (shown.scheme, shown.netloc) == (wanted.scheme, wanted.netloc)
