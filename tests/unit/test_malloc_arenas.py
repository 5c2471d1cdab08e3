"""limit_malloc_arenas caps how many glibc malloc arenas new threads get."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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
