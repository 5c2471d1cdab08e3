"""Recalls counted beside the payloads: the SQLite access log and the overlay that reads it back."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.clock import ManualClock, to_epoch
from recall.access.overlay import AccessOverlay
from recall.access.sqlite_log import SqliteAccessLog
from recall.models import MEMORIES
from recall.schemas import MemoryIn
from recall.write.writer import MemoryWriter
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder
from vectors.memory import InMemoryVectorStore
from vectors.models import PointFilter, SparseVector, VectorPoint

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:unit'


def _writer(tmp_path: Path) -> tuple[MemoryWriter, InMemoryVectorStore, SqliteAccessLog]:
    raw = InMemoryVectorStore()
    log = SqliteAccessLog(tmp_path / 'access.sqlite3')
    writer = MemoryWriter(
        AccessOverlay(raw, log), HashEmbedder(), Bm25Encoder(), ManualClock(NOW), access=log
    )
    return writer, raw, log


def _write(writer: MemoryWriter, text: str) -> str:
    [result] = writer.remember([MemoryIn(scope=SCOPE, text=text)])
    assert result.id is not None
    return result.id


def test_the_log_adds_recalls_keeps_the_latest_time_and_survives_a_reopen(tmp_path):
    log = SqliteAccessLog(tmp_path / 'access.sqlite3')
    log.add({'a': (2, 100.0), 'b': (1, 50.0)})
    log.add({'a': (1, 90.0)})
    assert log.get(['a', 'b', 'c']) == {'a': (3, 100.0), 'b': (1, 50.0)}
    log.absorb(['b'])
    log.close()
    again = SqliteAccessLog(tmp_path / 'access.sqlite3')
    assert again.get(['a', 'b']) == {'a': (3, 100.0)}
    assert len(again) == 1
    again.close()


def test_recalls_reach_every_read_but_leave_the_stored_payload_alone(tmp_path):
    writer, raw, log = _writer(tmp_path)
    ident = _write(writer, 'Caroline adopted a dog named Rex')
    writer.touch([ident, ident], [SCOPE])
    writer.touch([ident], [SCOPE])
    # the engine's copy is not written (no point moved out of an indexed segment) ...
    [stored] = raw.retrieve(MEMORIES, [ident])
    assert stored.payload['access_count'] == 0
    assert stored.payload.get('accessed_at') is None
    # ... while every read through the overlay sees the three recalls
    vectors = AccessOverlay(raw, log)
    [read] = vectors.retrieve(MEMORIES, [ident])
    assert read.payload['access_count'] == 3
    assert read.payload['accessed_at'] == to_epoch(NOW)
    [listed], _ = vectors.scroll(MEMORIES, PointFilter(scopes=[SCOPE]), 10)
    assert listed.payload['access_count'] == 3
    vector = HashEmbedder().embed_query('Caroline dog')
    hits = vectors.query(MEMORIES, 'dense', vector, PointFilter(scopes=[SCOPE]), 5)
    assert [h.payload['access_count'] for h in hits] == [3]


def test_a_merge_writes_the_count_once_and_absorbs_the_logged_recalls(tmp_path):
    writer, raw, log = _writer(tmp_path)
    ident = _write(writer, 'The deploy key rotates every 90 days')
    writer.touch([ident, ident], [SCOPE])
    # the same text again merges: stored count = 2 recalls + 1 merge, written into the payload
    assert _write(writer, 'the deploy key rotates every 90 days') == ident
    [stored] = raw.retrieve(MEMORIES, [ident])
    assert stored.payload['access_count'] == 3
    assert log.get([ident]) == {}
    writer.touch([ident], [SCOPE])
    [read] = writer._vectors.retrieve(MEMORIES, [ident])
    assert read.payload['access_count'] == 4


def test_a_deleted_memory_leaves_no_logged_recalls(tmp_path):
    writer, _, log = _writer(tmp_path)
    ident = _write(writer, 'Melanie paints sunsets')
    writer.touch([ident], [SCOPE])
    assert log.get([ident])
    writer.delete(ident.upper())  # any spelling of the id
    assert log.get([ident]) == {}
    writer.touch([ident], [SCOPE])  # a recall of a memory deleted meanwhile counts nothing
    assert log.get([ident]) == {}


def test_a_tier_move_is_still_written_into_the_payload(tmp_path):
    writer, raw, _ = _writer(tmp_path)
    ident = _write(writer, 'the staging database is db-stage-7')
    for _ in range(12):
        writer.touch([ident], [SCOPE])
    [stored] = raw.retrieve(MEMORIES, [ident])
    # tier filters and facets read the engine: the move reaches the payload, the count does not
    assert stored.payload['tier'] == 'core'
    assert stored.payload['access_count'] == 0


def test_an_upserted_memory_states_its_count_and_absorbs_the_logged_recalls(tmp_path):
    writer, raw, log = _writer(tmp_path)
    ident = _write(writer, 'Joanna writes screenplays')
    writer.touch([ident], [SCOPE])
    vectors = AccessOverlay(raw, log)
    inner = raw._collections[MEMORIES][ident]
    # written back as an import writes a record: its payload with a count of its own
    again = VectorPoint(
        id=ident,
        dense=inner.dense,
        sparse=SparseVector(indices=list(inner.sparse), values=list(inner.sparse.values())),
        payload={**inner.payload, 'access_count': 7},
    )
    vectors.upsert(MEMORIES, [again])
    assert log.get([ident]) == {}
    [read] = vectors.retrieve(MEMORIES, [ident])
    assert read.payload['access_count'] == 7


def test_one_add_or_absorb_is_one_commit_whatever_its_rows(tmp_path):
    # the callers hold a scope's write lock: a commit per row made a search batch's bookkeeping
    # ~20x dearer, all of it under that lock
    log = SqliteAccessLog(tmp_path / 'access.sqlite3')
    statements: list[str] = []
    log._db.set_trace_callback(statements.append)
    log.add({f'id-{n}': (1, float(n)) for n in range(200)})
    log.absorb([f'id-{n}' for n in range(100)] + ['id-0', 'unknown'])
    assert [s for s in statements if s in ('BEGIN', 'COMMIT')] == ['BEGIN', 'COMMIT'] * 2
    assert len(log) == 100
    log.close()
    again = SqliteAccessLog(tmp_path / 'access.sqlite3')
    assert again.get(['id-0', 'id-150']) == {'id-150': (1, 150.0)}
    again.close()


def test_a_failed_add_leaves_nothing_half_written_and_the_log_usable(tmp_path):
    log = SqliteAccessLog(tmp_path / 'access.sqlite3')
    log.add({'a': (1, 10.0)})
    # a row SQLite refuses part-way through the batch: the rows before it must not land
    log._db.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON access WHEN NEW.id = 'bad' "
        "BEGIN SELECT RAISE(ABORT, 'refused'); END"
    )
    with pytest.raises(sqlite3.IntegrityError):
        log.add({'b': (1, 20.0), 'bad': (1, 30.0)})
    assert not log._db.in_transaction
    assert log._db.execute('SELECT id FROM access').fetchall() == [('a',)]
    assert log.get(['a', 'b', 'bad']) == {'a': (1, 10.0)}
    log._db.execute('DROP TRIGGER refuse')
    log.add({'b': (2, 40.0)})
    log.close()
    again = SqliteAccessLog(tmp_path / 'access.sqlite3')
    assert again.get(['a', 'b', 'bad']) == {'a': (1, 10.0), 'b': (2, 40.0)}
    again.close()
