"""What a fact says of its object wins over a tagger's guess, in English and Chinese: an employer
is an org and a city a place (我跳槽到了杭州 works in a city), a move changes a home only when it
goes to a place ("I moved from Vim to Emacs" changes an editor), and a place is never a tool."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import make_settings
from tests.e2e import http_calls
from tests.e2e.http_calls import entity_type

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    services = build(make_settings(tmp_path_factory.mktemp('typing')), inline_jobs=True)
    yield create_app(services=services)
    services.close()


def write(client, auth, scope: str, text: str, at: str = '2026-03-01T09:00:00Z') -> None:  # type: ignore[no-untyped-def]
    http_calls.write(client, auth, scope, text, user_id='ann', created_at=at)


def facts(client, auth, scope: str, query: str) -> set[tuple[str, str, bool]]:  # type: ignore[no-untyped-def]
    return http_calls.graph_facts(client, auth, scope, query, user_id='ann')


@pytest.mark.parametrize(
    ('text', 'fact', 'name', 'etype'),
    [
        ('我跳槽到了杭州。', ('works_in', '杭州'), '杭州', 'place'),
        ('我入职了上海。', ('works_in', '上海'), '上海', 'place'),
        ('我在京东工作。', ('works_at', '京东'), '京东', 'org'),
        ('我跳槽到了京东。', ('works_at', '京东'), '京东', 'org'),
        ('I use Neovim for everything.', ('uses', 'Neovim'), 'Neovim', 'tool'),
        ('I use GitHub every day.', ('uses', 'GitHub'), 'GitHub', 'tool'),
    ],
)
def test_an_employer_is_an_org_and_a_city_a_place(client, auth, scope, text, fact, name, etype):  # type: ignore[no-untyped-def]
    write(client, auth, scope, text)
    assert (*fact, True) in facts(client, auth, scope, name)
    assert entity_type(client, auth, scope, name) == etype


@pytest.mark.parametrize(
    ('text', 'name'),
    [('Neovim is my favourite editor.', 'Neovim'), ('I asked Carol about Spotify.', 'Spotify')],
)
def test_a_known_tool_is_a_tool_whatever_ner_guesses(client, auth, scope, text, name):  # type: ignore[no-untyped-def]
    write(client, auth, scope, text)
    assert entity_type(client, auth, scope, name) == 'tool'


@pytest.mark.parametrize(
    ('home', 'switch', 'question', 'city', 'editor'),
    [
        (
            'I live in Leeds.',
            'I moved from Vim to Emacs last week.',
            'Where do I live?',
            'Leeds',
            'Emacs',
        ),  # noqa: E501
        ('I live in Leeds.', 'I moved to Neovim last week.', 'Where do I live?', 'Leeds', 'Neovim'),
        ('我住在深圳。', '我从Vim换成了Emacs。', '我住在哪里？', '深圳', 'Emacs'),
        ('我住在深圳。', '我从VS Code转到了Neovim。', '我住在哪里？', '深圳', 'Neovim'),
    ],
)
def test_switching_editors_is_not_a_move(client, auth, scope, home, switch, question, city, editor):  # type: ignore[no-untyped-def]
    write(client, auth, scope, home, '2026-03-01T09:00:00Z')
    write(client, auth, scope, switch, '2026-03-08T09:00:00Z')
    found = facts(client, auth, scope, question)
    assert ('lives_in', city, True) in found, found
    assert not any(p == 'lives_in' and o == editor for p, o, _ in found), found
    assert ('uses', editor, True) in facts(client, auth, scope, editor), found
    assert entity_type(client, auth, scope, editor) == 'tool'


@pytest.mark.parametrize(
    ('home', 'move', 'question', 'old', 'new'),
    [
        (
            'I live in Leeds.',
            'I moved to Bristol last month.',
            'Where do I live?',
            'Leeds',
            'Bristol',
        ),  # noqa: E501
        ('我住在深圳。', '我搬到了广州。', '我住在哪里？', '深圳', '广州'),
    ],
)
def test_a_move_to_a_city_still_changes_the_home(
    client, auth, scope, home, move, question, old, new
):  # type: ignore[no-untyped-def]
    write(client, auth, scope, home, '2026-01-01T09:00:00Z')
    write(client, auth, scope, move, '2026-03-08T09:00:00Z')
    found = facts(client, auth, scope, question)
    assert ('lives_in', new, True) in found and ('lives_in', old, False) in found, found
    assert entity_type(client, auth, scope, new) == 'place'


@pytest.mark.parametrize('text', ['I switched to Paris.', 'I switched to the Paris office.'])
def test_a_place_one_switches_to_is_not_a_tool(client, auth, scope, text):  # type: ignore[no-untyped-def]
    write(client, auth, scope, text)
    assert not any(p == 'uses' for p, _, _ in facts(client, auth, scope, 'Paris'))
    assert entity_type(client, auth, scope, 'Paris') == 'place'
