"""What a delete gives back: the memories a deleted memory had outdated are current again.

A supersession record names the memory that replaced a fact by its id (`superseded_by`, and
`by` in each `stale` record), and ids are uuid5(scope, user, text). Left behind by a delete, a
record would name a memory that no longer exists; worse, the next write of the same text (by
anyone, at any trust) gets that id back and silently inherits the old supersession: a tool's
write would appear to outdate a user's memory it could never have outdated itself. A deleted
memory no longer says anything, so a delete drops every record that names it, on every path
that removes memories (`MemoryWriter.delete_many`: a single delete, documents, the expiry job,
forgetting a user).

The memories that lose a record are then weighed again against the live memories of their
slots, as if the deleted one had never been written (`Superseder.reweigh`): current again,
unless another live memory states a later value of the slot, which then outdates them in its
own name ("I live in Leeds", "I moved to York", "I moved to Bath", York deleted: Leeds stays
outdated, now by Bath).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from core.clock import to_epoch
from recall.models import ANY_USER, MEMORIES, Chunk
from recall.write.merging import stated_at
from recall.write.superseder import Superseder
from recall.write.supersession import RECORD_KINDS
from vectors.models import PointFilter, StoredPoint
from vectors.paging import scroll_pages
from vectors.ports import VectorStore

_PAGE = 512


def restore(
    vectors: VectorStore, superseder: Superseder, gone: Sequence[StoredPoint], now: datetime
) -> dict[str, dict[str, Any]]:
    """Undo what the deleted memories `gone` (their payloads as read before the delete) had
    outdated, in the store. Call it after the delete, under the scopes' write locks. The
    records naming `gone` are cleared first, so that the memories that held them see each
    other as live when they are weighed again. Returns every payload change made."""
    ids = {p.id for p in gone}
    holders = _naming(vectors, gone, ids)
    if not holders:
        return {}
    at = to_epoch(now)
    cleared = {c.id: _cleared(c, ids, at) for c in holders}
    vectors.set_payload(MEMORIES, cleared)
    changes: dict[str, dict[str, Any]] = {i: dict(c) for i, c in cleared.items()}
    # oldest first: a memory stated later outdates the older ones when its turn comes
    again = sorted(
        (c.model_copy(update=_fields(cleared[c.id])) for c in holders),
        key=lambda c: (stated_at(c.to_payload()), c.id),
    )
    superseder.reweigh(again, changes, now)
    vectors.set_payload(MEMORIES, changes)
    return changes


def _naming(vectors: VectorStore, gone: Sequence[StoredPoint], ids: Collection[str]) -> list[Chunk]:
    """The stored memories with a record naming one of `ids`. Supersession only ever links two
    memories of one owner in one scope, so only those owners' memories are read; records of
    texts (documents, summaries) are never superseded and are left out."""
    owners = sorted(
        {
            (str(p.payload.get('scope')), str(p.payload.get('owner') or ANY_USER))
            for p in gone
            if p.payload.get('kind') not in RECORD_KINDS
        }
    )
    found: list[Chunk] = []
    for scope, owner in owners:
        flt = PointFilter(
            scopes=[scope], any_of={'owner': [owner]}, none_of={'kind': sorted(RECORD_KINDS)}
        )
        for page in scroll_pages(vectors, MEMORIES, flt, _PAGE):
            found += [
                Chunk.from_payload(p.payload)
                for p in page
                if p.id not in ids and _names(p.payload, ids)
            ]
    return found


def _names(payload: Mapping[str, Any], ids: Collection[str]) -> bool:
    if payload.get('superseded_by') in ids:
        return True
    return any(isinstance(r, dict) and r.get('by') in ids for r in payload.get('stale') or [])


def _cleared(chunk: Chunk, ids: Collection[str], at: float) -> dict[str, Any]:
    """`chunk`'s records without those naming `ids`; shown again if one of them hid it."""
    change: dict[str, Any] = {
        'stale': [r for r in chunk.stale if r.get('by') not in ids],
        'updated_at': at,
    }
    if chunk.superseded_by in ids:
        change.update(superseded=False, superseded_by=None, supersession=None)
    return change


def _fields(change: Mapping[str, Any]) -> dict[str, Any]:
    """The model fields of a payload change (times stay the chunk's own)."""
    return {k: v for k, v in change.items() if k != 'updated_at'}
