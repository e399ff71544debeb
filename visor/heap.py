"""Keep a long-running server's memory flat: large buffers mapped on their own, never kept in the heap.

glibc's malloc maps a large block (128 KiB and more) on its own, and gives it back when it is freed; but the first
such block freed raises that threshold to the block's size (up to 32 MiB), so from then on every screenshot's
pixels (6 MB) come from the heap, among small objects that outlive them, and the heap cannot shrink past them: a
server answering screenshots grew 20 MiB every few thousand calls (`python bench/mcp_memory.py`). Setting the
threshold fixes it where it is and turns the raising off. A run keeps the default: mapping each picture anew costs
a simulated step about 6 ms of page faults, and a run ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys

#: `mallopt`'s parameter for the mmap threshold (malloc.h), and the threshold glibc starts with.
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 * 1024


def keep_large_buffers_mapped() -> bool:
    """Fix the C allocator's mmap threshold for this process (glibc only); return whether it was set."""
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    return False
