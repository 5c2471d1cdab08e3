"""Extraction quality: capture and graph extraction against the labelled set (issue 13).

Runs the real capture code path (`recall.write.capture.capture`, what `MemoryWriter.capture`
calls after its size guard) and the graph extractor the service builds (`SpacyExtractor`, which
routes Chinese text to the jieba reader) over `tests/data/extraction_set.jsonl`, and reports:

- capture: precision / recall / F1 per kind and overall, per language, for the dev and the
  held-out split; tier agreement of matched items; false-positive rate on chit-chat, injected
  text and secrets (an item that should store nothing but stored something);
- graph: precision / recall / F1 of (subject, predicate, object) facts per predicate and
  overall, per language and split; date agreement of matched facts that carry a `valid_from`.

Graph scoring covers the predicates the labels enumerate (SCORED: jobs, homes, origins,
schools, family, bosses, ownership, tools); taste and role predicates (likes, prefers, role, …)
are not labelled exhaustively, so they are counted apart (`unscored`), and `strict` scores every
prediction. The graph reads the text as capture stores it: recall blocks stripped.

A captured item matches an expected one when the kinds agree and the stored text contains the
expected key phrase (case-insensitive). A fact matches when the predicate is equal and subject
and object agree after normalisation (one name may contain the other: "Acme" / "Acme Corp").
"USER" in the labels is the speaker.

Usage: .venv/bin/python bench/extraction_quality.py [--show-errors] [--speaker-prefix]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import unicodedata
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.settings import Settings  # noqa: E402
from kg.extraction.spacy_extractor import SpacyExtractor  # noqa: E402
from kg.models import SourceText  # noqa: E402
from recall.recall_block import strip_recall_blocks  # noqa: E402
from recall.write.capture import capture  # noqa: E402

DATA = ROOT / 'tests' / 'data' / 'extraction_set.jsonl'
RESULTS = ROOT / 'bench' / 'results' / 'extraction_quality.json'
AT = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
SPEAKER = 'USER'
SCORED = frozenset(
    {
        'works_at', 'lives_in', 'born_in', 'grew_up_in', 'from', 'studies_at', 'graduated_from',
        'married_to', 'child_of', 'parent_of', 'sibling_of', 'partner_of', 'dating', 'manages',
        'reports_to', 'colleague_of', 'owns', 'uses',
    }
)  # fmt: skip


def load(path: Path = DATA) -> list[dict[str, Any]]:
    """The labelled items, one JSON object a line."""
    with path.open(encoding='utf-8') as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _norm(text: str) -> str:
    text = unicodedata.normalize('NFKC', text).casefold().strip()
    for word in ('the ', 'a '):
        text = text.removeprefix(word)
    return ' '.join(text.replace('.', ' ').split())


def _same_name(expected: str, got: str) -> bool:
    a, b = _norm(expected), _norm(got)
    if not a or not b:
        return False
    if a == b:
        return True
    if a.isascii() and b.isascii():
        return f' {a} ' in f' {b} ' or f' {b} ' in f' {a} '
    return a in b or b in a


class Tally:
    """True positives, false positives and false negatives per label."""

    def __init__(self) -> None:
        self.tp: Counter[str] = Counter()
        self.fp: Counter[str] = Counter()
        self.fn: Counter[str] = Counter()

    def report(self) -> dict[str, Any]:
        """Per-label and micro-averaged precision, recall, F1 and counts."""
        labels = sorted(set(self.tp) | set(self.fp) | set(self.fn))
        per = {label: _prf(self.tp[label], self.fp[label], self.fn[label]) for label in labels}
        total = _prf(sum(self.tp.values()), sum(self.fp.values()), sum(self.fn.values()))
        return {'overall': total, 'per_label': per}


def _prf(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {'precision': round(p, 3), 'recall': round(r, 3), 'f1': round(f, 3), 'tp': tp,
            'fp': fp, 'fn': fn}  # fmt: skip


def score_capture(items: list[dict[str, Any]], errors: list[str]) -> dict[str, Any]:
    """Capture metrics over the items that label capture output."""
    tally = Tally()
    tiers = Counter[str]()
    quiet = Counter[str]()
    quiet_fp = Counter[str]()
    latencies: list[float] = []
    for item in items:
        expected = item.get('capture')
        if expected is None:
            continue
        start = time.perf_counter()
        decision = capture(item['text'], role='user', now=AT)
        latencies.append((time.perf_counter() - start) * 1000)
        got = list(decision.candidates)
        if not expected:
            group = item.get('skip', 'not_salient')
            group = 'chitchat' if group == 'not_salient' else group
            quiet[group] += 1
            if got:
                quiet_fp[group] += 1
                errors.append(f'[capture FP {item["id"]}] {item["text"]!r} -> '
                              f'{[(c.kind.value, c.text) for c in got]}')  # fmt: skip
            for c in got:
                tally.fp[c.kind.value] += 1
            continue
        unmatched = list(got)
        for want in expected:
            phrase = want['contains'].casefold()
            hit = next(
                (
                    c
                    for c in unmatched
                    if c.kind.value == want['kind'] and phrase in c.text.casefold()
                ),
                None,
            )
            if hit is None:
                tally.fn[want['kind']] += 1
                errors.append(f'[capture FN {item["id"]}] {item["text"]!r} want {want} got '
                              f'{[(c.kind.value, c.text) for c in got]}')  # fmt: skip
                continue
            unmatched.remove(hit)
            tally.tp[want['kind']] += 1
            tiers['match' if hit.tier.value == want['tier'] else 'mismatch'] += 1
        for c in unmatched:
            tally.fp[c.kind.value] += 1
            errors.append(f'[capture extra {item["id"]}] {item["text"]!r} -> {c.kind.value}: '
                          f'{c.text!r}')  # fmt: skip
    out = tally.report()
    out['tier_agreement'] = round(tiers['match'] / max(1, sum(tiers.values())), 3)
    out['false_positive_rate'] = {
        group: round(quiet_fp[group] / quiet[group], 3) for group in sorted(quiet)
    }
    out['quiet_items'] = dict(quiet)
    latencies.sort()
    out['capture_ms_p50'] = round(latencies[len(latencies) // 2], 3) if latencies else 0.0
    return out


def score_graph(
    items: list[dict[str, Any]], extractor: SpacyExtractor, errors: list[str], prefixed: bool
) -> dict[str, Any]:
    """Graph fact metrics over every item (an item with no labelled fact expects none);
    `prefixed`: each text as a client logging a chat writes it, "USER: <text>"."""
    tally, strict = Tally(), Tally()
    dates = Counter[str]()
    unscored = Counter[str]()
    lead = f'{SPEAKER}: ' if prefixed else ''
    texts = [
        SourceText(text=lead + strip_recall_blocks(i['text']), at=AT, speaker=SPEAKER)
        for i in items
    ]
    start = time.perf_counter()
    extractions = extractor.extract(texts)
    seconds = time.perf_counter() - start
    for item, extraction in zip(items, extractions, strict=True):
        got = list(extraction.relations)
        for want in item['facts']:
            hit = next(
                (
                    r
                    for r in got
                    if r.predicate == want['predicate']
                    and _same_name(want['subject'], r.subject)
                    and _same_name(want['object'], r.object)
                ),
                None,
            )
            if hit is None:
                strict.fn[want['predicate']] += 1
                if want['predicate'] in SCORED:
                    tally.fn[want['predicate']] += 1
                errors.append(f'[graph FN {item["id"]}] {item["text"]!r} want '
                              f'{want["subject"]} {want["predicate"]} {want["object"]} got '
                              f'{[(r.subject, r.predicate, r.object) for r in got]}')  # fmt: skip
                continue
            got.remove(hit)
            strict.tp[want['predicate']] += 1
            if want['predicate'] in SCORED:
                tally.tp[want['predicate']] += 1
            if want.get('valid_from'):
                when = hit.valid_from.date().isoformat() if hit.valid_from else ''
                dates['match' if when.startswith(want['valid_from']) else 'mismatch'] += 1
                if not when.startswith(want['valid_from']):
                    errors.append(f'[graph date {item["id"]}] want {want["valid_from"]} got '
                                  f'{when}')  # fmt: skip
        for r in got:
            strict.fp[r.predicate] += 1
            if r.predicate not in SCORED:
                unscored[r.predicate] += 1
                continue
            tally.fp[r.predicate] += 1
            errors.append(f'[graph FP {item["id"]}] {item["text"]!r} -> '
                          f'{r.subject} {r.predicate} {r.object}')  # fmt: skip
    out = tally.report()
    out['strict'] = strict.report()['overall']
    out['unscored'] = dict(unscored.most_common())
    out['date_agreement'] = round(dates['match'] / max(1, sum(dates.values())), 3)
    out['turns_per_s'] = round(len(items) / seconds, 1) if seconds else 0.0
    return out


def main() -> None:
    """Score every language and split, print a table and write the JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--show-errors', action='store_true')
    parser.add_argument(
        '--speaker-prefix',
        action='store_true',
        help='graph texts as a chat log writes them: "USER: <text>" (the speaker stays USER)',
    )
    parser.add_argument('--out', type=Path, default=RESULTS)
    args = parser.parse_args()
    items = load()
    extractor = SpacyExtractor(Settings().spacy_model)
    extractor.extract([SourceText(text='warm up', at=AT)])
    results: dict[str, Any] = {
        'items': len(items),
        'data': str(DATA.relative_to(ROOT)),
        'speaker_prefix': args.speaker_prefix,
    }
    errors: list[str] = []
    for lang in ('en', 'zh'):
        for split in ('all', 'dev', 'heldout'):
            chosen = [i for i in items if i['lang'] == lang and split in ('all', i['split'])]
            errs: list[str] = []
            results[f'{lang}/{split}'] = {
                'n': len(chosen),
                'capture': score_capture(chosen, errs),
                'graph': score_graph(chosen, extractor, errs, args.speaker_prefix),
            }
            if split == 'all':
                errors += errs
    extractor.close()
    print(f'{"lang/split":<12} {"n":>4} {"cap P":>6} {"cap R":>6} {"cap F1":>6} {"tier":>5} '
          f'{"chat FP":>7} {"inj FP":>6} {"sec FP":>6} {"kg P":>5} {"kg R":>5} {"kg F1":>5} '
          f'{"strict":>6} {"date":>5}')  # fmt: skip
    for key, row in results.items():
        if not isinstance(row, dict):
            continue
        cap, kg = row['capture'], row['graph']
        fpr = cap['false_positive_rate']
        print(
            f'{key:<12} {row["n"]:>4} {cap["overall"]["precision"]:>6} '
            f'{cap["overall"]["recall"]:>6} {cap["overall"]["f1"]:>6} {cap["tier_agreement"]:>5} '
            f'{fpr.get("chitchat", 0):>7} {fpr.get("injected", 0):>6} {fpr.get("secret", 0):>6} '
            f'{kg["overall"]["precision"]:>5} {kg["overall"]["recall"]:>5} '
            f'{kg["overall"]["f1"]:>5} {kg["strict"]["f1"]:>6} {kg["date_agreement"]:>5}'
        )
    for lang in ('en', 'zh'):
        row = results[f'{lang}/all']
        print(f'\n{lang}: capture F1 per kind')
        for kind, m in row['capture']['per_label'].items():
            print(f'  {kind:<14} P {m["precision"]:<5} R {m["recall"]:<5} F1 {m["f1"]:<5}')
        print(f'{lang}: graph F1 per predicate')
        for pred, m in row['graph']['per_label'].items():
            print(f'  {pred:<20} P {m["precision"]:<5} R {m["recall"]:<5} F1 {m["f1"]:<5} '
                  f'(tp {m["tp"]} fp {m["fp"]} fn {m["fn"]})')  # fmt: skip
    if args.show_errors:
        print('\n'.join(['', *errors]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + '\n')
    print(f'\nwrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}')


if __name__ == '__main__':
    main()
