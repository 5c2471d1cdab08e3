"""Decay read off a stored payload (recall.decay.payload_vitals) scores as the Chunk it holds,
and a ranked candidate builds its Chunk only when read (recall.read.ranking.Scored)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.clock import to_epoch
from recall.decay import multiplier, payload_vitals, relevance, tier_transition, vitals
from recall.models import Chunk
from recall.read.ranking import Scored
from recall.tiers import Tier

NOW = datetime(2026, 6, 1, 12, 30, tzinfo=UTC)


def _payload(age_days: float = 40, **fields: Any) -> dict[str, Any]:
    created = NOW - timedelta(days=age_days, seconds=7.25)
    chunk = Chunk(
        id='c1',
        scope='agent:a',
        text='I moved to Leeds.',
        created_at=created,
        updated_at=created,
        content_hash='h1',
        **fields,
    )
    return chunk.to_payload()


@pytest.mark.parametrize(
    'fields',
    [
        {},
        {'pinned': True},
        {'importance': 0.9, 'tier': Tier.CORE, 'access_count': 12},
        {'importance': 0.0, 'tier': Tier.PERIPHERAL},
        {'accessed_at': NOW - timedelta(days=2)},
        # a recall stamped before its creation (clock skew) counts from the creation
        {'accessed_at': NOW - timedelta(days=90)},
    ],
)
def test_payload_vitals_score_as_the_chunk(fields: dict[str, Any]) -> None:
    payload = _payload(**fields)
    read = payload_vitals(payload)
    assert read is not None
    chunk = Chunk.from_payload(payload)
    assert read == vitals(chunk)
    assert relevance(read, to_epoch(NOW)) == pytest.approx(relevance(chunk, NOW), abs=1e-12)
    assert multiplier(read, to_epoch(NOW)) == pytest.approx(multiplier(chunk, NOW), abs=1e-12)


def test_absent_keys_take_the_chunk_defaults() -> None:
    payload = {'created_at': to_epoch(NOW - timedelta(days=3))}
    read = payload_vitals(payload)
    assert read is not None
    assert (read.pinned, read.importance, read.tier, read.access_count) == (
        False,
        0.5,
        Tier.WORKING,
        0,
    )


@pytest.mark.parametrize(
    'broken',
    [
        {'created_at': None},
        {'created_at': '2026-05-01'},
        {'created_at': True},
        {'importance': 1.5},
        {'importance': '0.5'},
        {'access_count': 2.0},
        {'pinned': 1},
        {'tier': 'archive'},
        {'tier': ['core']},
        {'accessed_at': 'yesterday'},
        {'created_at': float('nan')},
        {'created_at': float('inf')},
        {'created_at': 1e13},
        {'accessed_at': -1e13},
    ],
)
def test_a_payload_chunk_validation_would_judge_is_left_to_it(broken: dict[str, Any]) -> None:
    payload = {**_payload(), **broken}
    assert payload_vitals(payload) is None


def test_scored_builds_its_chunk_when_first_read() -> None:
    payload = _payload()
    scored = Scored(id='c1', score=0.5, payload=payload, explained=dict)
    assert scored.built == []
    chunk = scored.chunk
    assert chunk == Chunk.from_payload(payload)
    assert scored.chunk is chunk  # built once


@pytest.mark.parametrize(
    ('fields', 'rule'),
    [
        ({'pinned': True}, 'pinned'),
        ({'access_count': 10}, 'promote:access'),
        ({'importance': 0.95}, 'promote:importance'),
        ({'tier': Tier.CORE}, 'core:never_demoted'),
        (
            {'tier': Tier.PERIPHERAL, 'access_count': 3, 'importance': 0.8},
            'revive:access+relevance',
        ),
        ({'tier': Tier.PERIPHERAL}, 'stay'),
        ({'importance': 0.5, 'age_days': 90}, 'demote:age'),
        ({'importance': 0.0, 'age_days': 90}, 'demote:relevance'),
        ({'importance': 0.5, 'access_count': 4}, 'stay'),
    ],
)
def test_tier_moves_read_off_a_payload_as_off_its_chunk(fields: dict[str, Any], rule: str) -> None:
    payload = _payload(**fields)
    read = payload_vitals(payload)
    assert read is not None
    chunk = Chunk.from_payload(payload)
    by_payload = tier_transition(read, to_epoch(NOW))
    assert by_payload == tier_transition(chunk, NOW)
    assert by_payload.reason == rule


def test_a_search_builds_chunks_only_for_the_hits_it_returns() -> None:
    from core.auth import Principal
    from core.clock import ManualClock
    from recall.schemas import MemoryIn, SearchRequest
    from recall.service import RecallService
    from recall.write.writer import MemoryWriter
    from tests.fakes import InMemoryVectorStore
    from vectors.bm25 import Bm25Encoder
    from vectors.embedders import HashEmbedder

    store, clock = InMemoryVectorStore(), ManualClock(NOW)
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), clock)
    recall = RecallService(store, HashEmbedder(), Bm25Encoder(), clock, writer)
    writer.remember(
        [
            MemoryIn(scope='agent:lazy', text=f'Note {i}: I keep bees number {i}.', created_at=NOW)
            for i in range(12)
        ]
    )
    built: list[int] = []
    real = Chunk.from_payload

    def counted(payload: dict[str, Any]) -> Chunk:
        built.append(1)
        return real(payload)

    request = SearchRequest(query='bees', scope='agent:lazy', top_k=3, touch=False, min_score=0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Chunk, 'from_payload', staticmethod(counted))
        hits = recall.search(request, Principal(name='t', admin=True)).hits
    assert len(hits) == 3
    assert len(built) == 3  # twelve candidates ranked, three Chunks built
