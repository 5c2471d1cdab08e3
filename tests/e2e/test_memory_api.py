"""The chunk-memory routes over HTTP, on the real embedded stores and the real embedder."""

from __future__ import annotations

import json
import uuid

import pytest

pytestmark = pytest.mark.slow


def write(client, auth, **item):  # type: ignore[no-untyped-def]
    response = client.post('/v1/memories', json=item, headers=auth)
    assert response.status_code in (200, 201), response.get_json()
    return response.get_json()


def search(client, auth, **body):  # type: ignore[no-untyped-def]
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def total(client, auth, scope):  # type: ignore[no-untyped-def]
    return client.get(f'/v1/memory/stats?scope={scope}', headers=auth).get_json()['total']


# ---- auth --------------------------------------------------------------------------------


def test_healthz_needs_no_token(client):
    response = client.get('/healthz')
    assert response.status_code == 200
    assert response.get_json()['mode'] == 'embedded'


@pytest.mark.parametrize(
    'header',
    [None, 'Bearer', 'Basic abc', 'Bearer wrong-token-wrong-token-000'],
)
def test_routes_refuse_missing_or_bad_tokens_with_json_401(client, scope, header):
    headers = {'Authorization': header} if header else {}
    body = {'query': 'x', 'scope': scope}
    response = client.post('/v1/memory_search', json=body, headers=headers)
    assert response.status_code == 401
    assert response.get_json()['error'] == 'unauthorized'
    assert 'Bearer' in response.headers['WWW-Authenticate']


# ---- writes ------------------------------------------------------------------------------


def test_a_written_memory_reads_back_with_its_metadata(client, auth, scope):
    body = write(
        client,
        auth,
        scope=scope,
        text='Alice prefers green tea in the morning',
        kind='preference',
        user_id='u1',
        importance=0.8,
        metadata={'dia_id': 'D1:3', 'n': [1, 2]},
        created_at='2023-05-08T13:56:00Z',
    )
    assert body['status'] == 'created'
    memory = client.get(f'/v1/memories/{body["id"]}', headers=auth).get_json()
    assert memory['text'] == 'Alice prefers green tea in the morning'
    assert memory['kind'] == 'preference'
    assert memory['user_id'] == 'u1'
    assert memory['importance'] == 0.8
    assert memory['metadata'] == {'dia_id': 'D1:3', 'n': [1, 2]}
    assert memory['created_at'].startswith('2023-05-08T13:56:00')
    assert memory['tier'] == 'working'


def test_writing_the_same_memory_twice_keeps_one_and_bumps_it(client, auth, scope):
    first = write(client, auth, scope=scope, text='The deploy key rotates every 90 days')
    second = client.post(
        '/v1/memories',
        json={'scope': scope, 'text': '  the DEPLOY key rotates every 90 days!'},
        headers=auth,
    )
    assert second.status_code == 200
    assert second.get_json()['status'] == 'merged'
    assert second.get_json()['id'] == first['id']
    assert second.get_json()['memory']['access_count'] == 1
    assert total(client, auth, scope) == 1


def test_the_same_text_for_two_users_is_two_memories(client, auth, scope):
    a = write(client, auth, scope=scope, text='likes jazz', user_id='ua')
    b = write(client, auth, scope=scope, text='likes jazz', user_id='ub')
    assert a['id'] != b['id']


def test_pin_makes_a_memory_core_and_unpin_returns_it_to_working(client, auth, scope):
    ident = write(client, auth, scope=scope, text='Server room door code is 4411')['id']
    pinned = client.post(f'/v1/memories/{ident}/pin', headers=auth).get_json()
    assert (pinned['pinned'], pinned['tier']) == (True, 'core')
    unpinned = client.post(f'/v1/memories/{ident}/unpin', headers=auth).get_json()
    assert (unpinned['pinned'], unpinned['tier']) == (False, 'working')
    assert client.get(f'/v1/memories/{ident}', headers=auth).get_json()['pinned'] is False


def test_delete_removes_a_memory(client, auth, scope):
    ident = write(client, auth, scope=scope, text='temporary note about lunch')['id']
    assert client.delete(f'/v1/memories/{ident}', headers=auth).status_code == 200
    assert client.get(f'/v1/memories/{ident}', headers=auth).status_code == 404
    assert client.delete(f'/v1/memories/{ident}', headers=auth).status_code == 404


@pytest.mark.parametrize('ident', [str(uuid.uuid4()), 'not-a-uuid'])
def test_unknown_memory_ids_are_404_json(client, auth, ident):
    response = client.get(f'/v1/memories/{ident}', headers=auth)
    assert response.status_code == 404
    assert response.get_json()['error'] == 'not_found'
    assert client.post(f'/v1/memories/{ident}/pin', headers=auth).status_code == 404


