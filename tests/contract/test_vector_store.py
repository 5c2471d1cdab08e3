"""One VectorStore contract, run against Qdrant Edge, QdrantClient(':memory:') and the fake."""

from __future__ import annotations

import math
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.errors import StoreUnavailable
from tests.waiting import DEADLINE_S, wait_until
from vectors.memory import InMemoryVectorStore
from vectors.models import (
    Channel,
    CollectionSpec,
    PointFilter,
    Range,
    SparseVector,
    VectorPoint,
)
from vectors.ports import VectorStore

# ':memory:' warns that payload indexes have no effect there; that is expected in this suite
pytestmark = pytest.mark.filterwarnings('ignore:Payload indexes have no effect')

C = 'memories'
SPEC = CollectionSpec(
    name=C,
    dense_dim=4,
    keyword_fields=('scope', 'kind', 'tags', 'entity_ids'),
    bool_fields=('pinned',),
    float_fields=('created_at',),
    integer_fields=('access_count',),
    # as memories_spec: the filter fields of every search in RAM, the rest on disk, so the whole
    # suite filters on both kinds of index
    ram_fields=('scope', 'pinned'),
)
ALL = PointFilter(scopes=None)
REPO = Path(__file__).resolve().parents[2]


def make_edge(root: Path) -> VectorStore:
    from vectors.edge import EdgeVectorStore

    return EdgeVectorStore(root)


def make_store(kind: str, tmp_path: Path) -> VectorStore:
    if kind == 'edge':
        return make_edge(tmp_path / 'vectors')
    if kind == 'edge-mmap-int8':
        # KG_VECTOR_STORAGE=mmap, KG_VECTOR_QUANTIZATION=int8: the same contract
        from vectors.edge import EdgeVectorStore

        return EdgeVectorStore(tmp_path / 'vectors', vector_storage='mmap', quantization='int8')
    if kind == 'qdrant':
        from qdrant_client import QdrantClient

        from vectors.qdrant import QdrantVectorStore

        return QdrantVectorStore(QdrantClient(':memory:'))
    return InMemoryVectorStore()


@pytest.fixture(params=['edge', 'edge-mmap-int8', 'qdrant', 'memory'])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[VectorStore]:
    """An empty `memories` collection on each adapter."""
    vs = make_store(request.param, tmp_path)
    vs.ensure_collection(SPEC)
    yield vs
    vs.close()


def pid(n: int) -> str:
    """Deterministic ids whose string order is their numeric order."""
    return str(uuid.UUID(int=n))


def point(
    n: int,
    dense: list[float] | None = None,
    sparse: dict[int, float] | None = None,
    **payload: Any,
) -> VectorPoint:
    payload.setdefault('scope', 'agent:a')
    terms = sparse if sparse is not None else {1000 + n: 1.0}
    return VectorPoint(
        id=pid(n),
        dense=dense or [1.0, 0.0, 0.0, 0.0],
        sparse=SparseVector(indices=list(terms), values=list(terms.values())),
        payload=payload,
    )


def ids_of(points: list[Any]) -> list[str]:
    return [p.id for p in points]


def scoped(*scopes: str, **kw: Any) -> PointFilter:
    return PointFilter(scopes=list(scopes), **kw)


# ---- collections and round trips ------------------------------------------------------------


def test_ensure_collection_twice_keeps_the_points(store: VectorStore) -> None:
    store.upsert(C, [point(1)])
    store.ensure_collection(SPEC)
    assert store.count(C, ALL) == 1


def test_an_upserted_payload_comes_back_unchanged(store: VectorStore) -> None:
    payload: dict[str, Any] = {
        'scope': 'agent:a',
        'kind': 'fact',
        'tags': ['x', 'y'],
        'pinned': True,
        'superseded_by': None,
        'created_at': 1_700_000_000.5,
        'access_count': 3,
        'metadata': {'source': {'path': 'a.md', 'lines': [1, 2]}, 'flag': False, 'none': None},
        'text': 'naïve 中文',
    }
    store.upsert(C, [point(1, **payload)])
    [got] = store.retrieve(C, [pid(1)])
    assert got.id == pid(1)
    assert isinstance(got.id, str)
    assert got.payload == payload
    assert type(got.payload['pinned']) is bool


def test_retrieve_leaves_missing_and_malformed_ids_out(store: VectorStore) -> None:
    store.upsert(C, [point(1), point(2)])
    got = store.retrieve(C, [pid(2), pid(99), 'not-a-uuid', pid(1)])
    assert ids_of(got) == [pid(2), pid(1)]
    assert store.retrieve(C, []) == []


def test_upserting_an_existing_id_replaces_the_point(store: VectorStore) -> None:
    store.upsert(C, [point(1, kind='fact', tags=['old'])])
    store.upsert(C, [point(1, dense=[0.0, 1.0, 0.0, 0.0], kind='note')])
    [got] = store.retrieve(C, [pid(1)])
    assert got.payload == {'scope': 'agent:a', 'kind': 'note'}
    assert store.count(C, ALL) == 1
    [hit] = store.query(C, 'dense', [0.0, 1.0, 0.0, 0.0], ALL, 1)
    assert hit.score == pytest.approx(1.0, abs=1e-5)


# ---- channels -------------------------------------------------------------------------------


def test_dense_query_ranks_by_cosine_with_raw_scores_and_payload(store: VectorStore) -> None:
    store.upsert(
        C,
        [
            point(1, dense=[0.0, 1.0, 0.0, 0.0], kind='far'),
            point(2, dense=[1.0, 0.1, 0.0, 0.0], kind='near'),
            point(3, dense=[2.0, 2.0, 0.0, 0.0], kind='mid'),  # length does not matter
        ],
    )
    hits = store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], scoped('agent:a'), 10)
    assert ids_of(hits) == [pid(2), pid(3), pid(1)]
    assert hits[0].score == pytest.approx(1 / math.sqrt(1.01), abs=1e-4)
    assert hits[1].score == pytest.approx(1 / math.sqrt(2), abs=1e-4)
    assert hits[2].score == pytest.approx(0.0, abs=1e-4)
    assert hits[0].payload == {'scope': 'agent:a', 'kind': 'near'}


def test_a_query_hands_out_points_the_caller_may_change(store: VectorStore) -> None:
    # the read side changes what a query returns in place (recall/read/ties.py rounds the
    # scores, the access overlay adds recall counts to the payloads): a store that handed out
    # points it keeps (a cache of results) would have them corrupted
    store.upsert(C, [point(1, kind='fact', tags=['x'])])
    queries: list[tuple[Channel, list[float] | SparseVector]] = [
        ('dense', [1.0, 0.0, 0.0, 0.0]),
        ('bm25', SparseVector(indices=[1001], values=[1.0])),
    ]
    for channel, vector in queries:
        [first] = store.query(C, channel, vector, ALL, 5)
        score = first.score
        first.score = -1.0
        first.payload['kind'] = 'changed'
        first.payload['access_count'] = 7
        [again] = store.query(C, channel, vector, ALL, 5)
        assert again is not first
        assert again.score == pytest.approx(score)
        assert again.payload == {'scope': 'agent:a', 'kind': 'fact', 'tags': ['x']}
    [kept] = store.retrieve(C, [pid(1)])
    assert kept.payload == {'scope': 'agent:a', 'kind': 'fact', 'tags': ['x']}


def test_sparse_query_weights_a_rare_term_above_a_common_one(store: VectorStore) -> None:
    common, rare = 7, 8
    store.upsert(C, [point(n, sparse={common: 1.0}) for n in range(1, 6)])
    store.upsert(C, [point(6, sparse={rare: 1.0}), point(7, sparse={common: 1.0, rare: 1.0})])
    store.upsert(C, [point(8, sparse={9: 1.0})])  # shares no term with the query
    hits = store.query(C, 'bm25', SparseVector(indices=[common, rare], values=[1.0, 1.0]), ALL, 10)
    n_total = 8

    def idf(n: int) -> float:
        return math.log(1 + (n_total - n + 0.5) / (n + 0.5))

    assert hits[0].id == pid(7)
    assert hits[0].score == pytest.approx(idf(6) + idf(2), rel=1e-4)
    assert hits[1].id == pid(6)
    assert hits[1].score == pytest.approx(idf(2), rel=1e-4)
    assert {h.id for h in hits[2:]} == {pid(n) for n in range(1, 6)}
    assert hits[2].score == pytest.approx(idf(6), rel=1e-4)
    assert pid(8) not in ids_of(hits)


