"""What happened to a memory: its earlier versions, the writes merged into it, what superseded it
(and why) and what it superseded; and who has memories in a scope."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from core.clock import from_epoch
from recall.models import MEMORIES, Chunk, MemoryVersion, MergeRecord
from vectors.models import PointFilter
from vectors.ports import VectorStore

# memories one memory superseded, listed in its history
SUPERSEDED_LISTED = 50


class Superseder(BaseModel):
    """The memory that superseded this one, and why."""

    id: str | None = Field(description='null when the write did not record it')
    text: str | None = Field(description='its text; null when it has been deleted since')
    at: datetime | None = Field(description='when this memory last changed: its supersession')
    reason: str | None = Field(description='why, when the write recorded it')
    details: dict[str, Any] = Field(
        default_factory=dict,
        description='what the write recorded: slot, subject, old_value, new_value, by, rule',
    )


class SupersededMemory(BaseModel):
    """A memory this one superseded."""

    id: str
    text: str
    at: datetime | None


class MemoryHistory(BaseModel):
    """A memory's history: `versions` oldest first, then `current`; the writes merged into it
    (the latest `merges`, `merge_count` in all); its supersession state."""

    id: str
    scope: str
    version: int = Field(description='the current version: 1 + the number of edits')
    current: MemoryVersion
    versions: list[MemoryVersion]
    merges: list[MergeRecord]
    merge_count: int
    superseded: bool = Field(description='true: no longer current, searches leave it out')
    superseded_by: Superseder | None
    supersedes: list[SupersededMemory] = Field(
        description=f'memories this one superseded (at most {SUPERSEDED_LISTED})'
    )
    stale: list[dict[str, Any]] = Field(
        default_factory=list,
        description='facts of this memory that later memories replaced, each with its slot, '
        'both values and the replacing memory (a memory is superseded once all are)',
    )


class UserCount(BaseModel):
    """A user with memories in a scope."""

    user_id: str
    memories: int = Field(description='memories of this user in the scope, superseded ones too')


class UserList(BaseModel):
    """The users with memories in a scope, most memories first."""

    scope: str
    users: list[UserCount]


class HistoryReader:
    """Reads a memory's history and a scope's users from the `memories` collection."""

    def __init__(self, vectors: VectorStore) -> None:
        self._vectors = vectors

    def history(self, chunk: Chunk) -> MemoryHistory:
        """The history of a stored memory (as read by the caller, permissions checked)."""
        since = chunk.versions[-1].replaced_at if chunk.versions else None
        current = MemoryVersion(
            version=len(chunk.versions) + 1,
            text=chunk.text,
            tags=chunk.tags,
            importance=chunk.importance,
            pinned=chunk.pinned,
            metadata=chunk.metadata,
            since=since or chunk.created_at,
        )
        return MemoryHistory(
            id=chunk.id,
            scope=chunk.scope,
            version=len(chunk.versions) + 1,
            current=current,
            versions=chunk.versions,
            merges=chunk.merges,
            merge_count=chunk.merge_count,
            superseded=chunk.superseded,
            superseded_by=self._superseder(chunk),
            supersedes=self._superseded(chunk),
            stale=chunk.stale,
        )

    def _superseder(self, chunk: Chunk) -> Superseder | None:
        if not chunk.superseded:
            return None
        details = dict(chunk.supersession or {})
        by = chunk.superseded_by
        later = self._vectors.retrieve(MEMORIES, [by]) if by else []
        return Superseder(
            id=by,
            text=str(later[0].payload.get('text')) if later else None,
            at=chunk.updated_at,
            reason=_reason(details),
            details=details,
        )

    def _superseded(self, chunk: Chunk) -> list[SupersededMemory]:
        flt = PointFilter(scopes=[chunk.scope], any_of={'superseded_by': [chunk.id]})
        found, _ = self._vectors.scroll(MEMORIES, flt, SUPERSEDED_LISTED)
        out = []
        for point in found:
            at = point.payload.get('updated_at')
            out.append(
                SupersededMemory(
                    id=point.id,
                    text=str(point.payload.get('text', '')),
                    at=from_epoch(float(at)) if isinstance(at, int | float) else None,
                )
            )
        return out

    def users(self, scope: str, limit: int) -> UserList:
        """Users with memories in `scope` (at most `limit`), most memories first."""
        counts = self._vectors.facet(MEMORIES, 'user_id', PointFilter(scopes=[scope]), limit)
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return UserList(scope=scope, users=[UserCount(user_id=u, memories=n) for u, n in ranked])


def _reason(recorded: dict[str, Any]) -> str | None:
    """'lives_in of self: Berlin -> Paris (slot)' from a recorded supersession, if it has one."""
    if not recorded.get('slot'):
        return None
    who = recorded.get('subject') or '?'
    change = f'{recorded.get("old_value")} -> {recorded.get("new_value")}'
    return f'{recorded["slot"]} of {who}: {change} ({recorded.get("rule") or "slot"})'
