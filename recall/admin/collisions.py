"""Import records whose id is already stored: an import appends, it never overwrites.

A record re-scoped to another agent keeps the id of its source scope; stored as it is, it would
move the source's memory. Ids derive from the scope instead. A record whose id is already
stored in its own scope is the same memory and merges into it by the writer's rule: a merge
only adds.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from core.clock import to_epoch
from recall.models import CHUNK_NAMESPACE, Chunk, chunk_id
from recall.normalize import normalize_text
from recall.tiers import Tier


def owned(
    chunk: Chunk, taken: dict[str, str], scopes_of: Callable[[Sequence[str]], dict[str, str]]
) -> Chunk:
    """`chunk` as is when no other scope holds its id; else under an id of its own scope.
    `taken` maps stored ids to their scope; `scopes_of` looks up more of them."""
    if taken.get(chunk.id, chunk.scope) == chunk.scope:
        return chunk
    derived = own_id(chunk, taken)
    taken.update(scopes_of([derived]))
    if taken.get(derived, chunk.scope) != chunk.scope:
        derived = own_id(chunk.model_copy(update={'id': derived}), taken)
    return chunk.model_copy(update={'id': derived})


def own_id(chunk: Chunk, taken: Mapping[str, str]) -> str:
    """An id for `chunk` that no other scope holds (`taken`: stored id -> its scope): the id
    the same write in its scope would get, or one derived from its scope and the record's id."""
    derived = chunk_id(chunk.scope, chunk.user_id, normalize_text(chunk.text))
    if taken.get(derived, chunk.scope) == chunk.scope:
        return derived
    return str(uuid.uuid5(CHUNK_NAMESPACE, f'import\x1f{chunk.scope}\x1f{chunk.id}'))


def merged_import(stored: Mapping[str, Any], chunk: Chunk) -> dict[str, Any]:
    """The payload change of an imported record merging into the stored memory of its id.

    The stored text and fields stay; the pin, the higher importance, the higher access count
    (an export is a copy of the same counter, so it is not added twice), the older event time,
    metadata keys it lacks and the union of tags are taken from the record."""
    pinned = bool(stored.get('pinned')) or chunk.pinned
    record = chunk.to_payload()
    change: dict[str, Any] = {
        'pinned': pinned,
        'importance': max(float(stored.get('importance', 0.5)), chunk.importance),
        'access_count': max(int(stored.get('access_count', 0)), chunk.access_count),
        'metadata': {**chunk.metadata, **stored.get('metadata', {})},
        'tags': list(dict.fromkeys([*stored.get('tags', []), *chunk.tags])),
    }
    if pinned:
        change['tier'] = Tier.CORE.value
    created = stored.get('created_at')
    if not isinstance(created, int | float) or record['created_at'] < created:
        change['created_at'] = to_epoch(chunk.created_at)
    return change


def split_merges(
    batch: Sequence[Chunk], stored: Mapping[str, Mapping[str, Any]]
) -> tuple[dict[str, Chunk], dict[str, dict[str, Any]]]:
    """Records to store as new (a repeated id in the file: the last one wins) and payload
    changes of those that are already stored in their scope (merged, only adding)."""
    keep: dict[str, Chunk] = {}
    merges: dict[str, dict[str, Any]] = {}
    for chunk in batch:
        payload = stored.get(chunk.id)
        if payload is not None and payload.get('scope') == chunk.scope:
            merges[chunk.id] = {**merges.get(chunk.id, {}), **merged_import(payload, chunk)}
        else:
            keep[chunk.id] = chunk
    return keep, merges
