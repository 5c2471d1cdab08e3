"""Agent tokens and teams: a small SQLite registry beside the stores (`registry.sqlite3`).

Only a sha256 of each token is stored. SQLite in WAL mode lets several processes on one machine
share the file (server mode with N API processes on one shared local volume works); it is not safe
on network filesystems such as NFS, where a real database would have to replace this adapter.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from agents.ports import Team, TokenInfo
from core.auth import Principal
from core.clock import Clock, SystemClock, from_epoch, to_epoch
from core.errors import InvalidInput, NotFound, StoreUnavailable
from core.scopes import agent_scope, check_scope, is_identifier
from core.transactions import transaction

FILENAME = 'registry.sqlite3'
TOKEN_PREFIX = 'mnm_'

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tokens (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at REAL NOT NULL,
    revoked_at REAL
);
CREATE INDEX IF NOT EXISTS tokens_agent ON tokens(agent_id);
CREATE TABLE IF NOT EXISTS teams (
    id TEXT PRIMARY KEY,
    leader TEXT NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS team_members (
    team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    PRIMARY KEY (team_id, agent_id)
);
CREATE INDEX IF NOT EXISTS team_members_agent ON team_members(agent_id);
"""


def hash_token(token: str) -> str:
    """The stored form of a token: hex sha256 (tokens are random, so no salt is needed)."""
    return hashlib.sha256(token.encode('utf-8')).hexdigest()


