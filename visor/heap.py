"""Keep a long-running server's memory flat: large buffers mapped on their own, and one heap for every thread.

glibc's malloc maps a large block (128 KiB and more) on its own, and gives it back when it is freed; but the first
such block freed raises that threshold to the block's size (up to 32 MiB), so from then on every screenshot's
pixels (6 MB) come from the heap, among small objects that outlive them, and the heap cannot shrink past them: a
server answering screenshots grew 20 MiB every few thousand calls (`python bench/mcp_memory.py`). Setting the
threshold fixes it where it is and turns the raising off.

glibc also gives each new thread that allocates a heap (an arena) of its own, up to eight per core: the MCP server
answers each call on a worker thread, so the objects a call makes and those the event loop keeps were spread over
several heaps, each holding on to its own free space (the server's memory grew 6.8 MiB over 10,000 calls, in one
step; with one heap, 1.2). The interpreter lock lets one thread run Python at a time, and small objects come from
Python's own allocator, so one heap costs no waiting worth measuring.

A run keeps the defaults: mapping each picture anew costs a simulated step about 6 ms of page faults, and a run ends.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys

#: `mallopt`'s parameters (malloc.h): the mmap threshold, and the most arenas (heaps) threads may have.
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8
#: The mmap threshold glibc starts with.
MMAP_THRESHOLD = 128 * 1024


def _libc() -> ctypes.CDLL | None:
    """Return the C library this process runs on (glibc on Linux), or None elsewhere or when it cannot be opened."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None)
    except OSError:
        return None


def keep_memory_flat() -> bool:
    """Fix the C allocator's mmap threshold and use one heap for all threads (glibc only); say whether it could.

    Call it before the process starts threads: an arena already made stays.
    """
    libc = _LIBC
    with contextlib.suppress(AttributeError):  # a C library that is not glibc
        if libc is not None:
            mapped = bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
            return bool(libc.mallopt(_M_ARENA_MAX, 1)) and mapped
    return False


def give_back_free_pages() -> bool:
    """Give the heap's free pages back to the system (glibc's `malloc_trim`); say whether it could.

    What a call freed in the middle of the heap stays resident until then. It takes microseconds: a server calls
    it after each request.
    """
    libc = _LIBC
    with contextlib.suppress(AttributeError):
        if libc is not None:
            libc.malloc_trim(0)
            return True
    return False


_LIBC = _libc()
