"""What the graph keeps of a deleted source: its mentions go, the facts only it said are retracted.

A delete retracts (`expired_at`): `as_of` history reads still show what was once recorded and
when it was withdrawn. Forgetting a user or a scope (the right to be forgotten) erases instead:
the facts it retracts and the entities nothing else names are deleted for good, since a
retracted fact still holds the sentence it was read from.

A retracted fact no longer ends the facts it had closed: "lives in Leeds", closed where "moved
to York" began, holds again once York's only source is deleted, as the memory that stated Leeds
is current again in search (recall.write.restoration). Only the earlier fact's end changes: it
moves to where the next live fact of the slot begins, or goes, and nothing else is touched.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kg.models import Relation, RelationUpdate
from kg.ports import GraphStore
from kg.temporal import is_functional, start_of


def forget_sources(
    store: GraphStore, ids: Sequence[str], now: datetime
) -> tuple[list[str], list[str]]:
    """Drop the MENTIONS of deleted chunks/episodes and retract the current facts read from them,
    unless a live chunk still names both ends of the fact (it says it too, in all likelihood:
    a fact re-read from a second chunk keeps the id and source of the first). Returns the
    entities the sources named and the ids of the facts retracted."""
    gone = set(ids)
    named = store.forget_sources(list(ids))
    if not named:
        return [], []
    current = [r for r in store.relations_of(named) if r.expired_at is None]
    ends = list(dict.fromkeys(e for r in current for e in (r.subject_id, r.object_id)))
    live = {e: set(c) for e, c in store.chunk_mentions(ends).items()}

    def orphaned(rel: Relation) -> bool:
        # read from a chunk deleted now, or earlier while another chunk still said it
        source = rel.source_chunk
        return source is not None and (source in gone or source not in live.get(rel.subject_id, ()))

    expired = [
        RelationUpdate(id=r.id, subject_id=r.subject_id, expired_at=now)
        for r in current
        if (r.source_episode in gone or orphaned(r))
        and not (live.get(r.subject_id, set()) & live.get(r.object_id, set()))
    ]
    if expired:
        gone_facts = {u.id for u in expired}
        retracted = [r for r in current if r.id in gone_facts]
        store.update_relations([*expired, *_reopened(current, retracted)])
    return named, [u.id for u in expired]


def _reopened(current: Sequence[Relation], retracted: Sequence[Relation]) -> list[RelationUpdate]:
    """The facts a retracted fact of a single-valued predicate had ended (their end is where it
    began), each ended again where the next live fact of its subject and predicate begins, or
    open. `current`: every unretracted fact of the entities involved, `retracted` included."""
    gone = {r.id for r in retracted}
    ends = {(r.scope, r.subject_id, r.predicate, start_of(r)) for r in retracted}
    ends = {e for e in ends if is_functional(e[2])}
    out: list[RelationUpdate] = []
    for rel in current:
        key = (rel.scope, rel.subject_id, rel.predicate, rel.valid_to)
        if rel.id in gone or rel.valid_to is None or key not in ends:
            continue
        start = start_of(rel)
        later = sorted(
            start_of(r)
            for r in current
            if r.id not in gone
            and r.id != rel.id
            and (r.scope, r.subject_id, r.predicate) == key[:3]
            and start_of(r) > start
        )
        if not later:
            out.append(RelationUpdate(id=rel.id, subject_id=rel.subject_id, reopen=True))
        elif later[0] != rel.valid_to:
            out.append(RelationUpdate(id=rel.id, subject_id=rel.subject_id, valid_to=later[0]))
    return out


def erase_sources(
    store: GraphStore, ids: Sequence[str], now: datetime, scope: str | None
) -> tuple[int, int]:
    """Forget sources for good: retract as `forget_sources` does, then erase the facts retracted
    and the entities no source names any more and no current fact needs; with `scope`, every
    entity and fact of that scope. Returns (facts erased, entities erased)."""
    named, retracted = forget_sources(store, ids, now)
    if scope is not None:
        entities = [e.id for e in store.list_entities(scope)]
        facts = {r.id for r in store.relations_of(entities)}
        store.purge(sorted(facts), entities)
        return len(facts | set(retracted)), len(entities)
    left = {r.id for r in store.relations_of(named) if r.expired_at is None} - set(retracted)
    needed = {
        e for r in store.relations_of(named) if r.id in left for e in (r.subject_id, r.object_id)
    }
    mentioned = {m.entity_id for m in store.mentions(named, len(named) * 1000 + 1)}
    entities = [e for e in named if e not in needed and e not in mentioned]
    store.purge(retracted, entities)
    return len(retracted), len(entities)
