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

Records written before deletes dropped them, or carried in by a hydrated snapshot, may still
name a memory that does not exist (a dangling superseder): `dangling` finds their holders from
the keyword indexes of the naming keys, and `repair` treats each as a delete of what it names
(the expiry sweep runs both, before its pruning, which would remove such a hidden memory).
An edit of a memory's text weighs again the records it made (`reweigh_edited`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from core.clock import to_epoch
from recall.models import ANY_USER, MEMORIES, Chunk
from recall.write.merging import stated_at
from recall.write.superseder import Superseder
from recall.write.supersession import RECORD_KINDS, Stated, fully_replaced
from vectors.models import PointFilter, StoredPoint
from vectors.paging import scroll_pages
from vectors.ports import VectorStore

_PAGE = 512
# distinct ids one facet of a naming key lists; more, and the memories are read instead
_FACET_LIMIT = 100_000
# the payload keys a supersession record names a memory by (both indexed, recall.models)
_NAMING_KEYS = ('superseded_by', 'stale[].by')


def restore(
    vectors: VectorStore, superseder: Superseder, gone: Sequence[StoredPoint], now: datetime
) -> dict[str, dict[str, Any]]:
    """Undo what the deleted memories `gone` (their payloads as read before the delete) had
    outdated, in the store. Call it after the delete, under the scopes' write locks. Returns
    every payload change made."""
    stating = [p for p in gone if _states_facts(p.payload)]
    ids = {p.id for p in stating}
    return _dropped(vectors, superseder, [(c, ids) for c in _naming(vectors, stating, ids)], now)


def relink(
    vectors: VectorStore,
    superseder: Superseder,
    ids: Sequence[str],
    renamed: Mapping[tuple[str, str], str],
    now: datetime,
) -> dict[str, dict[str, Any]]:
    """Imported memories (`ids`) made to name memories of their own scope. An import stores a
    record under another id when its own is taken in another scope (`renamed`: (scope, id in
    the file) -> id stored), so the records that name it follow it; a record naming a memory
    its scope does not hold (it was not in the file) is dropped as a delete drops it. Call it
    under the scopes' write locks. Returns every payload change made."""
    chunks = [Chunk.from_payload(p.payload) for p in vectors.retrieve(MEMORIES, list(ids))]
    moved = {c.id: _renamed(c, renamed) for c in chunks}
    named = sorted({i for c in moved.values() for i in _named_by(c)})
    held = {p.id: p.payload.get('scope') for p in vectors.retrieve(MEMORIES, named)}
    changes: dict[str, dict[str, Any]] = {}
    orphans: list[tuple[Chunk, set[str]]] = []
    for old in chunks:
        chunk = moved[old.id]
        if chunk != old:
            # the same memory under its own scope's ids: not an update of it (no updated_at)
            fields = {'stale', 'superseded_by', 'supersession'}
            changes[chunk.id] = chunk.model_dump(mode='json', include=fields)
        missing = {i for i in _named_by(chunk) if held.get(i) != chunk.scope}
        if missing:
            orphans.append((chunk, missing))
    if changes:
        vectors.set_payload(MEMORIES, changes)
    return {**changes, **_dropped(vectors, superseder, orphans, now)}


def dangling(vectors: VectorStore) -> list[tuple[str, str]]:
    """The memories (id, scope) with a supersession record naming a memory that does not
    exist. The ids the records name come from facets of the keyword indexes of the naming
    keys, so the read is bounded by the memories named, not the memories stored: a store
    without a dangling record costs two facets and a read of the named ids."""
    named = _named_ids(vectors)
    live: set[str] = set()
    for start in range(0, len(named), _PAGE):
        live.update(p.id for p in vectors.retrieve(MEMORIES, named[start : start + _PAGE]))
    missing = [i for i in named if i not in live]
    holders: dict[str, str] = {}
    for key in _NAMING_KEYS:
        for start in range(0, len(missing), _PAGE):
            flt = PointFilter(
                scopes=None,
                any_of={key: list(missing[start : start + _PAGE])},
                none_of={'kind': sorted(RECORD_KINDS)},
            )
            for page in scroll_pages(vectors, MEMORIES, flt, _PAGE):
                holders.update((p.id, str(p.payload.get('scope'))) for p in page)
    return sorted(holders.items())


