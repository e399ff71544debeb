"""A long-running server's memory: glibc set for one heap and a fixed mmap threshold, and free pages given back."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator only")

GIVEN_BACK = textwrap.dedent(
    """
    from pathlib import Path
    from visor.heap import give_back_free_pages, keep_memory_flat

    def rss_mib():
        status = Path("/proc/self/status").read_text().split("VmRSS:")[1]
        return int(status.split()[0]) / 1024

    assert keep_memory_flat()
    kept, freed = [], []
    for _ in range(2000):  # blocks below the mmap threshold come from the heap, between blocks that stay
        freed.append(bytearray(60_000))
        kept.append(bytearray(1_000))
    del freed
    before = rss_mib()
    assert give_back_free_pages()
    print(before - rss_mib())
    """
)


def test_the_pages_a_request_freed_are_given_back() -> None:
    """120 MB freed between blocks that stay: resident until given back, then no longer (in a process of its own)."""
    done = subprocess.run([sys.executable, "-c", GIVEN_BACK], capture_output=True, text=True, check=True, timeout=120)
    assert float(done.stdout) > 60, done.stdout  # MiB given back of the 114 freed
