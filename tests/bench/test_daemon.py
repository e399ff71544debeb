"""The daemon benchmark's own reading of the system: a process that exited is not left running."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from bench.daemon import running


def test_an_exited_process_not_yet_reaped_is_not_running() -> None:
    """A zombie still has /proc/PID: the benchmark said "daemon process left after stop: yes" of one."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert running(child.pid)
        child.kill()
        deadline = time.monotonic() + 30
        while Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":  # exited, not reaped
            assert time.monotonic() < deadline, "the child did not exit"
            time.sleep(0.01)
        assert not running(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not running(child.pid)
