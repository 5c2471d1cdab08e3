"""The relevance floor on a Chinese question asks whether the question is answered at all: once a
hit reaches the floor, a paraphrase sharing one content word with the question is kept (its
share of the question's characters alone would drop it), a memory sharing none is not, and a
question nothing answers still gets nothing. The learned model reads a Chinese hit's coverage
alone as its confidence (the default embedder reads no Chinese). A hit reaches the floor by
its coverage with a two-character word of the question, or by covering half of it: not by the
default embedder's cosine, which is high between any two Chinese sentences."""

from __future__ import annotations

from datetime import UTC, datetime

from core.auth import Principal
from core.clock import ManualClock
from recall.schemas import MemoryIn, SearchRequest
from recall.service import RecallService
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore, SharedDirectionEmbedder
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:zh-floor'
ADMIN = Principal(name='t', admin=True)
NOVEL = '我最喜欢的科幻小说作者是刘慈欣。'  # holds 科幻小说: reaches the floor
READING = '我正在读《三体》第二部。'  # the answer, sharing only 读 with the question
UNRELATED = '我每天早上六点半起床。'  # shares no content word


def blind_embedder() -> SharedDirectionEmbedder:
    """A pure-logic fake of the default embedder on Chinese: any two sentences sit at cosine
    ~0.64 (a shared direction 0.8, the hashed words 0.6), identical ones at 1."""
    return SharedDirectionEmbedder(shared=0.8, own=0.6)


def _ids(embedder: HashEmbedder | None = None) -> tuple[RecallService, dict[str, str]]:
    store, clock, embedder = InMemoryVectorStore(), ManualClock(NOW), embedder or HashEmbedder()
    writer = MemoryWriter(store, embedder, Bm25Encoder(), clock)
    recall = RecallService(store, embedder, Bm25Encoder(), clock, writer)
    written = writer.remember([MemoryIn(scope=SCOPE, text=t) for t in (NOVEL, READING, UNRELATED)])
    return recall, {t: str(r.id) for t, r in zip((NOVEL, READING, UNRELATED), written, strict=True)}


def test_a_paraphrase_sharing_one_word_is_kept_once_the_question_is_answered():
    recall, ids = _ids()
    request = SearchRequest(query='我在读哪本科幻小说？', scope=SCOPE, touch=False)
    found = {h.id for h in recall.search(request, ADMIN).hits}
    assert {ids[NOVEL], ids[READING]} <= found
    assert ids[UNRELATED] not in found


def test_a_chinese_hit_is_read_by_its_coverage_and_the_floor_by_its_reach():
    recall, ids = _ids()
    request = SearchRequest(query='我在读哪本科幻小说？', scope=SCOPE, touch=False, explain=True)
    factors = recall.search(request, ADMIN).receipt.factors
    assert factors is not None
    # 读 of 读本科幻小说: one content character in six
    assert abs(factors[ids[READING]]['confidence'] - 1 / 6) < 1e-3
    # 在读 is its one word of the question, a sixth of it: it does not reach the floor alone;
    # 科幻小说 does, by its coverage
    assert factors[ids[READING]]['reach'] < 0.3
    assert factors[ids[NOVEL]]['reach'] == factors[ids[NOVEL]]['confidence'] >= 0.3
    assert factors[ids[UNRELATED]]['confidence'] == 0.0
    # an English question's reach (recall.read.ranking en_reach) never exceeds its confidence
    # unless a word names the memory's user: these memories have none
    english = SearchRequest(query='Which novel am I reading?', scope=SCOPE, explain=True)
    factors = recall.search(english, ADMIN).receipt.factors or {}
    assert factors and all(f['reach'] <= f['confidence'] for f in factors.values())


def test_a_chinese_question_nothing_answers_gets_nothing():
    recall, _ = _ids()
    request = SearchRequest(query='秘鲁的首都是哪里？', scope=SCOPE, touch=False)
    assert recall.search(request, ADMIN).hits == []


def test_a_shared_character_and_a_high_cosine_do_not_answer_an_unrelated_question():
    # 天 of 每天 is the only character 明天会下雨吗 shares with any memory: a fifth of the
    # question and no two-character word, however close the embedder puts the two sentences
    recall, _ = _ids(blind_embedder())
    request = SearchRequest(query='明天会下雨吗？', scope=SCOPE, touch=False)
    assert recall.search(request, ADMIN).hits == []


def test_a_hit_repeating_a_word_of_the_question_still_answers_it():
    recall, ids = _ids(blind_embedder())
    request = SearchRequest(query='我在读哪本科幻小说？', scope=SCOPE, touch=False)
    found = {h.id for h in recall.search(request, ADMIN).hits}
    assert {ids[NOVEL], ids[READING]} <= found
    assert ids[UNRELATED] not in found


def test_a_chinese_member_sharing_one_character_reads_its_leaders_memory():
    store, clock = InMemoryVectorStore(), ManualClock(NOW)
    # the default embedder's Chinese: any two sentences at cosine ~0.64, calibrated as certain
    embedder = blind_embedder()
    writer = MemoryWriter(store, embedder, Bm25Encoder(), clock)
    recall = RecallService(store, embedder, Bm25Encoder(), clock, writer)
    member = Principal(name='m', agent_id='member', leader_scopes=('agent:leader',))
    writer.remember([MemoryIn(scope='agent:member', text='我周末在家上网。')])
    (answer,) = writer.remember([MemoryIn(scope='agent:leader', text='李娜在字节跳动上班。')])
    # 上 of 上网 is one character of the question's content: no answer, so the leader is read
    request = SearchRequest(query='李娜在哪里上班？', scope='agent:member')
    result = recall.search(request, member)
    assert result.receipt.fallback == 'team_leader'
    assert result.hits[0].id == str(answer.id)
