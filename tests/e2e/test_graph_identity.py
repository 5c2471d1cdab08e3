"""Who is who in the graph, in English and Chinese: kinship says married_to, so two hops reach a
spouse's employer; a speaker who introduces themselves is found by that name; an entity's type
follows what the facts say of it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    services = build(make_settings(tmp_path_factory.mktemp('identity')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, user: str | None = None) -> None:  # type: ignore[no-untyped-def]
    body: dict[str, Any] = {'scope': scope, 'text': text, 'created_at': '2026-03-01T09:00:00Z'}
    if user is not None:
        body['user_id'] = user
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()


def facts(client, auth, scope: str, query: str, **extra: Any) -> set[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    body = {'query': query, 'scope': scope, **extra}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return {(f['subject'], f['predicate'], f['object']) for f in response.get_json()['facts']}


@pytest.mark.parametrize(
    ('kin', 'job', 'question', 'wife', 'husband', 'employer'),
    [
        (
            "Lina is Zhang Wei's wife.",
            'Lina works at Tencent.',
            "Where does Zhang Wei's wife work?",
            'Lina',
            'Zhang Wei',
            'Tencent',
        ),
        (
            '李娜是张伟的妻子。',
            '李娜在腾讯工作。',
            '张伟的妻子在哪里工作？',
            '李娜',
            '张伟',
            '腾讯',
        ),
    ],
)
def test_a_spouse_is_married_to_so_two_hops_reach_the_spouses_employer(
    client, auth, scope, kin, job, question, wife, husband, employer
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, kin)
    write(client, auth, scope, job)
    found = facts(client, auth, scope, question)
    assert (wife, 'married_to', husband) in found, found
    assert (wife, 'works_at', employer) in found, found


@pytest.mark.parametrize(
    ('intro', 'job', 'question', 'employer'),
    [
        ("Hi, I'm Maya Patel.", 'I work at Initech.', 'Where does Maya Patel work?', 'Initech'),
        ('我叫陈静。', '我在腾讯工作。', '陈静在哪里工作？', '腾讯'),
    ],
)
def test_a_speaker_who_introduces_themselves_is_found_by_that_name(
    client, auth, scope, intro, job, question, employer
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, intro, user='u1')
    write(client, auth, scope, job, user='u1')
    found = facts(client, auth, scope, question)
    assert any(p == 'works_at' and o == employer for _, p, o in found), found
    body = {'query': question, 'scope': scope, 'touch': False, 'graph': True}
    hits = client.post('/v1/memory_search', json=body, headers=auth).get_json()['hits']
    assert hits and employer in hits[0]['text'], [h['text'] for h in hits]


def entity_type(client, auth, scope: str, name: str) -> str | None:  # type: ignore[no-untyped-def]
    url = f'/v1/kg/entities?scope={scope}&q={name}'
    items = client.get(url, headers=auth).get_json()['items']
    return next((e['type'] for e in items if e['name'] == name), None)


def test_what_a_fact_says_of_an_entity_types_it(client, auth, scope):  # type: ignore[no-untyped-def]
    write(client, auth, scope, 'Alice: I switched to the Paris office.')
    write(client, auth, scope, 'Alice: I use Neovim for everything.')
    found = facts(client, auth, scope, 'Alice', hops=1)
    assert ('Alice', 'uses', 'Paris') not in found, found
    assert ('Alice', 'uses', 'Neovim') in found, found
    assert entity_type(client, auth, scope, 'Neovim') == 'tool'
    assert entity_type(client, auth, scope, 'Paris') == 'place'


def test_a_fact_corrects_a_type_the_name_was_given_before(client, auth, scope):  # type: ignore[no-untyped-def]
    write(client, auth, scope, '阿里巴巴的股价涨了。')  # jieba tags 阿里巴巴 as a person's name
    write(client, auth, scope, '我在阿里巴巴工作。', user='u2')
    assert entity_type(client, auth, scope, '阿里巴巴') == 'org'
