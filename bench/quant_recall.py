"""Dense recall on indexed segments: int8 quantisation and mmap storage against exact search.

python bench/quant_recall.py                      # LoCoMo dev, every layout, ~3 min on 2 cores
python bench/quant_recall.py --conversations 1    # a smoke check, not a result

A LoCoMo store (2,760 turns, ~4 MB of vectors) stays below Qdrant Edge's indexing threshold,
so the service searches it exactly and `KG_VECTOR_QUANTIZATION=int8` never builds its quantised
copy: `bench/locomo.py --env KG_VECTOR_QUANTIZATION=int8` cannot show what int8 costs. Here
the same turns (plain protocol: "Speaker: words", one scope per conversation, MiniLM as
served) go into `EdgeVectorStore` with Edge's thresholds lowered, so every segment is indexed
as a large store's are:

- `plain`: indexing threshold 1 KB, Edge's full-scan threshold: a scope's ~550 points are
  scored one by one through the payload index (what a 1k-chunk scope of a large store does);
- `hnsw`: full-scan threshold 1 KB as well: every query walks the HNSW graph with the scope
  filter (what a 100k-chunk scope does).

For each layout (vector storage `ram` / `mmap`, quantization `none` / `int8`) every question
with evidence asks the dense channel for its top 50 in its conversation's scope, as the service
does. Reported: recall@10 against the evidence, overlap@10 and @50 with the exact ranking
(numpy cosine over the scope), and ms per query (Edge only: query vectors are embedded once,
before). JSON to bench/results/quant_recall.json.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import Conversation, load_locomo, percentile, print_table, write_json  # noqa: E402
from bench.locomo import scope_of, score  # noqa: E402
from vectors.bm25 import Bm25Encoder  # noqa: E402
from vectors.edge import EdgeVectorStore  # noqa: E402
from vectors.embedders import load_model  # noqa: E402
from vectors.models import CollectionSpec, PointFilter, VectorPoint  # noqa: E402

COLLECTION = 'memories'
TOP = 50  # what the service's dense channel asks for
# (name, storage, quantization, indexed, walk HNSW)
LAYOUTS = (
    ('exact (not indexed)', 'ram', 'none', False, False),
    ('plain, ram', 'ram', 'none', True, False),
    ('plain, int8', 'ram', 'int8', True, False),
    ('plain, int8 + mmap', 'mmap', 'int8', True, False),
    ('hnsw, ram', 'ram', 'none', True, True),
    ('hnsw, int8', 'ram', 'int8', True, True),
    ('hnsw, int8 + mmap', 'mmap', 'int8', True, True),
)


def embed_all(conversations: list[Conversation]) -> dict[str, Any]:
    """Turn and question vectors (MiniLM as served), turn ids and scopes, one pass."""
    model = load_model('minilm')
    turns = [(conv, t) for conv in conversations for t in conv.turns]
    started = time.perf_counter()
    dense = np.asarray(model.embed([t.text for _, t in turns]), dtype=np.float32)
    questions = [
        (conv, q) for conv in conversations for q in conv.questions if q.evidence and q.category < 5
    ]
    queries = np.asarray([model.embed_query(q.question) for _, q in questions], dtype=np.float32)
    print(f'embedded {len(turns)} turns, {len(questions)} questions', end=' ')
    print(f'in {time.perf_counter() - started:.0f} s', flush=True)
    ids = [str(uuid.uuid5(uuid.NAMESPACE_URL, f'{c.sample_id}/{t.dia_id}')) for c, t in turns]
    bm25 = Bm25Encoder()
    points = [
        VectorPoint(
            id=ident,
            dense=vector.tolist(),
            sparse=bm25.encode_document(turn.text),
            payload={'scope': scope_of(conv), 'dia_id': turn.dia_id},
        )
        for ident, vector, (conv, turn) in zip(ids, dense, turns, strict=True)
    ]
    return {
        'turns': turns,
        'ids': ids,
        'dense': dense,
        'points': points,
        'questions': questions,
        'queries': queries,
    }


def exact_top(data: dict[str, Any]) -> list[list[str]]:
    """Per question, the ids of its scope's turns by exact cosine, best first (top TOP)."""
    scopes = np.asarray([scope_of(c) for c, _ in data['turns']])
    ids = np.asarray(data['ids'])
    out: list[list[str]] = []
    for (conv, _), query in zip(data['questions'], data['queries'], strict=True):
        mask = scopes == scope_of(conv)
        scores = data['dense'][mask] @ query
        order = np.argsort(-scores, kind='stable')[:TOP]
        out.append([str(i) for i in ids[mask][order]])
    return out


