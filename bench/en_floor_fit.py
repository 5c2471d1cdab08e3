"""Choose the relevance floor's "answered at all" gate for English questions, leave one kind out.

python bench/en_floor_fit.py bench/results/kinds_explained_X.json \
    bench/results/kinds_explained_unrelated_X.json

Both files come from `python bench/kinds.py --kinds turns,notes,summaries,bank_en --variants
default --explain --label X`. The floor alone keeps an English hit whose confidence (the share
of the question's words it holds, or its calibrated cosine) reaches 0.3, so a question is
answered as soon as one hit of the window does. A gate adds a question-level test: the question
is answered only when some hit of the window holds at least `t` of its words and `k` of them, or
its raw cosine reaches `c`; the hits kept are still those of the shipped floor. Each gate is
replayed on the English kinds' questions and on the unrelated English questions asked over
their scopes (bench/data/unrelated.json); per held-out kind it is chosen on the other kinds'
questions and the dev unrelated questions (unrelated answered <= the cap, then the best
recall@10 + R@5 + MRR) and scored on the held-out kind and the test unrelated questions. The
service ships share 0.6 or the calibrated floor of the cosine (recall.read.ranking en_reach).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import print_table, write_json  # noqa: E402
from bench.kinds_fit import FLOOR, final_hits  # noqa: E402
from bench.kinds_suite import mean_scores, score  # noqa: E402
from bench.zh_floor_fit import Window, _fmt, best_under  # noqa: E402
from recall.read.context import coverage, query_terms  # noqa: E402

KINDS = ('turns', 'notes', 'summaries', 'bank_en')
CAPS = (0.1, 0.15, 0.2, 0.25)  # unrelated answered a gate may reach on dev
SHARES = (0.3, 0.34, 0.4, 0.5, 0.6, 0.67, 0.75, 1.01)
COSINES = (0.355, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 2.0)
WORDS = (1, 2)

Gate = tuple[float, int, float]  # (coverage share, words held, raw cosine)
TEXTS: dict[tuple[str, str], str] = {}  # (scope, ref) -> text of the kinds' memories and chunks


def _texts() -> None:
    from bench.kinds import LOCOMO_PATH
    from bench.kinds_suite import document_refs, load_suite
    from recall.documents.markdown import chunk_texts

    for kind in load_suite(LOCOMO_PATH, kinds=list(KINDS)):
        for scope, memories in kind.memories.items():
            TEXTS.update({(scope, m.ref): m.text for m in memories})
        for scope, docs in kind.documents.items():
            for doc in docs:
                chunks = [t for t in chunk_texts(doc.markdown) if t.strip()]
                TEXTS.update(
                    {(scope, r): t for r, t in zip(document_refs(doc), chunks, strict=False)}
                )


class Replayed(Window):
    """One English search's window and its gate features."""

    def __init__(self, raw: dict[str, Any], tag: str) -> None:
        super().__init__(raw, tag)
        s = self.search
        self.kept = self.window[s.confidence[self.window] >= FLOOR]
        terms = query_terms(str(raw['question']))
        scope = str(raw['scope'])
        texts = [' '.join(TEXTS.get((scope, r), '') for r in refs) for refs in s.refs]
        self.cover = np.array([coverage(terms, t) for t in texts])
        # the words a hit holds, as the coverage counts them; a one-word question needs one
        self.held = np.rint(self.cover * len(terms)).astype(int)
        self.words = len(terms)

    def answered(self, gate: Gate | None) -> bool:
        """Whether the question is answered at all under `gate` (None: the shipped floor)."""
        w = self.kept
        if gate is None:
            return bool(len(w))
        t, k, c = gate
        held = self.held[w] >= min(k, self.words)
        return bool((((self.cover[w] >= t) & held) | (self.cosine[w] >= c)).any())

    def hits(self, gate: Gate | None) -> list[frozenset[str]]:
        """The refs returned under `gate`."""
        if not self.answered(gate):
            return []
        return [self.search.refs[n] for n in final_hits(self.search, self.base, self.kept)]


def measure(answerable: Sequence[Replayed], unrelated: Sequence[Replayed], gate: Gate | None
            ) -> dict[str, float]:  # fmt: skip
    """recall@10 / R@5 / MRR over the answerable, share answered of the unrelated."""
    out = mean_scores([score(r.hits(gate), r.search.gold) for r in answerable])
    out['unrelated'] = float(np.mean([r.answered(gate) for r in unrelated])) if unrelated else 0
    return out