def test_batch_writes_valid_items_and_reports_each_bad_one(client, auth, scope):
    items = [
        {'scope': scope, 'text': 'Caroline went to the LGBTQ support group'},
        {'scope': 'nope', 'text': 'bad scope'},
        {'scope': scope, 'text': ''},
        {'scope': scope, 'text': 'x' * (40 * 1024)},
        {'scope': scope, 'text': 'Melanie painted a sunrise', 'bogus': 1},
        {'scope': scope, 'text': 'Caroline went to the LGBTQ support group'},
    ]
    response = client.post('/v1/memories/batch', json={'items': items}, headers=auth)
    assert response.status_code == 200
    results = response.get_json()['results']
    assert [r['status'] for r in results] == [
        'created',
        'error',
        'error',
        'error',
        'error',
        'merged',
    ]
    assert results[1]['error']['details'][0]['loc'] == ['items', 1, 'scope']
    assert results[2]['error']['details'][0]['loc'] == ['items', 2, 'text']
    assert results[3]['error']['status'] == 413
    assert results[4]['error']['details'][0]['loc'] == ['items', 4, 'bogus']
    assert response.get_json()['counts'] == {'created': 1, 'error': 4, 'merged': 1}
    assert total(client, auth, scope) == 1


def test_batch_refuses_more_than_1000_items_and_stores_nothing(client, auth, scope):
    items = [{'scope': scope, 'text': f'memory {i}'} for i in range(1001)]
    response = client.post('/v1/memories/batch', json={'items': items}, headers=auth)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['items']
    assert total(client, auth, scope) == 0


# ---- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ('body', 'field'),
    [
        ({'text': 'no scope'}, 'scope'),
        ({'scope': 'agent:a b', 'text': 't'}, 'scope'),
        ({'scope': 'user:x', 'text': 't'}, 'scope'),
        ({'scope': 'agent:' + 'a' * 129, 'text': 't'}, 'scope'),
        ({'scope': 'agent:a', 'text': '   '}, 'text'),
        ({'scope': 'agent:a', 'text': 5}, 'text'),
        ({'scope': 'agent:a', 'text': 't', 'kind': 'gossip'}, 'kind'),
        ({'scope': 'agent:a', 'text': 't', 'importance': 1.5}, 'importance'),
        ({'scope': 'agent:a', 'text': 't', 'created_at': 'yesterday'}, 'created_at'),
        ({'scope': 'agent:a', 'text': 't', 'metadata': [1]}, 'metadata'),
        ({'scope': 'agent:a', 'text': 't', 'user_id': 'a/b'}, 'user_id'),
        ({'scope': 'agent:a', 'text': 't', 'unknown': True}, 'unknown'),
    ],
)
def test_bad_memory_fields_are_422_naming_the_field(client, auth, body, field):
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code == 422, response.get_json()
    payload = response.get_json()
    assert payload['error'] == 'invalid_request'
    assert payload['details'][0]['loc'][0] == field


def test_malformed_json_is_400(client, auth):
    response = client.post(
        '/v1/memories', data='{"scope": ', content_type='application/json', headers=auth
    )
    assert response.status_code == 400
    assert response.get_json()['error'] == 'malformed_request'


def test_a_body_that_is_not_json_is_400(client, auth):
    response = client.post('/v1/memories', data='scope=agent:a', headers=auth)
    assert response.status_code == 400
    assert response.get_json()['details'] == [
        {
            'loc': ['body'],
            'msg': 'send a JSON body with Content-Type: application/json',
            'type': 'malformed_request',
        }
    ]


def test_a_json_array_body_is_400(client, auth):
    response = client.post('/v1/memory_search', json=[1, 2], headers=auth)
    assert response.status_code == 400


def test_oversized_text_is_413_and_stores_nothing(client, auth, scope):
    response = client.post(
        '/v1/memories', json={'scope': scope, 'text': 'é' * 20_000}, headers=auth
    )
    assert response.status_code == 413
    assert response.get_json()['details'][0]['loc'] == ['text']
    assert total(client, auth, scope) == 0


def test_an_oversized_body_is_413(client, auth, app, scope):
    limit = app.config['MAX_CONTENT_LENGTH']
    body = json.dumps({'scope': scope, 'text': 'a' * (limit + 10)})
    response = client.post('/v1/memories', data=body, content_type='application/json', headers=auth)
    assert response.status_code == 413
    assert response.get_json()['error'] == 'payload_too_large'


