"""When the embedded Kuzu database is opened again, and its write-ahead log where Kuzu cannot
handle it.

Kuzu replays `<db>.wal` when it opens the database. A log whose records the database file
already holds (a checkpoint that wrote them and did not clear the log) makes that replay fail
("Found duplicated primary key value ..."), and Kuzu then refuses to open the database at all,
on a reopening as on a restart. The graph is derived from the memories, so the store sets such
a log aside and opens the database without it rather than never opening again. The store adds
no CHECKPOINT of its own before closing: closing checkpoints on its own, while an explicit one
after a write that filled the buffer pool can fail and leave the file corrupt.

A database file Kuzu crashes on is worse (a failed bulk write can leave one): a segfault while
opening it would kill the service at every start. So a store that was not closed
cleanly last time (its marker, `<db>.open`, is still there: the process died with the database
open) first opens the database in a child process; when the child dies of a native crash, the
log is set aside and, if that is not enough, the database file too, and the graph starts empty
(the memories are intact: a second marker, `<db>.rebuild`, tells the service to extract them all
again; it is left too when only the log was set aside, and the graph then skips what it links).
A clean close removes the first marker, so a normal start or reopening pays nothing.
No kuzu call lives here (kg/kuzu_store.py holds them all; the children of a probe and of a
`rewrite` run their own).
"""

from __future__ import annotations

import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from core.errors import StoreUnavailable

log = logging.getLogger(__name__)
T = TypeVar('T')

EXPORTING = '.exporting'
REWRITTEN = '.rewritten'
SET_ASIDE = '.unreplayable-'
UNOPENABLE = '.unopenable-'
OPEN_MARKER = '.open'
REBUILD_MARKER = '.rebuild'
# what a native crash dies of; a child killed otherwise (the OOM killer, a timeout) says nothing
# about the file, and the file is then left where it is
CRASH_SIGNALS = frozenset(
    {signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT, signal.SIGILL, signal.SIGFPE}
)
PROBE_TIMEOUT_S = 600.0
# one statement on the database at argv[1] with a pool of argv[2] bytes, in a child (`rewrite`)
_RUN = (
    'import sys, kuzu; db = kuzu.Database(sys.argv[1], buffer_pool_size=int(sys.argv[2])); '
    'c = kuzu.Connection(db); c.execute(sys.argv[3]); c.close(); db.close()'
)

# Kuzu keeps native memory for what a database and its connections have written since they were
# opened, released only when they close (CHECKPOINT gives none back), so it grows with a load
# (bench/README.md, "What holds the RSS after a 100k load"). A bulk load makes ~7 write calls per
# 1k chunks and opening the database again costs ~0.2 s at 100k chunks, so after this many write
# calls (~7k chunks, about a minute of ingest) the store closes and reopens it, with every
# reader kept out.
REOPEN_AFTER_WRITES = 50
# ...but not more often than this: single writes make 50 write calls in seconds (each turn's
# mentions, entities and facts), and each opening holds every reader and writer out for ~0.2 s
# (closing the database holds the GIL too)
REOPEN_MIN_INTERVAL_S = 60.0
# A load's last write calls (up to a minute of ingest) would keep their memory while the service
# then idles: after REOPEN_IDLE_MIN_WRITES of them and none for REOPEN_IDLE_S, a thread reopens
# the database, once per quiet spell (bursts 10 s apart cost readers ~0.2 s in every 10 s)
REOPEN_IDLE_S = 10.0
REOPEN_IDLE_MIN_WRITES = 10


# the command that opens the database at the given path in a child and closes it
Probe = Callable[[Path], Sequence[str]]


def open_recovering(
    database: Path, open_database: Callable[[], T], probe: Probe | None = None
) -> T:
    """`open_database()`; when it fails over the log beside `database`, once more with the log
    set aside (logged as an error, the file kept). StoreUnavailable when it cannot open.

    When the last process to open `database` did not close it (its marker is there) and
    `probe` is given, the probe runs first; if it dies of a native crash, the log and then the
    database file are set aside until it does not (see the module's docstring)."""
    drop_rewrite(database)  # a rewrite that did not finish: the database is whole without it
    if probe is not None:
        if open_marker(database).exists():
            survive_crashes(database, probe)
        # before opening: a process that dies while opening leaves it too (a reopening crashed)
        open_marker(database).write_text(str(os.getpid()))
    try:
        opened = open_database()
    except RuntimeError as exc:  # locked, a log that cannot be replayed, a corrupt file
        kept = set_wal_aside(database, exc)
        if kept is None:
            raise StoreUnavailable(f'cannot open the graph at {database}: {exc}') from exc
        try:
            opened = open_database()
        except RuntimeError as again:
            restore_wal(database, kept)
            raise StoreUnavailable(f'cannot open the graph at {database}: {again}') from again
        request_rebuild(database, kept)
        log.error(
            'the graph at %s could not replay its write-ahead log; opened without it, the log '
            'is kept as %s. Graph changes since its last checkpoint may be missing: the '
            'service extracts the memories the graph does not link again (at this start, or '
            'at the next one if this was a reopening)',
            database,
            kept,
        )
    return opened


