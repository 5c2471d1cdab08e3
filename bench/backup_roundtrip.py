"""A backup of N memories round-trips: chunked import, export, import into a fresh service.

    .venv/bin/python bench/backup_roundtrip.py --records 100000 [--embedder hash]

Writes N synthetic memories (LoCoMo turns numbered so each text is unique, over 20 scopes,
with tags and metadata) as an export-format JSONL file, imports it into service A with
`mnemos_client.bulk.import_chunked` (what `mnemos import` runs), exports A, imports that export
into a fresh service B, exports B, and compares the two exports record by record (ids, texts,
tags, metadata, times). Prints a table and writes `bench/results/backup_roundtrip.json`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import load_locomo, print_table, start_service, write_json  # noqa: E402
from mnemos_client import Mnemos  # noqa: E402
from mnemos_client.bulk import import_chunked  # noqa: E402

SCOPES = 20
COMPARED = ('id', 'scope', 'user_id', 'text', 'tags', 'metadata', 'created_at', 'kind', 'tier')


def _source(path: Path, count: int) -> None:
    turns = [t.text for c in load_locomo() for t in c.turns]
    with path.open('w', encoding='utf-8') as out:
        for n in range(count):
            scope = f'agent:backup{n % SCOPES}'
            record = {
                'id': str(uuid.uuid5(uuid.NAMESPACE_URL, f'backup/{n}')),
                'scope': scope,
                'user_id': f'user{n % 7}',
                'kind': 'note',
                'text': f'{turns[n % len(turns)]} (#{n})',
                'tags': [f'session{n % 50}'],
                'metadata': {'n': n, 'source': 'locomo'},
                'created_at': f'2023-05-{1 + n % 28:02d}T10:{n % 60:02d}:00+00:00',
            }
            out.write(json.dumps(record, ensure_ascii=False) + '\n')


def _import(url: str, token: str, path: Path) -> tuple[dict[str, Any], float]:
    started = time.perf_counter()
    with Mnemos(url, token, timeout=600.0) as client, path.open('rb') as lines:
        report = import_chunked(client, lines)
    return report.model_dump(mode='json'), time.perf_counter() - started


def _export(url: str, token: str, path: Path) -> float:
    started = time.perf_counter()
    with Mnemos(url, token, timeout=600.0) as client, path.open('w') as out:
        for record in client.export(None, redact=False):
            out.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + '\n')
    return time.perf_counter() - started


def _keyed(path: Path) -> dict[str, tuple[Any, ...]]:
    records = (json.loads(line) for line in path.read_text(encoding='utf-8').splitlines())
    return {r['id']: tuple(json.dumps(r.get(k), sort_keys=True) for k in COMPARED) for r in records}


def main() -> None:
    """Round-trip N memories through two services; print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--records', type=int, default=100_000)
    parser.add_argument('--embedder', default=None, help='KG_EMBEDDER of both services')
    args = parser.parse_args()
    env = {'KG_EMBEDDER': args.embedder} if args.embedder else {}
    rows: list[list[Any]] = []
    result: dict[str, Any] = {'records': args.records, 'embedder': args.embedder or 'default'}
    with tempfile.TemporaryDirectory(prefix='mnemos-backup-') as tmp:
        source, first, second = (Path(tmp) / n for n in ('source.jsonl', 'a.jsonl', 'b.jsonl'))
        _source(source, args.records)
        size_mb = source.stat().st_size / 1e6
        for name, feed, out in (('A', source, first), ('B', first, second)):
            with start_service(graph=False, env=env) as service:
                url = f'http://127.0.0.1:{service.port}'
                report, import_s = _import(url, service.token, feed)
                export_s = _export(url, service.token, out)
            result[name] = {'import': report | {'seconds': import_s}, 'export_seconds': export_s}
            rate = report['imported'] / import_s if import_s else 0.0
            rows.append(
                [name, f'{feed.stat().st_size / 1e6:.1f}', report['read'], report['imported'],
                 report['invalid'], f'{import_s:.0f}', f'{rate:.0f}', f'{export_s:.0f}']
            )  # fmt: skip
        a, b = _keyed(first), _keyed(second)
        differing = sum(1 for k in a if a[k] != b.get(k))
        result.update(source_mb=size_mb, exported_a=len(a), exported_b=len(b), differing=differing)
    print_table(
        ['service', 'file MB', 'read', 'imported', 'invalid', 'import s', 'rec/s', 'export s'],
        rows,
    )
    print(f'export A {len(a)} records, export B {len(b)}, differing {differing}')
    write_json('backup_roundtrip', result)


if __name__ == '__main__':
    main()
