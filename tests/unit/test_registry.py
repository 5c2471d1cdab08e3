"""The token and team registry on a real SQLite file."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from agents.registry import FILENAME, Registry, hash_token
from core.errors import InvalidInput, InvalidScope, NotFound


@pytest.fixture
def registry(tmp_path: Path):  # type: ignore[no-untyped-def]
    reg = Registry(tmp_path / FILENAME)
    yield reg
    reg.close()


def test_an_issued_token_maps_to_its_agent_and_only_its_hash_is_stored(registry, tmp_path):
    info, token = registry.issue_token('alice', ['team:blue'])
    principal = registry.principal_for(token)
    assert principal is not None
    assert principal.agent_id == 'alice'
    assert principal.extra_scopes == ('team:blue',)
    assert principal.can_write('agent:alice') and principal.can_write('agent:alice:slack')
    assert principal.can_write('team:blue')
    assert not principal.can_write('agent:bob')
    raw = b''.join(p.read_bytes() for p in tmp_path.iterdir())
    assert token.encode() not in raw
    assert registry.lookup(token) == info
    assert hash_token(token) != token


def test_unknown_and_revoked_tokens_have_no_principal(registry):
    info, token = registry.issue_token('alice')
    assert registry.principal_for('mnm_not-a-token') is None
    revoked = registry.revoke_token(info.token_id)
    assert revoked.revoked_at is not None
    assert registry.principal_for(token) is None
    with pytest.raises(NotFound):
        registry.revoke_token(info.token_id)
    assert registry.tokens('alice') == []
    assert [t.token_id for t in registry.tokens('alice', include_revoked=True)] == [info.token_id]


def test_team_members_read_their_leaders_scope_and_the_leader_reads_no_fallback(registry):
    _, member_token = registry.issue_token('m1')
    _, leader_token = registry.issue_token('lead')
    registry.put_team('blue', 'lead', ['m1', 'm2', 'm1'])
    member = registry.principal_for(member_token)
    leader = registry.principal_for(leader_token)
    assert member is not None and leader is not None
    assert member.leader_scopes == ('agent:lead',)
    assert member.can_read('agent:lead') and not member.can_write('agent:lead')
    assert leader.leader_scopes == ()
    assert registry.get_team('blue').members == ('m1', 'm2')


def test_replacing_a_team_drops_old_members_at_once(registry):
    _, token = registry.issue_token('m1')
    registry.put_team('blue', 'lead', ['m1'])
    registry.put_team('blue', 'lead2', ['m2'])
    principal = registry.principal_for(token)
    assert principal is not None and principal.leader_scopes == ()
    assert registry.leaders_of('m2') == ['lead2']
    registry.delete_team('blue')
    assert registry.leaders_of('m2') == []
    with pytest.raises(NotFound):
        registry.get_team('blue')


def test_a_member_of_two_teams_reads_both_leaders(registry):
    registry.put_team('a', 'lead-a', ['m'])
    registry.put_team('b', 'lead-b', ['m'])
    assert registry.leaders_of('m') == ['lead-a', 'lead-b']


@pytest.mark.parametrize(
    ('call', 'field'),
    [
        (lambda r: r.issue_token('bad id'), 'agent_id'),
        (lambda r: r.put_team('bad/team', 'lead', []), 'team_id'),
        (lambda r: r.put_team('t', 'lead', ['ok', 'not ok']), 'members.1'),
        (lambda r: r.put_team('t', 'lead', ['lead']), 'members.0'),
    ],
)
def test_bad_ids_are_rejected_naming_the_field_and_nothing_is_stored(registry, call, field):
    with pytest.raises(InvalidInput) as err:
        call(registry)
    assert err.value.field == field
    assert registry.tokens() == []
    with pytest.raises(NotFound):
        registry.get_team('t')


def test_a_bad_extra_scope_is_rejected_naming_its_index(registry):
    with pytest.raises(InvalidScope) as err:
        registry.issue_token('alice', ['global', 'nope'])
    assert err.value.field == 'scopes.1'
    assert registry.tokens() == []


def test_concurrent_threads_issue_tokens_safely(registry):
    tokens: list[str] = []
    lock = threading.Lock()

    def issue() -> None:
        for _ in range(20):
            _, token = registry.issue_token('alice')
            with lock:
                tokens.append(token)

    threads = [threading.Thread(target=issue) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(registry.tokens('alice')) == 120
    assert all(registry.lookup(token) is not None for token in tokens)


def test_another_process_sees_tokens_and_teams_written_here(registry, tmp_path):
    info, token = registry.issue_token('alice')
    registry.put_team('blue', 'lead', ['alice'])
    script = (
        'import sys; from pathlib import Path; from agents.registry import Registry\n'
        'r = Registry(Path(sys.argv[1]))\n'
        'p = r.principal_for(sys.argv[2])\n'
        'assert p is not None and p.leader_scopes == ("agent:lead",), p\n'
        'r.revoke_token(sys.argv[3])\n'
        'r.issue_token("bob")\n'
    )
    root = Path(__file__).resolve().parents[2]
    subprocess.run(
        [sys.executable, '-c', script, str(tmp_path / FILENAME), token, info.token_id],
        check=True,
        cwd=root,
        timeout=60,
    )
    assert registry.principal_for(token) is None
    assert [t.agent_id for t in registry.tokens()] == ['bob']
