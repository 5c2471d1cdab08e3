"""Choose the relevance floor's rule for Chinese questions, leave one kind out, by replay.

python bench/zh_floor_fit.py bench/results/kinds_explained_X.json \
    bench/results/kinds_explained_unrelated_X.json

Both files come from `python bench/kinds.py --kinds zh,bank_zh,mixed --explain --label X`. A Chinese
question is answered (recall.read.ranking `_Ranking._below_floor`) when a candidate of the window
reaches the floor; a rule is that reach: coverage >= t, or coverage > 0 with the raw dense cosine
>= c (the default embedder's cosine between Chinese sentences is shifted up, so a Chinese
threshold, not the English calibration). Each rule is replayed on the Chinese questions of the
kinds and on the unrelated Chinese questions asked over their scopes; per held-out kind the rule
is chosen on the other kinds' questions and the dev unrelated questions (unrelated answered
<= TARGET, then the best recall@10 + R@5 + MRR) and scored on the held-out kind and the test
unrelated questions.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import print_table, write_json  # noqa: E402
from bench.kinds_fit import FLOOR, Search, final_hits, window  # noqa: E402
from bench.kinds_suite import mean_scores, score  # noqa: E402
from recall.read.context import content_pairs  # noqa: E402
from recall.read.fusion import learned_scores, shipped_model  # noqa: E402
from vectors.bm25 import tokenize  # noqa: E402

TARGET = 0.15  # unrelated answered a rule may reach on dev (test must stay <= 0.2)
COVERAGES = (0.3, 0.34, 0.4, 0.45, 0.5, 0.6, 1.01)
COSINES = (0.6, 0.65, 0.7, 0.72, 0.75, 0.78, 0.8, 0.85, 0.9, 2.0)

Rule = tuple[float, float]  # (coverage threshold, raw cosine threshold with coverage > 0)
PAIRS = (0.0, 0.2, 0.3, 0.4, 0.5, 2.0)  # coverage a hit sharing a pair of content characters needs
TEXTS: dict[str, str] = {}  # ref -> text of the kinds' memories and document chunks


def _texts() -> None:
    from bench.kinds import LOCOMO_PATH
    from bench.kinds_suite import document_refs, load_suite
    from recall.documents.markdown import chunk_texts

    for kind in load_suite(LOCOMO_PATH, kinds=['zh', 'bank_zh']):
        for memories in kind.memories.values():
            TEXTS.update({m.ref: m.text for m in memories})
        for docs in kind.documents.values():
            for doc in docs:
                chunks = [t for t in chunk_texts(doc.markdown) if t.strip()]
                TEXTS.update(zip(document_refs(doc), chunks, strict=False))


class Window:
    """One explained search's window as the shipped model orders it, and each candidate's raw
    dense cosine (-1 without one): what a floor's gate replays (here and bench/en_floor_fit.py)."""

    def __init__(self, raw: dict[str, Any], tag: str) -> None:
        s = Search(raw)
        model = shipped_model()
        assert model is not None
        self.search, self.tag = s, tag
        self.base = learned_scores(model, s.features, s.turn, s.cjk)
        self.window = window(s, self.base)
        cos = dict(s.lists.get('dense', []))
        self.cosine = np.array([cos.get(i, -1.0) for i in s.ids])


class Replayed(Window):
    """One Chinese search's window and its gate features."""

    def __init__(self, raw: dict[str, Any], tag: str) -> None:
        super().__init__(raw, tag)
        s = self.search
        self.kept = self.window[s.confidence[self.window] > 0]
        pairs = content_pairs(str(raw['question']))
        self.paired = np.array(
            [
                bool(pairs & frozenset(tokenize(' '.join(TEXTS.get(r, '') for r in refs))))
                for refs in s.refs
            ]
        )
        # the shipped rule's reach, as the receipts hold it
        self.reach = s.reach if s.reach is not None else s.confidence

    def answered(self, rule: Rule | None) -> bool:
        """Whether the question is answered at all under `rule` (None: the shipped rule)."""
        w, s = self.window, self.search
        if rule is None:
            return bool((self.reach[w] >= FLOOR).any())
        t, c = rule
        conf = s.confidence[w]
        if c < 0:  # a pair rule: coverage >= t, or >= -1 - c with a shared pair
            return bool(((conf >= t) | ((conf > 0) & (conf >= -1 - c) & self.paired[w])).any())
        return bool(((conf >= t) | ((conf > 0) & (self.cosine[w] >= c))).any())

    def hits(self, rule: Rule | None) -> list[frozenset[str]]:
        """The refs returned under `rule`."""
        if not self.answered(rule) or not len(self.kept):
            return []
        return [self.search.refs[n] for n in final_hits(self.search, self.base, self.kept)]


