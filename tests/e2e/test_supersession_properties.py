"""Property test over HTTP: for random sequences of compatible and conflicting facts about a
few subjects, written with random event times, no memory is hidden unless a later fact (by
event time, then write order) of the same slot and subject replaced it: another value of a
single-valued slot, or the same value negated."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

# (subject, user_id, slot, single-valued, positive text, negative text or None, values)
TEMPLATES: list[tuple[str, str | None, str, bool, str, str | None, tuple[str, ...]]] = [
    ('ann', 'ann', 'lives_in', True, 'I live in {}', None, ('Paris', 'Berlin', 'Rome')),
    ('ann', 'ann', 'lives_in', True, 'I moved to {}', None, ('Paris', 'Berlin', 'Rome')),
    ('ann', 'ann', 'works_at', True, 'I work at {}', None, ('Acme', 'Globex', 'Initech')),
    ('ann', 'ann', 'likes', False, 'I like {}', "I don't like {}", ('hiking', 'swimming', 'chess')),
    ('ann', 'ann', 'pet', False, 'I have a {}', None, ('dog', 'cat')),
    ('ben', 'ben', 'lives_in', True, '我住在{}', None, ('北京', '上海', '广州')),
    ('ben', 'ben', 'works_at', True, '我在{}工作', None, ('腾讯', '百度', '美团')),
    ('ben', 'ben', 'likes', False, '我喜欢{}', '我不喜欢{}', ('爬山', '游泳', '下棋')),
    ('ben', 'ben', 'language', False, '我会说{}', None, ('日语', '法语')),
    ('dana', None, 'works_at', True, 'Dana works at {}', None, ('Acme', 'Globex', 'Initech')),
    ('dana', None, 'likes', False, 'Dana likes {}', None, ('tea', 'jazz')),
]


@dataclass(frozen=True)
class Said:
    subject: str
    slot: str
    single: bool
    value: str
    positive: bool
    day: int
    order: int

    def replaces(self, other: Said) -> bool:
        if (self.subject, self.slot) != (other.subject, other.slot):
            return False
        if (self.day, self.order) <= (other.day, other.order):
            return False
        if self.value == other.value:
            return self.positive != other.positive
        return self.single and self.positive and other.positive


steps = st.lists(
    st.tuples(
        st.integers(0, len(TEMPLATES) - 1),
        st.integers(0, 2),
        st.booleans(),
        st.integers(1, 6),
        st.sampled_from(['fact', 'preference', 'note']),
    ),
    min_size=2,
    max_size=8,
)


@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sequence=steps)
# the same fact said on day 2 then again on day 1 is still current as of day 2: a day-1 fact of
# its slot written after both is history, not its replacement
@example(sequence=[(0, 0, True, 2, 'fact'), (0, 0, True, 1, 'fact'), (0, 1, True, 1, 'fact')])
def test_only_a_later_fact_of_the_same_slot_and_subject_hides_a_memory(client, auth, sequence):  # type: ignore[no-untyped-def]
    scope = f'agent:pp{uuid.uuid4().hex[:10]}'
    said: dict[str, Said] = {}
    spoken: list[Said] = []
    for order, (template, pick, positive, day, kind) in enumerate(sequence):
        subject, user, slot, single, text, negated, values = TEMPLATES[template]
        value = values[pick % len(values)]
        positive = positive or negated is None
        body: dict[str, Any] = {
            'scope': scope,
            'text': (text if positive else str(negated)).format(value),
            'kind': kind,
            'created_at': f'2025-03-0{day}T10:00:00Z',
        }
        if user:
            body['user_id'] = user
        response = client.post('/v1/memories', json=body, headers=auth)
        assert response.status_code in (200, 201), response.get_json()
        fact = Said(subject, slot, single, value, positive, day, order)
        spoken.append(fact)
        result = response.get_json()
        if result['status'] == 'created':
            said[result['id']] = fact
    listed = client.get(f'/v1/memories?scope={scope}&limit=100', headers=auth).get_json()
    for memory in listed['items']:
        if memory['superseded_by'] is None or memory['id'] not in said:
            continue
        hidden = said[memory['id']]
        assert any(s.replaces(hidden) for s in spoken), (memory, spoken)
        record = memory['supersession']
        assert record['slot'] == hidden.slot, (memory, spoken)