def repair(
    vectors: VectorStore, superseder: Superseder, ids: Sequence[str], now: datetime
) -> dict[str, dict[str, Any]]:
    """The memories `ids` without their records naming a memory that does not exist, weighed
    again as after the delete of what those records name; a record naming a stored memory is
    kept. Idempotent. Call it under the memories' scopes' write locks. Returns every payload
    change made."""
    chunks = [
        Chunk.from_payload(p.payload)
        for p in vectors.retrieve(MEMORIES, list(ids))
        if p.payload.get('kind') not in RECORD_KINDS
    ]
    named = sorted({i for c in chunks for i in _named_by(c)})
    live = {p.id for p in vectors.retrieve(MEMORIES, named)} if named else set()
    orphans = [(c, gone) for c in chunks if (gone := _named_by(c) - live)]
    return _dropped(vectors, superseder, orphans, now)


def reweigh_edited(
    vectors: VectorStore, superseder: Superseder, ident: str, now: datetime
) -> dict[str, dict[str, Any]]:
    """The memory `ident`, whose text an edit changed and stored, weighed again. Its own records
    about facts the new text no longer states go, and it is hidden only if the rest replace
    all of it. A record naming it that its new text no longer justifies goes the way a delete
    drops it (the holder weighed again against the live memories); one it still justifies is
    kept as it is. Then it outdates what its new text states, as a new write would. Call it
    under its scope's write lock. Returns every payload change made."""
    changes: dict[str, dict[str, Any]] = {}
    found = vectors.retrieve(MEMORIES, [ident])
    if not found:
        return changes
    edited = Chunk.from_payload(found[0].payload)
    own = _own_records(edited)
    if own:
        own['updated_at'] = to_epoch(now)
        vectors.set_payload(MEMORIES, {edited.id: own})
        edited = edited.model_copy(update=_fields(own))
        changes[edited.id] = own
    holders = _naming(vectors, [found[0]], {edited.id})
    justified = superseder.made_by(edited, holders)
    unjustified = [
        (h, {edited.id})
        for h in holders
        if _keys(r for r in h.stale if r.get('by') == edited.id) != _keys(justified[h.id])
    ]
    changes.update(_dropped(vectors, superseder, unjustified, now))
    # as stored now: a holder weighed again may have outdated it in turn
    [stored] = vectors.retrieve(MEMORIES, [edited.id])
    again: dict[str, dict[str, Any]] = {}
    superseder.reweigh([Chunk.from_payload(stored.payload)], again, now)
    again = {i: c for i, c in again.items() if i != edited.id or 'updated_at' in c}
    if again:
        vectors.set_payload(MEMORIES, again)
    return {**changes, **again}


def _own_records(chunk: Chunk) -> dict[str, Any]:
    """The change of an edited memory's own records, empty when it needs none: a record of a
    fact its text no longer states is dropped, and it is hidden exactly when the records left
    replace every fact (its pin protects it from being hidden anew)."""
    stated = Stated.of(chunk.id, chunk.text, chunk.speaker, chunk.slots)
    facts = {(f.clause, f.slot, f.shown()) for f in stated.facts}
    kept = [
        r for r in chunk.stale if (r.get('clause', 0), r.get('slot'), r.get('old_value')) in facts
    ]
    hidden = bool(kept) and fully_replaced(stated, kept) and (chunk.superseded or not chunk.pinned)
    change: dict[str, Any] = {'stale': kept} if len(kept) != len(chunk.stale) else {}
    if chunk.superseded and not hidden:
        change.update(superseded=False, superseded_by=None, supersession=None)
    elif hidden and (not chunk.superseded or chunk.superseded_by not in _by_of(kept)):
        change.update(superseded=True, superseded_by=str(kept[-1]['by']), supersession=kept[-1])
    return change


def _by_of(records: Iterable[Mapping[str, Any]]) -> set[str]:
    return {str(r.get('by')) for r in records}


def _keys(records: Iterable[Mapping[str, Any]]) -> set[tuple[Any, ...]]:
    """What a record says, whatever its order: the clause, slot, both values and the rule."""
    return {
        (r.get('clause', 0), r.get('slot'), r.get('old_value'), r.get('new_value'), r.get('rule'))
        for r in records
    }


def _named_ids(vectors: VectorStore) -> list[str]:
    """Every id a supersession record of a memory names, sorted."""
    flt = PointFilter(scopes=None, none_of={'kind': sorted(RECORD_KINDS)})
    named: set[str] = set()
    for key in _NAMING_KEYS:
        counts = vectors.facet(MEMORIES, key, flt, _FACET_LIMIT)
        if len(counts) >= _FACET_LIMIT:  # the facet may have left ids out: read them all
            return sorted(
                {i for page in scroll_pages(vectors, MEMORIES, flt, _PAGE) for i in _ids_in(page)}
            )
        named.update(counts)
    return sorted(named)


