"""Temporal rules: functional predicates supersede, others accumulate, subjects never mix."""

from __future__ import annotations

from datetime import UTC, datetime

from kg.dates import resolve_date
from kg.models import Relation, RelationUpdate, relation_id
from kg.temporal import apply_updates, as_of, history, is_functional, reconcile, valid_at

SCOPE = 'agent:a'
Y2023 = datetime(2023, 3, 1, tzinfo=UTC)
Y2024 = datetime(2024, 6, 1, tzinfo=UTC)
Y2025 = datetime(2025, 2, 1, tzinfo=UTC)


def fact(subject: str, predicate: str, obj: str, start: datetime | None, **kw: object) -> Relation:
    data: dict[str, object] = {
        'id': relation_id(SCOPE, subject, predicate, obj, start),
        'scope': SCOPE,
        'subject_id': subject,
        'predicate': predicate,
        'object_id': obj,
        'valid_from': start,
        'recorded_at': start or Y2023,
    }
    data.update(kw)
    return Relation.model_validate(data)


def test_a_new_functional_fact_closes_the_old_one_at_its_start() -> None:
    old = fact('alice', 'works_at', 'acme', Y2023)
    new = fact('alice', 'works_at', 'globex', Y2025)
    out = reconcile([old], new)
    assert out.insert == new
    assert out.updates == [RelationUpdate(id=old.id, subject_id='alice', valid_to=Y2025)]


def test_non_functional_facts_accumulate() -> None:
    old = fact('alice', 'likes', 'tea', Y2023)
    new = fact('alice', 'likes', 'coffee', Y2025)
    out = reconcile([old], new)
    assert out.insert == new and out.updates == []


def test_a_fact_about_bob_never_closes_a_fact_about_alice() -> None:
    alice = fact('alice', 'works_at', 'acme', Y2023)
    bob = fact('bob', 'works_at', 'globex', Y2025)
    out = reconcile([alice], bob)
    assert out.insert == bob and out.updates == []


def test_reasserting_a_fact_that_holds_is_a_no_op() -> None:
    old = fact('alice', 'lives_in', 'paris', Y2023)
    again = fact('alice', 'lives_in', 'paris', Y2025)
    out = reconcile([old], again)
    assert out.insert is None and out.duplicate_of == old.id


def test_an_older_fact_arriving_late_ends_where_the_newer_one_begins() -> None:
    current = fact('alice', 'lives_in', 'berlin', Y2025)
    late = fact('alice', 'lives_in', 'paris', Y2023)
    out = reconcile([current], late)
    assert out.updates == []
    assert out.insert is not None and out.insert.valid_to == Y2025


def test_retracted_facts_take_no_part() -> None:
    gone = fact('alice', 'works_at', 'acme', Y2023, expired_at=Y2024)
    new = fact('alice', 'works_at', 'globex', Y2025)
    assert reconcile([gone], new).updates == []


def test_as_of_and_history_read_the_validity_window() -> None:
    old = fact('alice', 'works_at', 'acme', Y2023, valid_to=Y2025)
    new = fact('alice', 'works_at', 'globex', Y2025)
    assert as_of([old, new], Y2024) == [old]
    assert as_of([old, new], datetime(2026, 1, 1, tzinfo=UTC)) == [new]
    assert as_of([old, new], datetime(2020, 1, 1, tzinfo=UTC)) == []
    assert history([new, old]) == [old, new]
    assert not valid_at(old.model_copy(update={'expired_at': Y2024}), Y2024)


def test_apply_updates_changes_only_named_relations() -> None:
    a, b = fact('alice', 'works_at', 'acme', Y2023), fact('bob', 'works_at', 'acme', Y2023)
    out = apply_updates([a, b], [RelationUpdate(id=a.id, subject_id='alice', valid_to=Y2025)])
    assert out[0].valid_to == Y2025 and out[1] == b


def test_functional_vocabulary() -> None:
    assert all(is_functional(p) for p in ('works_at', 'lives_in', 'married_to', 'prefers', 'role'))
    assert not is_functional('likes') and not is_functional('sibling_of')


def test_relative_dates_resolve_against_the_texts_timestamp() -> None:
    at = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    day = datetime(2023, 5, 7, tzinfo=UTC)
    assert resolve_date('I went there yesterday', at) == day
    assert resolve_date('we moved last March', at) == datetime(2023, 3, 1, tzinfo=UTC)
    assert resolve_date('we moved last June', at) == datetime(2022, 6, 1, tzinfo=UTC)
    assert resolve_date('she joined in 2021', at) == datetime(2021, 1, 1, tzinfo=UTC)
    assert resolve_date('two weeks ago', at) == datetime(2023, 4, 24, tzinfo=UTC)
    assert resolve_date('on 7 May 2023 we met', at) == datetime(2023, 5, 7, tzinfo=UTC)
    assert resolve_date('last year', at) == datetime(2022, 1, 1, tzinfo=UTC)
    assert resolve_date('no date here', at) is None