def test_points_without_terms_do_not_count_in_the_idf_corpus(store: VectorStore) -> None:
    store.upsert(C, [point(1, sparse={7: 1.0}), point(2, sparse={8: 1.0})])
    store.upsert(C, [point(n, sparse={}) for n in range(3, 6)])
    [hit] = store.query(C, 'bm25', SparseVector(indices=[7], values=[1.0]), ALL, 5)
    # N = 2 points with terms, n = 1: ln(1 + 1.5 / 1.5)
    assert hit.score == pytest.approx(math.log(2), rel=1e-4)


def test_a_scoped_idf_counts_only_the_points_of_the_scopes_searched(store: VectorStore) -> None:
    # term 8 is common in the collection (scope b) but rare in scope a, term 7 the other way
    store.upsert(
        C, [point(1, sparse={7: 1.0}), point(2, sparse={7: 1.0}), point(3, sparse={8: 1.0})]
    )
    store.upsert(C, [point(n, sparse={8: 1.0}, scope='agent:b') for n in range(4, 10)])
    query = SparseVector(indices=[7, 8], values=[1.0, 1.0])

    def idf(n: int, total: int) -> float:
        return math.log(1 + (total - n + 0.5) / (n + 0.5))

    whole = store.query(C, 'bm25', query, scoped('agent:a'), 10)
    assert set(ids_of(whole[:2])) == {pid(1), pid(2)} and whole[2].id == pid(3)
    assert whole[0].score == pytest.approx(idf(2, 9), rel=1e-4)
    assert whole[2].score == pytest.approx(idf(7, 9), rel=1e-4)
    scoped_query = query.model_copy(update={'scoped_idf': True})
    within = store.query(C, 'bm25', scoped_query, scoped('agent:a'), 10)
    assert within[0].id == pid(3) and set(ids_of(within[1:])) == {pid(1), pid(2)}
    assert within[0].score == pytest.approx(idf(1, 3), rel=1e-4)
    assert within[1].score == pytest.approx(idf(2, 3), rel=1e-4)
    # the search's other conditions filter the hits, not the corpus
    narrowed = store.query(C, 'bm25', scoped_query, scoped('agent:a', any_of={'kind': ['x']}), 10)
    assert narrowed == []
    both = store.query(C, 'bm25', scoped_query, scoped('agent:a', 'agent:b'), 10)
    assert both[0].score == pytest.approx(idf(2, 9), rel=1e-4)


def test_an_empty_sparse_query_returns_nothing(store: VectorStore) -> None:
    store.upsert(C, [point(1)])
    assert store.query(C, 'bm25', SparseVector(), ALL, 5) == []


def test_a_point_with_an_empty_sparse_vector_is_still_found_by_dense(store: VectorStore) -> None:
    store.upsert(C, [point(1, sparse={})])
    assert ids_of(store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 5)) == [pid(1)]


def test_queries_on_an_empty_collection_return_nothing(store: VectorStore) -> None:
    assert store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 5) == []
    assert store.query(C, 'bm25', SparseVector(indices=[1], values=[1.0]), ALL, 5) == []
    assert store.scroll(C, ALL, 10) == ([], None)
    assert store.count(C, ALL) == 0
    assert store.facet(C, 'kind', ALL) == {}


def test_query_returns_at_most_limit_points(store: VectorStore) -> None:
    store.upsert(C, [point(n, dense=[1.0, n / 10, 0.0, 0.0], sparse={5: 1.0}) for n in range(20)])
    assert len(store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 7)) == 7
    assert len(store.query(C, 'bm25', SparseVector(indices=[5], values=[1.0]), ALL, 3)) == 3


# ---- filters --------------------------------------------------------------------------------


def test_scope_filter_never_returns_another_scopes_points(store: VectorStore) -> None:
    store.upsert(
        C,
        [
            point(1, scope='agent:a', sparse={1: 1.0}),
            point(2, scope='agent:b', sparse={1: 1.0}),
            point(3, scope='team:t', sparse={1: 1.0}),
        ],
    )
    dense, sparse = [1.0, 0.0, 0.0, 0.0], SparseVector(indices=[1], values=[1.0])
    assert ids_of(store.query(C, 'dense', dense, scoped('agent:a'), 10)) == [pid(1)]
    assert ids_of(store.query(C, 'bm25', sparse, scoped('agent:b'), 10)) == [pid(2)]
    both = store.query(C, 'dense', dense, scoped('agent:a', 'team:t'), 10)
    assert sorted(ids_of(both)) == [pid(1), pid(3)]
    assert sorted(ids_of(store.query(C, 'dense', dense, ALL, 10))) == [pid(1), pid(2), pid(3)]
    assert store.count(C, scoped('agent:b')) == 1
    assert ids_of(store.scroll(C, scoped('team:t'), 10)[0]) == [pid(3)]


def test_an_empty_scope_list_matches_nothing(store: VectorStore) -> None:
    store.upsert(C, [point(1, kind='fact')])
    nothing = PointFilter(scopes=[])
    assert store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], nothing, 5) == []
    assert store.count(C, nothing) == 0
    assert store.scroll(C, nothing, 5) == ([], None)
    assert store.facet(C, 'kind', nothing) == {}


def test_any_of_and_none_of_on_keyword_bool_and_list_fields(store: VectorStore) -> None:
    store.upsert(
        C,
        [
            point(1, kind='fact', pinned=True, tags=['work', 'urgent'], entity_ids=['e1']),
            point(2, kind='note', pinned=False, tags=['home'], entity_ids=['e2', 'e3']),
            point(3, kind='lesson', pinned=False, tags=[], entity_ids=[]),
            point(4, kind='fact'),  # no pinned, tags or entity_ids at all
        ],
    )

    def found(**kw: Any) -> list[str]:
        flt = scoped('agent:a', **kw)
        by_count = store.count(C, flt)
        by_query = sorted(ids_of(store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], flt, 10)))
        by_scroll = ids_of(store.scroll(C, flt, 10)[0])
        assert by_query == by_scroll
        assert by_count == len(by_scroll)
        return [str(uuid.UUID(i).int) for i in by_scroll]

    assert found(any_of={'kind': ['fact', 'lesson']}) == ['1', '3', '4']
    assert found(none_of={'kind': ['fact']}) == ['2', '3']
    assert found(any_of={'pinned': [True]}) == ['1']
    assert found(any_of={'pinned': [False]}) == ['2', '3']
    assert found(any_of={'pinned': [True, False]}) == ['1', '2', '3']
    assert found(none_of={'pinned': [True]}) == ['2', '3', '4']
    assert found(any_of={'tags': ['urgent', 'home']}) == ['1', '2']
    assert found(none_of={'tags': ['work']}) == ['2', '3', '4']
    assert found(any_of={'entity_ids': ['e3']}) == ['2']
    assert found(any_of={'kind': ['fact']}, none_of={'entity_ids': ['e1']}) == ['4']
    assert found(any_of={'kind': []}) == []
    assert found(none_of={'kind': []}) == ['1', '2', '3', '4']


def test_a_nested_key_matches_a_field_of_any_element_of_a_list(store: VectorStore) -> None:
    # how a delete finds the supersession records naming a memory (recall.write.restoration)
    store.upsert(
        C,
        [
            point(1, stale=[{'by': 'x', 'slot': 's'}, {'by': 'y'}]),
            point(2, stale=[{'slot': 's'}], superseded_by='x'),
            point(3, stale=[]),
            point(4, stale={'by': 'x'}),  # an object, not a list: `stale[]` reads no element
        ],
    )

    def found(key: str, values: list[Any]) -> list[int]:
        flt = scoped('agent:a', any_of={key: values})
        assert store.count(C, flt) == len(store.scroll(C, flt, 10)[0])
        return [uuid.UUID(p.id).int for p in store.scroll(C, flt, 10)[0]]

    assert found('stale[].by', ['x']) == [1]
    assert found('stale[].by', ['y', 'z']) == [1]
    assert found('stale[].by', ['s']) == []
    assert found('superseded_by', ['x']) == [2]


