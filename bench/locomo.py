"""LoCoMo retrieval benchmark: turn-level recall@k / hit@10 / MRR through the HTTP API.

python bench/locomo.py                          # hybrid, RRF, graph channel on
python bench/locomo.py --mode bm25              # one channel alone
python bench/locomo.py --no-graph --fusion weighted
python bench/locomo.py --compare                # one ingest; hybrid+graph, hybrid, dense, bm25
python bench/locomo.py --protocol plain --cv     # the generic client; leave-one-conversation-out

Protocols: `plain` (the default) writes as a generic client would: text "Speaker: words",
`created_at` = the session date, `metadata` = {dia_id} only (no speaker), and asks right after the
batch writes return. `rich` is the earlier protocol: metadata {dia_id, speaker, session} and a
settling wait for background work before asking. Every search sends `touch: false`, so asking
does not change the store and the order of questions cannot change a result.

`--cv`: every question is asked once with `explain: true`; bench/recall_cv.py replays the ranking
offline for every recipe of a grid, chooses recipe and relevance floor on four conversations and
scores them on the fifth; the report is the mean over the five folds, beside each channel alone
on the same held-out questions. The default request, bm25 and dense are also asked through HTTP.

Protocol of /work/shared/bench/README.md: every turn of a conversation is one memory in the scope
`agent:locomo-<sample_id>` (text "speaker: text" plus " [image: caption]", `created_at` = the
session date in UTC, `metadata` = {dia_id, speaker, session}), written through
`POST /v1/memories/batch`; each question is asked within its conversation's scope through
`POST /v1/memory_search` (top_k 20) and the returned `metadata.dia_id`s are scored against the
normalised evidence. Categories 1-4 make the overall figure; 5 (adversarial) is reported apart.

Before asking, the benchmark waits for background work to finish: there is no HTTP route that
lists pending jobs, so it waits until `GET /v1/memory/stats` answers the same twice in a row and
then until the service process has used < 5 % of a core for 5 s in a row (>= 5 s in all). This
covers graph extraction (a background job after each write) and the vector index build.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    CATEGORY_NAMES,
    LOCOMO_PATH,
    Conversation,
    Service,
    explained_receipt,
    iso,
    load_locomo,
    percentile,
    print_table,
    stage_medians,
    start_service,
    wait_idle,
    write_json,
)
from bench.recall_cv import Explained, Prepared, cross_validate, evaluate  # noqa: E402
from recall.read.fusion import DEFAULT_FUSION, MODEL_PATH, LinearModel, shipped_model  # noqa: E402

TOP_K = 20
BATCH = 500
KS = (5, 10, 20)
OVERALL = (1, 2, 3, 4)
METRICS = ('recall@5', 'recall@10', 'recall@20', 'hit@10', 'mrr')
BASELINES = {  # /work/shared/bench/README.md, categories 1-4
    'BM25 (bm25s)': {'recall@5': 0.481, 'recall@10': 0.562, 'recall@20': 0.643, 'mrr': 0.407},
    'dense MiniLM': {'recall@5': 0.401, 'recall@10': 0.495, 'recall@20': 0.602, 'mrr': 0.308},
    'RRF k=60': {'recall@5': 0.491, 'recall@10': 0.584, 'recall@20': 0.705, 'mrr': 0.407},
}


@dataclass(frozen=True)
class Config:
    """One way of asking: mode, fusion and whether the graph channel is used (None: the
    service's default for each field left out of the request)."""

    name: str
    mode: str | None
    fusion: str | None
    graph: bool | None


def scope_of(conv: Conversation) -> str:
    """The conversation's scope."""
    return f'agent:locomo-{conv.sample_id}'


def ingest(
    service: Service, conversations: list[Conversation], protocol: str = 'plain'
) -> dict[str, Any]:
    """Write every turn; per-item statuses counted, errors fatal. Returns counts and seconds."""
    counts: dict[str, int] = {}
    started = time.perf_counter()
    for conv in conversations:
        items = [
            {
                'scope': scope_of(conv),
                'text': turn.text,
                'created_at': iso(turn.at),
                'metadata': (
                    {'dia_id': turn.dia_id, 'speaker': turn.speaker, 'session': turn.session}
                    if protocol == 'rich'
                    else {'dia_id': turn.dia_id}
                ),
            }
            for turn in conv.turns
        ]
        for i in range(0, len(items), BATCH):
            answer = service.post('/v1/memories/batch', {'items': items[i : i + BATCH]})
            for result in answer['results']:
                counts[result['status']] = counts.get(result['status'], 0) + 1
                if result['status'] == 'error':
                    raise SystemExit(f'bench: write rejected in {conv.sample_id}: {result}')
    return {
        'turns': sum(len(c.turns) for c in conversations),
        'status': counts,
        'seconds': round(time.perf_counter() - started, 2),
    }


def settle(service: Service, timeout: float = 900.0) -> float:
    """Wait for background work (graph extraction, index build); returns the seconds waited."""
    started = time.monotonic()
    previous: Any = None
    for _ in range(int(timeout // 2)):
        current = service.get('/v1/memory/stats')
        if current == previous:
            break
        previous = current
        time.sleep(2.0)
    wait_idle(
        service.pid,
        min_wait=0.0,
        quiet=5.0,
        timeout=max(10.0, timeout - (time.monotonic() - started)),
    )
    return time.monotonic() - started


def score(ranked: list[str | None], evidence: tuple[str, ...]) -> dict[str, float]:
    """recall@k, hit@10 and MRR (over the top 20) of one ranked list of dia_ids."""
    wanted = set(evidence)
    out: dict[str, float] = {}
    for k in KS:
        found = {d for d in ranked[:k] if d in wanted}
        out[f'recall@{k}'] = len(found) / len(wanted)
    out['hit@10'] = 1.0 if any(d in wanted for d in ranked[:10]) else 0.0
    first = next((i for i, d in enumerate(ranked[:TOP_K], start=1) if d in wanted), None)
    out['mrr'] = 1.0 / first if first else 0.0
    return out


def ask(
    service: Service, conversations: list[Conversation], config: Config, max_questions: int | None
) -> dict[str, Any]:
    """Ask every question with evidence under `config`; per-question scores and latencies."""
    rows: list[dict[str, Any]] = []
    receipts: list[dict[str, float]] = []
    client_ms: list[float] = []
    skipped = 0
    hits_without_dia = 0
    for conv in conversations:
        questions = conv.questions[:max_questions] if max_questions else conv.questions
        for q in questions:
            if not q.evidence:
                skipped += 1
                continue
            body: dict[str, Any] = {
                'query': q.question,
                'scope': scope_of(conv),
                'top_k': TOP_K,
                'touch': False,
            }
            for name in ('mode', 'fusion', 'graph'):
                if getattr(config, name) is not None:
                    body[name] = getattr(config, name)
            started = time.perf_counter()
            answer = service.post('/v1/memory_search', body)
            client_ms.append((time.perf_counter() - started) * 1000.0)
            receipts.append(answer['receipt']['latency_ms'])
            ranked: list[str | None] = [h['metadata'].get('dia_id') for h in answer['hits']]
            hits_without_dia += sum(1 for d in ranked if d is None)
            rows.append(
                {'sample_id': conv.sample_id, 'category': q.category, **score(ranked, q.evidence)}
            )
    return {
        'config': config.__dict__,
        'questions': len(rows),
        'skipped_no_evidence': skipped,
        'hits_without_dia_id': hits_without_dia,
        'by_category': aggregate(rows),
        'latency_ms': {
            'p50': round(percentile(client_ms, 50), 2),
            'p95': round(percentile(client_ms, 95), 2),
            'stage_median': stage_medians(receipts),
        },
    }


def aggregate(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Question-weighted means per category, 'overall' over categories 1-4."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(str(row['category']), []).append(row)
    groups['overall'] = [r for r in rows if r['category'] in OVERALL]
    out: dict[str, dict[str, float]] = {}
    for name in [*sorted(g for g in groups if g != 'overall'), 'overall']:
        members = groups[name]
        out[name] = {'n': len(members)}
        for metric in METRICS:
            value = sum(r[metric] for r in members) / len(members) if members else float('nan')
            out[name][metric] = round(value, 4)
    return out


def report(results: list[dict[str, Any]]) -> None:
    """Overall table, recall@10 per category, category 5, latency per config."""
    names = [r['config']['name'] for r in results]
    print('\noverall, categories 1-4 (question-weighted)')
    rows: list[list[Any]] = [
        [name, r['by_category']['overall']['n'], *(r['by_category']['overall'][m] for m in METRICS)]
        for name, r in zip(names, results, strict=True)
    ]
    rows += [
        [f'baseline: {b}', '', *(v.get(m, float('nan')) for m in METRICS)]
        for b, v in BASELINES.items()
    ]
    print_table(['config', 'n', *METRICS], rows)

    print('\nper category (recall@10 / MRR)')
    cats = [c for c in ('1', '2', '3', '4', '5') if any(c in r['by_category'] for r in results)]
    header = ['config', *(f'{c} {CATEGORY_NAMES[int(c)]} (n)' for c in cats)]
    table = []
    for name, r in zip(names, results, strict=True):
        cells = []
        for c in cats:
            m = r['by_category'].get(c)
            cells.append(f'{m["recall@10"]:.3f} / {m["mrr"]:.3f} ({m["n"]})' if m else '-')
        table.append([name, *cells])
    print_table(header, table)

    five = [r for r in results if '5' in r['by_category']]
    if five:
        print('\ncategory 5 (adversarial), not in the overall figure')
        print_table(
            ['config', 'n', *METRICS],
            [
                [
                    r['config']['name'],
                    r['by_category']['5']['n'],
                    *(r['by_category']['5'][m] for m in METRICS),
                ]
                for r in five
            ],
        )

    print('\nsearch latency (HTTP round trip; median receipt stages)')
    stages: list[str] = []
    for r in results:
        stages.extend(s for s in r['latency_ms']['stage_median'] if s not in stages)
    print_table(
        ['config', 'p50 ms', 'p95 ms', *stages],
        [
            [
                r['config']['name'],
                r['latency_ms']['p50'],
                r['latency_ms']['p95'],
                *(r['latency_ms']['stage_median'].get(s, float('nan')) for s in stages),
            ]
            for r in results
        ],
    )


def dia_ids(service: Service, conv: Conversation) -> dict[str, str]:
    """Stored memory id -> dia_id of one conversation, read back through the list route."""
    out: dict[str, str] = {}
    offset: str | None = None
    while True:
        path = f'/v1/memories?scope={scope_of(conv)}&limit=500'
        page = service.get(path + (f'&offset={offset}' if offset else ''))
        for item in page['items']:
            dia = item['metadata'].get('dia_id')
            if isinstance(dia, str):
                out[item['id']] = dia
        offset = page.get('next')
        if not offset:
            return out


def explain_all(
    service: Service, conversations: list[Conversation], max_questions: int | None
) -> list[Explained]:
    """Every question once with every channel on, `explain: true`, no floor, no touch."""
    out: list[Explained] = []
    for conv in conversations:
        dia_of = dia_ids(service, conv)
        questions = conv.questions[:max_questions] if max_questions else conv.questions
        for q in questions:
            if not q.evidence:
                continue
            receipt = explained_receipt(service, q.question, scope_of(conv), TOP_K)
            lists = {c: [(i, float(v)) for i, v in pts] for c, pts in receipt['candidates'].items()}
            out.append(
                Explained(
                    sample_id=conv.sample_id,
                    category=q.category,
                    evidence=q.evidence,
                    lists=lists,
                    factors=receipt['factors'],
                    dia_of=dia_of,
                )
            )
    return out


def report_cv(
    cv: dict[str, Any], results: list[dict[str, Any]], replayed: dict[str, float]
) -> None:
    """CV means beside each channel alone, the per-fold recipes, and the replay check."""
    print('\nleave-one-conversation-out (mean over folds of held-out figures, categories 1-4)')
    rows: list[list[Any]] = [
        ['learned fusion', *(round(cv['learned_cv_mean'][m], 4) for m in METRICS)],
        ['CV-chosen RRF/weighted recipe', *(round(cv['cv_mean'][m], 4) for m in METRICS)],
    ]
    for channel, means in cv['channel_cv_mean'].items():
        rows.append([f'{channel} alone', *(round(means[m], 4) for m in METRICS)])
    print_table(['ranking', *METRICS], rows)
    print('\nper fold: recipe chosen on the other four, scored on the held-out one')
    print_table(
        ['held out', 'method', 'weights', 'speaker', 'date', 'floor', 'recall@10', 'MRR'],
        [
            [
                f['held_out'],
                f['recipe']['method'],
                ' '.join(f'{k}={v}' for k, v in f['recipe']['weights'].items()),
                f['recipe']['speaker_boost'],
                f['recipe']['date_boost'],
                f['recipe']['min_score'],
                round(f['test']['recall@10'], 4),
                round(f['test']['mrr'], 4),
            ]
            for f in cv['folds']
        ],
    )
    print(f'learned model fitted on all five: floor {cv["learned_floor"]}, weights')
    print_table(
        ['feature', 'weight'],
        [
            [f, w]
            for f, w in zip(
                cv['learned_model']['features'], cv['learned_model']['weights'], strict=True
            )
        ],
    )
    chosen = cv['chosen_on_all']
    print(
        f'\nchosen on all five (the shipped default should be this): {chosen["method"]} '
        f'{chosen["weights"]} speaker {chosen["speaker_boost"]} date {chosen["date_boost"]} '
        f'floor {chosen["min_score"]}'
    )
    default = next((r for r in results if r['config']['name'] == 'default'), None)
    if default is not None:
        http = default['by_category']['overall']
        print(
            f'replay check, service default recipe: offline recall@10 '
            f'{replayed["recall@10"]:.4f} MRR {replayed["mrr"]:.4f}; through HTTP '
            f'{http["recall@10"]:.4f} / {http["mrr"]:.4f}'
        )


def save_model(cv: dict[str, Any]) -> None:
    """Ship the model fitted on all five conversations (recall/assets/fusion_model.json)."""
    model = LinearModel.model_validate(cv['learned_model'])
    MODEL_PATH.write_text(model.model_dump_json(indent=2) + '\n')
    print(f'wrote {MODEL_PATH.relative_to(ROOT)}; floor chosen with it: {cv["learned_floor"]}')


def replay_saved(path: Path, write_model: bool = False) -> int:
    """Cross-validate over explained searches saved by an earlier --cv run."""
    import json

    raw = json.loads(path.read_text())
    explained = [
        Explained(
            **{
                **e,
                'evidence': tuple(e['evidence']),
                'lists': {c: [(i, float(v)) for i, v in pts] for c, pts in e['lists'].items()},
            }
        )
        for e in raw
    ]
    cv = cross_validate(explained, score, TOP_K)
    if write_model:
        save_model(cv)
        shipped_model.cache_clear()
    replayed = evaluate(
        [Prepared(e) for e in explained], DEFAULT_FUSION, score, TOP_K, shipped_model()
    )
    report_cv(cv, [], replayed)
    print(
        f'service default recipe replayed: recall@10 {replayed["recall@10"]:.4f} '
        f'MRR {replayed["mrr"]:.4f}'
    )
    out = write_json(path.stem.replace('explained', 'cv_replay'), {'cv': cv, 'default': replayed})
    print(f'wrote {out.relative_to(ROOT)}')
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse flags, ingest, settle, ask, print, write bench/results/locomo*.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--mode', choices=['hybrid', 'dense', 'bm25'], default=None)
    parser.add_argument('--fusion', choices=['rrf', 'weighted'], default=None)
    parser.add_argument(
        '--graph',
        action=argparse.BooleanOptionalAction,
        default=None,
        help='request field `graph` (unset: the service default); '
        '--no-graph also starts the service with KG_GRAPH_ENABLED=false',
    )
    parser.add_argument(
        '--protocol',
        choices=['plain', 'rich'],
        default='plain',
        help='plain: a generic client (no speaker metadata, no settling wait); rich: the old one',
    )
    parser.add_argument(
        '--compare',
        action='store_true',
        help='one ingest; default, hybrid+graph, hybrid, dense and bm25 side by side',
    )
    parser.add_argument(
        '--cv',
        action='store_true',
        help='one ingest; leave-one-conversation-out choice of the fusion recipe (see above)',
    )
    parser.add_argument(
        '--replay',
        type=Path,
        default=None,
        help='no service: cross-validate over a saved bench/results/locomo_explained_*.json',
    )
    parser.add_argument(
        '--write-model',
        action='store_true',
        help='with --replay: ship the model fitted on all conversations as the default',
    )
    parser.add_argument(
        '--conversations',
        type=int,
        default=None,
        help='only the first N conversations (a smoke check, not a result)',
    )
    parser.add_argument(
        '--max-questions',
        type=int,
        default=None,
        help='only the first N questions per conversation (smoke check)',
    )
    parser.add_argument(
        '--env',
        action='append',
        default=[],
        help='KEY=VALUE setting for the service, e.g. KG_VECTOR_QUANTIZATION=int8 (repeatable)',
    )
    args = parser.parse_args(argv)
    service_env = dict(kv.split('=', 1) for kv in args.env)

    smoke = args.conversations is not None or args.max_questions is not None
    if args.replay:
        return replay_saved(args.replay, args.write_model)
    conversations = load_locomo()[: args.conversations]
    if args.compare or args.cv:
        configs = [
            Config('default', None, None, None),
            Config('hybrid+graph', 'hybrid', args.fusion, True),
            Config('hybrid, no graph', 'hybrid', args.fusion, False),
            Config('dense', 'dense', None, False),
            Config('bm25', 'bm25', None, False),
        ]
    else:
        name = ' '.join(
            f'{k}={v}'
            for k, v in (('mode', args.mode), ('fusion', args.fusion), ('graph', args.graph))
            if v is not None
        )
        configs = [Config(name or 'default', args.mode, args.fusion, args.graph)]
    service_graph = args.graph is not False
    started = time.perf_counter()
    print(
        f'{len(conversations)} conversations from {LOCOMO_PATH}; protocol {args.protocol}; '
        f'service graph {"on" if service_graph else "off"}',
        flush=True,
    )
    service = start_service(graph=service_graph, env=service_env)
    cv: dict[str, Any] | None = None
    replayed: dict[str, float] = {}
    try:
        written = ingest(service, conversations, args.protocol)
        print(
            f'ingested {written["turns"]} turns in {written["seconds"]} s: {written["status"]}',
            flush=True,
        )
        waited = settle(service) if args.protocol == 'rich' else 0.0
        stats = service.get('/v1/memory/stats')
        print(f'settled after {waited:.0f} s; stored {stats["total"]}', flush=True)
        if args.cv:
            explained = explain_all(service, conversations, args.max_questions)
            saved = write_json(
                f'locomo_explained_{args.protocol}' + ('_smoke' if smoke else ''),
                [e.__dict__ for e in explained],
            )
            print(f'explained {len(explained)} questions into {saved}; cross-validating')
            cv = cross_validate(explained, score, TOP_K)
            replayed = evaluate(
                [Prepared(e) for e in explained], DEFAULT_FUSION, score, TOP_K, shipped_model()
            )
        results = []
        for config in configs:
            results.append(ask(service, conversations, config, args.max_questions))
            print(
                f'{config.name}: recall@10 '
                f'{results[-1]["by_category"]["overall"]["recall@10"]:.3f}',
                flush=True,
            )
    finally:
        service.stop()
    report(results)
    if cv is not None:
        report_cv(cv, results, replayed)
    if args.cv:
        out = f'locomo_cv_{args.protocol}'
    elif args.compare:
        out = f'locomo_compare_{args.protocol}'
    else:
        out = f'locomo_{args.protocol}_' + (configs[0].name.replace(' ', '_') or 'default')
    if smoke:
        out += '_smoke'
    if service_env:
        out += '_' + '_'.join(f'{k}-{v}' for k, v in sorted(service_env.items()))
    payload = {
        'command': ' '.join(['python', 'bench/locomo.py', *sys.argv[1:]]),
        'data': str(LOCOMO_PATH),
        'protocol': args.protocol,
        'conversations': [c.sample_id for c in conversations],
        'service_graph_enabled': service_graph,
        'service_env': service_env,
        'ingest': written,
        'settle_s': round(waited, 1),
        'stats_after_settle': stats,
        'baselines_recall': BASELINES,
        'results': results,
        'cv': cv,
        'default_replayed': replayed,
        'wall_s': round(time.perf_counter() - started, 1),
    }
    path = write_json(out, payload)
    print(f'\nwrote {path.relative_to(ROOT)} ({payload["wall_s"]:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