def _ids_in(page: Sequence[StoredPoint]) -> set[str]:
    out: set[str] = set()
    for p in page:
        by = p.payload.get('superseded_by')
        out.update([str(by)] if by else [])
        out.update(str(r['by']) for r in p.payload.get('stale') or [] if _by(r))
    return out


def _by(record: Any) -> bool:
    return isinstance(record, dict) and bool(record.get('by'))


def _dropped(
    vectors: VectorStore,
    superseder: Superseder,
    holders: Sequence[tuple[Chunk, Collection[str]]],
    now: datetime,
) -> dict[str, dict[str, Any]]:
    """Each memory of `holders` without its records naming the ids paired with it, then weighed
    again. The records are cleared in the store first, so that the memories that held them
    see each other as live when they are weighed again."""
    if not holders:
        return {}
    at = to_epoch(now)
    cleared = {c.id: _cleared(c, ids, at) for c, ids in holders}
    vectors.set_payload(MEMORIES, cleared)
    changes: dict[str, dict[str, Any]] = {i: dict(c) for i, c in cleared.items()}
    # oldest first: a memory stated later outdates the older ones when its turn comes
    again = sorted(
        (c.model_copy(update=_fields(cleared[c.id])) for c, _ in holders),
        key=lambda c: (stated_at(c.to_payload()), c.id),
    )
    superseder.reweigh(again, changes, now)
    vectors.set_payload(MEMORIES, changes)
    return changes


def _named_by(chunk: Chunk) -> set[str]:
    """The memories `chunk`'s supersession records name."""
    out = {str(r['by']) for r in chunk.stale if isinstance(r, dict) and r.get('by')}
    return out | ({chunk.superseded_by} if chunk.superseded_by else set())


def _renamed(chunk: Chunk, renamed: Mapping[tuple[str, str], str]) -> Chunk:
    def new(ident: Any) -> Any:
        return renamed.get((chunk.scope, str(ident)), ident)

    stale = [{**r, 'by': new(r.get('by'))} if 'by' in r else r for r in chunk.stale]
    update: dict[str, Any] = {'stale': stale, 'superseded_by': new(chunk.superseded_by)}
    if chunk.supersession and 'by' in chunk.supersession:
        update['supersession'] = {**chunk.supersession, 'by': new(chunk.supersession['by'])}
    return chunk.model_copy(update=update)


def _naming(vectors: VectorStore, gone: Sequence[StoredPoint], ids: Collection[str]) -> list[Chunk]:
    """The stored memories with a record naming one of `ids`. Supersession only ever links two
    memories of one owner in one scope, so only those owners' memories are asked, and only
    those whose indexed `superseded_by` or `stale[].by` is one of `ids`: the read is bounded by
    the records found, not the owner's memories. Records of texts (documents, summaries) are
    never superseded and are left out."""
    owners = sorted(
        {(str(p.payload.get('scope')), str(p.payload.get('owner') or ANY_USER)) for p in gone}
    )
    wanted = sorted(ids)
    found: list[Chunk] = []
    for scope, owner in owners:
        held: dict[str, Chunk] = {}
        for key in _NAMING_KEYS:
            for start in range(0, len(wanted), _PAGE):
                flt = PointFilter(
                    scopes=[scope],
                    any_of={'owner': [owner], key: list(wanted[start : start + _PAGE])},
                    none_of={'kind': sorted(RECORD_KINDS)},
                )
                for page in scroll_pages(vectors, MEMORIES, flt, _PAGE):
                    held.update(
                        (p.id, Chunk.from_payload(p.payload))
                        for p in page
                        if p.id not in ids and _names(p.payload, ids)
                    )
        found += [held[i] for i in sorted(held)]  # in id order, as a scroll of the owner's
    return found


def _states_facts(payload: Mapping[str, Any]) -> bool:
    """Whether a memory could be the one a record names: only a memory that states facts
    replaces or outdates any (recall.write.supersession), and most memories state none, which
    spares their delete the read of their owner's memories. Its slot tags are what the rules
    read when it was written, its facts what they read now."""
    if payload.get('kind') in RECORD_KINDS:
        return False
    if payload.get('slots'):
        return True
    text, speaker = str(payload.get('text', '')), payload.get('speaker')
    return bool(Stated.of('', text, speaker if isinstance(speaker, str) else None).facts)


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
