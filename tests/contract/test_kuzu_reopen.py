"""KuzuGraphStore opens its database again after a number of writes (REOPEN_AFTER_WRITES):
nothing written is lost, and every thread's connection follows the new opening."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

from kg.kuzu_store import KuzuGraphStore
from kg.models import Entity, EntityType, entity_id

SCOPE = 'agent:reopen'
T0 = datetime(2024, 1, 1, tzinfo=UTC)


def person(name: str) -> Entity:
    return Entity(
        id=entity_id(SCOPE, name.lower()),
        scope=SCOPE,
        name=name,
        canonical_name=name.lower(),
        type=EntityType.PERSON,
        created_at=T0,
        updated_at=T0,
        mention_count=1,
    )


def names(store: KuzuGraphStore) -> list[str]:
    return sorted(e.name for e in store.list_entities(SCOPE))


def test_writes_survive_reopening_and_every_thread_reads_the_new_opening(tmp_path: Path) -> None:
    store = KuzuGraphStore(tmp_path / 'graph.kuzu', reopen_after_writes=2)
    reader = ThreadPoolExecutor(max_workers=1)  # one thread, kept: its connection is cached
    try:
        assert reader.submit(names, store).result() == []  # a connection of the first opening
        written = [f'Person{i}' for i in range(5)]
        for name in written:
            store.upsert_entities([person(name)])
        # the schema's creation is a write too: 6 writes, so at least two reopenings
        assert store._generation >= 2
        assert names(store) == written
        assert reader.submit(names, store).result() == written  # not the closed connection
    finally:
        reader.shutdown()
        store.close()
    again = KuzuGraphStore(tmp_path / 'graph.kuzu')
    try:
        assert names(again) == written
    finally:
        again.close()


def test_a_store_that_never_reopens_keeps_its_first_opening(tmp_path: Path) -> None:
    store = KuzuGraphStore(tmp_path / 'graph.kuzu', reopen_after_writes=0)
    try:
        for i in range(5):
            store.upsert_entities([person(f'P{i}')])
        assert store._generation == 0
        assert len(store.list_entities(SCOPE)) == 5
    finally:
        store.close()
