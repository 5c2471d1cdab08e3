"""A graph database Kuzu crashes on must not keep the service down (kg/kuzu_lifecycle.py).

The crashing file is real: Kuzu 0.11.3 keeps its metadata in a chain of pages, each ending with
the index of the next (bytes 4080-4083); a wild index there makes the opening read past the file
and segfault, as the fourth scale run's graph did at every start after a failed bulk write.
"""

from __future__ import annotations

import signal
import struct
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from kg.models import Entity, entity_id

if TYPE_CHECKING:
    from kg.kuzu_store import KuzuGraphStore

SCOPE = 'agent:alice'
T0 = datetime(2023, 1, 1, tzinfo=UTC)
PAGE = 4096
NEXT_PAGE_AT = 4080


def ent(name: str) -> Entity:
    return Entity(
        id=entity_id(SCOPE, name.lower()),
        scope=SCOPE,
        name=name,
        canonical_name=name.lower(),
        created_at=T0,
        updated_at=T0,
    )


def _store(path: Path) -> KuzuGraphStore:
    from kg.kuzu_store import KuzuGraphStore

    return KuzuGraphStore(path, buffer_pool_bytes=64 * 2**20, reopen_after_writes=0)


def _names(store: KuzuGraphStore) -> list[str]:
    return sorted(e.name for e in store.list_entities(SCOPE))


def opening_crashes(path: Path) -> bool:
    code = f'import kuzu; kuzu.Database({str(path)!r}, buffer_pool_size=64 * 2**20).close()'
    done = subprocess.run([sys.executable, '-c', code], capture_output=True, check=False)
    return done.returncode == -signal.SIGSEGV


def break_metadata_chain(path: Path) -> None:
    """Point the first link of the metadata page chain far past the end of the file."""
    data = bytearray(path.read_bytes())
    links = [
        p
        for p in range(0, len(data), PAGE)
        if struct.unpack_from('<I', data, p + NEXT_PAGE_AT)[0] == p // PAGE + 1
    ]
    assert links, 'no metadata page chain found: not the Kuzu 0.11.3 file format'
    struct.pack_into('<I', data, links[0] + NEXT_PAGE_AT, 0x3F000000)
    path.write_bytes(bytes(data))


def _die_with_the_database_open(path: Path, names: list[str]) -> None:
    """A process that writes entities and is killed before it closes the database (kill -9)."""
    code = textwrap.dedent(
        f"""
        import os, sys
        sys.path[:0] = {sys.path!r}
        from tests.contract.test_kuzu_crash_recovery import _store, ent
        store = _store(__import__('pathlib').Path({str(path)!r}))
        store.upsert_entities([ent(n) for n in {names!r}])
        os._exit(0)
        """
    )
    subprocess.run([sys.executable, '-c', code], check=True, cwd=Path(__file__).parents[2])


