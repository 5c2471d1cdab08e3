"""The AgentDirectory contract (agents/ports.py), over every adapter: today the SQLite registry,
fresh and reopened (a second process or a restart sees the same tokens and teams)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agents.ports import AgentDirectory
from agents.registry import FILENAME, Registry
from core.clock import ManualClock
from core.errors import InvalidScope, NotFound

Reopen = Callable[[], AgentDirectory]


@pytest.fixture(params=['sqlite', 'sqlite-reopened'])
def directories(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[AgentDirectory, Reopen]]:
    """(the directory written to, a way to get the one read from)."""
    opened: list[Registry] = []

    def open_one() -> Registry:
        registry = Registry(tmp_path / FILENAME, ManualClock())
        opened.append(registry)
        return registry

    writer = open_one()
    reader: Reopen = open_one if request.param == 'sqlite-reopened' else (lambda: writer)
    yield writer, reader
    for registry in opened:
        registry.close()


def test_an_issued_token_names_its_agent_and_its_extra_scopes(directories):  # type: ignore[no-untyped-def]
    directory, reader = directories
    info, secret = directory.issue_token('alice', ['team:blue'])
    assert info.agent_id == 'alice' and info.scopes == ('team:blue',)
    assert secret not in repr(info)
    principal = reader().principal_for(secret)
    assert principal is not None and principal.agent_id == 'alice'
    assert principal.can_write('agent:alice') and principal.can_write('team:blue')
    assert principal.can_read('global') and not principal.can_write('agent:bob')


def test_an_unknown_or_revoked_token_has_no_principal(directories):  # type: ignore[no-untyped-def]
    directory, reader = directories
    info, secret = directory.issue_token('alice')
    assert reader().principal_for('mnm_not-a-token') is None
    revoked = directory.revoke_token(info.token_id)
    assert revoked.revoked_at is not None
    assert reader().principal_for(secret) is None
    with pytest.raises(NotFound):
        directory.revoke_token(info.token_id)


def test_live_tokens_are_listed_and_revoked_ones_on_request(directories):  # type: ignore[no-untyped-def]
    directory, reader = directories
    first, _ = directory.issue_token('alice')
    second, _ = directory.issue_token('bob')
    directory.revoke_token(first.token_id)
    assert [t.token_id for t in reader().tokens()] == [second.token_id]
    listed = reader().tokens(include_revoked=True)
    assert {t.token_id for t in listed} == {first.token_id, second.token_id}
    assert [t.agent_id for t in reader().tokens('bob')] == ['bob']


def test_a_bad_extra_scope_is_refused_and_nothing_is_issued(directories):  # type: ignore[no-untyped-def]
    directory, reader = directories
    with pytest.raises(InvalidScope):
        directory.issue_token('alice', ['global', 'nope'])
    assert reader().tokens() == []


def test_team_members_read_their_leader_and_never_write_it(directories):  # type: ignore[no-untyped-def]
    directory, reader = directories
    _, member_secret = directory.issue_token('m1')
    team = directory.put_team('blue', 'lead', ['m1', 'm2', 'm1'])
    assert (team.leader, team.members) == ('lead', ('m1', 'm2'))
    member = reader().principal_for(member_secret)
    assert member is not None and member.leader_scopes == ('agent:lead',)
    assert member.can_read('agent:lead') and not member.can_write('agent:lead')
    assert reader().get_team('blue') == team
    assert reader().leaders_of('m2') == ['lead']


def test_a_deleted_team_is_gone_for_every_reader(directories):  # type: ignore[no-untyped-def]
    directory, reader = directories
    directory.put_team('blue', 'lead', ['m1'])
    directory.delete_team('blue')
    with pytest.raises(NotFound):
        reader().get_team('blue')
    assert reader().leaders_of('m1') == []
    with pytest.raises(NotFound):
        directory.delete_team('blue')
