"""Cap glibc's malloc arenas before the service starts its threads, and give free memory back.

glibc gives each new thread its own malloc arena (up to 8 per core). In `mnemos serve` the
writes, graph extraction and Kuzu / Qdrant Edge calls run on waitress and dramatiq threads, and
memory freed in one arena is not reused by another, so the service's RSS grows with its arenas,
much of it held free by malloc; two arenas halve the growth per chunk (bench/README.md, "RSS at
scale: where it goes").

Even in two arenas, memory freed after a bulk write, an index build or a document stays with
malloc: glibc returns free pages from the middle of a heap only when asked (`malloc_trim`).
`start_trimming` asks every half minute, so RSS follows what the service holds, not its peak
(bench/README.md has the arena cap alone against the cap and trimming).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import threading
import time
from typing import Any

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)
DEFAULT_ARENAS = 2
TRIM_INTERVAL_S = 30.0


def _libc() -> Any | None:
    name = ctypes.util.find_library('c')
    if name is None:
        return None
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def limit_malloc_arenas(arenas: int = DEFAULT_ARENAS) -> bool:
    """Cap malloc arenas at `arenas` for threads started from now on; True when applied.

    An explicit MALLOC_ARENA_MAX in the environment wins (glibc read it at start); on a libc
    without `mallopt` (musl, macOS) nothing changes.
    """
    if os.environ.get('MALLOC_ARENA_MAX'):
        return False
    mallopt = getattr(_libc(), 'mallopt', None)
    if mallopt is None:
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas))


def release_free_memory() -> bool:
    """Return the pages malloc holds free to the OS (glibc `malloc_trim(0)`); True if any were.

    On a libc without `malloc_trim` nothing happens.
    """
    trim = getattr(_libc(), 'malloc_trim', None)
    if trim is None:
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return bool(trim(0))


def start_trimming(
    interval_s: float = TRIM_INTERVAL_S, stop: threading.Event | None = None
) -> threading.Thread:
    """A daemon thread calling `release_free_memory` every `interval_s` seconds until `stop`.

    A trim walks each arena under its lock (tens of ms for a heap of a few GB), during which
    other threads' allocations in that arena wait; once per interval.
    """
    stopped = stop or threading.Event()

    def loop() -> None:
        while not stopped.wait(interval_s):
            started = time.perf_counter()
            released = release_free_memory()
            log.debug('malloc_trim: %s in %.1f ms', released, (time.perf_counter() - started) * 1e3)

    thread = threading.Thread(target=loop, name='mnemos-malloc-trim', daemon=True)
    thread.start()
    return thread
