"""English corrections over HTTP: wordings that name the old value and the new one, a bare
"Actually I prefer X", and a captured (pinned) name corrected by its owner.

Each correction hides what it corrects with a record naming the slot and both values; what a
sentence only adds ("not only English but also French") corrects nothing.
"""

from __future__ import annotations

from functools import partial

import pytest

from tests.e2e import http_calls

# every turn here is ann's unless a test names another user
write = partial(http_calls.write, user_id='ann')
said = partial(http_calls.said, user_id='ann')
search = partial(http_calls.search, user_id='ann')
read = http_calls.read

VIAS = ('write', 'capture')
NOT_BUT = [
    ('My favourite editor is Vim.', 'My favourite editor is not Vim but Emacs.', 'editor',
     ('vim', 'emacs')),
    ('I live in Paris.', 'I live not in Paris but in Berlin.', 'lives_in', ('paris', 'berlin')),
    ('I live in Paris.', 'I live not in Paris, but in Berlin.', 'lives_in', ('paris', 'berlin')),
    ('I work at Acme Corp.', "I don't work at Acme Corp but at Globex.", 'works_at',
     ('acme corp', 'globex')),
    ('My name is Bob.', 'My name is not Bob but Robert.', 'name', ('bob', 'robert')),
]  # fmt: skip


AMENDS = [
    ('write', 'Call me Anna.', 'Actually I prefer Beth.', 'name', ('anna', 'beth')),
    ('capture', 'Call me Anna.', 'Actually, I prefer Beth.', 'name', ('anna', 'beth')),
    ('write', 'My name is Anna.', 'Sorry, I prefer Beth.', 'name', ('anna', 'beth')),
    ('capture', 'My name is Anna.', 'No, I prefer Beth.', 'name', ('anna', 'beth')),
    ('write', 'Call me Anna.', "I'd rather be called Beth.", 'name', ('anna', 'beth')),
    ('write', 'I prefer tea.', 'Actually I prefer coffee.', 'prefers', ('tea', 'coffee')),
    ('capture', 'I prefer tea.', 'Actually, I prefer coffee.', 'prefers', ('tea', 'coffee')),
    ('write', 'I prefer tea.', "On second thought, I'd prefer coffee.", 'prefers',
     ('tea', 'coffee')),
]  # fmt: skip


# "not <old> but <new>" through both paths, and "Actually, I prefer <new>" after <old>
CORRECTS = [
    *[pytest.param(via, *case, id=f'{via}-{case[1]}') for case in NOT_BUT for via in VIAS],
    *[pytest.param(*case, id=f'{case[0]}-{case[2]}') for case in AMENDS],
]


@pytest.mark.parametrize(('via', 'old', 'new', 'slot', 'values'), CORRECTS)
def test_a_correction_replaces_the_value_it_corrects(
    client, auth, scope, via, old, new, slot, values
):  # type: ignore[no-untyped-def]
    # the clause splitter used to cut at "but", leaving "not Paris" and a value with no slot;
    # "Actually, I prefer Beth" names no old value: it amends what the speaker said last
    [first] = said(client, auth, scope, old, via)
    [second] = said(client, auth, scope, new, via)
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] == second['id'], stored
    record = stored['supersession']
    assert (record['slot'], record['old_value'], record['new_value']) == (slot, *values)


def test_a_bare_not_but_corrects_the_slot_that_holds_the_old_value(client, auth, scope):  # type: ignore[no-untyped-def]
    first = write(client, auth, scope, 'I use Vim.')
    second = write(client, auth, scope, 'Not Vim but Emacs.')
    record = read(client, auth, first['id'])['supersession']
    assert (record['slot'], record['old_value'], record['new_value'], record['by']) == (
        'editor',
        'vim',
        'emacs',
        second['id'],
    )


def test_a_not_but_correction_holds_the_slot_until_the_next_value(client, auth, scope):  # type: ignore[no-untyped-def]
    write(client, auth, scope, 'My favourite editor is Vim.')
    correction = write(client, auth, scope, 'My favourite editor is not Vim but Emacs.')
    later = write(client, auth, scope, 'My editor is Helix.')
    assert read(client, auth, correction['id'])['superseded_by'] == later['id']


