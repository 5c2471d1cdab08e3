"""A merge never loses content: two memories about different subjects, or two long texts that
differ only past the embedder's clamp, stay two memories (the real embedder and store)."""

from __future__ import annotations

from typing import Any

import pytest

# the embedder reads the head and tail of a text this long (vectors.embedding_cache.clamp_text)
CLAMP_CHARS = 2_000


def _write(client: Any, auth: dict[str, str], scope: str, text: str, **extra: Any) -> Any:
    body = {'scope': scope, 'text': text, **extra}
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()
    return response.get_json()


def _texts(client: Any, auth: dict[str, str], scope: str) -> list[str]:
    listed = client.get(f'/v1/memories?scope={scope}&limit=100', headers=auth).get_json()
    return sorted(item['text'] for item in listed['items'] if not item.get('superseded_by'))


@pytest.mark.parametrize(
    ('first', 'second'),
    [
        ('Leo was born on 3 March 2016', 'Mia was born on 3 March 2016'),
        ('Our son was born on 3 March 2016', 'Our daughter was born on 3 March 2016'),
        ('Our son starts school in September', 'Our daughter starts school in September'),
        (
            'Our son loves playing football on Sundays',
            'Our daughter loves playing football on Sundays',
        ),
    ],
)
@pytest.mark.parametrize('kind', ['fact', 'note'])
def test_different_subjects_never_merge(client, auth, scope, first, second, kind):
    for text in (first, second):
        result = _write(client, auth, scope, text, kind=kind)
        assert result['status'] == 'created' and not result['superseded'], result
    assert _texts(client, auth, scope) == sorted([first, second])


@pytest.mark.parametrize(
    ('first', 'second'),
    [
        ('Leo was born on 3 March 2016', 'Mia was born on 3 March 2016'),
        ('Our son was born on 3 March 2016', 'Our daughter was born on 3 March 2016'),
    ],
)
def test_captured_birthdays_of_different_people_stay_two(client, auth, scope, first, second):
    for text in (first, second):
        response = client.post(
            '/v1/memories/capture', json={'scope': scope, 'text': text}, headers=auth
        )
        assert response.status_code == 200
        stored = response.get_json()['stored']
        assert stored and all(s['status'] == 'created' for s in stored), stored
    listed = _texts(client, auth, scope)
    assert first in listed and second in listed


def test_long_texts_that_differ_only_past_the_clamp_stay_two_memories(client, auth, scope):
    steps = [f'Step {n}: check the valve and write the pressure down.' for n in range(60)]
    head, tail = ' '.join(steps[:40]), ' '.join(steps[40:])
    first = f'{head} Then close the north valve and call Ana. {tail}'
    second = f'{head} Then open the south valve and call Ben. {tail}'
    # the difference is in the middle the clamp drops (two thirds head, one third tail)
    assert len(head) > CLAMP_CHARS * 2 / 3 and len(tail) > CLAMP_CHARS / 3
    a = _write(client, auth, scope, first, kind='procedure')
    b = _write(client, auth, scope, second, kind='procedure')
    assert (a['status'], b['status']) == ('created', 'created'), b
    assert a['id'] != b['id']
    stored = _texts(client, auth, scope)
    assert any('call Ana' in t for t in stored) and any('call Ben' in t for t in stored)


def test_a_near_duplicate_that_adds_nothing_still_merges(client, auth, scope):
    a = _write(client, auth, scope, 'Alice prefers green tea in the morning', kind='preference')
    b = _write(client, auth, scope, 'Alice prefers green tea in the morning.', kind='preference')
    assert b['status'] == 'merged' and b['merged_into'] == a['id']
