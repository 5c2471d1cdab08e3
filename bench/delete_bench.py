"""Latency of deleting a memory that states a fact, with the restore of what it outdated.

One owner holds N memories on Qdrant Edge; some of them are outdated by others (`superseded_by`
and `stale[].by` name the newer memory). Each timed delete removes one newer memory stating a
fact and runs `restoration.restore`, as `MemoryWriter.delete_many` does: the cost measured is
the lookup of the records naming it plus the restore itself (the lookup alone is reported too:
the restore reweighs the slot's other memories, whose cost does not depend on N). Vectors are
random (the lookup reads payloads, never vectors), so no embedder is loaded.

    .venv/bin/python bench/delete_bench.py --sizes 3000 30000 --deletes 15 --out /tmp/d.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from recall.models import MEMORIES, Chunk, memories_spec
from recall.write import restoration
from recall.write.restoration import restore
from recall.write.superseder import Superseder
from vectors.edge import EdgeVectorStore
from vectors.models import SparseVector, VectorPoint

DIM = 16
SCOPE, OWNER = 'bench', 'u1'


def _chunk(i: int, now: datetime, **extra: Any) -> Chunk:
    text = extra.pop('text', f'note number {i} about the weather and lunch')
    at = now - timedelta(hours=1) + timedelta(seconds=i)
    return Chunk(
        id=str(uuid.uuid5(uuid.NAMESPACE_URL, f'{SCOPE}/{i}')),
        scope=SCOPE,
        user_id=OWNER,
        text=text,
        created_at=at,
        updated_at=at,
        content_hash=f'h{i}',
        **extra,
    )


def _fill(store: EdgeVectorStore, n: int, deletes: int, now: datetime) -> list[Chunk]:
    """N memories; the last `deletes` pairs are (old fact, newer fact outdating it)."""
    rng = random.Random(7)
    chunks = [_chunk(i, now) for i in range(n - 2 * deletes)]
    newer: list[Chunk] = []
    for k in range(deletes):
        i = n - 2 * deletes + 2 * k
        new = _chunk(i + 1, now, text=f'I live in Town{k}b', slots=['lives_in'])
        record = {'by': new.id, 'slot': 'lives_in', 'at': now.timestamp()}
        old = _chunk(
            i,
            now,
            text=f'I live in Town{k}a',
            slots=['lives_in'],
            superseded=True,
            superseded_by=new.id,
            supersession=record,
            stale=[record],
        )
        chunks += [old, new]
        newer.append(new)
    sparse = SparseVector(indices=[1], values=[1.0])
    for start in range(0, len(chunks), 512):
        points = [
            VectorPoint(
                id=c.id,
                dense=[rng.random() for _ in range(DIM)],
                sparse=sparse,
                payload=c.to_payload(),
            )
            for c in chunks[start : start + 512]
        ]
        store.upsert(MEMORIES, points)
    return newer


def run(n: int, deletes: int) -> dict[str, Any]:
    """Median and p90 latency (ms) of `deletes` deletes at `n` memories."""
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as tmp:
        store = EdgeVectorStore(Path(tmp))
        store.ensure_collection(memories_spec(DIM))
        newer = _fill(store, n, deletes, now)
        superseder = Superseder(store, merge_cosine=0.9, reads_cjk=False)
        times, restored, lookups = [], 0, []
        naming = restoration._naming

        def timed(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return naming(*args)
            finally:
                lookups.append((time.perf_counter() - start) * 1000)

        restoration._naming = timed  # type: ignore[assignment]
        for chunk in newer:
            start = time.perf_counter()
            gone = store.retrieve(MEMORIES, [chunk.id])
            store.delete(MEMORIES, [chunk.id])
            restored += len(restore(store, superseder, gone, now))
            times.append((time.perf_counter() - start) * 1000)
        restoration._naming = naming  # type: ignore[assignment]
        store.close()
    times.sort()
    return {
        'memories': n,
        'deletes': deletes,
        'median_ms': round(statistics.median(times), 2),
        'p90_ms': round(times[int(0.9 * (len(times) - 1))], 2),
        'lookup_median_ms': round(statistics.median(lookups), 2),
        'restored': restored,
    }


def main() -> None:
    """Print a table and write the rows as JSON."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--sizes', type=int, nargs='+', default=[3000])
    parser.add_argument('--deletes', type=int, default=15)
    parser.add_argument('--out', type=Path, default=Path('/tmp/delete_bench.json'))
    args = parser.parse_args()
    rows = [run(n, args.deletes) for n in args.sizes]
    head = ('memories', 'deletes', 'median ms', 'p90 ms', 'lookup ms', 'restored')
    print('{:>9} {:>8} {:>10} {:>8} {:>10} {:>9}'.format(*head))
    for r in rows:
        print(
            f'{r["memories"]:>9} {r["deletes"]:>8} {r["median_ms"]:>10} '
            f'{r["p90_ms"]:>8} {r["lookup_median_ms"]:>10} {r["restored"]:>9}'
        )
    args.out.write_text(json.dumps(rows, indent=2))


if __name__ == '__main__':
    main()
