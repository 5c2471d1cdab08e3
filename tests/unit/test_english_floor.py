"""The relevance floor on an English question asks first whether the question is answered at
all: some hit must hold EN_REACH_SHARE of its words, or reach the floor by its calibrated cosine
or the graph. A memory sharing one common word of three ("mountain" of "the tallest mountain in
Africa") no longer answers an unrelated question; once a question is answered, a hit holding a
third of its words is kept as before."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.auth import Principal
from core.clock import ManualClock
from recall.read.ranking import en_reach
from recall.read.weights import EN_REACH_SHARE
from recall.schemas import MemoryIn, SearchMode, SearchRequest
from recall.service import RecallService
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore, SharedDirectionEmbedder
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:en-floor'
ADMIN = Principal(name='t', admin=True)
HIKE = 'We hiked up a mountain last weekend.'
PAINT = 'Caroline likes painting sunsets.'
TEXTS = (HIKE, PAINT)


def _built(
    embedder: HashEmbedder | None = None, clock: ManualClock | None = None
) -> tuple[RecallService, MemoryWriter]:
    store, clock, embedder = (
        InMemoryVectorStore(),
        clock or ManualClock(NOW),
        embedder or HashEmbedder(),
    )
    writer = MemoryWriter(store, embedder, Bm25Encoder(), clock)
    return RecallService(store, embedder, Bm25Encoder(), clock, writer), writer


def _service(embedder: HashEmbedder | None = None) -> tuple[RecallService, dict[str, str]]:
    recall, writer = _built(embedder)
    written = writer.remember([MemoryIn(scope=SCOPE, text=t) for t in TEXTS])
    return recall, {t: str(r.id) for t, r in zip(TEXTS, written, strict=True)}


def _found(recall: RecallService, query: str) -> tuple[set[str], str | None]:
    result = recall.search(SearchRequest(query=query, scope=SCOPE, touch=False), ADMIN)
    return {h.id for h in result.hits}, result.receipt.skip_reason


def test_one_common_word_of_three_does_not_answer_an_unrelated_question():
    recall, _ = _service()
    # 'mountain' is a third of tallest / mountain / africa: above the 0.3 floor, not the gate
    found, reason = _found(recall, 'What is the tallest mountain in Africa?')
    assert found == set()
    assert reason == 'below_floor'


def test_a_question_answered_keeps_a_hit_holding_a_third_of_its_words():
    recall, ids = _service()
    # PAINT holds caroline and paint, two words of three: the question is answered, and HIKE,
    # holding mountain alone, is kept by the floor as before
    found, _ = _found(recall, 'What did Caroline paint on the mountain?')
    assert found == {ids[PAINT], ids[HIKE]}


def test_a_hit_holding_every_word_of_a_short_question_answers_it():
    recall, ids = _service()
    found, _ = _found(recall, 'Which mountain did we hike?')
    assert found == {ids[HIKE]}


def test_the_cosine_answers_a_paraphrase_sharing_no_word():
    # a fake of an embedder that reads meaning: any two texts at cosine ~0.9
    recall, ids = _service(SharedDirectionEmbedder(shared=0.95, own=0.31))
    found, _ = _found(recall, 'Where did the trek take us?')
    assert ids[HIKE] in found


def test_the_reach_is_the_coverage_only_from_the_share():
    below = EN_REACH_SHARE - 0.01
    assert en_reach(below, 0.0, 0.0) == 0.0
    assert en_reach(EN_REACH_SHARE, 0.0, 0.0) == EN_REACH_SHARE
    assert en_reach(below, 0.4, 0.0) == 0.4
    assert en_reach(below, 0.0, 0.7) == 0.7


def _team(own: str, leaders: str) -> tuple[RecallService, Principal, str]:
    """A member holding `own`, its leader `leaders`: the service, the member and the leader's id."""
    recall, writer = _built()
    writer.remember([MemoryIn(scope='agent:member', text=own)])
    (answer,) = writer.remember([MemoryIn(scope='agent:leader', text=leaders)])
    member = Principal(name='m', agent_id='member', leader_scopes=('agent:leader',))
    return recall, member, str(answer.id)


def test_a_member_holding_one_word_of_two_reads_its_leaders_memory():
    recall, member, answer = _team('I love my work.', 'Bob works at the bakery on Main Street.')
    # 'work' is half of bob / work: not enough to answer, so not enough to skip the leader
    result = recall.search(
        SearchRequest(query='Where does Bob work?', scope='agent:member'), member
    )
    assert result.receipt.fallback == 'team_leader'
    # the member's own hit still competes, below the leader's answer
    assert result.hits[0].id == answer


def test_a_single_channel_mode_with_a_floor_keeps_its_order_under_it():
    recall, ids = _service()
    # bm25 reads no cosine: the question-level gate would drop what the floor keeps
    request = SearchRequest(
        query='What did Caroline paint?', scope=SCOPE, mode=SearchMode.BM25, min_score=0.3
    )
    assert [h.id for h in recall.search(request, ADMIN).hits] == [ids[PAINT]]
    asked = request.model_copy(update={'query': 'Which mountain in Africa is the tallest?'})
    assert [h.id for h in recall.search(asked, ADMIN).hits] == [ids[HIKE]]


def test_an_expired_memory_does_not_answer_the_question():
    clock = ManualClock(NOW)
    recall, writer = _built(clock=clock)
    gone = NOW + timedelta(days=1)
    writer.remember(
        [
            MemoryIn(
                scope=SCOPE, text='The tallest mountain in Africa is Kilimanjaro.', expires_at=gone
            ),
            MemoryIn(scope=SCOPE, text=HIKE),
        ]
    )
    clock.advance(timedelta(days=2))
    found, reason = _found(recall, 'What is the tallest mountain in Africa?')
    assert found == set()
    assert reason == 'below_floor'


def test_a_user_id_that_is_no_name_credits_no_word():
    recall, writer = _built()
    writer.remember([MemoryIn(scope=SCOPE, text='I asked for a refund.', user_id='user-1')])
    # "user" and "asked" would be two words of three with the id's "user" counted
    found, _ = _found(recall, 'Which user asked about pricing?')
    assert found == set()


def test_a_member_whose_hit_the_floor_drops_reads_its_leaders_memory():
    recall, member, answer = _team('Bob works hard.', 'Bob works at the bakery on Sundays.')
    # two words of three convince at the default 0.5, not under a floor of 0.9
    request = SearchRequest(
        query='Where does Bob work on Sundays?', scope='agent:member', min_score=0.9
    )
    result = recall.search(request, member)
    assert result.receipt.fallback == 'team_leader'
    assert [h.id for h in result.hits] == [answer]


def test_an_english_question_is_not_answered_by_a_chinese_memorys_cosine():
    recall, writer = _built(SharedDirectionEmbedder(shared=0.95, own=0.31))
    (chinese,) = writer.remember([MemoryIn(scope=SCOPE, text='我每天早上六点半起床。')])
    (english,) = writer.remember([MemoryIn(scope=SCOPE, text='I get up at half past six.')])
    # the default embedder reads no Chinese: its cosine to an English question is noise, while
    # an English paraphrase sharing no word still answers by its cosine
    found, _ = _found(recall, 'When does my alarm ring?')
    assert found == {str(english.id)}
