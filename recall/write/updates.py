"""Edits of a stored memory: the fields a caller may change, and the old state kept as history.

An edit keeps the memory's id, so every reference to it (a client's, the graph's, a neighbour's
`prev_id`) stays valid. The state it replaces goes into the memory's `versions`, which no search
reads: only the current text is embedded, BM25-encoded and extracted into the graph. A text change
therefore re-embeds the memory, forgets what the graph learned from the old text (retracting the
facts only it said) and queues the new text for extraction, all through `MemoryWriter`.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.clock import Clock
from core.errors import InvalidInput, NotFound
from recall.models import MEMORIES, Chunk, MemoryVersion
from recall.normalize import content_hash
from recall.recall_block import strip_recall_blocks
from recall.schemas import MemoryText, Metadata, Tags
from recall.speakers import speaker_of
from recall.tiers import Tier
from recall.write.facts import facts_of
from recall.write.guards import explicit_skip
from recall.write.supersession import slot_tags
from recall.write.writer import MemoryWriter
from vectors.ports import VectorStore

EDITABLE = ('text', 'tags', 'importance', 'pinned', 'metadata')
SLOT_TAG_PREFIX = 'slot:'


class MemoryPatch(BaseModel):
    """The fields of a memory to change; those left out stay as they are. `tags` and
    `metadata` replace the stored ones. `reason` is kept with the replaced version."""

    model_config = ConfigDict(extra='forbid')

    text: MemoryText | None = Field(
        default=None, description='new text: re-embedded and extracted into the graph again'
    )
    tags: Tags | None = Field(default=None, description='replaces the tags')
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    pinned: bool | None = Field(default=None, description='true: Core, never demoted')
    metadata: Metadata | None = Field(default=None, description='replaces the metadata')
    reason: str | None = Field(
        default=None, min_length=1, max_length=500, description='why: kept in the history'
    )

    @field_validator('*', mode='before')
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise ValueError('must not be null; leave the field out to keep it')
        return value

    @model_validator(mode='after')
    def _something_to_change(self) -> Self:
        if not self.model_fields_set & set(EDITABLE):
            raise ValueError(f'nothing to change: give at least one of {", ".join(EDITABLE)}')
        return self


class MemoryEditor:
    """Applies a `MemoryPatch` to a stored memory through `MemoryWriter`, keeping the state it
    replaces as the memory's previous version."""

    def __init__(self, vectors: VectorStore, writer: MemoryWriter, clock: Clock) -> None:
        self._vectors = vectors
        self._writer = writer
        self._clock = clock

    def edit(self, ident: str, patch: MemoryPatch) -> Chunk:
        """The memory after the edit; NotFound when there is none, InvalidInput (naming
        `text`) for a text the write guards refuse. An edit that changes nothing records no
        version."""
        text = None
        if patch.text is not None:
            text = strip_recall_blocks(patch.text) or patch.text
            self._writer.check_text(text)
            refused = explicit_skip(text)
            if refused is not None:
                raise InvalidInput('text', f'refused by the write guards ({refused})')
        scope = self._payload(ident)['scope']
        # the scope's write lock: a merge into this memory reads then writes its payload too
        with self._writer.locked([str(scope)]):
            payload = self._payload(ident)
            chunk = Chunk.from_payload(payload)
            change = _changed_fields(chunk, patch, text)
            if not change:
                return chunk
            edited = self._apply(chunk, change, patch.reason)
            if 'text' in change:
                self._store_new_text(edited, payload)
                # as stored: masked, and weighed again against the memories it may outdate
                edited = Chunk.from_payload(self._payload(ident))
            else:
                stored = edited.to_payload()
                names = (*change, 'tags', 'tier', 'versions', 'updated_at')
                self._writer.update({ident: {name: stored[name] for name in names}})
        return edited

    def _payload(self, ident: str) -> dict[str, Any]:
        found = self._vectors.retrieve(MEMORIES, [ident])
        if not found:
            raise NotFound('memory', ident)
        return dict(found[0].payload)

    def _apply(self, chunk: Chunk, change: dict[str, Any], reason: str | None) -> Chunk:
        now = self._clock.now()
        since = (chunk.versions[-1].replaced_at if chunk.versions else None) or chunk.created_at
        previous = MemoryVersion(
            version=len(chunk.versions) + 1,
            text=chunk.text,
            tags=chunk.tags,
            importance=chunk.importance,
            pinned=chunk.pinned,
            metadata=chunk.metadata,
            since=since,
            replaced_at=now,
            changed=sorted(change),
            reason=reason,
        )
        update: dict[str, Any] = {**change, 'versions': [*chunk.versions, previous]}
        update['updated_at'] = now
        if 'pinned' in change:
            unpinned = Tier.WORKING if chunk.tier == Tier.CORE else chunk.tier
            update['tier'] = Tier.CORE if change['pinned'] else unpinned
        if 'tags' in change or 'text' in change:
            tags = change.get('tags', chunk.tags)
            if 'text' in change:  # the old text's slots (and a legacy slot tag) go with it
                tags = [t for t in tags if not t.startswith(SLOT_TAG_PREFIX)]
                update['slots'] = slot_tags(facts_of(change['text']))
            update['tags'] = tags
        if 'text' in change:
            text = change['text']
            update['content_hash'] = content_hash(text)
            update['speaker'] = speaker_of(
                text, change.get('metadata', chunk.metadata), chunk.user_id
            )
            update['abstract'] = None  # it summarised the old text
        return chunk.model_copy(update=update)

    def _store_new_text(self, edited: Chunk, stored: dict[str, Any]) -> None:
        """Re-embed and upsert the edited memory, then have the graph forget the old text and
        extract the new one."""
        [vector] = self._writer.embedder.embed([edited.text])
        self._writer.forget_graph([edited.id])
        self._writer.store([edited], {edited.id: vector})
        # payload keys this version's Chunk model does not know stay as they were
        known = set(edited.to_payload())
        kept = {k: v for k, v in stored.items() if k not in known}
        if kept:
            self._writer.update({edited.id: kept})
        # the supersession the old text made may not hold for the new one, and the new one
        # may outdate memories of its own
        self._writer.reweigh_edited(edited.id)


def _changed_fields(chunk: Chunk, patch: MemoryPatch, text: str | None) -> dict[str, Any]:
    wanted: dict[str, Any] = {
        name: getattr(patch, name) for name in EDITABLE if name in patch.model_fields_set
    }
    if text is not None:
        wanted['text'] = text
    return {name: value for name, value in wanted.items() if getattr(chunk, name) != value}
