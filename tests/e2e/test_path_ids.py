"""Ids taken into URL paths: the client and the MCP tools check and percent-encode them, and the
service refuses an id that does not have its route's shape, so a crafted id (`../teams/core`)
never walks a request to another route."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import quote

import pytest

from mnemos_client import InvalidRequest, Mnemos, NotFound
from mnemos_client.mcp.server import call_tool
from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow

TRAVERSALS = ('../teams/core', '..', '.', 'a/b', '%2e%2e')


@pytest.fixture(scope='module')
def mnemos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mnemos]:
    with live_service(tmp_path_factory.mktemp('path-ids')) as url, Mnemos(url, TOKEN) as c:
        yield c


@pytest.fixture
def team_and_token(mnemos: Mnemos) -> Iterator[tuple[str, str]]:
    mnemos.request('PUT', '/v1/teams/core', json={'leader': 'lead', 'members': ['m1']})
    issued = mnemos.request('POST', '/v1/tokens', json={'agent_id': 'victim'}).json()
    yield issued['token_id'], issued['token']
    mnemos.request('DELETE', '/v1/teams/core')


def intact(mnemos: Mnemos, token: str) -> None:
    assert mnemos.request('GET', '/v1/teams/core').json()['leader'] == 'lead'
    with Mnemos(mnemos.url, token) as victim:
        # the victim's token still authenticates (an empty own scope lists fine)
        assert victim.list_memories('agent:victim').items == []


def test_client_refuses_ids_that_walk_to_other_routes(
    mnemos: Mnemos, team_and_token: tuple[str, str]
) -> None:
    token_id, token = team_and_token
    for ident in (*TRAVERSALS, f'../../v1/tokens/{token_id}'):
        for call in (mnemos.delete, mnemos.get, mnemos.pin, mnemos.unpin):
            with pytest.raises(InvalidRequest) as raised:
                call(ident)
            assert raised.value.details[0]['loc'] == ['memory_id']
    with pytest.raises(InvalidRequest):
        mnemos.job('../tokens/' + token_id)
    with pytest.raises(InvalidRequest):
        mnemos.entity('../../teams/core', 'global')
    with pytest.raises(InvalidRequest):
        mnemos.complete_session(
            '../../teams/core',
            scope='agent:victim',
            messages=[{'role': 'user', 'content': 'hi', 'ts': '2026-01-01T00:00:00Z'}],
        )
    intact(mnemos, token)


def test_mcp_delete_refuses_traversal_ids(mnemos: Mnemos, team_and_token: tuple[str, str]) -> None:
    token_id, token = team_and_token
    for ident in ('../teams/core', f'../../v1/tokens/{token_id}', '..'):
        result = call_tool(mnemos, 'memory_delete', {'id': ident})
        assert result.is_error
        assert result.structured_content is not None
        assert result.structured_content['details'][0]['loc'] == ['id']
    intact(mnemos, token)


def test_service_refuses_malformed_path_ids_naming_the_parameter(
    mnemos: Mnemos, team_and_token: tuple[str, str]
) -> None:
    token_id, token = team_and_token
    # sent percent-encoded, past the client's own check: the service must refuse them itself
    # (`%2E%2E` is `..` that no HTTP client normalises away)
    cases = [
        ('DELETE', '/v1/memories/{}', '%2E%2E', 'ident'),
        ('POST', '/v1/memories/{}/pin', 'x' * 40, 'ident'),
        ('GET', '/v1/jobs/{}', '%2E%2E', 'job_id'),
        ('GET', '/v1/kg/entities/{}', 'nope', 'entity_id'),
        ('DELETE', '/v1/tokens/{}', '%2E%2E', 'token_id'),
        ('DELETE', '/v1/tokens/{}', 'not-a-token-id', 'token_id'),
    ]
    for method, template, ident, field in cases:
        with pytest.raises(NotFound) as raised:
            mnemos.request(method, template.format(ident), params={'scope': 'global'})
        assert raised.value.details[0]['loc'] == ['path', field], (template, ident)
    # an encoded slash reaches no route at all
    for ident in ('../teams/core', f'../../v1/tokens/{token_id}'):
        with pytest.raises(NotFound):
            mnemos.request('DELETE', '/v1/memories/' + quote(ident, safe=''))
    intact(mnemos, token)