def test_a_facet_of_a_nested_key_counts_the_field_of_every_element(store: VectorStore) -> None:
    # how the repair of supersession records lists the ids they name (recall.write.restoration)
    named = SPEC.model_copy(
        update={'name': 'named', 'keyword_fields': ('scope', 'superseded_by', 'stale[].by')}
    )
    store.ensure_collection(named)
    store.upsert(
        'named',
        [
            point(1, stale=[{'by': 'x'}, {'by': 'y'}, {'by': 'x'}]),
            point(2, stale=[{'by': 'x'}], superseded_by='x'),
            point(3, stale=[]),
        ],
    )
    assert store.facet('named', 'stale[].by', ALL) == {'x': 2, 'y': 1}
    assert store.facet('named', 'superseded_by', ALL) == {'x': 1}


def test_an_index_added_to_an_existing_edge_collection_finds_its_old_points(
    tmp_path: Path,
) -> None:
    # a new keyword index (memories_spec gained `stale[].by`) is built at open over old data
    store = make_edge(tmp_path / 'vectors')
    store.ensure_collection(SPEC)
    store.upsert(C, [point(1, stale=[{'by': 'x'}]), point(2, stale=[{'by': 'y'}])])
    store.close()
    store = make_edge(tmp_path / 'vectors')
    store.ensure_collection(SPEC.model_copy(update={'keyword_fields': ('scope', 'stale[].by')}))
    flt = scoped('agent:a', any_of={'stale[].by': ['x']})
    assert [uuid.UUID(p.id).int for p in store.scroll(C, flt, 10)[0]] == [1]
    store.close()


def test_a_range_matches_a_list_field_when_any_element_is_in_range(store: VectorStore) -> None:
    store.upsert(C, [point(1, scores=[1.0, 5.0]), point(2, scores=[2.0]), point(3, scores=[])])
    flt = scoped('agent:a', ranges={'scores': Range(gte=4.0)})
    assert [uuid.UUID(p.id).int for p in store.scroll(C, flt, 10)[0]] == [1]


def test_ranges_are_inclusive_on_float_and_integer_fields(store: VectorStore) -> None:
    store.upsert(
        C,
        [point(n, created_at=1_700_000_000.0 + n * 0.5, access_count=n) for n in range(1, 6)]
        + [point(6, created_at=None)],
    )

    def found(flt: PointFilter) -> list[int]:
        return [uuid.UUID(p.id).int for p in store.scroll(C, flt, 10)[0]]

    window = Range(gte=1_700_000_001.0, lte=1_700_000_002.0)
    assert found(scoped('agent:a', ranges={'created_at': window})) == [2, 3, 4]
    assert found(scoped('agent:a', ranges={'created_at': Range(lte=1_700_000_000.5)})) == [1]
    assert found(scoped('agent:a', ranges={'access_count': Range(gte=4)})) == [4, 5]
    dense = store.query(
        C,
        'dense',
        [1.0, 0.0, 0.0, 0.0],
        scoped('agent:a', ranges={'created_at': Range(gte=1_700_000_002.5)}),
        10,
    )
    assert [uuid.UUID(p.id).int for p in dense] == [5]


# ---- payload updates, deletes, paging, stats ------------------------------------------------


def test_set_payload_merges_fields_and_leaves_vectors_alone(store: VectorStore) -> None:
    store.upsert(
        C,
        [
            point(
                1,
                dense=[0.0, 0.0, 1.0, 0.0],
                sparse={42: 1.0},
                kind='fact',
                pinned=False,
                metadata={'a': 1},
            ),
            point(2, dense=[0.0, 1.0, 0.0, 0.0], kind='note'),
        ],
    )
    store.set_payload(
        C,
        {
            pid(1): {'pinned': True, 'access_count': 2, 'metadata': {'b': 2}},
            pid(2): {'kind': 'lesson'},
            pid(99): {'kind': 'ghost'},  # deleted meanwhile: ignored
        },
    )
    one, two = store.retrieve(C, [pid(1), pid(2)])
    assert one.payload == {
        'scope': 'agent:a',
        'kind': 'fact',
        'pinned': True,
        'access_count': 2,
        'metadata': {'b': 2},
    }
    assert two.payload['kind'] == 'lesson'
    assert store.retrieve(C, [pid(99)]) == []
    [hit] = store.query(C, 'dense', [0.0, 0.0, 1.0, 0.0], scoped('agent:a'), 1)
    assert hit.id == pid(1)
    assert hit.score == pytest.approx(1.0, abs=1e-5)
    [sparse_hit] = store.query(C, 'bm25', SparseVector(indices=[42], values=[1.0]), ALL, 5)
    assert sparse_hit.id == pid(1)
    assert store.count(C, scoped('agent:a', any_of={'pinned': [True]})) == 1


def test_set_payload_writes_each_point_its_own_fields_when_many_share_them(
    store: VectorStore,
) -> None:
    # access bookkeeping: many points with equal fields (the Edge adapter writes them as one
    # group), some with fields that are equal only as Python values (1 == 1.0 == True)
    store.upsert(C, [point(n, access_count=0) for n in range(1, 8)])
    store.set_payload(
        C,
        {
            **{pid(n): {'access_count': 1, 'tier': 'working'} for n in (1, 2, 3)},
            pid(4): {'access_count': 2, 'tier': 'working'},
            pid(5): {'access_count': 1, 'tier': 'core'},
            pid(6): {'access_count': 1.0, 'tier': 'working'},
            pid(7): {'access_count': True, 'tier': 'working'},
            'not-a-uuid': {'access_count': 1, 'tier': 'working'},
        },
    )
    got = {p.id: p.payload for p in store.retrieve(C, [pid(n) for n in range(1, 8)])}
    for n in (1, 2, 3):
        assert (got[pid(n)]['access_count'], got[pid(n)]['tier']) == (1, 'working')
    assert (got[pid(4)]['access_count'], got[pid(4)]['tier']) == (2, 'working')
    assert (got[pid(5)]['access_count'], got[pid(5)]['tier']) == (1, 'core')
    assert type(got[pid(6)]['access_count']) is float
    assert got[pid(7)]['access_count'] is True
    assert store.count(C, scoped('agent:a', any_of={'tier': ['working']})) == 6


def test_delete_removes_points_and_ignores_unknown_ids(store: VectorStore) -> None:
    store.upsert(C, [point(1, sparse={3: 1.0}), point(2, sparse={3: 1.0}), point(3)])
    store.delete(C, [pid(1), pid(42), 'not-a-uuid'])
    store.delete(C, [])
    assert store.retrieve(C, [pid(1)]) == []
    assert store.count(C, ALL) == 2
    assert pid(1) not in ids_of(store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 10))
    assert ids_of(store.query(C, 'bm25', SparseVector(indices=[3], values=[1.0]), ALL, 10)) == [
        pid(2)
    ]


def test_scroll_pages_cover_every_point_once_in_id_order(store: VectorStore) -> None:
    ids = sorted(str(uuid.uuid4()) for _ in range(23))
    store.upsert(
        C,
        [
            VectorPoint(
                id=i,
                dense=[1.0, 0.0, 0.0, 0.0],
                sparse=SparseVector(),
                payload={'scope': 'agent:a' if n % 3 else 'agent:b', 'n': n},
            )
            for n, i in enumerate(reversed(ids))
        ],
    )
    seen: list[str] = []
    offset: str | None = None
    pages = 0
    while True:
        page, offset = store.scroll(C, ALL, 5, offset)
        seen.extend(ids_of(page))
        pages += 1
        assert len(page) <= 5
        if offset is None:
            break
        assert isinstance(offset, str)
    assert seen == ids
    assert pages == 5
    in_a, offset = store.scroll(C, scoped('agent:a'), 100)
    assert offset is None
    assert all(p.payload['scope'] == 'agent:a' for p in in_a)
    assert len(in_a) == store.count(C, scoped('agent:a'))