def test_a_not_but_home_leaves_the_job_of_the_same_turn(client, auth, scope):  # type: ignore[no-untyped-def]
    first = write(client, auth, scope, 'I live in Paris and work at Arup.')
    second = write(client, auth, scope, 'I live not in Paris but in Berlin.')
    stored = read(client, auth, first['id'])
    assert stored['superseded_by'] is None
    assert [(r['slot'], r['old_value'], r['new_value']) for r in stored['stale']] == [
        ('lives_in', 'paris', 'berlin')
    ]
    assert search(client, auth, scope, 'Where do I live?')[0]['id'] == second['id']


NOT_BUT_KEPT = [
    ('I speak English.', 'I speak not only English but also French.'),
    ('I live in Paris.', "I'm not sure but I think Paris is lovely."),
    ('I use Vim.', 'It was not cheap but it works.'),
    ('I live in Paris.', 'Not Rome but Madrid is my favourite city to visit.'),
]


AMENDS_NOTHING = [
    ('Call me Anna.', 'I prefer Beth.'),  # no word says it corrects anything
    ('Call me Anna.', 'Actually I prefer English.'),  # a language is no name
    ('I live in Paris.', 'Actually I prefer Berlin.'),  # a preference is no home
    ('I like tea.', 'Actually I like coffee too.'),
    ('I prefer window seats.', 'Actually I prefer coffee.'),  # a preference about another thing
]


# a "but" that adds or starts a new clause, and a preference that corrects no slot
CORRECTS_NOTHING = [pytest.param(*case, id=case[1]) for case in NOT_BUT_KEPT + AMENDS_NOTHING]


@pytest.mark.parametrize(('old', 'new'), CORRECTS_NOTHING)
def test_a_turn_that_corrects_no_slot_replaces_nothing(client, auth, scope, old, new):  # type: ignore[no-untyped-def]
    first = write(client, auth, scope, old)
    second = write(client, auth, scope, new)
    assert (second['superseded'], second['supersessions']) == ([], []), second
    assert read(client, auth, first['id'])['stale'] == []


def test_an_amended_name_is_the_answer_and_holds_the_slot(client, auth, scope):  # type: ignore[no-untyped-def]
    write(client, auth, scope, 'Call me Anna.')
    beth = write(client, auth, scope, 'Actually I prefer Beth.')
    assert search(client, auth, scope, 'What should you call me?')[0]['id'] == beth['id']
    later = write(client, auth, scope, 'Call me Bobby.')
    assert read(client, auth, beth['id'])['superseded_by'] == later['id']


@pytest.mark.parametrize(
    ('first', 'next_value'),
    [
        ('Actually, call me Robert.', 'Call me Bobby.'),
        ('其实，我在阿里巴巴工作。', '我跳槽到字节跳动了。'),
        ('不对，我住在上海。', '我搬到了广州。'),
    ],
)
def test_a_correction_after_a_lead_word_is_replaced_by_the_next_value(
    client, auth, scope, first, next_value
):  # type: ignore[no-untyped-def]
    # "Actually," / "其实，" was a clause of its own with no fact, so the memory was never all
    # replaced
    said_first = write(client, auth, scope, first)
    later = write(client, auth, scope, next_value)
    assert read(client, auth, said_first['id'])['superseded_by'] == later['id']


def test_a_preference_said_as_a_correction_amends_only_the_latest(client, auth, scope):  # type: ignore[no-untyped-def]
    seats = write(client, auth, scope, 'I prefer window seats.')
    tea = write(client, auth, scope, 'I prefer tea.')
    coffee = write(client, auth, scope, 'Actually I prefer coffee.')
    assert read(client, auth, tea['id'])['superseded_by'] == coffee['id']
    stored = read(client, auth, seats['id'])
    assert (stored['superseded_by'], stored['stale']) == (None, [])


