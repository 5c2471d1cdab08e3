"""kg.forget: a retracted fact of a single-valued predicate no longer ends the fact before it,
which holds again until the next live fact of its slot; other facts are left as they were."""

from __future__ import annotations

from datetime import UTC, datetime

from kg.forget import forget_sources
from kg.models import Entity, EntityType, Mention, Relation, entity_id, relation_id
from kg.nx_store import NetworkxGraphStore

SCOPE = 'agent:a'
T = [datetime(2020 + i, 1, 1, tzinfo=UTC) for i in range(5)]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def ent(name: str) -> Entity:
    return Entity(
        id=entity_id(SCOPE, name.lower()),
        scope=SCOPE,
        name=name,
        canonical_name=name.lower(),
        type=EntityType.PERSON,
        created_at=T[0],
        updated_at=T[0],
    )


def fact(
    subj: Entity, pred: str, obj: Entity, start: datetime, chunk: str, **kw: object
) -> Relation:
    return Relation.model_validate(
        {
            'id': relation_id(SCOPE, subj.id, pred, obj.id, start),
            'scope': SCOPE,
            'subject_id': subj.id,
            'predicate': pred,
            'object_id': obj.id,
            'valid_from': start,
            'recorded_at': start,
            'source_chunk': chunk,
            **kw,
        }
    )


def stored(entities: list[Entity], facts: list[Relation]) -> NetworkxGraphStore:
    """A graph of `facts`, each mentioned by the chunk it was read from."""
    store = NetworkxGraphStore()
    store.upsert_entities(entities)
    store.add_relations(facts)
    store.add_mentions(
        [
            Mention(entity_id=e, source_id=str(f.source_chunk), scope=SCOPE, at=f.recorded_at)
            for f in facts
            for e in (f.subject_id, f.object_id)
        ]
    )
    return store


def people(*names: str) -> list[Entity]:
    return [ent(n) for n in names]


def ends(store: NetworkxGraphStore, who: Entity) -> dict[str, tuple[datetime | None, bool]]:
    return {r.id: (r.valid_to, r.expired_at is not None) for r in store.relations_of([who.id])}


def test_the_fact_a_deleted_source_had_ended_holds_again() -> None:
    ann, leeds, york = people('Ann', 'Leeds', 'York')
    old = fact(ann, 'lives_in', leeds, T[0], 'c1', valid_to=T[2])
    new = fact(ann, 'lives_in', york, T[2], 'c2')
    store = stored([ann, leeds, york], [old, new])
    forget_sources(store, ['c2'], NOW)
    assert ends(store, ann) == {old.id: (None, False), new.id: (None, True)}


def test_it_ends_again_where_the_next_live_fact_of_the_slot_begins() -> None:
    ann, leeds, york, bath = people('Ann', 'Leeds', 'York', 'Bath')
    first = fact(ann, 'lives_in', leeds, T[0], 'c1', valid_to=T[2])
    second = fact(ann, 'lives_in', york, T[2], 'c2', valid_to=T[4])
    third = fact(ann, 'lives_in', bath, T[4], 'c3')
    store = stored([ann, leeds, york, bath], [first, second, third])
    forget_sources(store, ['c2'], NOW)
    assert ends(store, ann)[first.id] == (T[4], False)
    assert ends(store, ann)[third.id] == (None, False)


def test_facts_of_other_predicates_and_other_ends_are_left_alone() -> None:
    ann, tea, acme, globex = people('Ann', 'Tea', 'Acme', 'Globex')
    liked = fact(ann, 'likes', tea, T[0], 'c1', valid_to=T[2])
    job = fact(ann, 'works_at', acme, T[0], 'c1', valid_to=T[3])
    gone = fact(ann, 'works_at', globex, T[2], 'c2')
    store = stored([ann, tea, acme, globex], [liked, job, gone])
    forget_sources(store, ['c2'], NOW)
    assert ends(store, ann)[liked.id] == (T[2], False)
    assert ends(store, ann)[job.id] == (T[3], False)
