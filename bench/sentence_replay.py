"""The fused ranking replayed with one vector per sentence on the dense side (MaxSim), offline.

python bench/kinds.py --kinds turns,notes,summaries,bank_en,mixed --variants default \
    --explain --label sv
python bench/sentence_replay.py bench/results/kinds_explained_sv.json \
    bench/results/kinds_explained_unrelated_sv.json

Each explained search's dense list is re-scored in process: a candidate's cosine becomes the
best of its whole text's and each of its sentences' (bench/kinds_dense.py `--sentences`, what a
Qdrant multivector with MaxSim would give), the list re-sorted and cut to its length, and the
service's learned ranking replayed over it (bench/kinds_fit.py `replay`): with the shipped model,
and with a model fitted without the kind it is scored on (`fit`, leave one kind out, on the
kinds of the file). `whole` re-scores with the whole text alone: it must reproduce the receipts
(a check of the replay). `sentences` keeps the floor's inputs as the receipts have them;
`sentences + floor` also lets the best sentence's calibrated cosine count in a hit's confidence
and, for an English question, in its reach towards the floor (recall.read.context.confidence,
recall.read.ranking.en_reach: both take the calibrated cosine), as the service would if its
cosine were the multivector's. With the unrelated questions' receipts (second file) it reports
the share of them each mode answers (English, dev and test halves together). Output:
bench/results/sentence_replay.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import LOCOMO_PATH, print_table, write_json  # noqa: E402
from bench.kinds_dense import scope_texts, whole_and_sentences  # noqa: E402
from bench.kinds_fit import Search, channel_alone, fit, replay, training_set  # noqa: E402
from bench.kinds_suite import METRICS, KindSet, load_suite, mean_scores, score  # noqa: E402
from recall.read.context import calibrated_cosine, query_terms, written_in_chinese  # noqa: E402
from recall.read.fusion import shipped_model  # noqa: E402
from recall.read.slots import is_cjk  # noqa: E402

MODES = ('receipt', 'whole', 'sentences', 'sentences + floor')


class Vectors:
    """Each scope's texts embedded whole and by sentence, normalised, by ref."""

    def __init__(self, kinds: dict[str, KindSet]) -> None:
        from vectors.embedders import OnnxMiniLMEmbedder

        self._embedder = OnnxMiniLMEmbedder()
        self._kinds = kinds
        self._by_scope: dict[tuple[str, str], dict[str, np.ndarray]] = {}
        self.chinese: set[str] = set()  # refs whose text is written in Chinese

    def of(self, kind: str, scope: str) -> dict[str, np.ndarray]:
        """ref -> its rows (the whole text first, then each sentence when it has several)."""
        key = (kind, scope)
        if key not in self._by_scope:
            texts, refs = scope_texts(self._kinds[kind], scope, 'as written')
            self.chinese |= {r for t, r in zip(texts, refs, strict=True) if written_in_chinese(t)}
            self._by_scope[key] = {
                ref: _unit(self._embedder.embed(whole_and_sentences(text)))
                for text, ref in zip(texts, refs, strict=True)
            }
        return self._by_scope[key]

    def query(self, text: str) -> np.ndarray:
        """The question's vector, normalised."""
        return _unit([self._embedder.embed_query(text)])[0]


def _unit(rows: Any) -> np.ndarray:
    matrix = np.asarray(rows, dtype=np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def rescored(raw: dict[str, Any], mode: str, vectors: Vectors) -> dict[str, Any]:
    """`raw` with its dense list re-scored as `mode` says (`receipt`: as saved)."""
    if mode == 'receipt':
        return raw
    rows = vectors.of(str(raw['kind']), str(raw['scope']))
    query = vectors.query(str(raw['question']))
    dense = raw['lists'].get('dense', [])
    scored: dict[str, float] = {}
    for ident in raw['factors']:
        refs = [r for r in raw['refs'].get(ident, ()) if r in rows]
        if refs:
            cosines = [rows[r][:1] @ query if mode == 'whole' else rows[r] @ query for r in refs]
            scored[ident] = max(float(c.max()) for c in cosines)
    for ident, value in dense:  # a candidate without a suite text keeps its saved cosine
        scored.setdefault(ident, float(value))
    ranked = sorted(scored.items(), key=lambda p: -p[1])[: len(dense)]
    out = raw | {'lists': raw['lists'] | {'dense': [[i, s] for i, s in ranked]}}
    if mode == 'sentences + floor' and not is_cjk(query_terms(str(raw['question']))):
        out['factors'] = {
            ident: _floored(factors, scored.get(ident), raw['refs'].get(ident, ()), vectors)
            for ident, factors in raw['factors'].items()
        }
    return out


def _floored(
    factors: dict[str, Any], cosine: float | None, refs: Any, vectors: Vectors
) -> dict[str, Any]:
    # the service zeroes an English question's cosine to a memory written in Chinese
    if cosine is None or any(r in vectors.chinese for r in refs):
        return factors
    read = calibrated_cosine(cosine)
    out = factors | {'confidence': max(float(factors['confidence']), read)}
    if 'reach' in factors:
        out['reach'] = max(float(factors['reach']), read)
    return out


def main(argv: list[str] | None = None) -> int:
    """Replay every mode, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('explained', type=Path)
    parser.add_argument(
        'unrelated', type=Path, nargs='?', help='the unrelated questions, explained'
    )
    args = parser.parse_args(argv)
    saved = [r for r in json.loads(args.explained.read_text()) if r.get('gold')]
    unrelated = (
        [r for r in json.loads(args.unrelated.read_text()) if str(r.get('tag', '')).endswith(':en')]
        if args.unrelated
        else []
    )
    kinds = list(dict.fromkeys(str(r['kind']) for r in saved))
    vectors = Vectors({k.name: k for k in load_suite(LOCOMO_PATH, kinds=kinds)})
    shipped = shipped_model()
    assert shipped is not None
    results: dict[str, dict[str, dict[str, float]]] = {k: {} for k in kinds}
    for mode in MODES:
        searches = [Search(rescored(r, mode, vectors)) for r in saved]
        for kind in kinds:
            test = [s for s in searches if s.kind == kind]
            ways: dict[str, Callable[[Search], list[frozenset[str]]]] = {
                'shipped': partial(replay, model=shipped),
                'dense alone': partial(channel_alone, channel='dense'),
            }
            if mode != 'receipt':
                held_out = fit(training_set(searches, kind), f'without {kind}')
                ways['held-out fit'] = partial(replay, model=held_out)
            for way, rank in ways.items():
                results[kind][f'{mode}: {way}'] = mean_scores(
                    [score(rank(s), s.gold) for s in test]
                )
        for kind in kinds:
            asked = [Search(rescored(r, mode, vectors)) for r in unrelated if r['kind'] == kind]
            if asked:
                share = sum(1 for u in asked if replay(u, shipped)) / len(asked)
                results[kind][f'{mode}: shipped'] |= {'unrelated answered': share}
        print(f'{mode} replayed', flush=True)
    rows = [
        [
            kind,
            name,
            *(f'{got[m]:.3f}' if m in got else '' for m in (*METRICS, 'unrelated answered')),
        ]
        for kind, by_name in results.items()
        for name, got in by_name.items()
    ]
    print_table(['kind', 'dense side: ranking', *METRICS, 'unrelated answered'], rows)
    path = write_json('sentence_replay', {'explained': str(args.explained), 'results': results})
    print(f'\nwrote {path.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