def measure(answerable: Sequence[Replayed], unrelated: Sequence[Replayed], rule: Rule | None
            ) -> dict[str, float]:  # fmt: skip
    """recall@10 / R@5 / MRR over the answerable, share answered of the unrelated."""
    out = mean_scores([score(r.hits(rule), r.search.gold) for r in answerable])
    out['unrelated'] = float(np.mean([bool(r.hits(rule)) for r in unrelated])) if unrelated else 0
    return out


K = TypeVar('K')  # what a grid's entries are keyed by


def best_under(cap: float, scored: Iterable[tuple[K, dict[str, float]]]) -> K | None:
    """Of (key, metrics) in order, the key answering at most `cap` of the unrelated questions
    with the best recall@10 + R@5 + MRR (ties: the first); None when none is under the cap."""
    best: tuple[float, K] | None = None
    for key, m in scored:
        if m['unrelated'] > cap:
            continue
        gain = m['recall@10'] + m['R@5'] + m['mrr']
        if best is None or gain > best[0] + 1e-9:
            best = (gain, key)
    return None if best is None else best[1]


def choose(answerable: Sequence[Replayed], unrelated: Sequence[Replayed]) -> Rule:
    """The rule with unrelated answered <= TARGET and the best recall@10 + R@5 + MRR."""
    pairs = ((t, -1 - p) for t in COVERAGES for p in PAIRS)
    grid = [*itertools.product(COVERAGES, COSINES), *pairs]
    chosen = best_under(TARGET, ((rule, measure(answerable, unrelated, rule)) for rule in grid))
    assert chosen is not None
    return chosen


def _fmt(m: dict[str, float]) -> str:
    return f'{m["recall@10"]:.3f} / {m["R@5"]:.3f} / {m["mrr"]:.3f} | {m["unrelated"]:.3f}'


def main(argv: list[str] | None = None) -> int:
    """Leave one kind out; print the table and write bench/results/zh_floor_fit.json."""
    args = sys.argv[1:] if argv is None else argv
    raw = json.loads(Path(args[0]).read_text())
    other = json.loads(Path(args[1]).read_text())
    _texts()
    answerable = [a for a in (Replayed(r, 'answerable') for r in raw) if a.search.cjk]
    unrelated = [Replayed(r, r['tag']) for r in other if r['tag'].endswith(':zh')]
    kinds = list(dict.fromkeys(r.search.kind for r in answerable))
    fixed: dict[str, Rule | None] = {
        'shipped': None,
        'coverage >= 0.3': (0.3, 2.0),
        'a shared pair': (1.01, -1.0),
        'coverage >= 0.3 and a pair': (1.01, -1.3),
        'coverage >= 0.5 or a pair': (0.5, -1.0),
    }
    rows, report = [], {}
    pick: Callable[[Sequence[Replayed], str], list[Replayed]]
    for held in kinds:

        def pick(rs: Sequence[Replayed], name: str, held: str = held, same: bool = True
                 ) -> list[Replayed]:  # fmt: skip
            return [r for r in rs if (r.search.kind == held) == same and name in r.tag]

        train = pick(answerable, 'answerable', same=False)
        chosen = choose(train, pick(unrelated, ':dev:', same=False))
        test_q, test_u = pick(answerable, 'answerable'), pick(unrelated, ':test:')
        rules = {**fixed, f'chosen {chosen}': chosen}
        report[held] = {k: measure(test_q, test_u, r) for k, r in rules.items()}
        for name, m in report[held].items():
            rows.append([f'{held} ({len(test_q)}, {len(test_u)})', name, _fmt(m)])
    print('Chinese questions: recall@10 / R@5 / MRR | test unrelated answered')
    print_table(['held-out kind (questions, unrelated)', 'rule', 'scores'], rows)
    every = choose(answerable, [r for r in unrelated if ':dev:' in r.tag])
    print(f'\nchosen on every kind and dev: {every}')
    for name, rule in {**fixed, 'chosen': every}.items():
        for kind in kinds:
            m = measure(
                [r for r in answerable if r.search.kind == kind],
                [r for r in unrelated if r.search.kind == kind and ':test:' in r.tag],
                rule,
            )
            print(f'  {name:16s} {kind:8s} {_fmt(m)}')
    write_json('zh_floor_fit', {'folds': report, 'chosen': every})
    return 0


if __name__ == '__main__':
    sys.exit(main())
