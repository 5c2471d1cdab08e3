"""Pure temporal rules: functional predicates supersede, others accumulate; as-of filtering."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from pydantic import BaseModel, Field

from kg.models import Relation, RelationUpdate

# A subject holds at most one object of these at a time: a new one ends the old one.
FUNCTIONAL_PREDICATES = frozenset(
    {
        'works_at',
        'lives_in',
        'married_to',
        'prefers',
        'role',
        'located_in',
        'age',
        'dating',
        'engaged_to',
        'studies_at',
        'reports_to',
    }
)

_EARLIEST = datetime.min.replace(tzinfo=UTC)


class Reconciliation(BaseModel):
    """How a new fact changes one subject's facts: insert it, close others, or nothing."""

    insert: Relation | None = None
    updates: list[RelationUpdate] = Field(default_factory=list)
    duplicate_of: str | None = None


def is_functional(predicate: str) -> bool:
    """True when a subject can hold only one object of `predicate` at a time."""
    return predicate in FUNCTIONAL_PREDICATES


def start_of(rel: Relation) -> datetime:
    """World start of a fact; unknown starts fall back to when it was recorded."""
    return rel.valid_from or rel.recorded_at


def valid_at(rel: Relation, as_of: datetime) -> bool:
    """True when `rel` held at world time `as_of` and has not been retracted."""
    if rel.expired_at is not None:
        return False
    if rel.valid_from is not None and rel.valid_from > as_of:
        return False
    return rel.valid_to is None or as_of < rel.valid_to


def as_of(relations: Iterable[Relation], when: datetime) -> list[Relation]:
    """The relations valid at `when`."""
    return [r for r in relations if valid_at(r, when)]


def history(relations: Iterable[Relation]) -> list[Relation]:
    """Relations in world-time order (then recording order): the story of a subject."""
    return sorted(relations, key=lambda r: (r.valid_from or _EARLIEST, r.recorded_at, r.id))


def reconcile(existing: Sequence[Relation], new: Relation) -> Reconciliation:
    """Apply the temporal rules for `new` against the stored facts of the same subject.

    Only facts with the same subject and predicate take part, so a fact about Alice can never
    close a fact about Bob. Re-asserting a fact that already holds is a no-op. For a functional
    predicate the fact holding at the new start is closed there, and a new fact that arrives
    out of order (older than the current one) is closed where the next known fact begins.
    """
    mine = [
        r
        for r in existing
        if r.subject_id == new.subject_id
        and r.predicate == new.predicate
        and r.scope == new.scope
        and r.expired_at is None
    ]
    start = start_of(new)
    holding = [r for r in mine if _holds(r, start)]
    same = [r for r in holding if r.object_id == new.object_id]
    if same:
        return Reconciliation(duplicate_of=same[0].id)
    if any(r.id == new.id for r in mine):
        return Reconciliation(duplicate_of=new.id)
    if not is_functional(new.predicate):
        return Reconciliation(insert=new)
    updates = [
        RelationUpdate(id=r.id, subject_id=r.subject_id, valid_to=start)
        for r in holding
        if r.object_id != new.object_id
    ]
    later = sorted(start_of(r) for r in mine if start_of(r) > start)
    insert = new
    if later and (new.valid_to is None or new.valid_to > later[0]):
        insert = new.model_copy(update={'valid_to': later[0]})
    return Reconciliation(insert=insert, updates=updates)


def _holds(rel: Relation, when: datetime) -> bool:
    if start_of(rel) > when:
        return False
    return rel.valid_to is None or when < rel.valid_to


def apply_updates(
    relations: Sequence[Relation], updates: Sequence[RelationUpdate]
) -> list[Relation]:
    """`relations` with `updates` applied (pure; for batching several facts of one subject)."""
    by_id = {u.id: u for u in updates}
    out = []
    for rel in relations:
        upd = by_id.get(rel.id)
        if upd is None:
            out.append(rel)
            continue
        changes: dict[str, datetime | None] = {}
        if upd.valid_to is not None:
            changes['valid_to'] = upd.valid_to
        elif upd.reopen:
            changes['valid_to'] = None
        if upd.expired_at is not None:
            changes['expired_at'] = upd.expired_at
        out.append(rel.model_copy(update=changes))
    return out
