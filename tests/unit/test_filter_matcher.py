"""A filter worked out once (`matcher`) reads every payload as `matches` does."""

from __future__ import annotations

import random
from typing import Any

from vectors.filtering import matcher, matches
from vectors.models import PointFilter, Range

VALUES: tuple[Any, ...] = ('a', 'b', 0, 1, 2, 1.0, True, False, None, [], ['a', None, 1], [True])
KEYS = ('scope', 'trust', 'superseded', 'owner', 'tags')


def _payload(rng: random.Random) -> dict[str, Any]:
    payload = {k: rng.choice(VALUES) for k in KEYS if rng.random() < 0.8}
    if rng.random() < 0.3:
        payload['meta'] = {'x': rng.choice(VALUES)}
    return payload


def _filter(rng: random.Random) -> PointFilter:
    def values() -> list[Any]:
        return rng.sample(['a', 'b', 0, 1, True, False], rng.randint(0, 3))

    flt = PointFilter(
        scopes=rng.choice([None, ['a'], ['a', 'b'], []]),
        any_of={k: values() for k in rng.sample(KEYS[1:], rng.randint(0, 2))},
        none_of={k: values() for k in rng.sample(KEYS[1:], rng.randint(0, 2))},
    )
    if rng.random() < 0.15:
        flt.any_of['meta.x'] = values()  # a path: the general reading
    if rng.random() < 0.15:
        flt.ranges['owner'] = Range(gte=0.5)
    return flt


def test_a_worked_out_filter_reads_every_payload_as_matches_does() -> None:
    rng = random.Random(7)
    for _ in range(400):
        flt = _filter(rng)
        holds = matcher(flt)
        for _ in range(50):
            payload = _payload(rng)
            assert holds(payload) == matches(payload, flt), (flt, payload)
