"""The unvalidated point builders build what `model_construct` builds."""

from __future__ import annotations

from vectors.models import ScoredPoint, StoredPoint, scored_point, stored_point


def test_a_scored_point_built_fast_is_the_constructed_one() -> None:
    payload = {'text': 'hello', 'n': 1}
    fast = scored_point('a', 0.5, payload)
    slow = ScoredPoint.model_construct(id='a', score=0.5, payload=payload)
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump() == slow.model_dump()
    assert fast.payload is payload  # not copied: the caller's fresh dict
    assert fast.model_copy(update={'score': 1.0}).score == 1.0
    fast.score = 0.25  # the tie order rounds scores in place
    assert fast.score == 0.25


def test_a_stored_point_built_fast_is_the_constructed_one() -> None:
    fast = stored_point('a', {'text': 'hello'})
    slow = StoredPoint.model_construct(id='a', payload={'text': 'hello'})
    assert fast == slow
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump_json() == slow.model_dump_json()
