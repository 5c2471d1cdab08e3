"""English corrections over HTTP that change a chosen value: the answer language ordered
directly ("Use Spanish instead of English", "No more English, use German") and a unit refused
then named ("Stop using pounds; kilograms please"), through capture and plain writes.

A correction is one memory that replaces the old choice with a record naming both values; a
sentence that names a language without ordering a change of the answers corrects nothing.
"""

from __future__ import annotations

from functools import partial

import pytest

from tests.e2e import http_calls

said = partial(http_calls.said, user_id='ann')  # every turn here is ann's
read = http_calls.read


LANGUAGE_SWITCHES = [
    ('Please answer in English.', 'Please use Spanish now, not English.', 'spanish'),
    ('Please answer in English.', 'Switch to Spanish, not English.', 'spanish'),
    ('Please answer in English.', 'No more English, use German.', 'german'),
    ('Please answer in English.', 'Use Spanish instead of English.', 'spanish'),
    ('Please reply in English.', 'Reply in French from now on.', 'french'),
    ('Please answer in English.', 'Stop using English; Spanish please.', 'spanish'),
    ('Please answer in English.', 'No more English, Spanish please.', 'spanish'),
]


@pytest.mark.parametrize('via', ['write', 'capture'])
@pytest.mark.parametrize(('old', 'new', 'language'), LANGUAGE_SWITCHES)
def test_an_order_to_use_another_language_replaces_the_answer_language(
    client, auth, scope, via, old, new, language
):  # type: ignore[no-untyped-def]
    # an order naming only languages ("Use Spanish instead of English") was no turn about
    # answers, so it named no answer language and English stayed current
    [first] = said(client, auth, scope, old, via)
    [second] = said(client, auth, scope, new, via)
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] == second['id'], stored
    record = stored['supersession']
    assert (record['slot'], record['old_value'], record['new_value']) == (
        'answer_language',
        'english',
        language,
    )


UNIT_SWITCHES = [
    ('Use pounds.', 'Stop using pounds; kilograms please.', 'unit:weight', 'pounds', 'kilograms'),
    ('I prefer pounds.', 'Stop using pounds; kilograms please.', 'unit:weight', 'pounds',
     'kilograms'),
    ('I prefer pounds.', 'No more pounds, kilograms instead.', 'unit:weight', 'pounds',
     'kilograms'),
    ('Use miles.', 'Stop using miles; kilometers please.', 'unit:distance', 'miles',
     'kilometres'),
]  # fmt: skip


@pytest.mark.parametrize('via', ['write', 'capture'])
@pytest.mark.parametrize(('old', 'new', 'slot', 'before', 'after'), UNIT_SWITCHES)
def test_a_refused_unit_and_its_replacement_are_one_correction(
    client, auth, scope, via, old, new, slot, before, after
):  # type: ignore[no-untyped-def]
    # capture cut at the semicolon and stored two memories, and the record named only
    # "not pounds" as the new value
    [first] = said(client, auth, scope, old, via)
    [second] = said(client, auth, scope, new, via)
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] == second['id'], stored
    record = stored['supersession']
    assert (record['slot'], record['old_value'], record['new_value']) == (slot, before, after)


def test_a_semicolon_keeps_apart_what_is_no_correction(client, auth, scope):  # type: ignore[no-untyped-def]
    assert len(said(client, auth, scope, 'Stop using pounds; I live in Leeds.', 'capture')) == 2


KEPT = [
    ('Please answer in English.', 'Please use English names for variables.'),
    ('Please answer in English.', 'I use Spanish at work, not English.'),
    ('Please answer in English.', 'I speak English, not French.'),
    ('Use pounds.', 'No more meetings on Fridays, mornings instead.'),
    ('I live in Leeds.', 'Stop using pounds; kilograms please.'),
]


@pytest.mark.parametrize('via', ['write', 'capture'])
@pytest.mark.parametrize(('old', 'new'), KEPT)
def test_what_orders_no_change_of_that_choice_replaces_nothing(client, auth, scope, via, old, new):  # type: ignore[no-untyped-def]
    [first] = said(client, auth, scope, old, via)
    said(client, auth, scope, new, via)
    stored = read(client, auth, first['id'])
    assert (stored['superseded_by'], stored['stale']) == (None, []), stored
