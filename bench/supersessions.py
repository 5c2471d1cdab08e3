"""Which memories of a set are superseded when it is written, and by what: the list to judge.

python bench/supersessions.py                 # zh_recall, bank_en, bank_zh
python bench/supersessions.py zh bank_zh      # some of them

Each set is written as bench/kinds.py writes it (`POST /v1/memories/batch`, notes of one scope,
its event times), into a fresh service without the graph. Every supersession a write reports
is printed: the memory hidden, the one that hid it, and the record (slot, subject, both
values). None of these sets states a change of a fact, so each line is a false supersession
unless the two texts really give two values of one slot of one subject; judge them by eye.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import start_service  # noqa: E402
from bench.kinds_suite import DATA, KindSet, bank_kind, zh_kind  # noqa: E402

BATCH = 500
SETS = {
    'zh': lambda: zh_kind(DATA / 'zh_recall.json'),
    'bank_en': lambda: bank_kind('bank_en', DATA / 'kinds_bank_en.json'),
    'bank_zh': lambda: bank_kind('bank_zh', DATA / 'kinds_bank_zh.json'),
}


def hidden(service: Any, kind: KindSet) -> list[tuple[str, str, dict[str, Any]]]:
    """(hidden text, hiding text, record) for every memory of `kind` hidden by another."""
    texts: dict[str, str] = {}
    gone: set[str] = set()
    for scope, memories in kind.memories.items():
        items: list[dict[str, Any]] = []
        for m in memories:
            item: dict[str, Any] = {'scope': scope, 'text': m.text}
            if m.at is not None:
                item['created_at'] = m.at
            items.append(item)
        for start in range(0, len(items), BATCH):
            chunk = items[start : start + BATCH]
            answer = service.post('/v1/memories/batch', {'items': chunk})
            for result, item in zip(answer['results'], chunk, strict=True):
                texts.setdefault(result['id'], item['text'])
                gone.update(result.get('superseded') or [])
                if result.get('superseded_by'):
                    gone.add(result['id'])
    out: list[tuple[str, str, dict[str, Any]]] = []
    for ident in sorted(gone, key=lambda i: texts.get(i, i)):
        record = service.get(f'/v1/memories/{ident}').get('supersession') or {}
        by = str(record.get('by', ''))
        out.append((texts.get(ident, ident), texts.get(by, by), record))
    return out


def main() -> int:
    """Write each named set into a fresh service and print what was superseded."""
    names = sys.argv[1:] or list(SETS)
    service = start_service(graph=False)
    try:
        for name in names:
            kind = SETS[name]()
            found = hidden(service, kind)
            total = sum(len(m) for m in kind.memories.values())
            print(f'\n{name}: {len(found)} of {total} memories superseded')
            for old, new, record in found:
                slot = record.get('slot', '')
                values = f'{record.get("old_value", "")!r} -> {record.get("new_value", "")!r}'
                print(f'  [{record.get("rule", "")} {slot}] {old!r}\n      by {new!r}  {values}')
    finally:
        service.stop()
    return 0


if __name__ == '__main__':
    sys.exit(main())
