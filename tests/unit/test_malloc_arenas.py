"""limit_malloc_arenas caps how many glibc malloc arenas new threads get; release_free_memory
gives what malloc holds free back to the OS."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import DEADLINE_S

ROOT = Path(__file__).resolve().parents[2]

# 8 threads each malloc once while alive together; glibc then reports its arenas (<heap nr=..>)
_PROBE = """
import ctypes, sys, tempfile, threading
from runtime.malloc_arenas import limit_malloc_arenas
applied = limit_malloc_arenas(2) if sys.argv[1] == 'limit' else False
libc = ctypes.CDLL('libc.so.6')
libc.malloc.restype = ctypes.c_void_p
libc.fopen.restype = ctypes.c_void_p
barrier = threading.Barrier(8)
def work():
    p = libc.malloc(100_000)
    barrier.wait()
    libc.free(ctypes.c_void_p(p))
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
path = tempfile.mktemp()
fp = libc.fopen(path.encode(), b'w')
libc.malloc_info(0, ctypes.c_void_p(fp))
libc.fclose(ctypes.c_void_p(fp))
print(applied, open(path).read().count('<heap nr='))
"""


def _arenas(mode: str) -> tuple[str, int]:
    env = {k: v for k, v in os.environ.items() if k != 'MALLOC_ARENA_MAX'}
    out = subprocess.run(
        [sys.executable, '-c', _PROBE, mode],
        cwd=ROOT,
        env={**env, 'PYTHONPATH': str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='glibc mallopt')
def test_limit_caps_thread_arenas() -> None:
    applied, limited = _arenas('limit')
    _, default = _arenas('default')
    assert applied == 'True'
    assert limited <= 2
    assert default > limited  # without the cap the 8 threads got arenas of their own


def test_explicit_environment_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    from runtime.malloc_arenas import limit_malloc_arenas

    monkeypatch.setenv('MALLOC_ARENA_MAX', '4')
    assert limit_malloc_arenas() is False


# 200 MB in 4 KB blocks, all freed but the last (which pins the heap top, so free() alone
# cannot shrink the heap); RSS after free, then after release_free_memory()
_TRIM_PROBE = """
import ctypes
from runtime.malloc_arenas import release_free_memory
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) // 1024
libc = ctypes.CDLL('libc.so.6')
libc.malloc.restype = ctypes.c_void_p
blocks = [libc.malloc(4096) for _ in range(50_000)]
for p in blocks:
    ctypes.memset(p, 1, 4096)
for p in blocks[:-1]:
    libc.free(ctypes.c_void_p(p))
held = rss()
released = release_free_memory()
print(released, held, rss())
"""


@pytest.mark.skipif(not sys.platform.startswith('linux'), reason='glibc malloc_trim')
def test_release_gives_free_memory_back() -> None:
    out = subprocess.run(
        [sys.executable, '-c', _TRIM_PROBE],
        cwd=ROOT,
        env={**os.environ, 'PYTHONPATH': str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    released, held, after = out[0], int(out[1]), int(out[2])
    assert released == 'True'
    assert held - after > 150  # MB: the freed blocks left the process


def test_the_trimmer_trims_until_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from runtime import malloc_arenas

    calls: list[int] = []
    twice = threading.Event()

    def counted() -> bool:
        calls.append(1)
        if len(calls) >= 2:
            twice.set()
        return True

    monkeypatch.setattr(malloc_arenas, 'release_free_memory', counted)
    stop = threading.Event()
    thread = malloc_arenas.start_trimming(interval_s=0.01, stop=stop)
    assert twice.wait(DEADLINE_S)
    stop.set()
    thread.join(DEADLINE_S)
    assert not thread.is_alive()