def survive_crashes(database: Path, probe: Probe) -> None:
    """Run `probe`; while it dies of a native crash, set aside the log, then the database.
    Only a crash that happens again, and not on an empty database, counts: what a corrupt
    file does every time. A transient failure, or a Kuzu that crashes on any file (a broken
    install), must not cost a sound database its place."""
    if not (crashes(probe(database)) and crashes(probe(database))):
        return
    with tempfile.TemporaryDirectory() as empty:
        if crashes(probe(Path(empty) / 'control.kuzu')):
            log.error('Kuzu crashes opening an empty database too: %s is left as it is', database)
            return
    kept = set_wal_aside(database, RuntimeError('the opening crashed'))
    if kept is not None and not crashes(probe(database)):
        request_rebuild(database, kept)
        log.error(
            'opening the graph at %s crashed a process; opened without its write-ahead log, '
            'kept as %s. Graph changes since its last checkpoint may be missing: the service '
            'extracts the memories the graph does not link again',
            database,
            kept,
        )
        return
    aside = database.with_name(f'{database.name}{UNOPENABLE}{_stamp()}')
    os.replace(database, aside)
    request_rebuild(database, aside)  # before anything can fail again
    log.error(
        'opening the graph at %s crashed a process; the database is set aside as %s (its log '
        'as %s) and the graph starts empty. The memories are intact: the service extracts the '
        'graph from them again',
        database,
        aside,
        kept or '(there was none)',
    )


def crashes(probe: Sequence[str], timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether the command dies of a native crash (CRASH_SIGNALS)."""
    try:
        done = subprocess.run(list(probe), capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        log.warning('opening the graph in a child took over %.0f s; opening it anyway', timeout)
        return False
    if -done.returncode not in CRASH_SIGNALS:
        return False
    said = done.stderr.decode('utf-8', 'replace').strip()[-2000:] or '(nothing on stderr)'
    log.warning('opening the graph in a child died of signal %d: %s', -done.returncode, said)
    return True


def open_marker(database: Path) -> Path:
    """The file that says a process has `database` open; removed when it closes it cleanly."""
    return database.with_name(database.name + OPEN_MARKER)


def rebuild_marker(database: Path) -> Path:
    """The file that says the graph at `database` was started empty and awaits its rebuild."""
    return database.with_name(database.name + REBUILD_MARKER)


def request_rebuild(database: Path, why: Path) -> None:
    """Leave the rebuild marker (naming the file set aside): the service's next start queues
    the graph extraction of every memory and episode, and the graph skips those it links."""
    rebuild_marker(database).write_text(why.name)


def closed_cleanly(database: Path) -> None:
    """Remove the marker: the database was closed, so the next opening need not probe it."""
    open_marker(database).unlink(missing_ok=True)


def _stamp() -> str:
    return f'{time.strftime("%Y%m%dT%H%M%S")}-{os.getpid()}'


def wal_path(database: Path) -> Path:
    """The write-ahead log Kuzu keeps beside `database`."""
    return database.with_name(database.name + '.wal')


def set_wal_aside(database: Path, error: BaseException) -> Path | None:
    """Move the log aside after `error` from opening `database`; returns where it went, or
    None when the error is not the log's (another process holds the lock) or there is none."""
    wal = wal_path(database)
    if 'lock' in str(error).lower() or not wal.is_file():
        return None
    kept = wal.with_name(f'{wal.name}{SET_ASIDE}{_stamp()}')
    os.replace(wal, kept)
    return kept


def restore_wal(database: Path, kept: Path) -> None:
    """Put a set-aside log back: opening failed without it too, so it was not the cause."""
    os.replace(kept, wal_path(database))


def reopen_when_idle(
    reopen_if_quiet: weakref.WeakMethod[Callable[[], bool]], stop: threading.Event, idle: float
) -> None:
    """The idle reopener's loop (see REOPEN_IDLE_S): a store's `_reopen_if_quiet` by weak
    reference, so a store nobody closed can still be collected, and the loop then ends; the
    method says False once the store is closed."""
    while not stop.wait(min(idle, 5.0)):
        method = reopen_if_quiet()
        if method is None or not method():
            return
        del method  # its store is not held while waiting


def rewrite(database: Path, pool_bytes: int) -> None:
    """Replace the closed database at `database` with a new file holding the same rows.

    Kuzu keeps a deleted node's strings in the file: a forgotten user's name was still in
    `graph.kuzu` after DETACH DELETE and CHECKPOINT. So an erasure writes the rows the database
    holds out (EXPORT DATABASE, beside it) and into a new file (IMPORT DATABASE), which takes the
    old one's place. Each statement runs in a child with a `pool_bytes` buffer pool, so that
    the service's threads keep the GIL meanwhile; closing checkpoints, so no log is left."""
    export, fresh = _rewrite_paths(database)
    drop_rewrite(database)
    try:
        _child(database, pool_bytes, f"EXPORT DATABASE '{_literal(export)}' (format='parquet')")
        _child(fresh, pool_bytes, f"IMPORT DATABASE '{_literal(export)}'")
        # the old log (empty after the closing checkpoint) must not be replayed on the new file
        wal_path(database).unlink(missing_ok=True)
        os.replace(fresh, database)
    finally:
        drop_rewrite(database)


def drop_rewrite(database: Path) -> None:
    """Remove what an unfinished rewrite of `database` left beside it."""
    export, fresh = _rewrite_paths(database)
    shutil.rmtree(export, ignore_errors=True)
    fresh.unlink(missing_ok=True)
    wal_path(fresh).unlink(missing_ok=True)


def _child(database: Path, pool_bytes: int, statement: str) -> None:
    command = [sys.executable, '-c', _RUN, str(database), str(pool_bytes), statement]
    done = subprocess.run(command, capture_output=True, timeout=PROBE_TIMEOUT_S, check=False)
    if done.returncode != 0:
        said = done.stderr.decode('utf-8', 'replace').strip()[-2000:]
        raise StoreUnavailable(f'rewriting the graph failed ({done.returncode}): {said}')


def _rewrite_paths(database: Path) -> tuple[Path, Path]:
    return (
        database.with_name(database.name + EXPORTING),
        database.with_name(database.name + REWRITTEN),
    )


def _literal(path: Path) -> str:
    return str(path).replace('\\', '\\\\').replace("'", "\\'")