def test_count_and_facet_count_matching_points(store: VectorStore) -> None:
    store.upsert(
        C,
        [
            point(1, kind='fact', tags=['a', 'b'], pinned=True),
            point(2, kind='fact', tags=['a'], pinned=False),
            point(3, kind='note', tags=['c'], pinned=False),
            point(4, kind='note', scope='agent:other', pinned=True),
        ],
    )
    assert store.count(C, ALL) == 4
    assert store.count(C, scoped('agent:a')) == 3
    assert store.facet(C, 'kind', scoped('agent:a')) == {'fact': 2, 'note': 1}
    assert store.facet(C, 'kind', ALL) == {'fact': 2, 'note': 2}
    assert store.facet(C, 'tags', scoped('agent:a')) == {'a': 2, 'b': 1, 'c': 1}
    assert store.facet(C, 'scope', ALL) == {'agent:a': 3, 'agent:other': 1}
    assert store.facet(C, 'pinned', ALL) == {'true': 2, 'false': 2}
    assert store.facet(C, 'kind', scoped('agent:a', none_of={'pinned': [True]})) == {
        'fact': 1,
        'note': 1,
    }
    assert len(store.facet(C, 'tags', ALL, limit=2)) == 2


# ---- real adapters only: reopening, unreachable server ---------------------------------------


@pytest.mark.parametrize('kind', ['edge', 'qdrant'])
def test_reopening_a_collection_with_another_dense_size_is_refused(
    kind: str, tmp_path: Path
) -> None:
    first = make_store(kind, tmp_path)
    first.ensure_collection(SPEC)
    if kind == 'edge':
        first.close()
        again = make_store(kind, tmp_path)
    else:
        from vectors.qdrant import QdrantVectorStore

        again = QdrantVectorStore(first._client)  # type: ignore[attr-defined]
    try:
        with pytest.raises(StoreUnavailable):
            again.ensure_collection(SPEC.model_copy(update={'dense_dim': 8}))
        again.ensure_collection(SPEC)  # the matching spec still opens
    finally:
        again.close()


def test_an_unreachable_qdrant_server_raises_store_unavailable() -> None:
    from qdrant_client import QdrantClient

    from vectors.qdrant import QdrantVectorStore

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(('127.0.0.1', 0))
        port = sock.getsockname()[1]
    client = QdrantClient(url=f'http://127.0.0.1:{port}', timeout=2, check_compatibility=False)
    vs = QdrantVectorStore(client)
    calls = [
        lambda: vs.ensure_collection(SPEC),
        lambda: vs.upsert(C, [point(1)]),
        lambda: vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 5),
        lambda: vs.retrieve(C, [pid(1)]),
        lambda: vs.set_payload(C, {pid(1): {'kind': 'x'}}),
        lambda: vs.delete(C, [pid(1)]),
        lambda: vs.scroll(C, ALL, 5),
        lambda: vs.count(C, ALL),
        lambda: vs.facet(C, 'kind', ALL),
    ]
    try:
        for call in calls:
            with pytest.raises(StoreUnavailable, match='cannot reach Qdrant'):
                call()
    finally:
        vs.close()


# ---- Qdrant Edge only: files, locks, threads ------------------------------------------------


def test_edge_data_survives_close_and_reopen(tmp_path: Path) -> None:
    root = tmp_path / 'vectors'
    first = make_edge(root)
    first.ensure_collection(SPEC)
    first.upsert(C, [point(1, kind='fact', pinned=True, sparse={5: 1.0})])
    first.close()
    first.close()  # idempotent
    again = make_edge(root)
    again.ensure_collection(SPEC)
    try:
        [got] = again.retrieve(C, [pid(1)])
        assert got.payload == {'scope': 'agent:a', 'kind': 'fact', 'pinned': True}
        assert store_has_filters(again)
    finally:
        again.close()


def tuned_edge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **constants: float
) -> tuple[Any, threading.Semaphore]:
    """An EdgeVectorStore with its optimizer constants (OPTIMIZE_*) set, and a semaphore released
    after each index build its background optimizer runs."""
    import vectors.edge as edge
    import vectors.edge_build as edge_build

    for name, value in constants.items():
        monkeypatch.setattr(edge_build, f'OPTIMIZE_{name.upper()}', value)
    store = edge.EdgeVectorStore(tmp_path / 'vectors')
    builds = threading.Semaphore(0)
    real = store._builds.optimize

    def counted() -> None:
        real()
        builds.release()

    monkeypatch.setattr(store._builds, 'optimize', counted)
    return store, builds


def test_edge_reindexes_points_whose_payload_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Edge moves a point out of its indexed segment when its payload changes, so payload
    updates must count toward the next index build like new points do."""
    store, builds = tuned_edge(tmp_path, monkeypatch, after_points=3, idle_seconds=0.05)
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n) for n in (1, 2, 3)])
        assert builds.acquire(timeout=DEADLINE_S), 'three new points never triggered a build'
        store.set_payload(C, {pid(n): {'kind': 'fact'} for n in (1, 2, 3)})
        assert builds.acquire(timeout=DEADLINE_S), 'three moved points never triggered a build'
        assert [p.payload['kind'] for p in store.retrieve(C, [pid(1), pid(3)])] == ['fact'] * 2
    finally:
        store.close()


def test_edge_builds_the_index_during_writes_that_never_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past OPTIMIZE_MAX_PENDING changes the build runs without waiting for a pause."""
    from vectors.edge_compact import read_pending

    # idle_seconds: the writes never pause
    store, builds = tuned_edge(
        tmp_path, monkeypatch, after_points=2, idle_seconds=3600.0, max_pending=4
    )
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n) for n in (1, 2, 3)])
        # the optimizer's tick that kept the count on disk also decided not to build (on a
        # busy machine a tick may come late: 2.5 s alone could pass before any)
        wait_until(lambda: read_pending(tmp_path / 'vectors') == 3, 'the optimizer never ticked')
        assert not builds.acquire(timeout=2.5), 'built below the cap without a pause'
        store.upsert(C, [point(4)])
        assert builds.acquire(timeout=DEADLINE_S), 'never built at the cap'
    finally:
        store.close()


def test_edge_segment_bound_comes_from_the_setting_and_follows_it_on_reopen(
    tmp_path: Path,
) -> None:
    """KG_VECTOR_SEGMENT_KB reaches the shard, and a changed setting applies to a store that
    already exists (bench: one growing segment made 100k-point ingest quadratic)."""
    import json

    from core.settings import Settings
    from runtime.bootstrap import build_vector_store

    def bound(kb: str) -> Any:
        settings = Settings.load({'KG_DATA_DIR': str(tmp_path), 'KG_VECTOR_SEGMENT_KB': kb})
        vs = build_vector_store(settings)
        try:
            vs.ensure_collection(SPEC)
        finally:
            vs.close()
        stored = json.loads((tmp_path / 'vectors' / C / 'edge_config.json').read_text())
        return stored['optimizers']['max_segment_size']

    assert bound('5000') == 5000
    assert bound('8000') == 8000


def store_has_filters(vs: VectorStore) -> bool:
    """The reopened shard still answers indexed filters and the sparse channel."""
    pinned = vs.count(C, scoped('agent:a', any_of={'pinned': [True]}))
    sparse = vs.query(C, 'bm25', SparseVector(indices=[5], values=[1.0]), ALL, 1)
    return pinned == 1 and len(sparse) == 1


def test_edge_refuses_a_second_open_of_the_same_folder(tmp_path: Path) -> None:
    root = tmp_path / 'vectors'
    owner = make_edge(root)
    owner.ensure_collection(SPEC)
    try:
        with pytest.raises(StoreUnavailable, match='in use by another process'):
            make_edge(root).ensure_collection(SPEC)
        code = textwrap.dedent(
            f"""
            from pathlib import Path
            from core.errors import StoreUnavailable
            from vectors.edge import EdgeVectorStore
            from tests.contract.test_vector_store import SPEC
            try:
                EdgeVectorStore(Path({str(root)!r})).ensure_collection(SPEC)
            except StoreUnavailable as exc:
                print(exc.code, exc.message)
            """
        )
        out = subprocess.run(
            [sys.executable, '-c', code], cwd=REPO, capture_output=True, text=True, timeout=60
        )
        assert 'store_unavailable' in out.stdout, out.stderr
        assert 'in use by another process' in out.stdout
    finally:
        owner.close()
    reopened = make_edge(root)  # the lock goes with close()
    reopened.ensure_collection(SPEC)
    reopened.close()


