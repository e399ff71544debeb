"""The simulated phone's log: what the phone writes (apps started, screens shown, a crash), what app models log."""

from __future__ import annotations

from tests.conftest import ROOT
from tests.simkit import demo_device, sim_device, the_node
from visor.clock import VirtualClock
from visor.device.logs import DEVICE_LINES, crash_in
from visor.runtimes.sim.device import SimDevice
from visor.runtimes.sim.load import load_app

CHECKOUT = str(ROOT / "scenarios" / "apps" / "checkout.app.yaml")


def texts(device: object, cursor: int = 0) -> list[str]:
    lines, _ = device.log_since(cursor)  # type: ignore[attr-defined]
    return [f"{item.level}/{item.tag}: {item.text}" for item in lines]


def test_the_phone_logs_an_app_started_and_each_screen_shown() -> None:
    device = demo_device()
    assert texts(device) == [
        "I/ActivityManager: Start proc 10000:com.visor.demo/u0a0 for activity com.visor.demo",
        "I/ActivityTaskManager: Displayed com.visor.demo/.login",
    ]
    device.open_url("demo://settings")
    assert texts(device)[-1] == "I/ActivityTaskManager: Displayed com.visor.demo/.settings"


def test_an_app_model_logs_and_crashes_and_nothing_after_the_crash_runs() -> None:
    device = sim_device(CHECKOUT)
    _, cursor = device.log_since(0)
    device.tap(the_node(device, "text=Add a book").bounds.center)
    device.tap(the_node(device, "text=Empty the cart").bounds.center)
    assert texts(device, cursor) == ["I/Checkout: added a book: 1 in the cart", "W/Checkout: cart emptied"]
    _, cursor = device.log_since(cursor)
    device.tap(the_node(device, "text=Check out").bounds.center)
    lines, after = device.log_since(cursor)
    assert [item.text for item in lines][:4] == [
        "checkout of 0 books", "FATAL EXCEPTION: main", "Process: com.example.checkout, PID: 10000",
        "java.lang.IllegalStateException: cart is empty",
    ]  # fmt: skip
    assert lines[-1].text == "Process com.example.checkout (pid 10000) has died: fore TOP"
    crash = crash_in(lines, "com.example.checkout")
    assert crash is not None and crash.message == "java.lang.IllegalStateException: cart is empty"
    assert device.foreground == "launcher" and "com.example.checkout" not in device.apps  # the process is gone
    assert device.log_since(after) == ((), after)  # read once
    device.launch_app("com.example.checkout")  # a new process, a new id
    assert texts(device, after)[0].startswith("I/ActivityManager: Start proc 1")


def test_an_iphones_crash_is_written_as_ios_writes_one() -> None:
    device = SimDevice(load_app(CHECKOUT), clock=VirtualClock(), seed=1, platform="ios")
    device.tap(the_node(device, "text=Check out").bounds.center)
    lines, _ = device.log_since(0)
    crash = crash_in(lines, "com.example.checkout")
    assert crash is not None and "Terminating app due to uncaught exception 'java.lang.IllegalStateException'" in (
        crash.message
    )


def test_the_log_keeps_its_newest_lines_and_its_cursor_counts_every_one() -> None:
    device = demo_device()
    model = device.models["com.visor.demo"]
    for number in range(DEVICE_LINES + 5):
        device.log(model, "D", None, f"line {number}")
    lines, cursor = device.log_since(0)
    assert len(lines) == DEVICE_LINES and lines[-1].text == f"line {DEVICE_LINES + 4}" and cursor == DEVICE_LINES + 7
    assert device.log_since(cursor - 1)[0][0].text == f"line {DEVICE_LINES + 4}"
