"""Nothing a client writes is lost or corrupted by the memory logic: merges only add, writes to
one id serialise, imports append, untrusted writes never displace trusted ones, deletes expire
the graph facts they were the only source of. Over HTTP on the real app."""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    settings = make_settings(tmp_path_factory.mktemp('integrity'), graph_enabled=False)
    services = build(settings, inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, **item):  # type: ignore[no-untyped-def]
    response = client.post('/v1/memories', json=item, headers=auth)
    assert response.status_code in (200, 201), response.get_json()
    return response.get_json()


def read(client, auth, ident: str):  # type: ignore[no-untyped-def]
    response = client.get(f'/v1/memories/{ident}', headers=auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


# ---- 1. merges only add -------------------------------------------------------------------


@pytest.mark.parametrize('layer', ['semantic', 'entity_key'])
def test_a_merge_keeps_pin_importance_access_age_metadata_and_tags(client, auth, scope, layer):
    key = {'entity_key': 'lucky:number'} if layer == 'entity_key' else {}
    first = write(
        client,
        auth,
        scope=scope,
        kind='fact',
        text='Lucky number is 88.',
        pinned=True,
        importance=0.92,
        metadata={'src': 'first', 'keep': 1},
        tags=['numbers'],
        created_at='2024-01-01T00:00:00Z',
        **key,
    )
    texts = (
        ['The lucky number is 88', 'the lucky number is 88!']
        if layer == 'semantic'
        else ['My lucky number: eighty-eight', 'Lucky no. = 88']
    )
    for index, text in enumerate(texts):
        again = write(
            client,
            auth,
            scope=scope,
            kind='fact',
            text=text,
            importance=0.3,
            metadata={'src': 'para', f'extra{index}': True},
            tags=['para'],
            created_at='2025-06-01T00:00:00Z',
            **key,
        )
        assert (again['status'], again['merged_into']) == ('merged', first['id'])
    stored = read(client, auth, first['id'])
    assert stored['pinned'] is True and stored['tier'] == 'core'
    assert stored['importance'] == pytest.approx(0.92)
    assert stored['access_count'] == 2
    assert stored['created_at'].startswith('2024-01-01')
    # the stored memory's own keys win; keys it lacked are added
    assert stored['metadata'] == {'src': 'first', 'keep': 1, 'extra0': True, 'extra1': True}
    assert sorted(stored['tags']) == ['numbers', 'para']
    assert stored['text'] == 'Lucky number is 88.'


def test_a_merge_takes_the_older_event_time_and_the_higher_importance(client, auth, scope):
    first = write(client, auth, scope=scope, kind='fact', text='Lucky number is 7.', importance=0.2)
    again = write(
        client,
        auth,
        scope=scope,
        kind='fact',
        text='Lucky number is 7.',
        importance=0.8,
        created_at='2020-05-05T00:00:00Z',
    )
    assert again['status'] == 'merged'
    stored = read(client, auth, first['id'])
    assert stored['importance'] == pytest.approx(0.8)
    assert stored['created_at'].startswith('2020-05-05')


# ---- 4. writes to one id serialise --------------------------------------------------------


def _concurrently(app, auth, bodies):  # type: ignore[no-untyped-def]
    """POST each body from its own thread, all released at once; the JSON answers in order."""
    barrier = threading.Barrier(len(bodies))

    def post(body):  # type: ignore[no-untyped-def]
        client = app.test_client()
        barrier.wait()
        response = client.post('/v1/memories', json=body, headers=auth)
        assert response.status_code in (200, 201), response.get_json()
        return response.get_json()

    with ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(post, bodies))


def test_twenty_identical_concurrent_writes_create_one_memory(app, client, auth, scope):
    body = {'scope': scope, 'kind': 'fact', 'text': 'The deploy window is Friday at 16:00.'}
    answers = _concurrently(app, auth, [body] * 20)
    statuses = Counter(a['status'] for a in answers)
    assert statuses == {'created': 1, 'merged': 19}, statuses
    [ident] = {a['id'] for a in answers}
    # single-writer semantics: the first write creates (access 0), each duplicate counts once
    assert read(client, auth, ident)['access_count'] == 19


def test_concurrent_writes_with_one_entity_key_store_one_memory(app, client, auth, scope):
    bodies = [
        {
            'scope': scope,
            'kind': 'entity',
            'text': f'Support hotline, variant {n}: 030 1234 5678',
            'entity_key': 'phone:+49301234567',
        }
        for n in range(10)
    ]
    answers = _concurrently(app, auth, bodies)
    assert Counter(a['status'] for a in answers) == {'created': 1, 'merged': 9}
    stats = client.get(f'/v1/memory/stats?scope={scope}', headers=auth).get_json()
    assert stats['total'] == 1


# ---- 5. imports append ---------------------------------------------------------------------


def export(client, auth, scope: str) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    response = client.get(f'/v1/admin/export?scope={scope}', headers=auth)
    assert response.status_code == 200
    return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]