def test_a_graph_that_crashes_kuzu_is_set_aside_and_the_graph_starts_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from kg.kuzu_lifecycle import UNOPENABLE, open_marker, rebuild_marker

    path = tmp_path / 'graph.kuzu'
    store = _store(path)
    store.upsert_entities([ent(f'Person {i}') for i in range(50)])
    store.close()
    break_metadata_chain(path)
    assert opening_crashes(path)  # what the service would die of at every start
    broken = path.read_bytes()
    open_marker(path).write_text('4242')  # the process that had it open died

    with caplog.at_level('ERROR', logger='kg.kuzu_lifecycle'):
        store = _store(path)
    try:
        assert _names(store) == []
        store.upsert_entities([ent('Ann')])  # and it takes writes again
        assert _names(store) == ['Ann']
    finally:
        store.close()
    kept = [p for p in tmp_path.iterdir() if UNOPENABLE in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == broken  # nothing stored is destroyed
    assert kept[0].name in caplog.text and 'extracts the graph from them again' in caplog.text
    # what asks the service to extract every memory again (tests/e2e/test_graph_rebuild.py)
    assert rebuild_marker(path).read_text() == kept[0].name
    assert not open_marker(path).exists()  # closed cleanly: the next start does not probe
    again = _store(path)
    try:
        assert _names(again) == ['Ann']
    finally:
        again.close()


def test_a_process_killed_with_the_graph_open_loses_nothing_and_the_next_start_probes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kg.kuzu_lifecycle as lifecycle

    path = tmp_path / 'graph.kuzu'
    probes: list[bool] = []
    crashes = lifecycle.crashes

    def recording(probe: Sequence[str], timeout: float = lifecycle.PROBE_TIMEOUT_S) -> bool:
        probes.append(crashes(probe, timeout))
        return probes[-1]

    monkeypatch.setattr(lifecycle, 'crashes', recording)
    store = _store(path)
    store.upsert_entities([ent('Ann')])
    store.close()
    _die_with_the_database_open(path, ['Bob'])
    assert lifecycle.open_marker(path).exists()
    assert probes == []  # a clean close and open never probe

    store = _store(path)
    try:
        assert probes == [False]  # the unclean end is noticed; the database opens in a child
        assert _names(store) == ['Ann', 'Bob']  # Bob's write was committed: replayed
    finally:
        store.close()
    assert not [p for p in tmp_path.iterdir() if lifecycle.UNOPENABLE in p.name]


def _database_and_log(tmp_path: Path) -> Path:
    """Stand-ins for a database file and its log (the probes below never open them)."""
    from kg.kuzu_lifecycle import wal_path

    path = tmp_path / 'graph.kuzu'
    path.write_bytes(b'the database')
    wal_path(path).write_bytes(b'a log')
    return path


def test_a_log_the_opening_crashes_on_is_set_aside_and_the_database_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from kg.kuzu_lifecycle import SET_ASIDE, UNOPENABLE, rebuild_marker, survive_crashes

    path = _database_and_log(tmp_path)
    # a real native crash, as long as the log is there
    crash_with_log = (
        'import os, signal, sys; '
        'os.path.exists(sys.argv[1]) and os.kill(os.getpid(), signal.SIGSEGV)'
    )
    with caplog.at_level('ERROR', logger='kg.kuzu_lifecycle'):
        survive_crashes(path, lambda db: [sys.executable, '-c', crash_with_log, f'{db}.wal'])
    assert path.read_bytes() == b'the database'
    kept = [p for p in tmp_path.iterdir() if SET_ASIDE in p.name]
    assert len(kept) == 1 and kept[0].read_bytes() == b'a log'
    assert not [p for p in tmp_path.iterdir() if UNOPENABLE in p.name]
    assert kept[0].name in caplog.text
    assert rebuild_marker(path).read_text() == kept[0].name  # what only the log held comes back


@pytest.mark.parametrize(
    ('code', 'crashed'),
    [
        ('import os, signal; os.kill(os.getpid(), signal.SIGSEGV)', True),
        ('import os, signal; os.kill(os.getpid(), signal.SIGABRT)', True),
        ('raise RuntimeError("IO exception: Could not set lock on file")', False),
        ('import os, signal; os.kill(os.getpid(), signal.SIGKILL)', False),  # the OOM killer
        ('pass', False),
    ],
)
def test_only_a_native_crash_counts_as_one(code: str, crashed: bool) -> None:
    from kg.kuzu_lifecycle import crashes

    assert crashes([sys.executable, '-c', code]) is crashed


def test_a_probe_that_hangs_is_given_up_on_and_the_file_left_alone(tmp_path: Path) -> None:
    from kg.kuzu_lifecycle import crashes

    assert crashes([sys.executable, '-c', 'import time; time.sleep(60)'], timeout=0.5) is False


def test_a_crash_that_does_not_happen_again_leaves_everything_in_place(tmp_path: Path) -> None:
    from kg.kuzu_lifecycle import survive_crashes

    path = _database_and_log(tmp_path)
    once = tmp_path / 'crashed-once'
    # a real native crash, the first time only (a transient failure, not the file)
    crash_once = (
        'import os, signal, sys; from pathlib import Path; p = Path(sys.argv[1]); '
        'p.exists() or (p.touch(), os.kill(os.getpid(), signal.SIGSEGV))'
    )
    survive_crashes(path, lambda db: [sys.executable, '-c', crash_once, str(once)])
    assert once.exists()  # it did crash
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        'crashed-once',
        'graph.kuzu',
        'graph.kuzu.wal',
    ]


def test_a_kuzu_that_crashes_on_any_database_leaves_the_files_in_place(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # a broken install (a build for another CPU) crashes on every file: not the file's fault
    from kg.kuzu_lifecycle import survive_crashes

    path = _database_and_log(tmp_path)
    crash = 'import os, signal; os.kill(os.getpid(), signal.SIGILL)'
    with caplog.at_level('ERROR', logger='kg.kuzu_lifecycle'):
        survive_crashes(path, lambda db: [sys.executable, '-c', crash, str(db)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ['graph.kuzu', 'graph.kuzu.wal']
    assert 'empty database too' in caplog.text
