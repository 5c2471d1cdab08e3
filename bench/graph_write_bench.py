"""Graph writes at scale: what one bulk-ingest part costs the Kuzu store as the store grows.

python bench/graph_write_bench.py                        # 10k, 100k and 300k chunks (~30 min)
python bench/graph_write_bench.py --sizes 10000,50000    # a quicker check

Grows one `KuzuGraphStore` (fresh temp dir, the service's defaults) through its own API to each
size: chunks of 1k-chunk scopes, each naming three entities of its scope (one entity per three
chunks, as LoCoMo turns give), and one relation per two entities. At each size it times
`--parts` parts shaped like one part of a bulk ingest's graph job (kg/extraction: 64 texts):
64 new chunks with 192 mentions, 100 entity upserts (half already stored), 60 relations (a third
already stored), 20 relation updates and a read of 100 entities by id. Reported: the median ms
of each call and of the whole part; what grows with the store is a scan.
JSON to bench/results/<--out>.json.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import print_table, write_json  # noqa: E402
from kg.kuzu_store import KuzuGraphStore  # noqa: E402
from kg.models import (  # noqa: E402
    Entity,
    EntityType,
    Mention,
    Relation,
    RelationUpdate,
    entity_id,
    relation_id,
)

T0 = datetime(2024, 1, 1, tzinfo=UTC)
SCOPE_CHUNKS = 1_000
PER_CHUNK = 3  # entities a chunk names
BATCH = 5_000


def _scope(chunk: int) -> str:
    return f'agent:s{chunk // SCOPE_CHUNKS:04d}'


def _entity(n: int, scope: str, mentions: int = 1) -> Entity:
    name = f'Person {n}'
    return Entity(
        id=entity_id(scope, name.lower()),
        scope=scope,
        name=name,
        canonical_name=name.lower(),
        type=EntityType.PERSON,
        created_at=T0,
        updated_at=T0,
        mention_count=mentions,
    )


def _relation(a: Entity, b: Entity) -> Relation:
    return Relation(
        id=relation_id(a.scope, a.id, 'knows', b.id, T0),
        scope=a.scope,
        subject_id=a.id,
        predicate='knows',
        object_id=b.id,
        fact=f'{a.name} knows {b.name}',
        valid_from=T0,
        recorded_at=T0,
    )


def _chunks(start: int, count: int) -> tuple[list[Entity], list[Mention], list[Relation]]:
    """Chunks start..start+count: their entities (one per three chunks of a scope), the
    mentions and a relation per two entities."""
    entities: dict[str, Entity] = {}
    mentions: list[Mention] = []
    for c in range(start, start + count):
        scope = _scope(c)
        local = c % SCOPE_CHUNKS
        for k in range(PER_CHUNK):
            e = _entity((local // 3 + k * 111) % (SCOPE_CHUNKS // 3), scope)
            entities.setdefault(e.id, e)
            at = T0 + timedelta(minutes=c)
            mentions.append(Mention(entity_id=e.id, source_id=f'chunk-{c}', scope=scope, at=at))
    ordered = list(entities.values())
    relations = [_relation(a, b) for a, b in zip(ordered[::2], ordered[1::2], strict=False)]
    return ordered, mentions, relations


def _grow(store: KuzuGraphStore, start: int, end: int) -> None:
    for at in range(start, end, BATCH):
        entities, mentions, relations = _chunks(at, min(BATCH, end - at))
        store.upsert_entities(entities)
        store.add_mentions(mentions)
        store.add_relations(relations)


def _part(store: KuzuGraphStore, stored: int, n: int) -> dict[str, float]:
    """One bulk part's store calls on a store of `stored` chunks; ms per call."""
    first = stored + n * 64  # new chunks, in a new scope region beyond the stored ones
    entities, mentions, relations = _chunks(first, 64)
    old_scope = _scope(n * 7919 % stored)
    old = [_entity(k, old_scope) for k in range(50)]  # stored by the growth
    fresh = [_entity(100_000 + n * 100 + k, entities[0].scope) for k in range(50)]
    upserts = [e.model_copy(update={'mention_count': 2}) for e in old] + fresh
    known = [_relation(a, b) for a, b in zip(old[:40:2], old[1:40:2], strict=True)]
    timings: dict[str, float] = {}

    def timed(name: str, call: Any, *args: Any) -> Any:
        t = time.perf_counter()
        out = call(*args)
        timings[name] = (time.perf_counter() - t) * 1000.0
        return out

    timed('upsert_entities', store.upsert_entities, upserts + entities)
    timed('add_mentions', store.add_mentions, mentions)
    timed('add_relations', store.add_relations, (known + relations)[:60])
    updates = [RelationUpdate(id=r.id, subject_id=r.subject_id, valid_to=T0) for r in known[:20]]
    timed('update_relations', store.update_relations, updates)
    timed('get_entities', store.get_entities, [e.id for e in upserts])
    timings['part'] = sum(timings.values())
    return timings


def run(sizes: list[int], parts: int) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix='mnemos-graph-writes-'))
    store = KuzuGraphStore(workdir / 'graph.kuzu')
    rows: list[dict[str, Any]] = []
    stored = 0
    try:
        for size in sizes:
            started = time.perf_counter()
            _grow(store, stored, size)
            grow_s = time.perf_counter() - started
            stored = size
            measured = [_part(store, stored, n) for n in range(parts)]
            stored += parts * 64
            row: dict[str, Any] = {'chunks': size, 'grow_s': round(grow_s, 1)}
            for name in measured[0]:
                row[f'{name}_ms'] = round(statistics.median(m[name] for m in measured), 2)
            rows.append(row)
            print(row, flush=True)
    finally:
        store.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return {'parts': parts, 'rows': rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='10000,100000,300000')
    parser.add_argument('--parts', type=int, default=10)
    parser.add_argument('--out', default='graph_write_bench')
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(','))
    result = run(sizes, args.parts)
    keys = list(result['rows'][0])
    print_table(keys, [[r[k] for k in keys] for r in result['rows']])
    print('written', write_json(args.out, result))


if __name__ == '__main__':
    main()
