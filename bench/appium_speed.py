"""visor on Appium vs a hand-written Appium-Python-Client script: same server, same operations, same run.

Goals (issue 4):
  - visor's wall time for a 50-step scenario <= 1.2x the script's. Printed two ways: the steps alone (from the
    session being ready to the last step done: what the runtime adapter costs), and whole processes (start-up,
    imports, session, steps, artifacts, teardown), where visor's start-up weighs heavily against a fake driver
    answering in about a millisecond;
  - WebDriver requests per step, counted from the server's log, at most one beyond the minimum (a find and an
    action: 2 per step).

With `--latency`, both talk to the server through bench/latency_proxy.py, which adds a phone's latency to each
command (a find 29 ms, a click or keys 25 ms, an element read 20 ms, a page source `--source-ms`, 300 by
default): the per-step cost of reading the screen shows (issue 15's goal: visor <= 1.2x the script per step).
The requests visor sends beyond the script's are listed by kind, with what the proxy adds for them: where the gap
comes from (with `--observe on-demand`: the typed text read back, and the end of the run's page source).
Each ratio is the median of the pairs' ratios, a pair's order alternating (script first, then visor first).

Needs `npm ci --prefix tests/appium` (the Appium server and fake driver the tests use).
Run: python bench/appium_speed.py [--repeat 5] [--latency [--source-ms 300]]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from latency_proxy import delay_ms  # noqa: E402  (a sibling script, not a package)

HOME = ROOT / "tests" / "appium"
APPIUM = HOME / "node_modules" / ".bin" / "appium"
APP = HOME / "login.fake.xml"
STEPS = 50
_SCRIPT = Path(sys.executable).parent / "visor"
VISOR = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "visor"]
CAPS = {"platformName": "Fake", "appium:automationName": "Fake", "appium:deviceName": "Fake", "appium:app": str(APP)}


def scenario() -> str:
    """50 steps alternating a tap on a button and typing into a field."""
    lines = []
    for n in range(STEPS // 2):
        lines.append(f'  - {{id: tap{n}, command: tap, args: {{target: "text=Log in"}}}}')
        lines.append(f'  - {{id: type{n}, command: act, args: {{name: type, target: "id=username", value: x}}}}')
    caps = ", ".join(f"{key}: '{value}'" for key, value in CAPS.items())
    return (
        "meta: {name: bench, version: '1'}\nconfig:\n  seed: 1\n  runtime: appium\n"
        f"  capabilities: {{{caps}}}\nsteps:\n" + "\n".join(lines) + "\n"
    )


def script(url: str) -> str:
    """The same operations, written by hand with the client: a find and an action per step."""
    return textwrap.dedent(f"""
        from appium import webdriver
        from appium.options.common import AppiumOptions
        from appium.webdriver.common.appiumby import AppiumBy
        import time
        driver = webdriver.Remote({url!r}, options=AppiumOptions().load_capabilities({CAPS!r}))
        try:
            started = time.perf_counter()
            for n in range({STEPS // 2}):
                driver.find_element(AppiumBy.XPATH, "//*[@text='Log in']").click()
                driver.find_element(AppiumBy.ID, "com.visor.demo:id/username").send_keys("x")
            print(time.perf_counter() - started)
        finally:
            driver.quit()
    """)


def start(log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Start the tests' Appium server on a free loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [str(APPIUM), "server", "--address", "127.0.0.1", "--port", str(port), "--log", str(log), "--log-no-colors"],
        env={**os.environ, "APPIUM_HOME": str(HOME)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            urllib.request.urlopen(f"{url}/status", timeout=1).read()
            return process, url
        except OSError:
            time.sleep(0.2)
    raise SystemExit("Appium did not start")


#: One run's wall time, the time of its steps alone, and the requests it sent, by kind.
Timing = tuple[float, float, Counter[str]]


def timed(command: list[str], log: Path) -> Timing:
    """Run a command; return its wall time, the time of its steps alone, and the requests it sent, by kind."""
    before = len(_requests(log))
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=False, cwd=ROOT)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed: {done.stderr.decode()[-400:]}")
    time.sleep(0.2)  # let the server finish writing its log
    return elapsed, _steps_time(done.stdout.decode()), Counter(_requests(log)[before:])


def _steps_time(stdout: str) -> float:
    if stdout.lstrip().startswith("{"):
        run = json.loads(stdout)["data"]["run"]
        return _seconds(run["ended_at"]) - _seconds(run["started_at"])
    return float(stdout.strip())


def _seconds(stamp: str) -> float:
    return dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def paired(visor: list[str], hand: list[str], log: Path, repeat: int) -> tuple[list[Timing], list[Timing]]:
    """Time visor and the script `repeat` times each, in pairs whose order alternates, after a run of each warms caches.

    A server that slows as its session count grows, or a machine that warms, then weighs on both alike.
    """
    timed(visor, log), timed(hand, log)
    ours, theirs = [], []
    for attempt in range(repeat):
        if attempt % 2:
            ours.append(timed(visor, log))
            theirs.append(timed(hand, log))
        else:
            theirs.append(timed(hand, log))
            ours.append(timed(visor, log))
    return ours, theirs


def pair_ratio(ours: list[Timing], theirs: list[Timing], part: int) -> float:
    """Return the median of the pairs' ratios of one part of a timing (0: the whole process, 1: the steps)."""
    return statistics.median(mine[part] / base[part] for mine, base in zip(ours, theirs, strict=True))


_IDS = re.compile(r"/(session|element)/[^/]+")
_FIND = re.compile(r"/elements?$")


def _requests(log: Path) -> list[str]:
    """Return the requests the server logged, in order, each as `METHOD /path` with its ids left out."""
    if not log.exists():
        return []
    found = re.findall(r"\[HTTP\] --> ([A-Z]+) (\S+)", log.read_text(errors="replace"))
    # A find of one element and of all are the same round trip: the script asks for one, visor for all.
    return [verb + " " + _FIND.sub("/element(s)", _IDS.sub(r"/\1/:id", path)) for verb, path in found]


def _extra(ours: Counter[str], theirs: Counter[str], source_ms: float | None) -> list[str]:
    """Describe the requests visor sent beyond the script's, with the latency the proxy adds for them."""
    lines = []
    for kind, count in sorted((ours - theirs).items()):
        method, path = kind.split(" ", 1)
        cost = ""
        if source_ms is not None:
            added = delay_ms(method, path.replace(":id", "x").replace("(s)", ""), source_ms) * count
            cost = f", {added / STEPS:.1f} ms per step through the proxy"
        lines.append(f"  {count:3d} x {kind}{cost}")
    return lines


def main() -> int:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--latency", action="store_true", help="add a phone's latency (bench/latency_proxy.py)")
    parser.add_argument("--source-ms", type=float, default=300.0, help="a page source's latency with --latency")
    parser.add_argument(
        "--observe",
        choices=("each-step", "on-demand"),
        default="each-step",
        help="visor's observation policy (config.observe)",
    )
    options = parser.parse_args()
    if not APPIUM.exists():
        raise SystemExit("run `npm ci --prefix tests/appium` first")
    work = Path(tempfile.mkdtemp(prefix="visor-appium-bench-"))
    # The bench's own app maps: in the checkout they would grow from bench to bench, and the figures with them.
    os.environ["VISOR_APP_MAP_DIR"] = str(work / "maps")
    log = work / "appium.log"
    process, url = start(log)
    if options.latency:
        from latency_proxy import serve

        _proxy, url = serve(url, options.source_ms)
        print(f"through a latency proxy: page source {options.source_ms:.0f} ms, find 29 ms, click 25 ms")
    try:
        (work / "bench.yaml").write_text(scenario())
        (work / "script.py").write_text(script(url))
        visor = [*VISOR, "run", str(work / "bench.yaml"), "--server-url", url, "--output", str(work / "out"),
                 "--capture", "none", "--observe", options.observe, "-q"]  # fmt: skip
        hand = [sys.executable, str(work / "script.py")]
        ours, theirs = paired(visor, hand, log, options.repeat)
    finally:
        process.kill()
    steps_ratio = pair_ratio(ours, theirs, 1)
    whole, base = statistics.median(t for t, _, _ in ours), statistics.median(t for t, _, _ in theirs)
    # Session creation and deletion are two requests for both; the rest are per step.
    per_step = (ours[0][2].total() - 2) / STEPS
    per_step_hand = (theirs[0][2].total() - 2) / STEPS
    print(
        f"per step: visor {statistics.median(s for _, s, _ in ours) * 1000 / STEPS:.0f} ms, script "
        f"{statistics.median(s for _, s, _ in theirs) * 1000 / STEPS:.0f} ms"
    )
    print(
        f"{STEPS} steps alone: visor {statistics.median(s for _, s, _ in ours) * 1000:.0f} ms, script "
        f"{statistics.median(s for _, s, _ in theirs) * 1000:.0f} ms, ratio {steps_ratio:.2f}x "
        f"(goal <= 1.2x: {'ok' if steps_ratio <= 1.2 else 'OVER GOAL'})"
    )
    print(
        f"whole processes: visor {whole * 1000:.0f} ms, script {base * 1000:.0f} ms, "
        f"ratio {pair_ratio(ours, theirs, 0):.2f}x"
    )
    print(
        f"requests per step: visor {per_step:.2f}, script {per_step_hand:.2f} (the minimum); "
        f"goal <= minimum + 1: {'ok' if per_step <= per_step_hand + 1 else 'OVER GOAL'}"
    )
    print("requests visor sent beyond the script's (one run):")
    print("\n".join(_extra(ours[0][2], theirs[0][2], options.source_ms if options.latency else None)))
    return 0 if steps_ratio <= 1.2 and per_step <= per_step_hand + 1 else 1


if __name__ == "__main__":
    sys.exit(main())
