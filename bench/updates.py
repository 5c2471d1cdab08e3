"""Facts that change: does every read path give the current value, the past one when asked, and
keep what is still true? English and Chinese, through HTTP on an in-process Mnemos.

python bench/updates.py                      # both halves of bench/data/updates_*.jsonl
python bench/updates.py --half dev           # tune on this one only
python bench/updates.py --half test --limit 40

The suite (bench/updates_suite.py writes it) holds cases of six categories. Each case gets its
own scope; its turns are sent as a client would (`POST /v1/memories` with the message's time as
`created_at`, sometimes a `user_id`, sometimes a "Name:" prefix, or `POST /v1/memories/capture`),
then, once background jobs are done, its one question is asked on every read path:
`memory_search` (default request, and with `min_score: 0` for the floor), `knowledge_graph_search`
(with the question's `user_id`), and `POST /v1/recall/bundle`.

Scores per half, language and category:
- `search@1` / `bundle@1`: the top memory names the gold value; `kg@1`: the first current graph
  fact of the subject's slot has the gold object (slots the graph states: lives_in, works_at);
- `agree`: the paths name the same value;
- `past@3`: a past-state question's gold (the value then) is in the top 3 of `memory_search`;
- `all@5`: every compatible fact is in the top 5; `survive`: every still-true value is stated by a
  memory that is not superseded (a false supersession otherwise);
- `dropped`: the floor removed a gold answer that the unfloored search had in its top 10;
- `hits`: an unrelated question got memories back from `memory_search` (`bundle` the same for
  the bundle).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import print_table, write_json  # noqa: E402

DATA = ROOT / 'bench' / 'data'
TOKEN = 'updates-bench-token-0123456789ab'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
SLOT_PREDICATES = {'lives_in': {'lives_in'}, 'works_at': {'works_at'}}
FLOORS = (0.2, 0.3, 0.4, 0.5, 0.6)
CATEGORIES = ('current', 'past', 'compatible', 'correction', 'multifact', 'unrelated')
COLUMNS = (
    'search@1',
    'kg@1',
    'bundle@1',
    'agree',
    'past@3',
    'all@5',
    'survive',
    'dropped',
    'hits',
    'bundle',
)


class Client:
    """JSON over the Flask test client; counts the request fields the service refused."""

    def __init__(self, app: Any) -> None:
        self.http = app.test_client()
        self.refused: dict[str, int] = {}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        response = self.http.open(path, method=method, json=body, headers=AUTH)
        return response.status_code, response.get_json(silent=True)

    def post(self, path: str, body: dict[str, Any], optional: tuple[str, ...] = ()) -> Any:
        """POST; when the service refuses one of the `optional` fields (422 naming it), the
        request is sent again without it, as a client on an older server would."""
        status, answer = self.call('POST', path, body)
        for name in optional:
            if status == 422 and name in body and name in json.dumps(answer):
                self.refused[f'{path} {name}'] = self.refused.get(f'{path} {name}', 0) + 1
                body = {k: v for k, v in body.items() if k != name}
                status, answer = self.call('POST', path, body)
        if status >= 300:
            raise RuntimeError(f'POST {path} -> {status}: {answer}')
        return answer

    def get(self, path: str) -> Any:
        status, answer = self.call('GET', path)
        if status >= 300:
            raise RuntimeError(f'GET {path} -> {status}: {answer}')
        return answer


def load(halves: list[str], limit: int | None) -> list[dict[str, Any]]:
    """The cases of the chosen halves (the first `limit` of each language and half)."""
    cases: list[dict[str, Any]] = []
    for name in halves:
        rows = [
            json.loads(line) for line in (DATA / f'updates_{name}.jsonl').open(encoding='utf-8')
        ]
        for lang in ('en', 'zh'):
            chosen = [dict(r, half=name) for r in rows if r['lang'] == lang]
            cases.extend(chosen[:limit] if limit else chosen)
    return cases


def scope_of(case: dict[str, Any]) -> str:
    return f'agent:upd-{case["id"]}'


def write_turns(client: Client, case: dict[str, Any]) -> int:
    """Send a case's turns in order; the number that stored nothing."""
    empty = 0
    for turn in case['turns']:
        body: dict[str, Any] = {'scope': scope_of(case), 'text': turn['text']}
        if turn.get('user_id'):
            body['user_id'] = turn['user_id']
        if turn.get('at'):
            body['created_at'] = turn['at']
        if turn['via'] == 'capture':
            answer = client.post('/v1/memories/capture', body, optional=('created_at',))
            empty += not answer.get('stored')
        else:
            answer = client.post('/v1/memories', body)
            empty += answer.get('id') is None
    return empty


