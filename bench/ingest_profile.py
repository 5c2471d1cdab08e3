"""CPU of batch writes in process, the embedding apart; a cProfile, or a dump of the store.

python bench/ingest_profile.py --pre 6000 --writes 2000                 # CPU split
python bench/ingest_profile.py --pre 2000 --writes 2000 --profile ingest # bench/results/*.prof
python bench/ingest_profile.py --pre 0 --writes 3000 --dump /tmp/a.json  # identity check

Runs the composition root (`runtime.bootstrap.build`, graph off, jobs inline, a `ManualClock`)
on an empty temp store, writes `--pre` LoCoMo turns (service_bench's corpus: turn n as
`f'{text} #{n}'`, batches of 500) untimed, then `--writes` more, timed: process CPU of the whole
batch writes and of the dense embedder's calls within them (the write path's own CPU is the
difference). Works on an older tree too (`PYTHONPATH=<tree>`, run the tree's copy or this file).
`--dump` writes every stored payload sorted by id and a SHA-256 of every upserted point (id,
dense and sparse vectors, payload) in upsert order: two trees that store the same thing write
the same file.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import RESULTS_DIR, numbered_turns  # noqa: E402

SCOPE = 'agent:bench'
BATCH = 500
MOMENT = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


class EmbedClock:
    """The process CPU spent inside the wrapped embedder's `embed`."""

    def __init__(self, embedder: Any) -> None:
        self.seconds = 0.0
        self._embed = embedder.embed
        embedder.embed = self

    def __call__(self, texts: Any) -> Any:
        started = time.process_time()
        try:
            return self._embed(texts)
        finally:
            self.seconds += time.process_time() - started


class UpsertDigest:
    """A SHA-256 over every point upserted through the wrapped store, in order."""

    def __init__(self, store: Any) -> None:
        self.digest = hashlib.sha256()
        self._upsert = store.upsert
        store.upsert = self

    def __call__(self, collection: str, points: Any) -> Any:
        for p in points:
            self.digest.update(json.dumps(p.model_dump(), sort_keys=True).encode())
        return self._upsert(collection, points)


def _items(count: int, start: int) -> list[Any]:
    from recall.schemas import MemoryIn

    return [
        MemoryIn(scope=SCOPE, text=f'{t.text} #{n}', created_at=t.at, metadata={'dia_id': t.dia_id})
        for n, t in numbered_turns(count, start)
    ]


def _write(services: Any, items: list[Any]) -> None:
    for i in range(0, len(items), BATCH):
        services.writer.remember(items[i : i + BATCH])


def _dump(services: Any, digest: UpsertDigest, path: Path) -> None:
    from vectors.models import PointFilter

    store = services.consolidation.vectors
    points: list[dict[str, Any]] = []
    offset: str | None = None
    while True:
        page, offset = store.scroll('memories', PointFilter(scopes=None), 512, offset)
        points += [{'id': p.id, 'payload': p.payload} for p in page]
        if offset is None:
            break
    points.sort(key=lambda p: p['id'])
    body = {'upserts_sha256': digest.digest.hexdigest(), 'points': points}
    path.write_text(json.dumps(body, sort_keys=True, indent=0))
    print(f'dumped {len(points)} points to {path} (upserts {body["upserts_sha256"][:16]})')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--pre', type=int, default=6000, help='turns written before, untimed')
    parser.add_argument('--writes', type=int, default=2000, help='turns written, timed')
    parser.add_argument('--profile', help='cProfile the timed writes to bench/results/<name>.prof')
    parser.add_argument('--dump', help='write every stored payload and an upsert digest here')
    args = parser.parse_args()
    from core.clock import ManualClock
    from core.settings import Settings
    from runtime.bootstrap import build

    data = Path(tempfile.mkdtemp(prefix='ingest-profile-'))
    services = build(
        Settings(data_dir=data, graph_enabled=False), clock=ManualClock(MOMENT), inline_jobs=True
    )
    try:
        # the writer's own adapters (62ae1c9's writer held them itself)
        store = getattr(services.writer, '_store', services.writer)
        # the digest's JSON of every point is CPU of its own: only for a dump
        digest = UpsertDigest(store._vectors) if args.dump else None  # noqa: SLF001
        embed = EmbedClock(store._embedder)  # noqa: SLF001
        _write(services, _items(args.pre, 0))
        items = _items(args.writes, args.pre)
        embed.seconds = 0.0
        profiler = cProfile.Profile() if args.profile else None
        cpu, wall = time.process_time(), time.perf_counter()
        if profiler is not None:
            profiler.enable()
        _write(services, items)
        if profiler is not None:
            profiler.disable()
            RESULTS_DIR.mkdir(exist_ok=True)
            profiler.dump_stats(str(RESULTS_DIR / f'{args.profile}.prof'))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(
            f'{args.writes} writes after {args.pre}: wall {wall:.2f} s, CPU {cpu:.2f} s, '
            f'embedding {embed.seconds:.2f} s, write path without embedding '
            f'{cpu - embed.seconds:.2f} s, (both) / embedding {cpu / embed.seconds:.3f}'
        )
        if digest is not None:
            _dump(services, digest, Path(args.dump))
    finally:
        services.close()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
