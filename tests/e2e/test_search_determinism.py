"""The same question over the same memories gives the same hits in the same order: in two fresh
stores built from the same writes (in the same order or reversed) and before and after an index
build, even when many candidates tie exactly (the same sentence stored for several users, notes
whose BM25 scores are equal)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api.app import create_app
from runtime.bootstrap import Services, build
from tests.conftest import make_settings

pytestmark = pytest.mark.slow

AUTH = {'Authorization': 'Bearer admin-token-for-tests-0123456789'}
SCOPE = 'agent:ties'
AT = '2024-03-01T10:00:00Z'
# one sentence stored for 12 users: 12 ids with the same vector and the same BM25 vector; and
# 90 notes that differ only in a number, so the query's terms score them all alike in BM25
SAME = 'The lighthouse keeper fed the harbour cat every morning'
NOTES = [f'Entry {n} says the lighthouse keeper painted the harbour wall' for n in range(90)]
OTHERS = [
    'The ferry to the island leaves at nine',
    'A storm closed the harbour for two days',
    'The keeper of the museum collects old maps',
]
QUERIES = [
    ('lighthouse keeper harbour', 'bm25'),
    ('lighthouse keeper harbour', 'dense'),
    ('lighthouse keeper harbour', None),
    ('Who fed the cat?', None),
    ('what did the keeper paint', None),
]


def _items() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {'scope': SCOPE, 'text': SAME, 'user_id': f'user{n:02d}', 'created_at': AT}
        for n in range(12)
    ]
    items += [{'scope': SCOPE, 'text': t, 'created_at': AT} for t in NOTES + OTHERS]
    return items


class Store:
    """A fresh store written through the API with `items`."""

    def __init__(self, root: Path, items: list[dict[str, Any]]) -> None:
        self.services: Services = build(make_settings(root, graph_enabled=False), inline_jobs=True)
        self.client = create_app(services=self.services).test_client()
        for start in range(0, len(items), 50):
            answer = self.client.post(
                '/v1/memories/batch', json={'items': items[start : start + 50]}, headers=AUTH
            ).get_json()
            assert all(r['status'] == 'created' for r in answer['results']), answer

    def hits(self) -> list[list[str]]:
        """Each query's hit ids, in order."""
        out = []
        for query, mode in QUERIES:
            body: dict[str, Any] = {
                'query': query,
                'scope': SCOPE,
                'top_k': 10,
                'touch': False,
                'min_score': 0,
            }
            if mode:
                body['mode'] = mode
            answer = self.client.post('/v1/memory_search', json=body, headers=AUTH).get_json()
            assert answer['hits'], (query, mode, answer)
            out.append([h['id'] for h in answer['hits']])
        return out

    def build_index(self) -> None:
        self.services.consolidation.vectors.optimize()


@pytest.fixture(scope='module')
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, Store, Store]]:
    items = _items()
    made = (
        Store(tmp_path_factory.mktemp('ties-a'), items),
        Store(tmp_path_factory.mktemp('ties-b'), items),
        Store(tmp_path_factory.mktemp('ties-reversed'), items[::-1]),
    )
    yield made
    for store in made:
        store.services.close()


def test_two_fresh_stores_built_from_the_same_writes_give_the_same_hits(stores):  # type: ignore[no-untyped-def]
    first, second, _ = stores
    assert first.hits() == second.hits()


def test_the_order_of_the_writes_does_not_change_the_hits(stores):  # type: ignore[no-untyped-def]
    first, _, reversed_ = stores
    assert first.hits() == reversed_.hits()


def test_an_index_build_does_not_change_the_hits(stores):  # type: ignore[no-untyped-def]
    first, _, reversed_ = stores
    before = first.hits()
    first.build_index()
    reversed_.build_index()
    assert first.hits() == before
    assert reversed_.hits() == before
