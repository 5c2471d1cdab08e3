"""Whether two code trees rank alike: every hit, score and receipt over the kinds suite's kinds.

python bench/rank_identity.py build --data /tmp/rankid                 # once (~1 min)
python bench/rank_identity.py run --data /tmp/rankid --out rankid_main
PYTHONPATH=<other tree> python <other tree>/bench/rank_identity.py run --data /tmp/rankid \
    --out rankid_lat                                                    # the other code
python bench/rank_identity.py compare rankid_main rankid_lat           # 0 differences expected

`build` writes, in process (the service's composition root, graph off, jobs inline, a fixed
clock as `bench/search_ab.py`), the kinds suite's mixed scope (one conversation's turns, notes
and summaries, the English bank and the Chinese set) and the English bank once more under a
user id named like its owner (a question naming the owner reads `user_id` as a word of the
memory). `run` asks every question of the mixed scope and of the owned bank in each VARIANT
(default, `explain`, the two pure modes, rrf, a floor of its own, the owner's `user_id`) and
writes each search's hits (id, score, components), `below_floor`, speakers and, under
`explain`, every candidate's factors to bench/results/<out>.json. `compare` reports each search
whose output differs in anything: floats are compared exactly (ranking changes that keep the
arithmetic keep every bit).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import LOCOMO_PATH, RESULTS_DIR, write_json  # noqa: E402
from bench.kinds_suite import load_suite  # noqa: E402
from bench.search_ab import _services  # noqa: E402

MIXED = 'agent:kinds-mixed'
OWNED = 'agent:owned'
BATCH = 500
VARIANTS: dict[str, dict[str, Any]] = {
    'default': {},
    'explain': {'explain': True},
    'bm25': {'mode': 'bm25'},
    'dense': {'mode': 'dense'},
    'rrf': {'fusion': 'rrf'},
    'floor': {'min_score': 0.3},
    'user': {'user_id': 'OWNER'},
}


def _owner(bank: Any) -> str:
    """The bank's owner as a one-word user id: the first word of its first memory."""
    (memories,) = bank.memories.values()
    return str(memories[0].text.split()[0]).strip("'’:s").casefold() or 'owner'


def build(data: Path) -> None:
    """Write the mixed scope and the owned bank into a fresh data dir."""
    from recall.schemas import MemoryIn

    kinds = {k.name: k for k in load_suite(LOCOMO_PATH, kinds=('bank_en', 'mixed'))}
    owner = _owner(kinds['bank_en'])
    items = []
    for m in kinds['mixed'].memories[MIXED]:
        at = datetime.fromisoformat(m.at) if m.at else None
        items.append(MemoryIn(scope=MIXED, text=m.text, created_at=at, metadata={'ref': m.ref}))
    for m in next(iter(kinds['bank_en'].memories.values())):
        at = datetime.fromisoformat(m.at) if m.at else None
        ref = {'ref': m.ref}
        items.append(MemoryIn(scope=OWNED, text=m.text, user_id=owner, created_at=at, metadata=ref))
    services = _services(data)
    try:
        for i in range(0, len(items), BATCH):
            services.writer.remember(items[i : i + BATCH])
        services.consolidation.vectors.optimize()
    finally:
        services.close()
    (data / 'owner.txt').write_text(owner)
    print(f'built {len(items)} memories, owner {owner!r}: {data}')


def run(data: Path) -> dict[str, Any]:
    """Every search's output, keyed by variant, scope and question."""
    from core.auth import Principal
    from recall.schemas import SearchRequest

    kinds = {k.name: k for k in load_suite(LOCOMO_PATH, kinds=('bank_en', 'mixed'))}
    owner = (data / 'owner.txt').read_text()
    asked = [(MIXED, q.text) for q in kinds['mixed'].questions]
    asked += [(OWNED, q.text) for q in kinds['bank_en'].questions]
    services = _services(data)
    admin = Principal(name='bench', admin=True)
    out: dict[str, Any] = {}
    try:
        for name, variant in VARIANTS.items():
            extra = {k: owner if v == 'OWNER' else v for k, v in variant.items()}
            for scope, query in asked:
                body = {'query': query, 'scope': scope, 'top_k': 10, 'graph': False, **extra}
                req = SearchRequest.model_validate({**body, 'touch': False})
                response = services.recall.search(req, admin)
                receipt = response.receipt
                out[f'{name}|{scope}|{query}'] = {
                    'hits': [[h.id, h.score, h.components] for h in response.hits],
                    'below_floor': receipt.below_floor,
                    'speakers': receipt.speakers,
                    'factors': receipt.factors,
                }
    finally:
        services.close()
    return out


def compare(a: str, b: str) -> int:
    """Print each search whose output differs between two runs; the count."""
    left = json.loads((RESULTS_DIR / f'{a}.json').read_text())['searches']
    right = json.loads((RESULTS_DIR / f'{b}.json').read_text())['searches']
    differ = [k for k in sorted(set(left) | set(right)) if left.get(k) != right.get(k)]
    for key in differ[:20]:
        print(f'differs: {key!r}\n  {left.get(key)}\n  {right.get(key)}')
    print(f'{len(set(left) | set(right))} searches, {len(differ)} differ')
    return len(differ)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    sub.add_parser('build').add_argument('--data', required=True)
    r = sub.add_parser('run')
    r.add_argument('--data', required=True)
    r.add_argument('--out', required=True)
    c = sub.add_parser('compare')
    c.add_argument('a')
    c.add_argument('b')
    args = parser.parse_args()
    if args.command == 'build':
        build(Path(args.data))
        return 0
    if args.command == 'compare':
        return 1 if compare(args.a, args.b) else 0
    searches = run(Path(args.data))
    import recall

    tree = str(Path(recall.__file__).resolve().parents[1])
    print(f'{len(searches)} searches, code from {tree}')
    print('written', write_json(args.out, {'tree': tree, 'searches': searches}))
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