def _kind_mean(rows: Sequence[Replayed], unrelated: Sequence[Replayed], gate: Gate | None
               ) -> dict[str, float]:  # fmt: skip
    """Each kind weighs the same, whatever its number of questions."""
    kinds = sorted({r.search.kind for r in rows})
    per = [
        measure(
            [r for r in rows if r.search.kind == k],
            [u for u in unrelated if u.search.kind == k],
            gate,
        )
        for k in kinds
    ]
    return {
        m: float(np.mean([p[m] for p in per])) for m in ('recall@10', 'R@5', 'mrr', 'unrelated')
    }


def choose(answerable: Sequence[Replayed], unrelated: Sequence[Replayed], cap: float) -> Gate:
    """The gate with unrelated answered <= cap and the best recall@10 + R@5 + MRR."""
    grid = itertools.product(SHARES, WORDS, COSINES)
    chosen = best_under(cap, ((gate, _kind_mean(answerable, unrelated, gate)) for gate in grid))
    return (1.01, 9, 2.0) if chosen is None else chosen


FIXED: dict[str, Gate] = {
    'two words or cosine 0.4': (0.3, 2, 0.4),
    'two words or cosine 0.355': (0.3, 2, 0.355),
    'share 0.6 or cosine 0.355 (shipped)': (0.6, 1, 0.355),
    'share 0.5 or cosine 0.355': (0.5, 1, 0.355),
    'share 0.5, two words, or cosine 0.355': (0.5, 2, 0.355),
}


def folds(answerable: Sequence[Replayed], unrelated: Sequence[Replayed]) -> dict[str, Any]:
    """Per cap and held-out kind: the gate chosen without the kind, scored on it."""
    rows, report = [], {}
    for cap in CAPS:
        for held in KINDS:
            train = [r for r in answerable if r.search.kind != held]
            dev = [u for u in unrelated if u.search.kind != held and ':dev:' in u.tag]
            gate = choose(train, dev, cap)
            test_q = [r for r in answerable if r.search.kind == held]
            test_u = [u for u in unrelated if u.search.kind == held and ':test:' in u.tag]
            shipped, chosen = measure(test_q, test_u, None), measure(test_q, test_u, gate)
            report[f'{cap}:{held}'] = {'gate': gate, 'shipped': shipped, 'chosen': chosen}
            rows.append([str(cap), held, str(gate), _fmt(shipped), _fmt(chosen)])
    print('English questions: recall@10 / R@5 / MRR | test unrelated answered')
    headers = ['cap', 'held-out kind', 'gate (share, words, cosine)', 'before', 'chosen']
    print_table(headers, rows)
    for cap in CAPS:
        every = choose(answerable, [u for u in unrelated if ':dev:' in u.tag], cap)
        print(f'cap {cap}: chosen on every kind and dev: {every}')
        report[f'{cap}:every'] = {'gate': every}
    return report


def fixed(answerable: Sequence[Replayed], unrelated: Sequence[Replayed]) -> dict[str, Any]:
    """Each gate of FIXED on every kind, with the test unrelated questions."""
    rows, report = [], {}
    for name, gate in {'before (the floor alone)': None, **FIXED}.items():
        for kind in KINDS:
            m = measure(
                [r for r in answerable if r.search.kind == kind],
                [u for u in unrelated if u.search.kind == kind and ':test:' in u.tag],
                gate,
            )
            report[f'{name}:{kind}'] = m
            rows.append([name, kind, _fmt(m)])
    print('\nEvery kind: recall@10 / R@5 / MRR | test unrelated answered')
    print_table(['gate', 'kind', 'scores'], rows)
    return report


def main(argv: list[str] | None = None) -> int:
    """Print the tables and write bench/results/en_floor_fit.json."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('explained', type=Path, help='kinds_explained_X.json')
    parser.add_argument('unrelated', type=Path, help='kinds_explained_unrelated_X.json')
    parser.add_argument('--fixed-only', action='store_true', help='skip the leave-one-out folds')
    args = parser.parse_args(argv)
    _texts()
    raw = json.loads(args.explained.read_text())
    answerable = [Replayed(r, 'answerable') for r in raw if r['kind'] in KINDS]
    answerable = [a for a in answerable if not a.search.cjk]
    other = json.loads(args.unrelated.read_text())
    unrelated = [Replayed(r, r['tag']) for r in other if r['tag'].endswith(':en')]
    report = {} if args.fixed_only else folds(answerable, unrelated)
    report['fixed'] = fixed(answerable, unrelated)
    write_json('en_floor_fit', report)
    return 0


if __name__ == '__main__':
    sys.exit(main())
