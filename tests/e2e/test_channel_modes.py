"""`mode: bm25` and `mode: dense` over HTTP return their channel's own order: no speaker or date
boost, no decay, no learned re-ranking."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings

pytestmark = pytest.mark.slow

AUTH = {'Authorization': 'Bearer admin-token-for-tests-0123456789'}
SCOPE = 'agent:modes'
# a profile field, turns of the person the questions name (a speaker boost would lift them),
# and an old pinned note (decay and pinning would move it)
CORPUS = [
    ("Maya Patel's Gender: female", None),
    ('Maya: my gender studies essay on Patel family history is due', '2024-05-08T13:56:00Z'),
    ('Maya: the ward talked about gender and Maya Patel laughed', '2024-05-08T13:57:00Z'),
    ('Tom: what is the gender of the new puppy?', '2024-05-08T13:58:00Z'),
    ('The gender pay gap report came out in May 2024', '2020-01-01T00:00:00Z'),
]
QUERIES = [
    'What is the gender of Maya Patel?',
    'What did Maya say about gender in May 2024?',
    'gender report',
]


@pytest.fixture(scope='module')
def app_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    services = build(make_settings(tmp_path_factory.mktemp('modes')), inline_jobs=True)
    client = create_app(services=services).test_client()
    items = []
    for n, (text, at) in enumerate(CORPUS):
        item = {'scope': SCOPE, 'text': text, 'pinned': n == len(CORPUS) - 1}
        if at:
            item['created_at'] = at
        items.append(item)
    answer = client.post('/v1/memories/batch', json={'items': items}, headers=AUTH).get_json()
    assert all(r['status'] == 'created' for r in answer['results'])
    yield client
    services.close()


@pytest.mark.parametrize('mode', ['bm25', 'dense'])
@pytest.mark.parametrize('query', QUERIES)
def test_a_single_channel_mode_returns_the_channels_own_order(app_client, mode, query):  # type: ignore[no-untyped-def]
    body = {
        'query': query,
        'scope': SCOPE,
        'top_k': 10,
        'touch': False,
        'mode': mode,
        'min_score': 0,
        'explain': True,
    }
    response = app_client.post('/v1/memory_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    result = response.get_json()
    candidates = result['receipt']['candidates'][mode]
    # the channel's own ranking: by its raw score, best first
    expected = [ident for ident, _ in sorted(candidates, key=lambda c: -c[1])]
    assert [h['id'] for h in result['hits']] == expected[: len(result['hits'])]
    assert len(result['hits']) == len(expected)
    for hit in result['hits']:
        assert not {'speaker_boost', 'date_boost', 'learned'} & set(hit['components'])


FLOOR_SCOPE = 'agent:modes-floor'
# one memory answers; the other shares a single word of the question's six, so its confidence
# sits below the default floor while BM25 still finds it
FLOOR_CORPUS = [
    'The quarterly budget review meeting starts at nine tomorrow in room four',
    'The review of the new espresso machine was glowing',
]
FLOOR_QUERY = 'When does the quarterly budget review meeting start tomorrow?'


def _floor_search(client, **extra: object) -> dict:  # type: ignore[no-untyped-def,type-arg]
    body = {'query': FLOOR_QUERY, 'scope': FLOOR_SCOPE, 'top_k': 10, 'touch': False, **extra}
    response = client.post('/v1/memory_search', json=body, headers=AUTH)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def test_a_single_channel_mode_applies_no_floor_unless_the_request_sets_one(app_client):  # type: ignore[no-untyped-def]
    items = [{'scope': FLOOR_SCOPE, 'text': text} for text in FLOOR_CORPUS]
    answer = app_client.post('/v1/memories/batch', json={'items': items}, headers=AUTH)
    ids = [r['id'] for r in answer.get_json()['results']]
    # the default search keeps its calibrated floor: the one-word match is dropped
    default = _floor_search(app_client)
    assert [h['id'] for h in default['hits']] == ids[:1]
    assert default['receipt']['below_floor'] >= 1
    # `mode: bm25` shows BM25's whole order, the weak match included
    pure = _floor_search(app_client, mode='bm25', explain=True)
    expected = [i for i, _ in sorted(pure['receipt']['candidates']['bm25'], key=lambda c: -c[1])]
    assert expected == ids
    assert [h['id'] for h in pure['hits']] == expected
    assert pure['receipt']['min_score'] == 0
    # a floor the request sets still applies
    floored = _floor_search(app_client, mode='bm25', min_score=0.3)
    assert [h['id'] for h in floored['hits']] == ids[:1]