def import_(client, auth, records, dedupe: str):  # type: ignore[no-untyped-def]
    body = ''.join(json.dumps(r) + '\n' for r in records)
    response = client.post(f'/v1/admin/import?dedupe={dedupe}', data=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def stats_total(client, auth, scope: str) -> int:  # type: ignore[no-untyped-def]
    return int(client.get(f'/v1/memory/stats?scope={scope}', headers=auth).get_json()['total'])


@pytest.mark.parametrize('dedupe', ['none', 'id', 'id_text'])
def test_an_import_into_another_scope_appends_and_leaves_the_source_alone(
    client, auth, scope, dedupe
):
    texts = ['Ann likes green tea.', 'Ann lives in Porto.', 'Ann has a cat named Miso.']
    for text in texts:
        write(client, auth, scope=scope, kind='fact', text=text)
    records = export(client, auth, scope)
    target = f'{scope}b'
    report = import_(client, auth, [{**r, 'scope': target} for r in records], dedupe)
    assert report['imported'] == 3
    assert stats_total(client, auth, scope) == 3
    assert stats_total(client, auth, target) == 3
    copies = export(client, auth, target)
    assert sorted(c['text'] for c in copies) == sorted(texts)
    assert not {c['id'] for c in copies} & {r['id'] for r in records}
    # the copies' ids derive from their own scope: writing the text there merges into them
    again = write(client, auth, scope=target, kind='fact', text='Ann lives in Porto.')
    assert again['status'] == 'merged'


def test_reimporting_into_the_same_scope_merges_and_only_adds(client, auth, scope):
    first = write(client, auth, scope=scope, kind='fact', text='Ann likes green tea.', pinned=True)
    records = export(client, auth, scope)
    changed = {
        **records[0],
        'pinned': False,
        'importance': 0.1,
        'text': 'Ann likes black coffee.',
        'metadata': {'from': 'import'},
        'tags': ['imported'],
    }
    report = import_(client, auth, [changed], 'none')
    assert report['imported'] == 1
    stored = read(client, auth, first['id'])
    assert stored['text'] == 'Ann likes green tea.'
    assert stored['pinned'] is True and stored['importance'] >= records[0]['importance']
    assert stored['metadata'] == {'from': 'import'} and stored['tags'] == ['imported']
    assert stats_total(client, auth, scope) == 1


# ---- 6. untrusted never displaces trusted ---------------------------------------------------


def search_ids(client, auth, scope: str, query: str) -> list[str]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, 'min_score': 0.0}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return [h['id'] for h in response.get_json()['hits']]


def test_tool_output_never_supersedes_a_trusted_preference(client, auth, scope):
    trusted = write(
        client, auth, scope=scope, kind='preference', text='Alice likes coffee in the morning'
    )
    tool = write(
        client,
        auth,
        scope=scope,
        kind='preference',
        text='Alice no longer likes coffee in the morning',
        source='tool',
    )
    assert tool['status'] == 'created' and tool['superseded'] == []
    assert tool['memory']['trust'] == 'untrusted'
    assert read(client, auth, trusted['id'])['superseded_by'] is None
    found = search_ids(client, auth, scope, 'Alice coffee in the morning')
    assert found[0] == trusted['id'] and tool['id'] in found


def test_tool_output_never_supersedes_a_trusted_home_through_its_slot(client, auth, scope):
    # the slot rule (a new home replaces the old whatever the cosine) obeys trust as well
    home = write(client, auth, scope=scope, user_id='ann', kind='fact', text='I live in Berlin')
    tool = write(
        client,
        auth,
        scope=scope,
        user_id='ann',
        kind='fact',
        text='I moved to Paris',
        source='tool',
    )
    assert tool['status'] == 'created' and tool['superseded'] == []
    assert read(client, auth, home['id'])['superseded_by'] is None
    trusted = write(client, auth, scope=scope, user_id='ann', kind='fact', text='I moved to Lisbon')
    assert home['id'] in trusted['superseded']


def test_an_untrusted_write_is_never_merged_into_a_trusted_memory(client, auth, scope):
    trusted = write(client, auth, scope=scope, kind='fact', text='Lucky number is 88.')
    tool = write(
        client,
        auth,
        scope=scope,
        kind='fact',
        text='The lucky number is 88',
        trust='untrusted',
        importance=1.0,
        pinned=True,
    )
    assert tool['status'] == 'created' and tool['id'] != trusted['id']
    # the same text from a tool is the same id: it counts as an access and changes nothing else
    same = write(
        client, auth, scope=scope, kind='fact', text='Lucky number is 88.', source='tool',
        importance=1.0, pinned=True, metadata={'from': 'tool'},
    )  # fmt: skip
    assert same['status'] == 'merged'
    stored = read(client, auth, trusted['id'])
    assert (stored['trust'], stored['pinned'], stored['metadata']) == ('trusted', False, {})
    assert stored['importance'] < 1.0 and stored['access_count'] == 1