class Registry:
    """Tokens and teams over one SQLite file; thread-safe, and shareable by local processes."""

    def __init__(self, path: Path, clock: Clock | None = None) -> None:
        self.path = path.resolve()
        self._clock = clock or SystemClock()
        self._lock = threading.Lock()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # one connection guarded by a lock: requests are tiny, and the lock keeps
            # sqlite3's per-connection state safe across Flask threads
            self._conn = sqlite3.connect(
                self.path, timeout=10.0, check_same_thread=False, isolation_level=None
            )
            self._conn.execute('PRAGMA journal_mode=WAL')
            self._conn.execute('PRAGMA synchronous=NORMAL')
            self._conn.execute('PRAGMA foreign_keys=ON')
            self._conn.executescript(_SCHEMA)
        except sqlite3.Error as exc:
            raise StoreUnavailable(f'cannot open the token registry at {path}: {exc}') from exc

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                # IMMEDIATE takes the write lock up front, so two processes never deadlock
                with transaction(self._conn, 'BEGIN IMMEDIATE'):
                    yield self._conn
            except sqlite3.Error as exc:
                raise StoreUnavailable(f'token registry error: {exc}') from exc

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreUnavailable(f'token registry error: {exc}') from exc

    # ---- tokens ---------------------------------------------------------------------------

    def issue_token(self, agent_id: str, scopes: Sequence[str] = ()) -> tuple[TokenInfo, str]:
        """A new random token for `agent_id` with extra `scopes`; the secret is returned once."""
        _check_id('agent_id', agent_id)
        for index, scope in enumerate(scopes):
            check_scope_field(scope, f'scopes.{index}')
        extra = tuple(dict.fromkeys(scopes))
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = TokenInfo(
            token_id='tok_' + secrets.token_hex(8),
            agent_id=agent_id,
            scopes=extra,
            created_at=self._clock.now(),
        )
        with self._tx() as conn:
            conn.execute(
                'INSERT INTO tokens (id, token_hash, agent_id, scopes, created_at) '
                'VALUES (?, ?, ?, ?, ?)',
                (
                    info.token_id,
                    hash_token(token),
                    agent_id,
                    json.dumps(list(extra)),
                    to_epoch(info.created_at),
                ),
            )
        return info, token

    def revoke_token(self, token_id: str) -> TokenInfo:
        """Revoke a live token; NotFound when unknown or already revoked."""
        now = self._clock.now()
        with self._tx() as conn:
            cur = conn.execute(
                'UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL',
                (to_epoch(now), token_id),
            )
            if cur.rowcount == 0:
                raise NotFound('token', token_id)
        found = self.tokens(token_id=token_id, include_revoked=True)
        return found[0]

    def tokens(
        self,
        agent_id: str | None = None,
        *,
        token_id: str | None = None,
        include_revoked: bool = False,
    ) -> list[TokenInfo]:
        """Registered tokens (never their secrets), oldest first."""
        sql = 'SELECT id, agent_id, scopes, created_at, revoked_at FROM tokens WHERE 1=1'
        params: list[object] = []
        if agent_id is not None:
            sql += ' AND agent_id = ?'
            params.append(agent_id)
        if token_id is not None:
            sql += ' AND id = ?'
            params.append(token_id)
        if not include_revoked:
            sql += ' AND revoked_at IS NULL'
        rows = self._read(sql + ' ORDER BY created_at, id', params)
        return [_token_info(row) for row in rows]

    def lookup(self, token: str) -> TokenInfo | None:
        """The live token matching this secret, or None."""
        rows = self._read(
            'SELECT id, agent_id, scopes, created_at, revoked_at FROM tokens '
            'WHERE token_hash = ? AND revoked_at IS NULL',
            (hash_token(token),),
        )
        return _token_info(rows[0]) if rows else None

    def principal_for(self, token: str) -> Principal | None:
        """The principal of a live agent token (teams resolved now), or None."""
        info = self.lookup(token)
        if info is None:
            return None
        leaders = [leader for leader in self.leaders_of(info.agent_id) if leader != info.agent_id]
        return Principal(
            name=agent_scope(info.agent_id),
            agent_id=info.agent_id,
            extra_scopes=info.scopes,
            leader_scopes=tuple(agent_scope(leader) for leader in leaders),
        )

    # ---- teams ----------------------------------------------------------------------------

    def put_team(self, team_id: str, leader: str, members: Sequence[str]) -> Team:
        """Create or replace a team."""
        _check_id('team_id', team_id)
        _check_id('leader', leader)
        for index, member in enumerate(members):
            _check_id(f'members.{index}', member)
            if member == leader:
                raise InvalidInput(f'members.{index}', 'the leader cannot also be a member')
        unique = tuple(dict.fromkeys(members))
        now = self._clock.now()
        with self._tx() as conn:
            conn.execute(
                'INSERT INTO teams (id, leader, updated_at) VALUES (?, ?, ?) '
                'ON CONFLICT(id) DO UPDATE SET leader = excluded.leader, '
                'updated_at = excluded.updated_at',
                (team_id, leader, to_epoch(now)),
            )
            conn.execute('DELETE FROM team_members WHERE team_id = ?', (team_id,))
            conn.executemany(
                'INSERT INTO team_members (team_id, agent_id) VALUES (?, ?)',
                [(team_id, member) for member in unique],
            )
        return Team(team_id=team_id, leader=leader, members=unique, updated_at=now)

    def get_team(self, team_id: str) -> Team:
        """A team by id, or NotFound."""
        rows = self._read('SELECT leader, updated_at FROM teams WHERE id = ?', (team_id,))
        if not rows:
            raise NotFound('team', team_id)
        leader, updated_at = rows[0]
        members = self._read(
            'SELECT agent_id FROM team_members WHERE team_id = ? ORDER BY agent_id', (team_id,)
        )
        return Team(
            team_id=team_id,
            leader=str(leader),
            members=tuple(str(m[0]) for m in members),
            updated_at=from_epoch(_float(updated_at)),
        )

    def delete_team(self, team_id: str) -> None:
        """Delete a team; NotFound when unknown."""
        with self._tx() as conn:
            if conn.execute('DELETE FROM teams WHERE id = ?', (team_id,)).rowcount == 0:
                raise NotFound('team', team_id)

    def leaders_of(self, agent_id: str) -> list[str]:
        """Leaders of every team `agent_id` is a member of, sorted."""
        rows = self._read(
            'SELECT DISTINCT t.leader FROM team_members m JOIN teams t ON t.id = m.team_id '
            'WHERE m.agent_id = ? ORDER BY t.leader',
            (agent_id,),
        )
        return [str(row[0]) for row in rows]

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            self._conn.close()


def check_scope_field(scope: str, field: str) -> str:
    """`scope` unchanged, or InvalidScope naming `field`."""
    from core.errors import InvalidScope

    try:
        return check_scope(scope)
    except InvalidScope:
        raise InvalidScope(str(scope), field) from None


def _check_id(field: str, value: str) -> None:
    if not isinstance(value, str) or not is_identifier(value):
        raise InvalidInput(field, 'ids match [A-Za-z0-9_.-]{1,128}')


def _token_info(row: tuple[object, ...]) -> TokenInfo:
    ident, agent_id, scopes, created_at, revoked_at = row
    return TokenInfo(
        token_id=str(ident),
        agent_id=str(agent_id),
        scopes=tuple(json.loads(str(scopes))),
        created_at=from_epoch(_float(created_at)),
        revoked_at=from_epoch(_float(revoked_at)) if revoked_at is not None else None,
    )


def _float(value: object) -> float:
    assert isinstance(value, int | float), value
    return float(value)


_shared_lock = threading.Lock()
