"""Whether two code trees read texts alike on the write path: facts, corrections, Stated,
answer facts, changed slots, joined clauses, secret spans and masks, injection fingerprints.

PYTHONPATH=<tree> python bench/write_identity.py --out /tmp/a.json   # per tree
python bench/write_identity.py --compare /tmp/a.json /tmp/b.json      # how many texts differ

The corpus: every string of bench/data, LoCoMo turns (as service_bench writes them, with and
without its ` #n`) and questions, and every string constant of tests/ (deduplicated, sorted).
Works on an older tree too: what a tree lacks is recorded as missing, not a failure.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
LOCOMO = Path('/work/shared/bench/locomo_dev.json')


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def corpus() -> list[str]:
    """Every text the check reads, deduplicated and sorted."""
    texts: set[str] = set()
    for path in sorted((ROOT / 'bench' / 'data').iterdir()):
        if path.suffix == '.json':
            texts.update(_strings(json.loads(path.read_text())))
        elif path.suffix == '.jsonl':
            for line in path.read_text().splitlines():
                if line.strip():
                    texts.update(_strings(json.loads(line)))
    n = 0
    for sample in json.loads(LOCOMO.read_text()):
        texts.update(str(q.get('question', '')) for q in sample['qa'])
        conv = sample['conversation']
        for key in sorted(k for k in conv if k.startswith('session_') and 'date' not in k):
            for turn in conv[key] if isinstance(conv[key], list) else []:
                text = f'{turn["speaker"]}: {turn["text"]}'
                if turn.get('blip_caption'):
                    text += f' [image: {turn["blip_caption"]}]'
                texts.update((text, f'{text} #{n}'))
                n += 1
    for path in sorted((ROOT / 'tests').rglob('*.py')):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.add(node.value)
    return sorted(t for t in texts if t.strip())


def _readers() -> dict[str, Callable[[str], Any]]:
    from recall.write import facts, guards, scanner, supersession
    from recall.write.fact_base import clauses

    def answer(text: str) -> Any:
        from recall.write.answer_facts import answer_facts

        return [answer_facts(c, i, text) for i, c in enumerate(clauses(text))]

    return {
        'facts': facts.facts_of,
        'corrections': facts.correction_facts,
        'stated': lambda t: supersession.Stated.of('x', t, 'Ann'),
        'stated_slots': lambda t: supersession.Stated.of('x', t, None, ('name', 'editor')),
        'answer': answer,
        'changed': lambda t: [facts.changed_slot(c) for c in clauses(t)],
        'joined': lambda t: facts.joined_changes(facts.joined_corrections(clauses(t))),
        'spans': scanner.secret_spans,
        'redact': scanner.redact,
        'mask': guards.mask_turn,
        'skip': guards.explicit_skip,
        'injection': guards.injection_reason,
    }


def read(texts: list[str]) -> dict[str, dict[str, str]]:
    """Per reader, per text: the repr of what it returned (or of the error it raised)."""
    out: dict[str, dict[str, str]] = {}
    for name, reader in _readers().items():
        got: dict[str, str] = {}
        for text in texts:
            try:
                got[text] = repr(reader(text))
            except Exception as error:  # noqa: BLE001 - a tree that raises differs, it is kept
                got[text] = f'error: {type(error).__name__}: {error}'
        out[name] = got
    return out


def compare(a: Path, b: Path) -> int:
    """Texts both dumps read whose readings differ, per reader; 0 when none do."""
    left, right = json.loads(a.read_text()), json.loads(b.read_text())
    bad = 0
    for name in sorted(set(left) | set(right)):
        x, y = left.get(name, {}), right.get(name, {})
        # a tree's own tests add strings: the texts both read are compared
        both = sorted(set(x) & set(y))
        differ = [t for t in both if x[t] != y[t]]
        print(
            f'{name}: {len(both)} texts, {len(differ)} differ '
            f'({len(set(x) ^ set(y))} read by one tree only)'
        )
        for t in differ[:5]:
            print(f'  {t[:80]!r}\n    {x.get(t, "missing")[:160]}\n    {y.get(t, "missing")[:160]}')
        bad += len(differ)
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--out', help='write every reading of the corpus here')
    parser.add_argument('--compare', nargs=2, metavar='DUMP', help='two --out files')
    args = parser.parse_args()
    if args.compare:
        return compare(Path(args.compare[0]), Path(args.compare[1]))
    texts = corpus()
    Path(args.out).write_text(json.dumps(read(texts), sort_keys=True))
    print(f'{len(texts)} texts read to {args.out}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