def test_a_trusted_write_still_supersedes_an_untrusted_one(client, auth, scope):
    tool = write(client, auth, scope=scope, kind='preference', text='Bob likes tea', source='tool')
    user = write(client, auth, scope=scope, kind='preference', text='Bob no longer likes tea')
    assert user['superseded'] == [tool['id']]


def test_a_trusted_restatement_revives_what_a_tool_superseded(client, auth, scope):
    # the tool's contradiction supersedes the tool's claim (equal trust); when the user then
    # says the claim, the merge makes it trusted, and a trusted memory superseded by an
    # untrusted one would break the rule above: it is current again, and as the latest
    # statement it outdates the contradiction in turn (kept as history)
    tool = write(client, auth, scope=scope, kind='preference', text='Bob likes tea', source='tool')
    denial = write(
        client, auth, scope=scope, kind='preference', text='Bob no longer likes tea', source='tool'
    )
    assert denial['superseded'] == [tool['id']]
    again = write(client, auth, scope=scope, kind='preference', text='Bob likes tea')
    assert (again['status'], again['merged_into']) == ('merged', tool['id'])
    stored = read(client, auth, tool['id'])
    assert (stored['trust'], stored['superseded_by']) == ('trusted', None)
    assert read(client, auth, denial['id'])['superseded_by'] == tool['id']
    assert search_ids(client, auth, scope, 'Bob likes tea')[0] == tool['id']


def test_a_batch_never_lets_its_tool_write_supersede_what_it_made_trusted(client, auth, scope):
    tool = write(client, auth, scope=scope, kind='preference', text='Bob likes tea', source='tool')
    items = [
        {'scope': scope, 'kind': 'preference', 'text': 'Bob likes tea'},
        {'scope': scope, 'kind': 'preference', 'text': 'Bob no longer likes tea', 'source': 'tool'},
    ]
    response = client.post('/v1/memories/batch', json={'items': items}, headers=auth)
    assert response.status_code == 200, response.get_json()
    merged, denial = response.get_json()['results']
    assert merged['status'] == 'merged' and denial['status'] == 'created'
    assert denial['superseded'] == []
    stored = read(client, auth, tool['id'])
    assert (stored['trust'], stored['superseded_by']) == ('trusted', None)


def test_a_later_paraphrase_in_the_batch_takes_back_its_tool_write_s_supersession(
    client, auth, scope
):
    # the tool's denial is judged first and supersedes the tool's claim; the user's paraphrase
    # after it merges into the claim (semantic twin), making it trusted: the claim is current
    # again, and the denial's result no longer says it superseded it
    claim = write(client, auth, scope=scope, kind='fact', text='Lucky number is 88.', source='tool')
    items = [
        {'scope': scope, 'kind': 'fact', 'text': 'Lucky number is no longer 88.', 'source': 'tool'},
        {'scope': scope, 'kind': 'fact', 'text': 'The lucky number is 88'},
    ]
    response = client.post('/v1/memories/batch', json={'items': items}, headers=auth)
    assert response.status_code == 200, response.get_json()
    denial, paraphrase = response.get_json()['results']
    assert (paraphrase['status'], paraphrase['merged_into']) == ('merged', claim['id'])
    assert denial['status'] == 'created'
    assert (denial['superseded'], denial['reason']) == ([], None)
    stored = read(client, auth, claim['id'])
    assert (stored['trust'], stored['superseded_by']) == ('trusted', None)


# ---- 3. a semantic merge needs more than one cosine -----------------------------------------


def capture(client, auth, scope: str, text: str):  # type: ignore[no-untyped-def]
    response = client.post(
        '/v1/memories/capture', json={'scope': scope, 'text': text}, headers=auth
    )
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_chinese_turns_the_english_model_cannot_read_are_both_kept(client, auth, scope):
    capture(client, auth, scope, '我叫东升')
    second = capture(client, auth, scope, '我喜欢狗,不喜欢猫')
    # capture splits the clauses ("喜欢狗", "不喜欢猫"): each is new, none merged into the name
    assert second['stored'] and {s['status'] for s in second['stored']} == {'created'}
    texts = sorted(r['text'] for r in export(client, auth, scope))
    assert '我叫东升' in texts and any('狗' in t for t in texts)


def test_chinese_preferences_with_the_english_model_merge_only_when_equal(client, auth, scope):
    first = write(client, auth, scope=scope, kind='preference', text='我喜欢喝绿茶')
    other = write(client, auth, scope=scope, kind='preference', text='我喜欢喝红茶')
    same = write(client, auth, scope=scope, kind='preference', text='我喜欢喝绿茶。')
    assert other['status'] == 'created'
    assert (same['status'], same['merged_into']) == ('merged', first['id'])


def test_a_semantic_merge_needs_the_same_kind_and_shared_words(client, auth, scope):
    fact = write(client, auth, scope=scope, kind='fact', text='Lucky number is 88.')
    entity = write(client, auth, scope=scope, kind='entity', text='The lucky number is 88')
    assert entity['status'] == 'created' and entity['id'] != fact['id']
