"""Chinese recall through the HTTP service: the default search against each channel alone.

python bench/zh_recall.py                      # default embedder (KG_EMBEDDER unset: minilm)
KG_EMBEDDER=multilingual-e5 python bench/zh_recall.py

bench/data/zh_recall.json (120 memories of one user, 203 questions with gold memory ids) is
written through `POST /v1/memories/batch` into one scope as notes, as a generic client would;
each question is asked through `POST /v1/memory_search` (top_k 10, `touch: false`) as the default
request, `mode: bm25` and `mode: dense`, and with `min_score: 0` (no relevance floor). Scores:
recall@5 (share of gold ids in the top 5) and MRR over the top 10. The dense-only figures of every
embedder are in bench/embedder_survey.py; this is the whole pipeline as a user meets it.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import print_table, start_service, write_json  # noqa: E402

DATA = ROOT / 'bench' / 'data' / 'zh_recall.json'
SCOPE = 'agent:zh-recall'
CONFIGS: dict[str, dict[str, Any]] = {
    'default': {},
    'default, no floor': {'min_score': 0},
    'bm25': {'mode': 'bm25', 'min_score': 0},
    'dense': {'mode': 'dense', 'min_score': 0},
}


def main() -> int:
    """Ingest the set, ask every question under each configuration, print and save."""
    data = json.loads(DATA.read_text())
    embedder = os.environ.get('KG_EMBEDDER', 'minilm')
    env = {'KG_EMBEDDER': embedder} if 'KG_EMBEDDER' in os.environ else None
    service = start_service(graph=False, env=env)
    rows: list[list[Any]] = []
    results: dict[str, dict[str, float]] = {}
    try:
        items = [
            {'scope': SCOPE, 'text': m['text'], 'created_at': '2026-05-01T09:00:00Z'}
            for m in data['memories']
        ]
        answer = service.post('/v1/memories/batch', {'items': items})
        ids = {r['id']: m['id'] for r, m in zip(answer['results'], data['memories'], strict=True)}
        for name, extra in CONFIGS.items():
            recall, mrr, empty, started = 0.0, 0.0, 0, time.perf_counter()
            for q in data['queries']:
                body = {'query': q['text'], 'scope': SCOPE, 'top_k': 10, 'touch': False, **extra}
                hits = [ids.get(h['id']) for h in service.post('/v1/memory_search', body)['hits']]
                gold = set(q['gold'])
                recall += len(gold & set(hits[:5])) / len(gold)
                first = next((i for i, h in enumerate(hits, start=1) if h in gold), None)
                mrr += 1.0 / first if first else 0.0
                empty += not hits
            n = len(data['queries'])
            ms = (time.perf_counter() - started) * 1000.0 / n
            results[name] = {'recall@5': recall / n, 'mrr': mrr / n, 'empty': empty, 'ms': ms}
            rows.append([name, round(recall / n, 3), round(mrr / n, 3), empty, round(ms, 1)])
    finally:
        service.stop()
    print(f'\nChinese recall set: {len(data["queries"])} questions, embedder {embedder}')
    print_table(['request', 'recall@5', 'MRR', 'no hits', 'ms/query'], rows)
    path = write_json(f'zh_recall_{embedder}', {'embedder': embedder, 'results': results})
    print(f'wrote {path.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
