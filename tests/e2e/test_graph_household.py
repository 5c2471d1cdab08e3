"""A household the speaker belongs to ("we", "our family", "my wife and I", 我们, 我和老婆) moving
or living somewhere states the speaker's home, so it replaces the home they stated before; it
states nothing else of theirs ("we" at work may be a team), and a plan is not a move."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    services = build(make_settings(tmp_path_factory.mktemp('household')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def say(client, auth, scope: str, via: str, text: str, at: str) -> None:  # type: ignore[no-untyped-def]
    body = {'scope': scope, 'text': text, 'user_id': 'ann', 'created_at': at}
    if via == 'capture':
        response = client.post('/v1/memories/capture', json=body, headers=auth)
    else:
        response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()


def homes(client, auth, scope: str, question: str) -> set[tuple[str, bool]]:  # type: ignore[no-untyped-def]
    body = {'query': question, 'scope': scope, 'user_id': 'ann', 'include_history': True}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    facts = response.get_json()['facts']
    return {(f['object'], f['current']) for f in facts if f['predicate'] == 'lives_in'}


def other_facts(client, auth, scope: str, question: str) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    body = {'query': question, 'scope': scope, 'user_id': 'ann', 'hops': 1}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    facts = response.get_json()['facts']
    return {(f['predicate'], f['object']) for f in facts if f['predicate'] != 'lives_in'}


@pytest.mark.parametrize(
    ('via', 'home', 'move', 'question', 'old', 'new'),
    [
        ('write', 'I live in Sydney.', 'We moved to Berlin.', 'Where do I live?',
         'Sydney', 'Berlin'),
        (
            'capture',
            'I live in Lisbon with my two cats.',
            'We just moved to Sydney.',
            'Where do I live?',
            'Lisbon',
            'Sydney',
        ),
        ('write', "I'm based in Seattle.", 'Our family moved to Denver.', 'Where do I live?',
         'Seattle', 'Denver'),
        ('write', 'I live in Leeds.', 'We moved back to York last month.', 'Where do I live?',
         'Leeds', 'York'),
        ('write', 'I live in Leeds.', 'My wife and I moved to Bristol.', 'Where do I live?',
         'Leeds', 'Bristol'),
        ('write', '我住在北京。', '我们搬到了上海。', '我住在哪里？', '北京', '上海'),
        ('capture', '我住在深圳。', '我们去年搬到了广州。', '我住在哪里？', '深圳', '广州'),
        ('write', '我住在厦门。', '我和老婆搬到了成都。', '我住在哪里？', '厦门', '成都'),
        ('write', '我在北京生活。', '我们全家搬去西安了。', '我住在哪里？', '北京', '西安'),
    ],
)  # fmt: skip
def test_a_household_move_replaces_the_speakers_home(  # type: ignore[no-untyped-def]
    client, auth, scope, via, home, move, question, old, new
):
    say(client, auth, scope, via, home, '2024-05-09T14:45:00Z')
    say(client, auth, scope, via, move, '2026-09-22T08:30:00Z')
    found = homes(client, auth, scope, question)
    assert (new, True) in found and (old, False) in found, found


@pytest.mark.parametrize(
    ('later', 'not_home'),
    [
        ('We moved our servers to Frankfurt.', 'Frankfurt'),
        ("We're planning to move to Oslo next year.", 'Oslo'),
        ('We moved to the new office downtown.', 'office'),
        ('我们想搬到上海。', '上海'),
        ('我们公司搬到了深圳。', '深圳'),
    ],
)
def test_what_is_not_a_household_move_keeps_the_home(client, auth, scope, later, not_home):  # type: ignore[no-untyped-def]
    say(client, auth, scope, 'write', 'I live in Leeds.', '2024-05-09T14:45:00Z')
    say(client, auth, scope, 'write', later, '2026-09-22T08:30:00Z')
    found = homes(client, auth, scope, 'Where do I live?')
    assert ('Leeds', True) in found, found
    assert not any(city == not_home for city, _ in found), found


@pytest.mark.parametrize(
    'text',
    ['We use Jira for every project.', 'We work at Acme on the data team.', '我们在腾讯工作。'],
)
def test_we_at_work_states_nothing_of_the_speaker(client, auth, scope, text):  # type: ignore[no-untyped-def]
    # "we" at work is often the team: only a household's home is the speaker's own
    say(client, auth, scope, 'write', 'I work at Initech.', '2024-05-09T14:45:00Z')
    say(client, auth, scope, 'write', text, '2026-09-22T08:30:00Z')
    found = other_facts(client, auth, scope, 'Where do I work?')
    assert ('works_at', 'Initech') in found, found
    assert not ({o for _, o in found} & {'Jira', 'Acme', '腾讯'}), found