def run_layout(
    data: dict[str, Any], storage: str, quantization: str, indexed: bool, walk: bool
) -> tuple[list[list[str]], list[float]]:
    """Per question, the dense channel's top TOP ids through EdgeVectorStore in this layout,
    and each query's ms."""
    root = Path(tempfile.mkdtemp(prefix='mnemos-quant-'))
    store = EdgeVectorStore(
        root,
        auto_optimize=False,
        vector_storage=storage,
        quantization=quantization,
        indexing_threshold_kb=1 if indexed else None,
        full_scan_kb=1 if walk else None,
    )
    try:
        store.ensure_collection(
            CollectionSpec(
                name=COLLECTION, dense_dim=data['dense'].shape[1], keyword_fields=('scope',)
            )
        )
        points = data['points']
        for start in range(0, len(points), 500):
            store.upsert(COLLECTION, points[start : start + 500])
        store.optimize()
        ranked: list[list[str]] = []
        ms: list[float] = []
        for (conv, _), query in zip(data['questions'], data['queries'], strict=True):
            flt = PointFilter(scopes=[scope_of(conv)])
            began = time.perf_counter()
            found = store.query(COLLECTION, 'dense', query.tolist(), flt, TOP)
            ms.append((time.perf_counter() - began) * 1000)
            ranked.append([p.id for p in found])
        return ranked, ms
    finally:
        store.close()
        shutil.rmtree(root, ignore_errors=True)


def measure(
    data: dict[str, Any], ranked: list[list[str]], exact: list[list[str]]
) -> dict[str, float]:
    """recall@10 against the evidence, overlap@10/@50 with the exact ranking."""
    by_id = {
        ident: turn.dia_id for ident, (_, turn) in zip(data['ids'], data['turns'], strict=True)
    }
    recall, over10, over50 = [], [], []
    for (_, q), got, truth in zip(data['questions'], ranked, exact, strict=True):
        recall.append(score([by_id[i] for i in got], q.evidence)['recall@10'])
        over10.append(len(set(got[:10]) & set(truth[:10])) / 10)
        over50.append(len(set(got[:TOP]) & set(truth[:TOP])) / TOP)
    return {
        'recall@10': round(float(np.mean(recall)), 4),
        'overlap@10': round(float(np.mean(over10)), 4),
        'overlap@50': round(float(np.mean(over50)), 4),
    }


def main(argv: list[str] | None = None) -> int:
    """Embed once, search every layout, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--conversations', type=int, default=None, help='only the first N (smoke)')
    args = parser.parse_args(argv)
    data = embed_all(load_locomo()[: args.conversations])
    exact = exact_top(data)
    rows: list[dict[str, Any]] = []
    for name, storage, quantization, indexed, walk in LAYOUTS:
        ranked, ms = run_layout(data, storage, quantization, indexed, walk)
        rows.append(
            {
                'layout': name,
                **measure(data, ranked, exact),
                'p50_ms': round(percentile(ms, 50), 2),
                'p95_ms': round(percentile(ms, 95), 2),
            }
        )
        print(rows[-1], flush=True)
    keys = list(rows[0])
    print_table(keys, [[r[k] for k in keys] for r in rows])
    result = {
        'command': ' '.join(['python', 'bench/quant_recall.py', *sys.argv[1:]]),
        'turns': len(data['turns']),
        'questions': len(data['questions']),
        'rows': rows,
    }
    print('written', write_json('quant_recall', result))
    return 0


if __name__ == '__main__':
    sys.exit(main())
