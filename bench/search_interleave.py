"""Two code trees in one process, each over its own copy of one kept store, searches interleaved.

cp -r /tmp/ab10k /tmp/ab10k_b                     # a store from `bench/search_ab.py build`
cp bench/search_ab.py <other tree>/bench/         # each tree needs this bench
python bench/search_interleave.py <tree A> /tmp/ab10k <tree B> /tmp/ab10k_b --passes 3

Each tree's packages are imported apart (sys.modules is swapped around each import, so A's and
B's modules live side by side), and each builds its services over its store as
`bench/search_ab.py run` does (fixed clock, graph off). Every pass clears both embedding caches,
then asks the 400 LoCoMo questions service_bench asks at 10k, A then B on even questions, B then
A on odd ones, so both see the same load. Reported: the median over the passes after the first
of each receipt stage (wall ms), of each stage's thread CPU ms (`cpu_*`, bench/search_ab.py
StageCpu), the process CPU and wall ms per search, and how many questions' hits (ids, order,
scores to 1e-9) differ between the trees in any pass. On a shared machine compare the CPU rows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

OURS = {'agents', 'api', 'bench', 'consolidation', 'core', 'jobs', 'kg', 'recall', 'runtime'}
OURS |= {'vectors', 'mnemos_client'}
SCOPE = 'agent:bench'
TOLERANCE = 1e-9


def ours() -> dict[str, Any]:
    """Our packages' modules imported now."""
    return {k: v for k, v in sys.modules.items() if k.split('.')[0] in OURS}


@contextmanager
def tree_imports(path: str) -> Iterator[None]:
    """Inside, our packages import from the tree at `path`; after, sys.modules and sys.path are
    as before, and what was imported inside keeps that tree's modules alive."""
    saved = ours()
    for name in saved:
        del sys.modules[name]
    sys.path.insert(0, path)
    try:
        yield
    finally:
        for name in ours():
            del sys.modules[name]
        sys.modules.update(saved)
        sys.path.remove(path)


class Tree:
    """One code tree's services over one store, with its stages' CPU timers."""

    def __init__(self, path: str, data: str) -> None:
        with tree_imports(path):
            from bench import search_ab
            from core.auth import Principal
            from recall.schemas import SearchRequest

            self.tree = str(Path(search_ab.__file__).resolve().parents[1])
            self.services = search_ab._services(Path(data))
            self.stages = search_ab.StageCpu()
            self.stages.install()  # this tree's modules, imported here
            self._clear = search_ab._clear_embedding_cache
            self._admin = Principal(name='bench', admin=True)
            self._request = SearchRequest

    def clear_embeddings(self) -> None:
        self._clear(self.services)

    def ask(self, question: str) -> tuple[list[tuple[str, float]], dict[str, float]]:
        """The hits (id, score) and the stage times of one search."""
        req = self._request(query=question, scope=SCOPE, top_k=10, graph=False, touch=False)
        self.stages.take()
        t, c = time.perf_counter(), time.process_time()
        response = self.services.recall.search(req, self._admin)
        wall, cpu = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
        stages = {**response.receipt.latency_ms, **self.stages.take(), 'wall': wall, 'cpu': cpu}
        return [(h.id, h.score) for h in response.hits], stages


def _same(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> bool:
    return len(a) == len(b) and all(
        i == j and abs(s - t) <= TOLERANCE for (i, s), (j, t) in zip(a, b, strict=True)
    )


def interleave(a: Tree, b: Tree, questions: list[str], passes: int) -> dict[str, Any]:
    """Every question on both trees in turn, `passes` times; stage medians and differences."""
    times: dict[str, dict[str, list[float]]] = {'A': {}, 'B': {}}
    differ: set[str] = set()
    for n in range(passes):
        a.clear_embeddings()
        b.clear_embeddings()
        for k, question in enumerate(questions):
            turn = (('A', a), ('B', b)) if k % 2 == 0 else (('B', b), ('A', a))
            hits: dict[str, list[tuple[str, float]]] = {}
            for name, tree in turn:
                hits[name], stages = tree.ask(question)
                for stage, ms in stages.items():
                    if n > 0 or passes == 1:
                        times[name].setdefault(stage, []).append(ms)
            if not _same(hits['A'], hits['B']):
                differ.add(question)
    both = sorted(set(times['A']) & set(times['B']))
    medians = {
        s: (statistics.median(times['A'][s]), statistics.median(times['B'][s])) for s in both
    }
    return {
        'questions': len(questions),
        'passes': passes,
        'differ': len(differ),
        'medians': medians,
    }


def pair_parser(doc: str, passes: int) -> argparse.ArgumentParser:
    """The flags of a bench over two trees, each with its store (this one and
    bench/rank_interleave.py): the trees, the stores, how many passes and which questions."""
    parser = argparse.ArgumentParser(description=doc.split('\n')[0])
    parser.add_argument('tree_a')
    parser.add_argument('data_a')
    parser.add_argument('tree_b')
    parser.add_argument('data_b')
    parser.add_argument('--passes', type=int, default=passes)
    parser.add_argument('--offset', type=int, default=400)
    parser.add_argument('--queries', type=int, default=400)
    return parser


def main() -> int:
    args = pair_parser(__doc__ or '', passes=3).parse_args()
    sys.path.insert(0, args.tree_a)
    from bench._common import locomo_questions

    questions = locomo_questions()[args.offset : args.offset + args.queries]
    sys.path.remove(args.tree_a)
    for name in ours():
        del sys.modules[name]
    a, b = Tree(args.tree_a, args.data_a), Tree(args.tree_b, args.data_b)
    try:
        result = interleave(a, b, questions, args.passes)
    finally:
        a.services.close()
        b.services.close()
    print(f'A {a.tree}  B {b.tree}')
    print(f'{result["questions"]} questions x {result["passes"]} passes: {result["differ"]} differ')
    print(f'{"stage":12s} {"A ms":>8s} {"B ms":>8s} {"B-A":>8s} {"B/A":>6s}')
    for stage, (ma, mb) in result['medians'].items():
        print(f'{stage:12s} {ma:8.3f} {mb:8.3f} {mb - ma:+8.3f} {mb / ma if ma else 0:6.2f}')
    return 1 if result['differ'] else 0


if __name__ == '__main__':
    raise SystemExit(main())