@pytest.mark.parametrize(
    ('body', 'field'),
    [
        ({'scope': 'agent:a'}, 'query'),
        ({'query': '', 'scope': 'agent:a'}, 'query'),
        ({'query': 'x' * 8001, 'scope': 'agent:a'}, 'query'),
        ({'query': 'x', 'scope': 'team:'}, 'scope'),
        ({'query': 'x', 'scope': 'agent:a', 'top_k': 0}, 'top_k'),
        ({'query': 'x', 'scope': 'agent:a', 'top_k': 101}, 'top_k'),
        ({'query': 'x', 'scope': 'agent:a', 'top_k': 'ten'}, 'top_k'),
        ({'query': 'x', 'scope': 'agent:a', 'mode': 'magic'}, 'mode'),
        ({'query': 'x', 'scope': 'agent:a', 'fusion': 'max'}, 'fusion'),
        ({'query': 'x', 'scope': 'agent:a', 'filters': {'kinds': ['x']}}, 'filters'),
        ({'query': 'x', 'scope': 'agent:a', 'filters': {'color': 'red'}}, 'filters'),
        ({'query': 'x', 'scope': 'agent:a', 'filters': {'created_after': 'soon'}}, 'filters'),
        ({'query': 'x', 'scope': 'agent:a', 'extra': 1}, 'extra'),
    ],
)
def test_bad_search_fields_are_422_naming_the_field(client, auth, body, field):
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 422, response.get_json()
    assert response.get_json()['details'][0]['loc'][0] == field


def test_an_inverted_created_range_is_422(client, auth, scope):
    body = {
        'query': 'x',
        'scope': scope,
        'filters': {
            'created_after': '2024-01-01T00:00:00Z',
            'created_before': '2023-01-01T00:00:00Z',
        },
    }
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 422
    assert response.get_json()['details'][0]['loc'] == ['filters', 'created_after']


# ---- search ------------------------------------------------------------------------------


@pytest.fixture
def corpus(client, auth, scope):  # type: ignore[no-untyped-def]
    texts = [
        ('Melanie signed up for a pottery class last week', 'fact', '2023-07-01T10:00:00Z'),
        ('Caroline is researching adoption agencies', 'project_state', '2023-06-01T10:00:00Z'),
        ('Caroline prefers hiking over running', 'preference', '2023-05-01T10:00:00Z'),
        ('The quarterly report is due on Friday', 'fact', '2023-04-01T10:00:00Z'),
        ('我喜欢狗', 'preference', '2023-03-01T10:00:00Z'),
    ]
    items = [
        {'scope': scope, 'text': t, 'kind': k, 'created_at': c, 'metadata': {'i': i}}
        for i, (t, k, c) in enumerate(texts)
    ]
    client.post('/v1/memories/batch', json={'items': items}, headers=auth)
    return scope


def test_hybrid_search_finds_the_relevant_memory_first_with_a_receipt(client, auth, corpus):
    result = search(client, auth, query='What class did Melanie take?', scope=corpus, top_k=3)
    top = result['hits'][0]
    assert top['text'] == 'Melanie signed up for a pottery class last week'
    assert top['metadata'] == {'i': 0}
    assert top['kind'] == 'fact' and top['tier'] == 'working' and top['scope'] == corpus
    assert {'dense_rank', 'bm25_rank', 'fused'} <= set(top['components'])
    receipt = result['receipt']
    assert receipt['channels']['dense'][0] == top['id']
    assert receipt['fused'][0] == top['id']
    assert receipt['scopes'] == [corpus]
    assert {'embed', 'dense', 'bm25', 'fuse', 'total'} <= set(receipt['latency_ms'])
    # the relevance floor keeps memories that do not answer the question out of the top 3
    assert [h['text'] for h in result['hits']] == [top['text']]
    assert receipt['below_floor'] > 0 and receipt['min_score'] > 0
    unfloored = search(
        client, auth, query='What class did Melanie take?', scope=corpus, top_k=3, min_score=0
    )
    assert len(unfloored['hits']) == 3 and unfloored['hits'][0]['id'] == top['id']


@pytest.mark.parametrize('mode', ['dense', 'bm25'])
def test_single_channel_modes_use_only_that_channel(client, auth, corpus, mode):
    result = search(client, auth, query='adoption agencies', scope=corpus, mode=mode)
    assert list(result['receipt']['channels']) == [mode]
    assert result['hits'][0]['text'] == 'Caroline is researching adoption agencies'


def test_weighted_fusion_is_selectable(client, auth, corpus):
    result = search(client, auth, query='pottery', scope=corpus, fusion='weighted')
    assert result['hits'][0]['text'].startswith('Melanie signed up')


def test_a_chinese_query_finds_a_chinese_memory(client, auth, corpus):
    result = search(client, auth, query='狗', scope=corpus, mode='bm25')
    assert [h['text'] for h in result['hits']] == ['我喜欢狗']