def test_edge_keeps_acknowledged_writes_when_the_process_dies(tmp_path: Path) -> None:
    root = tmp_path / 'vectors'
    code = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from vectors.edge import EdgeVectorStore
        from tests.contract.test_vector_store import SPEC, point
        vs = EdgeVectorStore(Path({str(root)!r}))
        vs.ensure_collection(SPEC)
        vs.upsert('{C}', [point(1, kind='fact')])
        os._exit(0)  # no close, no flush
        """
    )
    subprocess.run([sys.executable, '-c', code], cwd=REPO, check=True, timeout=60)
    vs = make_edge(root)
    vs.ensure_collection(SPEC)
    try:
        assert ids_of(vs.retrieve(C, [pid(1)])) == [pid(1)]
    finally:
        vs.close()


def test_edge_serves_concurrent_writers_and_readers(tmp_path: Path) -> None:
    vs = make_edge(tmp_path / 'vectors')
    vs.ensure_collection(SPEC)
    errors: list[Exception] = []
    writers, batches, per_batch = 4, 15, 20

    def write(w: int) -> None:
        try:
            for b in range(batches):
                base = 1 + (w * batches + b) * per_batch
                vs.upsert(
                    C,
                    [
                        point(
                            n,
                            dense=[1.0, n % 7, 0.0, 1.0],
                            sparse={n % 11: 1.0},
                            scope=f'agent:{w}',
                            kind='fact',
                        )
                        for n in range(base, base + per_batch)
                    ],
                )
                vs.set_payload(C, {pid(base): {'pinned': True}})
        except Exception as exc:  # surfaced by the main thread below
            errors.append(exc)

    def read(r: int) -> None:
        try:
            for _ in range(40):
                flt = scoped(f'agent:{r % writers}')
                vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], flt, 10)
                vs.query(C, 'bm25', SparseVector(indices=[r], values=[1.0]), ALL, 10)
                vs.count(C, ALL)
                vs.facet(C, 'scope', ALL)
                vs.scroll(C, flt, 50)
        except Exception as exc:  # surfaced by the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    threads += [threading.Thread(target=read, args=(r,)) for r in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        total = writers * batches * per_batch
        assert vs.count(C, ALL) == total
        assert len(vs.retrieve(C, [pid(n) for n in range(1, total + 1)])) == total
        assert vs.count(C, PointFilter(scopes=None, any_of={'pinned': [True]})) == writers * batches
        assert vs.facet(C, 'scope', ALL) == {f'agent:{w}': batches * per_batch for w in range(4)}
    finally:
        vs.close()


def test_edge_optimize_keeps_every_point_queryable(tmp_path: Path) -> None:
    vs = make_edge(tmp_path / 'vectors')
    vs.ensure_collection(SPEC)
    try:
        vs.upsert(C, [point(n, dense=[1.0, n / 50, 0.0, 0.0], kind='fact') for n in range(1, 201)])
        vs.optimize()
        assert vs.count(C, scoped('agent:a', any_of={'kind': ['fact']})) == 200
        assert vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], scoped('agent:a'), 1)[0].id == pid(1)
    finally:
        vs.close()


def _indexed_int8_edge(tmp_path: Path, storage: str) -> Any:
    """An int8 Edge store whose thresholds are lowered so that even a few hundred points are
    indexed and quantised, as a large store's segments are."""
    from vectors.edge import EdgeVectorStore

    vs = EdgeVectorStore(
        tmp_path / 'vectors',
        auto_optimize=False,
        vector_storage=storage,
        quantization='int8',
        indexing_threshold_kb=1,
        full_scan_kb=1,
    )
    vs.ensure_collection(SPEC)
    return vs


@pytest.mark.parametrize('storage', ['ram', 'mmap'])
def test_edge_int8_on_indexed_segments_walks_hnsw_within_a_scope_and_rescores(
    tmp_path: Path, storage: str
) -> None:
    # what bench/quant_recall.py relies on: lowered thresholds index a small store, so its
    # searches take a large store's paths (int8 copy, HNSW walk with the scope filter)
    vs = _indexed_int8_edge(tmp_path, storage)
    try:
        rows = []
        for n in range(1, 401):
            angle = n * 0.7
            dense = [math.cos(angle), math.sin(angle), (n % 7) / 7, (n % 11) / 11]
            rows.append(point(n, dense=dense, scope='agent:a' if n % 2 else 'agent:b'))
        vs.upsert(C, rows)
        vs.optimize()
        # dense and sparse both indexed (Edge's own thresholds index only the sparse 400 here)
        assert vs._shards.open[C].info().indexed_vectors_count == 800  # type: ignore[attr-defined]
        query = [0.3, 0.9, 0.5, 0.2]
        norm = math.sqrt(sum(x * x for x in query))

        def cosine(p: VectorPoint) -> float:
            length = math.sqrt(sum(x * x for x in p.dense))
            return sum(a * b for a, b in zip(p.dense, query, strict=True)) / (length * norm)

        odd = sorted((p for p in rows if p.payload['scope'] == 'agent:a'), key=cosine)
        exact = [p.id for p in reversed(odd[-10:])]
        found = vs.query(C, 'dense', query, scoped('agent:a'), 10)
        assert all(p.payload['scope'] == 'agent:a' for p in found)
        # int8 picks the candidates, the originals rescore them: the same ten, best first
        assert len(set(ids_of(found)) & set(exact)) >= 9
        assert ids_of(found)[0] == exact[0]
    finally:
        vs.close()


def test_edge_keeps_only_the_ram_fields_indexes_in_memory_and_filters_on_both(
    tmp_path: Path,
) -> None:
    def build() -> Any:
        vs = make_edge(tmp_path / 'vectors')
        vs.ensure_collection(SPEC)
        return vs

    vs = build()
    try:
        vs.upsert(
            C,
            [
                point(
                    n,
                    dense=[1.0, n / 300, 0.0, 0.0],
                    kind='fact' if n % 3 else 'event',
                    pinned=n % 2 == 0,
                    created_at=float(n),
                    access_count=n % 5,
                )
                for n in range(1, 301)
            ],
        )
        vs.optimize()
    finally:
        vs.close()
    vs = build()  # indexes as a restart loads them
    try:
        schema = vs._shards.get(C).info().payload_schema  # type: ignore[attr-defined]
        assert {f for f in schema if schema[f].params.on_disk} == set(schema) - {'scope', 'pinned'}
        events = PointFilter(scopes=['agent:a'], any_of={'kind': ['event'], 'pinned': [True]})
        assert vs.count(C, events) == 50  # multiples of 6 up to 300
        old = PointFilter(scopes=['agent:a'], ranges={'created_at': Range(lte=30.0)})
        assert vs.count(C, old) == 30
        assert vs.count(C, PointFilter(scopes=None, any_of={'access_count': [0]})) == 60
        best = vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], events, 1)
        assert best[0].id == pid(6)
    finally:
        vs.close()


SEARCHED = PointFilter(scopes=['agent:a'], none_of={'trust': ['quarantined'], 'superseded': [True]})


def _edge_with(tmp_path: Path, n: int) -> Any:
    vs = make_edge(tmp_path / 'vectors')
    with_trust = SPEC.model_copy(update={'keyword_fields': (*SPEC.keyword_fields, 'trust')})
    vs.ensure_collection(with_trust)
    vs.upsert(
        C,
        [point(i, dense=[1.0, i / 100, 0.0, 0.0], trust='trusted', superseded=False)
         for i in range(1, n + 1)],
    )  # fmt: skip
    return vs


