"""Recalls counted beside the vector store: a small SQLite table in the data dir (`access.sqlite3`).

`recall.access.overlay` says why recalls are not written into the chunks' payloads. The table holds,
per chunk, the recalls since its payload's `access_count` was last written and the latest recall's
time; a copy in memory answers reads.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from core.transactions import transaction

FILENAME = 'access.sqlite3'


class SqliteAccessLog:
    """Recalls per chunk id since its payload last took its access fields; one process owns it."""

    def __init__(self, path: Path) -> None:
        """Open (or create) the table at `path` and read it into memory."""
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        # WAL + NORMAL: a committed count survives the process being killed
        self._db.execute('PRAGMA journal_mode=WAL')
        self._db.execute('PRAGMA synchronous=NORMAL')
        self._db.execute(
            'CREATE TABLE IF NOT EXISTS access '
            '(id TEXT PRIMARY KEY, hits INTEGER NOT NULL, last REAL NOT NULL)'
        )
        self._lock = threading.Lock()
        self._rows: dict[str, tuple[int, float]] = {
            ident: (int(hits), float(last))
            for ident, hits, last in self._db.execute('SELECT id, hits, last FROM access')
        }

    def add(self, hits: Mapping[str, tuple[int, float]]) -> None:
        """Count `n` more recalls of each id, the latest at epoch `at`: {id: (n, at)}."""
        if not hits:
            return
        with self._lock:
            rows = []
            for ident, (n, at) in hits.items():
                old_n, old_at = self._rows.get(ident, (0, 0.0))
                rows.append((ident, old_n + n, max(old_at, at)))
            self._in_one_commit('INSERT OR REPLACE INTO access VALUES (?, ?, ?)', rows)
            self._rows.update({ident: (n, at) for ident, n, at in rows})

    def _in_one_commit(self, sql: str, rows: Sequence[tuple[object, ...]]) -> None:
        # autocommit would make each row its own commit (a batch ~20 times slower), and the
        # callers hold a scope's write lock throughout (every row's statement also lets
        # the GIL go and must win it back from the request threads)
        with transaction(self._db):
            self._db.executemany(sql, rows)

    def get(self, ids: Iterable[str]) -> dict[str, tuple[int, float]]:
        """{id: (recalls, latest epoch)} of these ids that have any."""
        rows = self._rows
        if not rows:
            return {}
        # no lock: one dict lookup per id is atomic, and an id absorbed meanwhile reads as absent
        return {i: hit for i in ids if (hit := rows.get(i)) is not None}

    def absorb(self, ids: Iterable[str]) -> None:
        """Forget these ids: their payloads now hold every recall (or they are gone)."""
        with self._lock:
            gone = [(i,) for i in dict.fromkeys(ids) if i in self._rows]
            if gone:
                self._in_one_commit('DELETE FROM access WHERE id = ?', gone)
                for (ident,) in gone:
                    del self._rows[ident]

    def __len__(self) -> int:
        return len(self._rows)

    def close(self) -> None:
        """Close the database (idempotent)."""
        with self._lock:
            self._db.close()
