"""Does the same question over the same memories give the same hits? LoCoMo through the HTTP API.

python bench/determinism.py --conversations 1             # two fresh services, plain protocol
python bench/determinism.py --conversations 1 --settle    # each waits for background work first

Each run starts a fresh service, writes the conversations' turns as bench/locomo.py's plain
protocol does, and asks every question with evidence in three ways (the default request, `mode:
bm25`, `mode: dense`; top_k 20, `touch: false`); the runs' hit lists (memory ids, in order) are
compared question by question. Without `--settle` the questions follow the writes at once, as
bench/locomo.py's plain protocol asks them, so background graph extraction still runs while
they are asked (its slot evidence can change a default answer between runs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import Conversation, Service, load_locomo, start_service, write_json  # noqa: E402
from bench.locomo import TOP_K, ingest, scope_of, settle  # noqa: E402

MODES: tuple[str | None, ...] = (None, 'bm25', 'dense')


def hit_lists(service: Service, conversations: list[Conversation]) -> dict[str, list[str]]:
    """Each (mode, question)'s hit ids in order."""
    out: dict[str, list[str]] = {}
    for conv in conversations:
        for n, q in enumerate(conv.questions):
            if not q.evidence:
                continue
            for mode in MODES:
                body: dict[str, Any] = {
                    'query': q.question,
                    'scope': scope_of(conv),
                    'top_k': TOP_K,
                    'touch': False,
                }
                if mode:
                    body['mode'] = mode
                answer = service.post('/v1/memory_search', body)
                out[f'{mode or "default"} {conv.sample_id} {n}'] = [h['id'] for h in answer['hits']]
    return out


def one_run(conversations: list[Conversation], wait: bool) -> dict[str, list[str]]:
    """A fresh service, the writes, then every question's hits."""
    service = start_service(graph=True)
    try:
        ingest(service, conversations, 'plain')
        if wait:
            settle(service)
        return hit_lists(service, conversations)
    finally:
        service.stop()


def main(argv: list[str] | None = None) -> int:
    """Two runs, compared; writes bench/results/determinism*.json."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--conversations', type=int, default=1)
    parser.add_argument('--settle', action='store_true', help='wait for background work')
    args = parser.parse_args(argv)
    conversations = load_locomo()[: args.conversations]
    first = one_run(conversations, args.settle)
    second = one_run(conversations, args.settle)
    differ = sorted(k for k in first if first[k] != second.get(k))
    by_mode = {
        mode or 'default': sum(1 for k in differ if k.startswith(f'{mode or "default"} '))
        for mode in MODES
    }
    same_set = sum(1 for k in differ if set(first[k]) == set(second.get(k, [])))
    print(
        f'{len(differ)} of {len(first)} hit lists differ ({by_mode}); '
        f'{same_set} of them hold the same hits in another order'
    )
    path = write_json(
        'determinism' + ('_settled' if args.settle else ''),
        {
            'command': ' '.join(['python', 'bench/determinism.py', *sys.argv[1:]]),
            'lists': len(first),
            'differ': len(differ),
            'differ_by_mode': by_mode,
            'same_hits_other_order': same_set,
            'examples': {k: [first[k], second[k]] for k in differ[:5]},
        },
    )
    print(f'wrote {path.relative_to(ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