def test_edge_leaves_out_exclusions_no_point_meets_and_keeps_the_others(tmp_path: Path) -> None:
    vs = _edge_with(tmp_path, 20)
    try:
        shard = vs._shards.get(C)
        # nothing quarantined or superseded: both exclusions are vacuous, the search is lighter
        assert vs._reader._without_vacuous_exclusions(shard, SEARCHED).none_of == {}
        assert ids_of(vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], SEARCHED, 3)) == [
            pid(1), pid(2), pid(3)
        ]  # fmt: skip
        vs.set_payload(C, {pid(1): {'trust': 'quarantined'}})
        assert vs._reader._without_vacuous_exclusions(shard, SEARCHED).none_of == {
            'trust': ['quarantined']
        }
        assert ids_of(vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], SEARCHED, 3)) == [
            pid(2), pid(3), pid(4)
        ]  # fmt: skip
    finally:
        vs.close()


class _CountingShard:
    """An Edge shard that counts its `count` calls."""

    def __init__(self, shard: Any) -> None:
        self.shard = shard
        self.counts = 0

    def count(self, request: Any) -> Any:
        self.counts += 1
        return self.shard.count(request)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shard, name)


def test_edge_counts_an_exclusion_again_only_after_a_write(tmp_path: Path) -> None:
    vs = _edge_with(tmp_path, 20)
    try:
        shard = _CountingShard(vs._shards.get(C))
        lighter = vs._reader._without_vacuous_exclusions
        assert lighter(shard, SEARCHED).none_of == {}
        assert lighter(shard, SEARCHED).none_of == {}
        assert shard.counts == 2  # one per exclusion, remembered for the second search
        vs.set_payload(C, {pid(1): {'trust': 'quarantined'}})
        assert lighter(shard, SEARCHED).none_of == {'trust': ['quarantined']}
        assert shard.counts == 4
        vs.delete(C, [pid(1)])  # a delete is a write too: nothing is quarantined any more
        assert lighter(shard, SEARCHED).none_of == {}
        assert shard.counts == 6
    finally:
        vs.close()


def test_edge_a_write_crossing_a_left_out_exclusion_cannot_leak_its_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vs = _edge_with(tmp_path, 20)
    real = vs._reader._without_vacuous_exclusions
    cache = vs._payloads
    for stale in (False, True):
        vs.set_payload(C, {pid(1): {'trust': 'trusted'}})
        vs.retrieve(C, [pid(1)])  # cached as trusted

        def count_then_quarantine(shard: Any, flt: PointFilter, stale: bool = stale) -> PointFilter:
            lighter = real(shard, flt)  # counted: nothing quarantined yet
            if stale:
                # the worst case: Edge has applied the write, the cache has not heard of it
                cache.evict = lambda *_: None  # type: ignore[method-assign]
            try:
                vs.set_payload(C, {pid(1): {'trust': 'quarantined'}})  # lands before the search
            finally:
                vars(cache).pop('evict', None)
            return lighter

        monkeypatch.setattr(vs._reader, '_without_vacuous_exclusions', count_then_quarantine)
        found = ids_of(vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], SEARCHED, 3))
        monkeypatch.undo()
        # left out, and the answer still has three points
        assert found == [pid(2), pid(3), pid(4)], stale
    vs.close()


def test_edge_a_quiet_search_reads_no_payload_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vs = _edge_with(tmp_path, 20)
    try:

        def no_fresh_read(*_: Any) -> Any:
            raise AssertionError('re-read payloads though no write crossed the search')

        monkeypatch.setattr(vs._reader, '_fresh_payloads', no_fresh_read)
        assert len(vs.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], SEARCHED, 5)) == 5
    finally:
        vs.close()


def test_edge_methods_after_close_raise_store_unavailable(tmp_path: Path) -> None:
    vs = make_edge(tmp_path / 'vectors')
    vs.ensure_collection(SPEC)
    vs.close()
    with pytest.raises(StoreUnavailable):
        vs.count(C, ALL)


def test_edge_reuses_a_built_filter_only_for_the_same_conditions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built Edge filters are kept by content: equal conditions share one, and a filter that
    differs anywhere (scope, excluded values, a bool against its string) is built anew."""
    import vectors.edge as edge
    import vectors.edge_search as edge_search

    monkeypatch.setattr(edge_search, 'FILTER_CACHE_SIZE', 4)
    store = edge.EdgeVectorStore(tmp_path / 'vectors')
    try:
        store.ensure_collection(SPEC)
        store.upsert(
            C,
            [
                point(1, kind='fact', pinned=True),
                point(2, kind='note', pinned=False),
                point(3, scope='agent:b', kind='fact', pinned=True),
            ],
        )

        def ids(flt: PointFilter) -> list[str]:
            return sorted(p.id for p in store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], flt, 10))

        a = PointFilter(scopes=['agent:a'], none_of={'pinned': [True]})
        assert ids(a) == [pid(2)]
        assert ids(a.model_copy(deep=True)) == [pid(2)]
        assert store._reader._edge_filter(a) is store._reader._edge_filter(a.model_copy(deep=True))
        assert ids(PointFilter(scopes=['agent:b'], none_of={'pinned': [True]})) == []
        assert ids(PointFilter(scopes=['agent:a'], none_of={'pinned': [False]})) == [pid(1)]
        assert ids(PointFilter(scopes=['agent:a'], none_of={'kind': ['True']})) == [pid(1), pid(2)]
        # past the bound the cache starts over, and answers stay right
        for n in range(6):
            assert ids(PointFilter(scopes=[f'agent:x{n}'])) == []
        assert len(store._reader._filters) <= 4
        assert ids(a) == [pid(2)]
    finally:
        store.close()


def test_edge_payload_cache_follows_every_write(tmp_path: Path) -> None:
    """Payloads read once are served from the cache; a payload merge, a replacing upsert and a
    delete are each seen by the next query and read by id, and the cache keeps its bound."""
    from vectors.edge import EdgeVectorStore

    store = EdgeVectorStore(tmp_path / 'vectors', payload_cache=3)
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n, kind='fact', pinned=False) for n in range(1, 6)])
        v = [1.0, 0.0, 0.0, 0.0]

        def kinds() -> dict[str, Any]:
            return {p.id: p.payload['kind'] for p in store.query(C, 'dense', v, ALL, 10)}

        assert kinds() == {pid(n): 'fact' for n in range(1, 6)}
        assert len(store._payloads) == 3  # bounded: the last three read
        store.set_payload(C, {pid(1): {'kind': 'note'}, pid(5): {'pinned': True}})
        assert kinds()[pid(1)] == 'note'
        assert store.retrieve(C, [pid(5)])[0].payload['pinned'] is True
        store.upsert(C, [point(2, kind='event')])
        assert kinds()[pid(2)] == 'event'
        assert store.retrieve(C, [pid(2)])[0].payload['kind'] == 'event'
        store.delete(C, [pid(3)])
        assert pid(3) not in kinds()
        assert store.retrieve(C, [pid(3)]) == []
        # a caller changing what it got does not change what the next caller gets
        store.retrieve(C, [pid(4)])[0].payload['kind'] = 'changed by a caller'
        assert store.retrieve(C, [pid(4)])[0].payload['kind'] == 'fact'
        assert kinds()[pid(4)] == 'fact'
    finally:
        store.close()


def test_edge_a_write_keeps_exactly_what_edge_holds(tmp_path: Path) -> None:
    """An upsert keeps its payloads in the cache without a read, and what a search or retrieve
    then answers is what Edge itself gives back, also for values Edge changes (a tuple, an
    integer past 64 bits), which are not kept."""
    from vectors.edge import EdgeVectorStore

    store = EdgeVectorStore(tmp_path / 'vectors')
    try:
        store.ensure_collection(SPEC)
        values: list[Any] = [
            1.0, -0.0, 0.1 + 0.2, 1e300, 2**63, -(2**63), 'Ann: 中文 \u0000', None, True,
            [True, 1, 'x'], {'k': [1, {'x': None}], 'e': {}}, [], (1, 2), 2**70,
        ]  # fmt: skip
        points = [
            point(n, kind='fact', pinned=n % 2 == 0, value=v) for n, v in enumerate(values, start=1)
        ]
        store.upsert(C, points)
        ids = [pid(n) for n in range(1, len(values) + 1)]
        assert len(store._payloads) == len(values) - 2  # the tuple and the big integer: not kept
        cached = store._payloads.get(C, ids)
        fresh = store._reader._fresh_payloads(C, ids)
        for ident in ids:
            if ident in cached:
                assert cached[ident] == fresh[ident]
                assert type(cached[ident]['value']) is type(fresh[ident]['value'])
        got = {p.id: p.payload for p in store.retrieve(C, ids)}
        assert got == fresh
        assert got[pid(13)]['value'] == [1, 2] and type(got[pid(14)]['value']) is float
        assert [got[i]['pinned'] for i in ids[:2]] == [False, True]
    finally:
        store.close()


def test_edge_warm_fills_the_payload_cache_without_dropping_what_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`warm` reads stored payloads a page at a time into the cache, only those the filter
    keeps and only until the cache is full; payloads cached before stay, a write racing a page
    wins, and a restarted service's store fills itself in the background."""
    from core.settings import Settings
    from vectors.edge import EdgeVectorStore

    store = EdgeVectorStore(tmp_path / 'vectors', payload_cache=4)
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n, kind='fact', pinned=n == 3) for n in range(1, 7)])
        store._payloads.clear()
        store.retrieve(C, [pid(6)])  # read by a search: it must stay
        unpinned = PointFilter(scopes=None, none_of={'pinned': [True]})
        assert store.warm(C, unpinned, page=2, idle_s=0) == 4  # two pages, then full
        cached = store._payloads.get(C, [pid(n) for n in range(1, 7)])
        assert set(cached) == {pid(1), pid(2), pid(4), pid(6)}  # not the pinned one
        assert cached == store._reader._fresh_payloads(C, list(cached))
        assert store.warm(C, unpinned, page=2, idle_s=0) == 0  # full: reads nothing

        # a write landing while a page is read: the page's copy of it is not kept
        store._payloads.clear()
        real = store._reader.scroll

        def racing(*args: Any) -> Any:
            out = real(*args)
            store.set_payload(C, {pid(1): {'kind': 'note'}})
            return out

        monkeypatch.setattr(store._reader, 'scroll', racing)
        store.warm(C, unpinned, page=10, idle_s=0)
        monkeypatch.setattr(store._reader, 'scroll', real)
        assert pid(1) not in store._payloads.get(C, [pid(1)])
        assert store.retrieve(C, [pid(1)])[0].payload['kind'] == 'note'
        # searches reading payloads hold a warmer back: it reads nothing while they go on
        store._payloads.clear()
        store._reader.last_read = time.monotonic() + 3600
        held = threading.Event()

        class Watched(threading.Event):  # says when a warmer waits for the reads to go quiet
            def wait(self, timeout: float | None = None) -> bool:
                if timeout is not None and timeout > DEADLINE_S:
                    held.set()
                return super().wait(timeout)

        monkeypatch.setattr(store._reader, '_stop', Watched())
        store.warm_in_background(C, unpinned, delay_s=0)
        assert held.wait(DEADLINE_S), 'the warmer was not held back by the reads'
        assert len(store._payloads) == 0
        # and a warmer waiting for its delay stops when the store closes
        store.warm_in_background(C, unpinned, delay_s=60)
    finally:
        store.close()
    assert not any(t.is_alive() for t in store._reader._warmers)

    # the service warms its memories after a start
    from runtime.bootstrap import build
    from tests.conftest import make_settings

    settings: Settings = make_settings(tmp_path / 'data', graph_enabled=False)
    services = build(settings, inline_jobs=True)
    try:
        from recall.schemas import MemoryIn

        services.writer.remember(
            [MemoryIn(scope='agent:warm', text=f'Ann: fact number {n}') for n in range(12)]
        )
    finally:
        services.close()
    monkeypatch.setattr('runtime.bootstrap.WARM_DELAY_S', 0.0)
    services = build(settings, inline_jobs=True)
    try:
        edge = services.consolidation.vectors._inner  # type: ignore[attr-defined]
        wait_until(lambda: len(edge._payloads) >= 12, lambda: f'{len(edge._payloads)} warmed')
        assert len(edge._payloads) == 12
    finally:
        services.close()


