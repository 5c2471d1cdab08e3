"""The agent directory port: bearer tokens bound to agents, and teams.

Only `agents/registry.py` (SQLite) implements it today; a real database would be another adapter.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from core.auth import Principal


class TokenInfo(BaseModel):
    """A registered agent token, without its secret."""

    model_config = ConfigDict(frozen=True)

    token_id: str
    agent_id: str
    scopes: tuple[str, ...]
    created_at: datetime
    revoked_at: datetime | None = None


class Team(BaseModel):
    """A leader and members; members read the leader's memory as fallback and never write it."""

    model_config = ConfigDict(frozen=True)

    team_id: str
    leader: str
    members: tuple[str, ...]
    updated_at: datetime


class AgentDirectory(Protocol):
    """Agent tokens (only a hash is kept) and teams; read per request, so changes apply at once."""

    def issue_token(self, agent_id: str, scopes: Sequence[str] = ()) -> tuple[TokenInfo, str]:
        """A new token for `agent_id` with extra writable `scopes`: its info and the secret."""
        ...

    def revoke_token(self, token_id: str) -> TokenInfo:
        """Revoke a token (NotFound when unknown or already revoked)."""
        ...

    def tokens(
        self,
        agent_id: str | None = None,
        *,
        token_id: str | None = None,
        include_revoked: bool = False,
    ) -> list[TokenInfo]:
        """Registered tokens (never their secrets), oldest first."""
        ...

    def principal_for(self, token: str) -> Principal | None:
        """The principal of a live agent token, team leaders included; None when unknown."""
        ...

    def put_team(self, team_id: str, leader: str, members: Sequence[str]) -> Team:
        """Create or replace a team."""
        ...

    def get_team(self, team_id: str) -> Team:
        """A team, or NotFound."""
        ...

    def leaders_of(self, agent_id: str) -> list[str]:
        """Leaders of the teams `agent_id` is a member of."""
        ...

    def delete_team(self, team_id: str) -> None:
        """Delete a team (NotFound when unknown)."""
        ...
