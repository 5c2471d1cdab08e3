"""What the ranking works out once (per search, or per text or set of slots) is never carried to
a search, memory or set of slots it does not belong to: each of these tests fails when a memo
is keyed by less than what it depends on."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.auth import Principal
from core.clock import ManualClock
from recall.read.context import coverage, neighbours_of, query_terms
from recall.schemas import MemoryIn, SearchRequest
from recall.service import RecallService
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:rank-memos'
ADMIN = Principal(name='t', admin=True)


def _service() -> tuple[RecallService, MemoryWriter]:
    store, clock = InMemoryVectorStore(), ManualClock(NOW)
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), clock)
    return RecallService(store, HashEmbedder(), Bm25Encoder(), clock, writer), writer


def _factors(recall: RecallService, query: str) -> dict[str, dict[str, float]]:
    request = SearchRequest(query=query, scope=SCOPE, touch=False, explain=True)
    factors = recall.search(request, ADMIN).receipt.factors
    assert factors is not None
    return factors


def test_each_search_reads_the_speakers_its_own_question_names():
    recall, writer = _service()
    # days apart: no turn is the other's neighbour
    maya, tom = (
        str(r.id)
        for r in writer.remember(
            [
                MemoryIn(scope=SCOPE, text='Maya: I love hiking.', created_at=NOW),
                MemoryIn(
                    scope=SCOPE, text='Tom: I love hiking.', created_at=NOW - timedelta(days=3)
                ),
            ]
        )
    )
    first = _factors(recall, 'What does Maya love?')
    assert (first[maya]['speaker_named'], first[tom]['speaker_named']) == (1.0, 0.0)
    # the same candidates, the other speaker named: nothing of the first search's signals
    second = _factors(recall, 'What does Tom love?')
    assert (second[maya]['speaker_named'], second[tom]['speaker_named']) == (0.0, 1.0)


def test_a_turn_whose_speaker_changes_between_searches_is_read_anew():
    recall, writer = _service()
    (said,) = writer.remember(
        [MemoryIn(scope=SCOPE, text='I love hiking.', metadata={'speaker': 'Maya'})]
    )
    ident = str(said.id)
    first = _factors(recall, 'What does Maya love?')[ident]
    assert (first['turn'], first['speaker_named']) == (1.0, 1.0)
    writer.update({ident: {'metadata': {}}})  # no speaker now: a note, not a turn
    second = _factors(recall, 'What does Maya love?')[ident]
    assert (second['turn'], second['speaker_named']) == (0.0, 0.0)


def test_the_context_channel_keeps_the_speakers_it_reads_for_the_ranking():
    recall, writer = _service()
    # two turns of one session: the context channel links them, reading both speakers
    start = NOW - timedelta(days=1)
    texts = ('Maya: I finally booked the trip.', 'Tom: Where are you going?')
    written = writer.remember(
        [
            MemoryIn(scope=SCOPE, text=t, created_at=start + timedelta(minutes=n))
            for n, t in enumerate(texts)
        ]
    )
    ids = [str(r.id) for r in written]
    payloads = {p.id: p.payload for p in recall._vectors.retrieve('memories', ids)}
    speakers: dict[str, str | None] = {}
    assert neighbours_of(ids, payloads, speakers=speakers) == {ids[1]: [ids[0]], ids[0]: [ids[1]]}
    assert speakers == {ids[0]: 'Maya', ids[1]: 'Tom'}


def test_each_search_reads_the_owners_its_own_question_names():
    recall, writer = _service()
    (ann,) = writer.remember([MemoryIn(scope=SCOPE, text='I moved to Berlin.', user_id='ann')])
    writer.remember([MemoryIn(scope=SCOPE, text='I moved to Lisbon.', user_id='bob')])
    # the first search names bob: ann's memory holds no word of his name
    before = _factors(recall, 'Where does Bob live?')[str(ann.id)]['reach']
    # the next names ann, whose memory holds her name as its user's
    after = _factors(recall, 'Where does Ann live?')[str(ann.id)]['reach']
    assert after > before
    assert after == 1.0


def test_the_slots_a_memory_states_count_for_that_memory_only():
    terms = query_terms('Which language should you answer in?')
    text = 'Stop using English; Spanish please.'
    language, weight = frozenset({'answer_language'}), frozenset({'unit:weight'})
    # the same question and text, read with one set of slots after the other and back
    assert coverage(terms, text, language) >= 0.5
    assert coverage(terms, text, weight) < 0.4
    assert coverage(terms, text, language) >= 0.5


def test_each_search_covers_its_candidates_with_its_own_question_words():
    recall, writer = _service()
    # many words besides the question's: the cosine alone is far from certain
    text = (
        'I researched adoption agencies, visited three shelters downtown, read long reviews '
        'online and called two old friends about the slow paperwork.'
    )
    (said,) = writer.remember([MemoryIn(scope=SCOPE, text=text)])
    ident = str(said.id)
    assert _factors(recall, 'adoption agencies')[ident]['confidence'] == 1.0
    # half the next question's words: its own words, not the last question's, are counted
    assert _factors(recall, 'adoption weather')[ident]['confidence'] == 0.5
