"""Principals: who a bearer token stands for and which scopes it may read and write."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from core.errors import Forbidden, ReadOnlyForTeamMember
from core.scopes import GLOBAL, agent_of


class Principal(BaseModel):
    """The caller: admin (every scope) or an agent bound to its own scopes."""

    model_config = ConfigDict(frozen=True)

    name: str
    admin: bool = False
    agent_id: str | None = None
    extra_scopes: tuple[str, ...] = ()
    leader_scopes: tuple[str, ...] = Field(
        default=(), description="team leaders' scopes: readable as fallback, never writable"
    )

    def can_write(self, scope: str) -> bool:
        """Own agent scope and its channels, and scopes granted explicitly."""
        if self.admin:
            return True
        if self.agent_id is not None and agent_of(scope) == self.agent_id:
            return True
        return scope in self.extra_scopes

    def can_read(self, scope: str) -> bool:
        """Writable scopes, `global`, and team leaders' scopes."""
        return self.can_write(scope) or scope == GLOBAL or scope in self.leader_scopes

    def require_write(self, scope: str) -> None:
        """Raise unless this principal may write `scope`."""
        if self.can_write(scope):
            return
        if scope in self.leader_scopes:
            raise ReadOnlyForTeamMember(scope)
        raise Forbidden(f'token may not write scope {scope!r}', details={'scope': scope})

    def require_read(self, scope: str) -> None:
        """Raise unless this principal may read `scope`."""
        if not self.can_read(scope):
            raise Forbidden(f'token may not read scope {scope!r}', details={'scope': scope})