def test_edge_payload_read_racing_a_write_never_answers_or_caches_the_older_state(
    tmp_path: Path,
) -> None:
    """A write landing between a query's search and its payload read: the point it moved out
    of the filter is dropped. A write landing during the payload read: what was read is not
    kept, so later reads see the write."""
    from vectors.edge import EdgeVectorStore

    store = EdgeVectorStore(tmp_path / 'vectors')
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n, kind='fact') for n in (1, 2, 3, 4)])
        store.upsert(C, [point(n, scope='agent:c', kind='fact') for n in (5, 6)])
        shard = store._shards.get(C)
        v = [1.0, 0.0, 0.0, 0.0]
        raced: list[str] = []

        class Racing:
            """The shard, with a write landing right after one call (the order a concurrent
            writer can produce)."""

            def __init__(self, after: str, updates: dict[str, dict[str, Any]]) -> None:
                self._after, self._updates = after, updates

            def __getattr__(self, name: str) -> Any:
                call = getattr(shard, name)
                if name != self._after:
                    return call

                def racing(*args: Any) -> Any:
                    out = call(*args)
                    store._shards.open[C] = shard  # the write, and what follows, use the real shard
                    store.set_payload(C, self._updates)
                    raced.append(name)
                    return out

                return racing

        store._shards.open[C] = Racing('query', {pid(1): {'scope': 'agent:b'}})
        hits = store.query(C, 'dense', v, scoped('agent:a'), 10)
        assert raced == ['query']
        assert sorted(h.id for h in hits) == [pid(2), pid(3), pid(4)]

        # agent:c's payloads come from the engine once the cache lost them (as after a restart)
        store._payloads.clear()
        store._shards.open[C] = Racing('retrieve', {pid(5): {'kind': 'note'}})
        store.retrieve(C, [pid(5), pid(6)])  # reads the payloads from before the write
        assert raced == ['query', 'retrieve']
        assert store.retrieve(C, [pid(5)])[0].payload['kind'] == 'note'
        assert {h.id: h.payload['kind'] for h in store.query(C, 'dense', v, ALL, 10)} == {
            pid(1): 'fact',
            pid(2): 'fact',
            pid(3): 'fact',
            pid(4): 'fact',
            pid(5): 'note',
            pid(6): 'fact',
        }
    finally:
        store.close()


def test_edge_write_that_fails_after_applying_still_leaves_no_stale_payload(
    tmp_path: Path,
) -> None:
    """An engine call can raise after it applied the change (a WAL or flush error): the cached
    payloads of its ids are dropped all the same, so a later read shows what Edge holds."""
    from vectors.edge import EdgeVectorStore

    store = EdgeVectorStore(tmp_path / 'vectors')
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(1, kind='fact'), point(2, kind='fact')])
        assert store.retrieve(C, [pid(1), pid(2)])  # both cached now
        shard = store._shards.get(C)

        class FailsAfterApplying:
            def __getattr__(self, name: str) -> Any:
                return getattr(shard, name)

            def update(self, op: Any) -> None:
                shard.update(op)
                raise RuntimeError('flush failed')

        store._shards.open[C] = FailsAfterApplying()
        with pytest.raises(RuntimeError):
            store.set_payload(C, {pid(1): {'kind': 'note'}})
        with pytest.raises(RuntimeError):
            store.delete(C, [pid(2)])
        with pytest.raises(RuntimeError):
            store.upsert(C, [point(3, kind='event')])
        store._shards.open[C] = shard
        assert store.retrieve(C, [pid(1)])[0].payload['kind'] == 'note'
        assert store.retrieve(C, [pid(2)]) == []
        assert store.retrieve(C, [pid(3)])[0].payload['kind'] == 'event'
    finally:
        store.close()