def value_in(text: str, candidates: list[str]) -> str | None:
    """The first candidate value `text` names (gold values come first)."""
    folded = text.casefold()
    return next((c for c in candidates if c.casefold() in folded), None)


def kg_answer(answer: dict[str, Any], case: dict[str, Any]) -> str | None:
    """The object of the first current fact of the case's subject and slot."""
    predicates = SLOT_PREDICATES.get(case['slot'], set())
    names = {n.casefold() for n in case['subject']}
    for fact in answer.get('facts', []):
        if (
            fact['current']
            and fact['predicate'] in predicates
            and fact['subject'].casefold() in names
        ):
            return str(fact['object'])
    return None


def same(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and a.casefold() == b.casefold()


def ask(client: Client, case: dict[str, Any], texts: Callable[[str], str]) -> dict[str, Any]:
    """Ask the case's question on every path; the per-case scores."""
    scope = scope_of(case)
    q = case['question']
    user = {'user_id': q['user_id']} if q.get('user_id') else {}
    base = {'query': q['text'], 'scope': scope, 'top_k': 10, 'touch': False, **user}
    hits = client.post('/v1/memory_search', base)['hits']
    raw = client.post('/v1/memory_search', {**base, 'min_score': 0})['hits']
    bundle = client.post('/v1/recall/bundle', {'scope': scope, 'message': q['text'], **user})
    gold, stale = case['gold'], case['stale']
    candidates = gold + stale
    top = [h['text'] for h in hits]
    out: dict[str, Any] = {'id': case['id'], 'question': q['text'], 'top': top[:3]}
    bundle_top = texts(bundle['ids'][0]) if bundle['ids'] else ''
    out['bundle_top'] = bundle_top
    cat = case['category']
    if cat == 'unrelated':
        out['hits'] = bool(hits)
        out['bundle'] = bool(bundle['ids'])
        out['top_confidence'] = max((h['components']['confidence'] for h in raw), default=0.0)
        return out
    unfloored = [h['text'] for h in raw]
    if any(value_in(t, gold) for t in unfloored):
        out['dropped'] = not any(value_in(t, gold) for t in top)
        out['gold_confidence'] = max(
            h['components']['confidence'] for h in raw if value_in(h['text'], gold)
        )
    answers: dict[str, str | None] = {}
    if cat in ('current', 'correction', 'multifact'):
        answers['search'] = value_in(top[0], candidates) if top else None
        answers['bundle'] = value_in(bundle_top, candidates) if bundle_top else None
        out['search@1'] = same(answers['search'], gold[0])
        out['bundle@1'] = same(answers['bundle'], gold[0])
    if cat == 'past':
        out['past@3'] = any(value_in(t, gold) for t in top[:3])
    if cat == 'compatible':
        out['all@5'] = all(any(value_in(t, [g]) for t in top[:5]) for g in gold)
    if case['kg'] and cat in ('current', 'past', 'multifact'):
        body = {'query': q['text'], 'scope': scope, **user}
        graph = client.post('/v1/knowledge_graph_search', body, optional=('user_id',))
        answers['kg'] = kg_answer(graph, case)
        out['kg@1'] = same(answers['kg'], gold[0])
        out['kg_facts'] = [
            f'{f["subject"]} {f["predicate"]} {f["object"]}{"" if f["current"] else " (past)"}'
            for f in graph.get('facts', [])[:6]
        ]
    if cat in ('current', 'correction', 'multifact'):
        values = list(answers.values())
        out['agree'] = all(same(v, values[0]) for v in values)
    if cat == 'compatible' or case.get('kept'):
        live = [m['text'] for m in stored(client, scope) if not m['superseded_by']]
        out['survive'] = all(any(value_in(t, [g]) for t in live) for g in gold)
    out['answers'] = answers
    return out


def stored(client: Client, scope: str) -> list[dict[str, Any]]:
    return list(client.get(f'/v1/memories?scope={scope}&limit=100')['items'])


def mean(values: list[bool]) -> float:
    return sum(values) / len(values) if values else math.nan


def summarise(results: list[dict[str, Any]], cases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Scores per half, language and category, and per half and language over all cases."""
    groups: dict[str, dict[str, list[bool]]] = {}
    for r in results:
        case = cases[r['id']]
        for key in (
            f'{case["half"]}/{case["lang"]}/{case["category"]}',
            f'{case["half"]}/{case["lang"]}/all',
        ):
            group = groups.setdefault(key, {'n': []})
            group['n'].append(True)
            for col in COLUMNS:
                if col in r:
                    group.setdefault(col, []).append(bool(r[col]))
    return {
        key: {'n': len(g['n']), **{c: mean(g[c]) for c in COLUMNS if c in g}}
        for key, g in groups.items()
    }


def floors(results: list[dict[str, Any]], cases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per half and language, for each relevance floor: the share of questions whose gold answer
    (in the unfloored top 10) it would drop, and of unrelated questions it would answer."""
    out: dict[str, Any] = {}
    for half in ('dev', 'test'):
        for lang in ('en', 'zh'):
            mine = [r for r in results if cases[r['id']]['half'] == half]
            mine = [r for r in mine if cases[r['id']]['lang'] == lang]
            gold = [r['gold_confidence'] for r in mine if 'gold_confidence' in r]
            other = [r['top_confidence'] for r in mine if 'top_confidence' in r]
            if not gold and not other:
                continue
            out[f'{half}/{lang}'] = {
                f'{floor:.2f}': {
                    'dropped': mean([g < floor for g in gold]),
                    'unrelated_hits': mean([o >= floor for o in other]),
                }
                for floor in FLOORS
            }
    return out


def show_floors(table: dict[str, Any]) -> None:
    rows = [
        [key, *(f'{v["dropped"]:.3f} / {v["unrelated_hits"]:.3f}' for v in by_floor.values())]
        for key, by_floor in table.items()
    ]
    if rows:
        print('\nrelevance floor: gold dropped / unrelated answered')
        print_table(['half/lang', *(f'{f:.2f}' for f in FLOORS)], rows)


def show(summary: dict[str, Any], half: str) -> None:
    rows: list[list[Any]] = []
    for lang in ('en', 'zh'):
        for cat in (*CATEGORIES, 'all'):
            s = summary.get(f'{half}/{lang}/{cat}')
            if s is None:
                continue
            rows.append([lang, cat, s['n'], *(s.get(c, '-') for c in COLUMNS)])
    if rows:
        print(f'\n{half} half')
        print_table(['lang', 'category', 'n', *COLUMNS], rows)


def main() -> int:
    """Write every case's turns, wait for the background jobs, ask, print and save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--half', choices=('dev', 'test', 'both'), default='both')
    parser.add_argument('--limit', type=int, default=None, help='cases per language and half')
    parser.add_argument('--category', choices=CATEGORIES, action='append')
    parser.add_argument('--name', default='updates', help='bench/results/<name>.json')
    args = parser.parse_args()
    halves = ['dev', 'test'] if args.half == 'both' else [args.half]
    cases = load(halves, args.limit)
    if args.category:
        cases = [c for c in cases if c['category'] in args.category]

    from api.app import create_app
    from core.settings import Settings

    work = Path(tempfile.mkdtemp(prefix='mnemos-updates-'))
    app = create_app(Settings.load(None, data_dir=work / 'data', api_token=TOKEN))
    services = app.extensions['mnemos']
    logging.disable(logging.INFO)  # one access line per request would drown the table
    client = Client(app)
    started = time.perf_counter()
    try:
        empty = {c['id']: write_turns(client, c) for c in cases}
        written = time.perf_counter()
        if not services.jobs.wait_idle(timeout=1800):
            print('bench: background jobs still pending after 30 min', file=sys.stderr)
        memo: dict[str, str] = {}

        def texts(ident: str) -> str:
            if ident not in memo:
                memo[ident] = str(client.get(f'/v1/memories/{ident}')['text'])
            return memo[ident]

        results = []
        for case in cases:
            result = ask(client, case, texts)
            result['turns_not_stored'] = empty[case['id']]
            results.append(result)
        asked = time.perf_counter()
    finally:
        services.close()
        shutil.rmtree(work, ignore_errors=True)
    by_id = {c['id']: c for c in cases}
    summary = summarise(results, by_id)
    for half in halves:
        show(summary, half)
    floor_table = floors(results, by_id)
    show_floors(floor_table)
    print(
        f'\n{len(cases)} cases; writes {written - started:.0f} s, '
        f'asking {asked - written:.0f} s; refused request fields: {client.refused or "none"}'
    )
    path = write_json(
        args.name,
        {
            'summary': summary,
            'floors': floor_table,
            'refused': client.refused,
            'results': results,
        },
    )
    print(f'wrote {path.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