def test_filters_narrow_by_kind_and_created_range(client, auth, corpus):
    by_kind = search(
        client, auth, query='Caroline', scope=corpus, filters={'kinds': ['preference']}
    )
    assert {h['kind'] for h in by_kind['hits']} == {'preference'}
    by_date = search(
        client,
        auth,
        query='Caroline',
        scope=corpus,
        filters={'created_after': '2023-05-15T00:00:00Z', 'created_before': '2023-06-15T00:00:00Z'},
    )
    assert [h['text'] for h in by_date['hits']] == ['Caroline is researching adoption agencies']


def test_search_never_crosses_scopes(client, auth, corpus, scope):
    other = f'agent:other{uuid.uuid4().hex[:8]}'
    write(client, auth, scope=other, text='Melanie pottery secret in another scope')
    result = search(client, auth, query='Melanie pottery', scope=corpus)
    assert all(h['scope'] == corpus for h in result['hits'])


def test_a_scope_with_nothing_falls_back_to_global(client, auth):
    write(client, auth, scope='global', text='The office wifi password is on the fridge')
    empty = f'agent:empty{uuid.uuid4().hex[:8]}'
    result = search(client, auth, query='wifi password', scope=empty)
    assert result['receipt']['fallback'] == 'global'
    assert result['hits'][0]['scope'] == 'global'


def test_user_memories_are_private_to_their_user_and_boosted(client, auth, scope):
    write(client, auth, scope=scope, text='favourite colour is teal', user_id='ann')
    write(client, auth, scope=scope, text='favourite colour is orange', user_id='bob')
    write(client, auth, scope=scope, text='favourite colour of the team is grey')
    result = search(client, auth, query='favourite colour', scope=scope, user_id='ann')
    texts = [h['text'] for h in result['hits']]
    assert 'favourite colour is orange' not in texts
    assert texts[0] == 'favourite colour is teal'
    assert result['hits'][0]['components']['user_boost'] == 1.2


def test_search_counts_accesses_off_the_request_path(client, auth, app, scope):
    ident = write(client, auth, scope=scope, text='Nate adopted a turtle named Shelly')['id']
    search(client, auth, query='turtle', scope=scope)
    app.extensions['mnemos'].recall.close()  # drains pending access bookkeeping
    assert client.get(f'/v1/memories/{ident}', headers=auth).get_json()['access_count'] == 1


# ---- list and stats ----------------------------------------------------------------------


def test_listing_pages_through_a_scope_and_filters_by_kind(client, auth, corpus):
    first = client.get(f'/v1/memories?scope={corpus}&limit=2', headers=auth).get_json()
    assert len(first['items']) == 2 and first['next']
    second = client.get(
        f'/v1/memories?scope={corpus}&limit=10&offset={first["next"]}', headers=auth
    ).get_json()
    ids = [m['id'] for m in first['items'] + second['items']]
    assert len(ids) == len(set(ids)) == 5
    prefs = client.get(f'/v1/memories?scope={corpus}&kind=preference', headers=auth).get_json()
    assert {m['kind'] for m in prefs['items']} == {'preference'}
    found = client.get(f'/v1/memories?scope={corpus}&q=pottery&limit=1', headers=auth).get_json()
    assert found['items'][0]['text'].startswith('Melanie')


@pytest.mark.parametrize(
    'query', ['limit=0', 'limit=x', 'kind=gossip', 'scope=bad', 'offset=zzz', 'colour=red']
)
def test_bad_list_parameters_are_422(client, auth, corpus, query):
    sep = '&' if 'scope=' not in query else ''
    url = f'/v1/memories?{query}' if sep == '' else f'/v1/memories?scope={corpus}&{query}'
    assert client.get(url, headers=auth).status_code == 422


def test_stats_count_tiers_kinds_scopes_and_pins(client, auth, corpus):
    ident = client.get(f'/v1/memories?scope={corpus}&limit=1', headers=auth).get_json()
    client.post(f'/v1/memories/{ident["items"][0]["id"]}/pin', headers=auth)
    stats = client.get(f'/v1/memory/stats?scope={corpus}', headers=auth).get_json()
    assert stats['total'] == 5
    assert stats['by_kind'] == {'preference': 2, 'fact': 2, 'project_state': 1}
    assert stats['by_tier'] == {'working': 4, 'core': 1}
    assert stats['by_scope'] == {corpus: 5}
    assert stats['pinned'] == 1
    everything = client.get('/v1/memory/stats', headers=auth).get_json()
    assert everything['total'] >= 5 and corpus in everything['by_scope']