def test_edge_loads_its_shards_again_after_an_index_build_while_reads_go_on(
    tmp_path: Path,
) -> None:
    """After an index build the shards are closed and loaded again (so the new segments are
    mapped from their files, not kept in the heap); readers running meanwhile wait for the swap
    and never see a closed or missing collection."""
    from vectors.edge import EdgeVectorStore

    store = EdgeVectorStore(tmp_path / 'vectors', auto_optimize=False)
    try:
        store.ensure_collection(SPEC)
        store.upsert(C, [point(n, dense=[1.0, n / 300, 0.0, 0.0]) for n in range(1, 301)])
        before = store._shards.open[C]
        stop = threading.Event()
        errors: list[BaseException] = []
        reads = [0]

        def read() -> None:
            while not stop.is_set():
                try:
                    assert store.count(C, ALL) == 300
                    assert len(store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 5)) == 5
                    assert store.retrieve(C, [pid(7)])[0].id == pid(7)
                    assert len(store.scroll(C, ALL, 10)[0]) == 10
                    reads[0] += 1
                except BaseException as exc:  # collected, asserted below
                    errors.append(exc)
                    return

        readers = [threading.Thread(target=read) for _ in range(4)]
        for t in readers:
            t.start()
        store.optimize()
        after = store._shards.open[C]
        store.optimize()  # nothing pending: nothing to load again
        stop.set()
        for t in readers:
            t.join(10)
        assert errors == []
        assert reads[0] > 0
        assert after is not before
        assert store._shards.open[C] is after
        assert store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 1)[0].id == pid(1)
    finally:
        store.close()


@pytest.mark.parametrize('storage', ['ram', 'mmap'])
def test_edge_mmap_keeps_the_int8_copy_and_the_bm25_index_on_disk(
    tmp_path: Path, storage: str
) -> None:
    # what `mmap` promises: what grows with the store is paged from disk, not copied into RAM
    # at every load (vectors/edge_translate.py); read from the layout of the built segments
    import json

    vs = _indexed_int8_edge(tmp_path, storage)
    try:
        vs.upsert(C, [point(n, dense=[1.0, n / 300, 0.5, 0.0]) for n in range(1, 301)])
        vs.optimize()
        assert vs._shards.open[C].info().indexed_vectors_count == 600  # type: ignore[attr-defined]
        folder = vs._shards.path(C)  # type: ignore[attr-defined]
    finally:
        vs.close()
    configs = [
        json.loads(p.read_text())['config'] for p in (folder / 'segments').glob('*/segment.json')
    ]
    indexed = [c for c in configs if c['vector_data']['dense']['index']['type'] == 'hnsw']
    assert indexed
    for config in indexed:
        quantized = config['vector_data']['dense']['quantization_config']['scalar']
        assert quantized['always_ram'] is (storage == 'ram')
        index = config['sparse_vector_data']['bm25']['index']['index_type']
        assert index == ('ImmutableRam' if storage == 'ram' else 'Mmap')


def test_edge_remembers_the_points_awaiting_an_index_build_across_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a bulk load killed before its build left 11k unindexed points that no restart indexed:
    # the count of points awaiting a build is kept beside the shards while the store runs
    import vectors.edge as edge
    import vectors.edge_build as edge_build
    from vectors.edge_compact import read_pending

    root = tmp_path / 'vectors'
    monkeypatch.setattr(edge_build, 'OPTIMIZE_AFTER_POINTS', 10_000)
    first = edge.EdgeVectorStore(root)
    first.ensure_collection(SPEC)
    first.upsert(C, [point(n) for n in range(120)])
    # the optimizer thread's next tick keeps it
    wait_until(lambda: read_pending(root) == 120, lambda: f'{read_pending(root)} kept on disk')
    first._builds._stop.set()  # as a kill would: the count on disk is the running store's
    first.close()

    built = threading.Event()
    monkeypatch.setattr(edge_build, 'OPTIMIZE_AFTER_POINTS', 100)
    monkeypatch.setattr(edge_build, 'OPTIMIZE_IDLE_SECONDS', 0.0)
    optimize = edge_build.EdgeBuilds.optimize

    def noted(store: Any) -> None:
        optimize(store)
        built.set()

    monkeypatch.setattr(edge_build.EdgeBuilds, 'optimize', noted)
    again = edge.EdgeVectorStore(root)
    try:
        again.ensure_collection(SPEC)
        assert built.wait(DEADLINE_S), 'the restarted store never built the index'
        wait_until(lambda: read_pending(root) == 0, lambda: f'{read_pending(root)} still pending')
    finally:
        again.close()


def test_edge_searches_go_on_while_the_index_is_built(tmp_path: Path) -> None:
    # Edge's optimize holds the GIL for its whole run: in-process, no search got through while
    # it built (a search waited 16 s in the red team's run). The build runs in a child now
    store = make_edge(tmp_path / 'vectors')
    store.ensure_collection(SPEC)
    store.upsert(C, [point(n, dense=[1.0, float(n), 0.0, 1.0]) for n in range(2_000)])
    during = [0]
    building = threading.Event()
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            store.query(C, 'dense', [1.0, 0.0, 0.0, 0.0], ALL, 5)
            if building.is_set():
                during[0] += 1

    searcher = threading.Thread(target=search)
    searcher.start()
    try:
        building.set()
        store.optimize()
        building.clear()
    finally:
        stop.set()
        searcher.join()
        store.close()
    assert during[0] >= 10  # searches answered while the build ran
    again = make_edge(tmp_path / 'vectors')
    again.ensure_collection(SPEC)
    try:
        assert again.count(C, ALL) == 2_000
    finally:
        again.close()


def test_qdrant_compact_asks_the_server_to_vacuum_and_puts_its_thresholds_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Forget's compaction on a Qdrant server: the vacuum thresholds go to their floor while
    the server's optimizers run, then back to the collection's own. qdrant-client's local mode
    stands in for the server here: it accepts the same requests but has no optimizers (nor
    segments), so this checks the requests, not what the server does with them."""
    from qdrant_client import QdrantClient, models

    import vectors.qdrant as qdrant

    monkeypatch.setattr(qdrant, 'VACUUM_START_S', 0.0)
    client = QdrantClient(':memory:')
    asked: list[tuple[str, Any]] = []
    update = client.update_collection

    def recorded(name: str, **kwargs: Any) -> Any:
        asked.append((name, kwargs.get('optimizers_config')))
        return update(name, **kwargs)

    monkeypatch.setattr(client, 'update_collection', recorded)
    vs = qdrant.QdrantVectorStore(client)
    vs.ensure_collection(SPEC)
    vs.upsert(C, [point(n) for n in range(1, 6)])
    vs.delete(C, [pid(1), pid(2)])
    assert vs.compact() == 3
    floor = models.OptimizersConfigDiff(deleted_threshold=0.0, vacuum_min_vector_number=100)
    own = models.OptimizersConfigDiff(deleted_threshold=0.2, vacuum_min_vector_number=1000)
    assert asked == [(C, floor), (C, own)]
    vs.close()


def test_edge_compacts_only_the_shards_with_a_delete_since_their_last_rewrite(
    tmp_path: Path,
) -> None:
    """A compaction rewrites a shard only when a point was deleted in it since its last rewrite
    (forget's rewrite costs the size of the store it rewrites); after an opening every shard is
    rewritten once, since deletes before the opening are not known."""
    from vectors.edge import EdgeVectorStore

    other = SPEC.model_copy(update={'name': 'other'})
    root = tmp_path / 'vectors'
    store = EdgeVectorStore(root, auto_optimize=False)
    try:
        for spec in (SPEC, other):
            store.ensure_collection(spec)
        store.upsert(C, [point(n) for n in range(1, 6)])
        store.upsert('other', [point(n) for n in range(1, 4)])
        assert store.compact() == 8  # both, the first time
        assert store.compact() == 0  # nothing deleted since
        store.delete(C, [pid(1)])
        assert store.compact() == 4  # C only
        store.delete('other', [pid(9)])  # an unknown id: still a delete to rewrite for
        assert store.compact() == 3
    finally:
        store.close()
    again = EdgeVectorStore(root, auto_optimize=False)
    try:
        for spec in (SPEC, other):
            again.ensure_collection(spec)
        assert again.compact() == 7  # after an opening: every shard
    finally:
        again.close()
