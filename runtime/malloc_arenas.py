"""Cap glibc's malloc arenas before the service starts its threads.

glibc gives each new thread its own malloc arena (up to 8 per core). In `mnemos serve` the
writes, graph extraction and Kuzu / Qdrant Edge calls run on waitress and dramatiq threads, and
memory freed in one arena is not reused by another: `bench/rss_breakdown.py --service-mode`
measured 1,057 MB at 6k chunks growing 48.5 KB per chunk, 464 MB of it held free by malloc,
against 721 MB and 21.4 KB per chunk with two arenas.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)
DEFAULT_ARENAS = 2


def limit_malloc_arenas(arenas: int = DEFAULT_ARENAS) -> bool:
    """Cap malloc arenas at `arenas` for threads started from now on; True when applied.

    An explicit MALLOC_ARENA_MAX in the environment wins (glibc read it at start); on a libc
    without `mallopt` (musl, macOS) nothing changes.
    """
    if os.environ.get('MALLOC_ARENA_MAX'):
        return False
    name = ctypes.util.find_library('c')
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas))
