"""Recall on every kind of memory: recall@10, R@5 and MRR per kind and per way of asking.

python bench/kinds.py                         # every kind, every variant (~15 min on 2 cores)
python bench/kinds.py --kinds bank_en,zh      # some kinds
python bench/kinds.py --max-questions 20      # smoke check, not a result
python bench/kinds.py --explain               # also save every question's explained search
python bench/kinds.py --env KG_EMBEDDER=multilingual-e5 --variants default,bm25,dense

The kinds and their gold are in bench/kinds_suite.py. One service (`mnemos serve`, graph on) is
started as a user would; every kind is written through HTTP as a plain client writes: plain text,
`created_at` only where the kind has an event time (dialogue turns, notes and summaries of a
session, events), `metadata` = {ref} only; Markdown documents through `POST /v1/documents`.
Every question is asked in its kind's scope through `POST /v1/memory_search` (top_k 10,
`touch: false`) once per variant:

- `default`: the request as a client sends it, nothing set;
- `bm25`, `dense`: `mode` set, each channel alone;
- `rrf`, `weighted`: `fusion` set;
- `graph`: `graph: true`, asked after background work (graph extraction) has settled;
- `plain BM25`: no service, a bm25s-style BM25 over the same texts (kinds_suite.PlainBM25).

With `--explain` every question is asked once more with `explain: true`, every channel on and
no floor; the receipts are saved for offline fitting (bench/kinds_fit.py).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    LOCOMO_PATH,
    Service,
    explained_receipt,
    print_table,
    start_service,
    wait_idle,
    write_json,
)
from bench.kinds_suite import (  # noqa: E402
    KINDS,
    METRICS,
    KindSet,
    PlainBM25,
    Question,
    document_refs,
    load_suite,
    mean_scores,
    score,
)

TOP_K = 10
BATCH = 500
VARIANTS: dict[str, dict[str, Any]] = {
    'default': {},
    'bm25': {'mode': 'bm25'},
    'dense': {'mode': 'dense'},
    'rrf': {'fusion': 'rrf'},
    'weighted': {'fusion': 'weighted'},
    'graph': {'graph': True},
}
PLAIN = 'plain BM25'

Refs = dict[str, set[str]]  # stored memory id -> the refs it holds


def ingest(service: Service, kind: KindSet) -> Refs:
    """Write a kind's memories and documents; stored id -> refs (a merged write adds its ref
    to the memory it merged into)."""
    refs: Refs = {}
    for scope, memories in kind.memories.items():
        items = []
        for m in memories:
            item: dict[str, Any] = {'scope': scope, 'text': m.text, 'metadata': {'ref': m.ref}}
            if m.at is not None:
                item['created_at'] = m.at
            items.append(item)
        for start in range(0, len(items), BATCH):
            answer = service.post('/v1/memories/batch', {'items': items[start : start + BATCH]})
            for result, m in zip(answer['results'], memories[start : start + BATCH], strict=True):
                if result['status'] == 'error' or not result.get('id'):
                    raise SystemExit(f'kinds: {kind.name} write rejected: {result}')
                refs.setdefault(result['id'], set()).add(m.ref)
    for scope, documents in kind.documents.items():
        for doc in documents:
            body = {'scope': scope, 'path': doc.path, 'markdown': doc.markdown}
            report = service.post('/v1/documents', body)
            chunk_refs = document_refs(doc)
            if len(chunk_refs) != len(report['ids']):
                raise SystemExit(f'kinds: {doc.path}: {len(report["ids"])} chunks stored')
            for ident, ref in zip(report['ids'], chunk_refs, strict=True):
                refs.setdefault(ident, set()).add(ref)
    return refs


def ask(service: Service, q: Question, extra: dict[str, Any], refs: Refs) -> list[frozenset[str]]:
    """The refs of each hit of one search."""
    body = {'query': q.text, 'scope': q.scope, 'top_k': TOP_K, 'touch': False, **extra}
    hits = service.post('/v1/memory_search', body)['hits']
    return [frozenset(refs.get(h['id'], ())) for h in hits]


def plain_rankings(kind: KindSet) -> list[list[frozenset[str]]]:
    """A plain BM25's top 10 refs for each question of `kind`, over each scope's texts."""
    from recall.documents.markdown import chunk_texts

    engines: dict[str, tuple[PlainBM25, list[str]]] = {}
    for scope in kind.scopes():
        texts = [m.text for m in kind.memories.get(scope, [])]
        names = [m.ref for m in kind.memories.get(scope, [])]
        for doc in kind.documents.get(scope, []):
            chunks = [t for t in chunk_texts(doc.markdown) if t.strip()]
            texts += chunks
            names += document_refs(doc)
        engines[scope] = (PlainBM25(texts), names)
    out = []
    for q in kind.questions:
        engine, names = engines[q.scope]
        out.append([frozenset({names[i]}) for i, _ in engine.search(q.text, TOP_K)])
    return out


def explain(service: Service, kind: KindSet, refs: Refs) -> list[dict[str, Any]]:
    """Every question once with every channel on, no floor, `explain: true`."""
    return [
        _explained(service, refs, kind.name, q.scope, q.text, q.tag, [sorted(p) for p in q.gold])
        for q in kind.questions
    ]


def _explained(
    service: Service,
    refs: Refs,
    kind: str,
    scope: str,
    question: str,
    tag: str,
    gold: list[list[str]],
) -> dict[str, Any]:
    """One question asked with every channel on, no floor, `explain: true`: its receipt's
    candidate lists and factors, and the refs of every candidate."""
    receipt = explained_receipt(service, question, scope, TOP_K)
    ids = {i for pts in receipt['candidates'].values() for i, _ in pts}
    return {
        'kind': kind,
        'scope': scope,
        'question': question,
        'tag': tag,
        'gold': gold,
        'lists': receipt['candidates'],
        'factors': receipt['factors'],
        'refs': {i: sorted(refs.get(i, ())) for i in ids},
    }


# questions no memory of the suite answers, in each kind's language: the ten of
# bench/updates_suite.py ('base', kept for comparability) and the hand-written dev and test
# halves of bench/data/unrelated.json (a floor is chosen on dev and scored on test)
UNRELATED_LANGS = {'zh': ('zh',), 'bank_zh': ('zh',), 'mixed': ('en', 'zh')}
UNRELATED_PATH = ROOT / 'bench' / 'data' / 'unrelated.json'


def unrelated_sets() -> dict[str, dict[str, list[str]]]:
    """Unrelated questions by set ('base', 'dev', 'test') and language."""
    import json

    from bench.updates_suite import UNRELATED

    more = json.loads(UNRELATED_PATH.read_text(encoding='utf-8'))
    return {'base': UNRELATED, 'dev': more['dev'], 'test': more['test']}


def _unrelated_asked(kind: KindSet) -> list[tuple[str, str, str, list[str]]]:
    """(scope, set, language, questions) for each unrelated batch a kind is asked."""
    sets = unrelated_sets()
    return [
        (scope, name, lang, by_lang[lang])
        for scope in kind.scopes()
        for lang in UNRELATED_LANGS.get(kind.name, ('en',))
        for name, by_lang in sets.items()
    ]


def unrelated(service: Service, kinds: list[KindSet]) -> list[dict[str, Any]]:
    """Per kind, scope, set and language: the share of unrelated questions the default request
    answers with any hit, and the mean number of hits (the relevance floor's job)."""
    out = []
    for kind in kinds:
        for scope, name, lang, questions in _unrelated_asked(kind):
            counts = [
                len(
                    service.post(
                        '/v1/memory_search',
                        {'query': q, 'scope': scope, 'top_k': TOP_K, 'touch': False},
                    )['hits']
                )
                for q in questions
            ]
            out.append(
                {
                    'kind': kind.name,
                    'scope': scope,
                    'set': name,
                    'lang': lang,
                    'answered': sum(1 for c in counts if c) / len(counts),
                    'hits': sum(counts) / len(counts),
                }
            )
    return out


def explain_unrelated(service: Service, kind: KindSet, refs: Refs) -> list[dict[str, Any]]:
    """Every unrelated question of a kind explained as `explain` asks (no gold): the receipts
    with which a floor is replayed (bench/kinds_fit.py)."""
    return [
        _explained(service, refs, kind.name, scope, q, f'unrelated:{name}:{lang}', [])
        for scope, name, lang, questions in _unrelated_asked(kind)
        for q in questions
    ]


def settle(service: Service, timeout: float = 1800.0) -> float:
    """Wait until stats repeat and the service has been idle (graph extraction done)."""
    started = time.monotonic()
    previous: Any = None
    while time.monotonic() - started < timeout:
        current = service.get('/v1/memory/stats')
        if current == previous:
            break
        previous = current
        time.sleep(2.0)
    wait_idle(service.pid, min_wait=0.0, quiet=5.0, timeout=timeout)
    return time.monotonic() - started


def run(
    kinds: list[KindSet],
    variants: list[str],
    with_explain: bool,
    env: dict[str, str] | None = None,
) -> tuple[dict[str, dict[str, dict[str, float]]], list[dict[str, Any]], dict[str, Any]]:
    """Scores per kind per variant (plus per tag), the explained searches, and run facts."""
    results: dict[str, dict[str, dict[str, float]]] = {}
    by_tag: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    explained: list[dict[str, Any]] = []
    facts: dict[str, Any] = {}
    service = start_service(graph='graph' in variants, env=env)
    try:
        t = time.perf_counter()
        refs: dict[str, Refs] = {k.name: ingest(service, k) for k in kinds}
        facts['ingest_s'] = round(time.perf_counter() - t, 1)
        facts['stored'] = service.get('/v1/memory/stats')['total']
        print(f'ingested {facts["stored"]} memories in {facts["ingest_s"]} s', flush=True)
        ordered = [v for v in variants if v != 'graph'] + [v for v in variants if v == 'graph']
        for variant in ordered:
            if variant == 'graph':
                facts['settle_s'] = round(settle(service), 1)
            for kind in kinds:
                rows = []
                for q in kind.questions:
                    ranked = ask(service, q, VARIANTS[variant], refs[kind.name])
                    rows.append({**score(ranked, q.gold), 'tag': q.tag})
                _collect(results, by_tag, kind.name, variant, rows)
            print(f'{variant}: asked', flush=True)
            if variant == 'default':
                facts['unrelated'] = unrelated(service, kinds)
        if with_explain:
            for kind in kinds:
                explained += explain(service, kind, refs[kind.name])
            facts['unrelated_explained'] = [
                r for k in kinds for r in explain_unrelated(service, k, refs[k.name])
            ]
    finally:
        service.stop()
    for kind in kinds:
        rows = [
            {**score(ranked, q.gold), 'tag': q.tag}
            for q, ranked in zip(kind.questions, plain_rankings(kind), strict=True)
        ]
        _collect(results, by_tag, kind.name, PLAIN, rows)
    facts['by_tag'] = by_tag
    return results, explained, facts


def _collect(
    results: dict[str, dict[str, dict[str, float]]],
    by_tag: dict[str, dict[str, dict[str, dict[str, float]]]],
    kind: str,
    variant: str,
    rows: list[dict[str, Any]],
) -> None:
    results.setdefault(kind, {})[variant] = mean_scores(rows)
    tags = sorted({r['tag'] for r in rows})
    for tag in tags:
        subset = [r for r in rows if r['tag'] == tag]
        by_tag.setdefault(kind, {}).setdefault(tag, {})[variant] = mean_scores(subset)


def report(results: dict[str, dict[str, dict[str, float]]], variants: list[str]) -> None:
    """One table per metric: kinds x variants."""
    columns = [*variants, PLAIN]
    for metric in METRICS:
        print(f'\n{metric}')
        rows = []
        for kind, by_variant in results.items():
            n = int(next(iter(by_variant.values()))['n'])
            rows.append([f'{kind} ({n})', *(round(by_variant[v][metric], 3) for v in columns)])
        print_table(['kind (questions)', *columns], rows)


def main(argv: list[str] | None = None) -> int:
    """Parse flags, run the suite, print the tables, write bench/results/kinds*.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--kinds', default=','.join(KINDS), help='comma-separated kinds')
    parser.add_argument('--variants', default=','.join(VARIANTS), help='comma-separated')
    parser.add_argument('--max-questions', type=int, default=None, help='smoke check')
    parser.add_argument('--explain', action='store_true', help='save explained searches')
    parser.add_argument('--label', default='', help='suffix of the result file names')
    parser.add_argument(
        '--env',
        action='append',
        default=[],
        help='KEY=VALUE for the service, e.g. KG_EMBEDDER=multilingual-e5 (repeatable)',
    )
    args = parser.parse_args(argv)
    names = [k for k in args.kinds.split(',') if k]
    variants = [v for v in args.variants.split(',') if v]
    unknown = [k for k in names if k not in KINDS] + [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SystemExit(f'kinds: unknown {unknown}')
    started = time.perf_counter()
    kinds = load_suite(LOCOMO_PATH, kinds=names, max_questions=args.max_questions)
    print(
        ', '.join(f'{k.name}: {sum(len(m) for m in k.memories.values())} memories, '
                  f'{len(k.questions)} questions' for k in kinds),
        flush=True,
    )  # fmt: skip
    env = dict(kv.split('=', 1) for kv in args.env)
    results, explained, facts = run(kinds, variants, args.explain, env)
    report(results, variants)
    if facts.get('unrelated'):
        answered: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        for row in facts['unrelated']:
            answered.setdefault((row['kind'], row['lang'], row['set']), []).append(row)
        print('\nunrelated questions (default request): share answered, mean hits')
        print_table(
            ['kind', 'lang', 'set', 'scopes', 'answered', 'hits'],
            [
                [kind, lang, name, len(rows),
                 round(sum(r['answered'] for r in rows) / len(rows), 3),
                 round(sum(r['hits'] for r in rows) / len(rows), 2)]
                for (kind, lang, name), rows in answered.items()
            ],
        )  # fmt: skip
    suffix = ('_smoke' if args.max_questions else '') + (f'_{args.label}' if args.label else '')
    unrelated_explained = facts.pop('unrelated_explained', [])
    payload = {
        'command': ' '.join(['python', 'bench/kinds.py', *sys.argv[1:]]),
        'service_env': env,
        'results': results,
        **facts,
        'wall_s': round(time.perf_counter() - started, 1),
    }
    path = write_json(f'kinds{suffix}', payload)
    print(f'\nwrote {path.relative_to(ROOT)} ({payload["wall_s"]:.0f} s)')
    if explained:
        saved = write_json(f'kinds_explained{suffix}', explained)
        print(f'wrote {saved.relative_to(ROOT)}')
    if unrelated_explained:
        saved = write_json(f'kinds_explained_unrelated{suffix}', unrelated_explained)
        print(f'wrote {saved.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