def test_a_name_said_as_a_correction_amends_the_name_not_a_later_preference(client, auth, scope):  # type: ignore[no-untyped-def]
    anna = write(client, auth, scope, 'Call me Anna.')
    tea = write(client, auth, scope, 'I prefer tea.')
    beth = write(client, auth, scope, 'Actually I prefer Beth.')
    assert read(client, auth, anna['id'])['superseded_by'] == beth['id']
    stored = read(client, auth, tea['id'])
    assert (stored['superseded_by'], stored['stale']) == (None, [])


@pytest.mark.parametrize('new', ['Actually, call me Robert.', 'My name is Robert now.'])
def test_a_captured_name_is_replaced_by_its_owners_unpinned_correction(client, auth, scope, new):  # type: ignore[no-untyped-def]
    # capture pins a name by itself (Core); the pin keeps it at hand, not current against the
    # owner's own correction, which hides it and takes the pin
    [bob] = said(client, auth, scope, 'My name is Bob.', 'capture')
    assert (read(client, auth, bob['id'])['pinned'], bob['kind']) == (True, 'entity')
    robert = write(client, auth, scope, new)
    stored = read(client, auth, bob['id'])
    assert stored['superseded_by'] == robert['id'], stored
    assert (stored['supersession']['slot'], stored['supersession']['new_value']) == (
        'name',
        'robert',
    )
    now = read(client, auth, robert['id'])
    assert (now['pinned'], now['tier']) == (True, 'core')
    body = {'scope': scope, 'user_id': 'ann', 'message': 'What is my name?'}
    bundle = client.post('/v1/recall/bundle', json=body, headers=auth).get_json()
    assert robert['id'] in bundle['ids'] and bob['id'] not in bundle['ids'], bundle


def test_a_name_the_client_pinned_stays_current_with_the_correction_recorded(client, auth, scope):  # type: ignore[no-untyped-def]
    bob = write(client, auth, scope, 'Call me Bob.', pinned=True)
    robert = write(client, auth, scope, 'Actually, call me Robert.')
    stored = read(client, auth, bob['id'])
    assert stored['superseded_by'] is None
    assert [(r['slot'], r['old_value'], r['new_value'], r['by']) for r in stored['stale']] == [
        ('name', 'bob', 'robert', robert['id'])
    ]
    assert read(client, auth, robert['id'])['pinned'] is False


def test_a_captured_name_the_client_pinned_by_an_edit_stays_current(client, auth, scope):  # type: ignore[no-untyped-def]
    [bob] = said(client, auth, scope, 'My name is Bob.', 'capture')
    unpin = client.patch(f'/v1/memories/{bob["id"]}', json={'pinned': False}, headers=auth)
    assert unpin.status_code == 200, unpin.get_json()
    pin = client.patch(f'/v1/memories/{bob["id"]}', json={'pinned': True}, headers=auth)
    assert pin.status_code == 200, pin.get_json()
    write(client, auth, scope, 'Actually, call me Robert.')
    assert read(client, auth, bob['id'])['superseded_by'] is None


def test_a_captured_name_the_client_pinned_by_the_pin_route_stays_current(client, auth, scope):  # type: ignore[no-untyped-def]
    [bob] = said(client, auth, scope, 'My name is Bob.', 'capture')
    for route in ('unpin', 'pin'):
        response = client.post(f'/v1/memories/{bob["id"]}/{route}', headers=auth)
        assert response.status_code == 200, response.get_json()
    write(client, auth, scope, 'Actually, call me Robert.')
    assert read(client, auth, bob['id'])['superseded_by'] is None


def test_someone_elses_name_leaves_a_captured_name_alone(client, auth, scope):  # type: ignore[no-untyped-def]
    [bob] = said(client, auth, scope, 'My name is Bob.', 'capture')
    write(client, auth, scope, 'Actually, call me Robert.', user_id='zoe')
    stored = read(client, auth, bob['id'])
    assert (stored['superseded_by'], stored['stale']) == (None, [])
