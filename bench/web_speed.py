"""visor on a real page through Appium's Chromium driver vs a hand-written Appium-Python-Client script.

The first per-step figure on a real driver (issue 27): the tests' Pantry page (tests/appium/web/index.html),
served on 127.0.0.1, in Chromium emulating a Pixel 7, through the tests' Appium server. Both do the same 50
steps — a tap on the "Remember me" box and typing into the name field, in turn — on the same server and page,
in one run: after a run of each warms the caches, each visor run is paired with a script run, the pair's order
alternating each repeat, so machine noise and a warming cache hit both alike; a ratio is the median of the
pairs' ratios (the medians of each side printed beside it):

  - per step: visor's steps (from its run's start to its end: every check it makes kept — the page settled
    before each read, the touch aimed where the element shows, the typed text read back) against the
    script's loop (a find and an action per step); goal <= 1.2x;
  - WebDriver requests per step of each, counted from the server's log;
  - the tree read: ms per read of visor's tree (one asynchronous script: settle, then the DOM) against
    `driver.page_source` on the same page, in one session, each read paired with one of the other, the pair's
    order alternating read by read.

Needs `npm ci --prefix tests/appium` and Chromium with ChromeDriver (`sh tests/appium/install-browser`).
Run: python bench/web_speed.py [--repeat 5] [--reads 30]
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import statistics
import sys
import tempfile
import textwrap
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))
from appium_speed import APPIUM, VISOR, paired, start  # noqa: E402  (a sibling script, not a package)

PAGES = ROOT / "tests" / "appium" / "web"
STEPS = 50


def serve() -> str:
    """Serve the test pages on a free loopback port; return the root URL."""
    handler = functools.partial(_Quiet, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Log nothing."""


def scenario(site: str) -> str:
    """Open the page, then 50 steps alternating a tap on the box and typing into the name field."""
    lines = [f'  - {{id: open, command: navigate, args: {{to: "{site}index.html"}}}}']
    for n in range(STEPS // 2):
        lines.append(f'  - {{id: tap{n}, command: tap, args: {{target: "id=remember"}}}}')
        lines.append(f'  - {{id: type{n}, command: act, args: {{name: type, target: "id=name", value: x}}}}')
    return "meta: {name: web-bench, version: '1', platform: web}\nconfig: {seed: 1}\nsteps:\n" + "\n".join(lines) + "\n"


def script(url: str, site: str, caps: dict[str, object]) -> str:
    """The same steps written by hand: a CSS find and an action each; the time of the 50 steps printed."""
    return textwrap.dedent(f"""
        import time
        from appium import webdriver
        from appium.options.common import AppiumOptions
        driver = webdriver.Remote({url!r}, options=AppiumOptions().load_capabilities({caps!r}))
        try:
            driver.get({site + "index.html"!r})
            started = time.perf_counter()
            for n in range({STEPS // 2}):
                driver.find_element("css selector", "#remember").click()
                driver.find_element("css selector", "#name").send_keys("x")
            print(time.perf_counter() - started)
        finally:
            driver.quit()
    """)


def seconds(read: Callable[[], object]) -> float:
    """Read once; return its seconds."""
    started = time.perf_counter()
    read()
    return time.perf_counter() - started


def reads(url: str, site: str, count: int) -> tuple[float, float, float]:
    """Return ms per tree read (visor's), per `page_source`, and the median of the pairs' ratios, in one session."""
    from visor.runtimes.appium.capabilities import settings_from  # lazy: after the paths are set
    from visor.runtimes.appium.device import AppiumDevice  # lazy: as above

    device = AppiumDevice(settings_from(server_url=url, device=None, app_id=None, attach=False, platform="web",
                                        capabilities=None))  # fmt: skip
    ours, theirs = [], []
    try:
        device.open_url(site + "index.html")

        def source() -> object:
            """Read the page's source (the read is the point)."""
            return device.driver.page_source

        device.observe()  # the first of each does not count
        source()
        for number in range(count):
            if number % 2:
                theirs.append(seconds(source))
                ours.append(seconds(device.observe))
            else:
                ours.append(seconds(device.observe))
                theirs.append(seconds(source))
    finally:
        device.close()
    ratio = statistics.median(a / b for a, b in zip(ours, theirs, strict=True))
    return statistics.median(ours) * 1000, statistics.median(theirs) * 1000, ratio


def main() -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reads", type=int, default=30)
    options = parser.parse_args()
    if not APPIUM.exists():
        raise SystemExit("run `npm ci --prefix tests/appium` first")
    from visor.runtimes.appium.web import web_capabilities  # lazy: after the paths are set

    work = Path(tempfile.mkdtemp(prefix="visor-web-bench-"))
    os.environ["VISOR_APP_MAP_DIR"] = str(work / "maps")
    log = work / "appium.log"
    process, url = start(log)
    site = serve()
    try:
        (work / "bench.yaml").write_text(scenario(site))
        (work / "script.py").write_text(script(url, site, web_capabilities(None, local=True)))
        visor = [*VISOR, "run", str(work / "bench.yaml"), "--runtime", "appium", "--server-url", url,
                 "--output", str(work / "out"), "--capture", "none", "-q"]  # fmt: skip
        hand = [sys.executable, str(work / "script.py")]
        ours, theirs = paired(visor, hand, log, options.repeat)
        tree_ms, source_ms, tree_ratio = reads(url, site, options.reads)
    finally:
        process.kill()
    visor_step = statistics.median(s for _, s, _ in ours) / (STEPS + 1)
    hand_step = statistics.median(s for _, s, _ in theirs) / STEPS
    step_ratio = statistics.median((a[1] / (STEPS + 1)) / (b[1] / STEPS) for a, b in zip(ours, theirs, strict=True))
    print(f"per step: visor {visor_step * 1000:.1f} ms, script {hand_step * 1000:.1f} ms: "
          f"{step_ratio:.2f}x (median of {len(ours)} pairs' ratios; goal <= 1.2x)")  # fmt: skip
    ours_requests, theirs_requests = _per_step(ours[0][2], STEPS + 1), _per_step(theirs[0][2], STEPS)
    print(f"requests per step: visor {ours_requests:.2f}, script {theirs_requests:.2f}")
    for kind, count in sorted((ours[0][2] - theirs[0][2]).items()):
        print(f"  visor beyond the script: {count:3d} x {kind}")
    print(f"tree read: visor {tree_ms:.1f} ms, page_source {source_ms:.1f} ms: {tree_ratio:.2f}x (median of pairs)")
    return 0


def _per_step(requests: Counter[str], steps: int) -> float:
    """Return the requests per step, session creation, its window and deletion left out."""
    setup = sum(count for kind, count in requests.items() if kind.endswith(("/session", "/session/:id")))
    return (requests.total() - setup) / steps


if __name__ == "__main__":
    raise SystemExit(main())
