"""English rules about emoji in the answers, over HTTP, through plain writes and capture.

"Don't use emoji in answers" is a rule for the assistant, as 回答里不要用emoji is, not a habit
of the speaker's; "You can use emoji again", "Emoji are fine now" and "The ban on emoji is
lifted" after it lift it, as emoji的限制取消了 does. The lift hides the prohibition, with the
slot and both values recorded, and answers first in memory_search and in the recall bundle.
The speaker's own emoji and someone else's taste for them are no rule and hide nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.http_calls import read, said, search

EMOJI = 'Can you use emoji in your answers?'
USER = {'user_id': 'ann'}


def ids(client: Any, auth: dict[str, str], scope: str, text: str, via: str) -> list[str]:
    return [str(m['id']) for m in said(client, auth, scope, text, via, **USER)]


def assert_lifts(client: Any, auth: dict[str, str], scope: str, via: str, old: str, new: str):  # type: ignore[no-untyped-def]
    [first] = ids(client, auth, scope, old, via)
    later = ids(client, auth, scope, new, via)
    stored = read(client, auth, first)
    assert stored['superseded_by'] in later, stored
    record = stored['supersession']
    assert (record['slot'], record['old_value'], record['new_value']) == (
        'rule',
        'not use emoji',
        'use emoji',
    ), record
    hits = search(client, auth, scope, EMOJI, **USER)
    assert hits and hits[0]['id'] in later, hits
    assert all(h['superseded_by'] for h in hits if h['id'] == first), hits
    body = {'message': EMOJI, 'scope': scope, **USER}
    answer = client.post('/v1/recall/bundle', json=body, headers=auth).get_json()
    assert answer['ids'][:1] and answer['ids'][0] in later, answer
    lines = [line for line in answer['text'].splitlines() if f'id={first}' in line]
    assert all('superseded' in line for line in lines), answer['text']


PROHIBITIONS = [
    "Don't use emoji in answers.",
    'No emoji in your replies, please.',
    'Please stop using emojis.',
    'Do not use emoji.',
]
LIFTS = [
    'You can use emoji again.',
    'Emoji are fine now.',
    'The ban on emoji is lifted.',
    'Lift the ban on emojis, please.',
]


@pytest.mark.parametrize('via', ['write', 'capture'])
@pytest.mark.parametrize('text', PROHIBITIONS)
def test_a_prohibition_of_emoji_is_no_habit_of_the_speaker(client, auth, scope, via, text):  # type: ignore[no-untyped-def]
    # "Don't use emoji in answers" was the speaker's habit of not using emoji, so "I use emoji"
    # (their own habit) hid it as its negation, and no lift named it
    [first] = ids(client, auth, scope, text, via)
    ids(client, auth, scope, 'I use emoji.', via)
    stored = read(client, auth, first)
    assert (stored['superseded_by'], stored['stale']) == (None, []), stored


@pytest.mark.parametrize('via', ['write', 'capture'])
@pytest.mark.parametrize(('old', 'new'), [(p, lift) for p in PROHIBITIONS for lift in LIFTS])
def test_a_lifted_emoji_ban_undoes_the_prohibition(client, auth, scope, via, old, new):  # type: ignore[no-untyped-def]
    # each lift stated nothing, or a habit, or a person named "Emoji": the prohibition stayed
    assert_lifts(client, auth, scope, via, old, new)


KEPT = [
    # the speaker's own habit and someone else's taste: nothing about the answers
    ("Don't use emoji in answers.", "I don't use emoji when I text my mum."),
    ("Don't use emoji in answers.", 'My sister loves emoji.'),
    ("I don't use emoji when I text my mum.", 'You can use emoji again.'),
    ("I don't use emoji when I text my mum.", 'The ban on emoji is lifted.'),
    ('My sister loves emoji.', "Don't use emoji in answers."),
    ('My sister loves emoji.', 'Emoji are fine now.'),
    # a ban of something else lifted, or another rule
    ("Don't use emoji in answers.", 'The ban on emoji in the office chat was lifted.'),
    ("Don't use emoji in answers.", "Don't use tables in answers."),
]


@pytest.mark.parametrize('via', ['write', 'capture'])
@pytest.mark.parametrize(('old', 'new'), KEPT)
def test_emoji_said_of_something_else_replaces_nothing(client, auth, scope, via, old, new):  # type: ignore[no-untyped-def]
    [first] = ids(client, auth, scope, old, via)
    ids(client, auth, scope, new, via)
    stored = read(client, auth, first)
    assert (stored['superseded_by'], stored['stale']) == (None, []), stored
