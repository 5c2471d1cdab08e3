"""The relevance floor on a Chinese question asks whether the question is answered at all: once a
hit reaches the floor, a paraphrase sharing one content word with the question is kept (its
share of the question's characters alone would drop it), a memory sharing none is not, and a
question nothing answers still gets nothing. The learned model reads a Chinese hit's coverage
alone as its confidence (the default embedder reads no Chinese)."""

from __future__ import annotations

from datetime import UTC, datetime

from core.auth import Principal
from core.clock import ManualClock
from recall.schemas import MemoryIn, SearchRequest
from recall.service import RecallService
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:zh-floor'
ADMIN = Principal(name='t', admin=True)
NOVEL = '我最喜欢的科幻小说作者是刘慈欣。'  # holds 科幻小说: reaches the floor
READING = '我正在读《三体》第二部。'  # the answer, sharing only 读 with the question
UNRELATED = '我每天早上六点半起床。'  # shares no content word


def _ids() -> tuple[RecallService, dict[str, str]]:
    store, clock = InMemoryVectorStore(), ManualClock(NOW)
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), clock)
    recall = RecallService(store, HashEmbedder(), Bm25Encoder(), clock, writer)
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
    assert factors[ids[READING]]['reach'] >= factors[ids[READING]]['confidence']
    assert factors[ids[UNRELATED]]['confidence'] == 0.0
    # an English question keeps one confidence, the cosine counting
    english = SearchRequest(query='Which novel am I reading?', scope=SCOPE, explain=True)
    assert all(
        'reach' not in f for f in (recall.search(english, ADMIN).receipt.factors or {}).values()
    )


def test_a_chinese_question_nothing_answers_gets_nothing():
    recall, _ = _ids()
    request = SearchRequest(query='秘鲁的首都是哪里？', scope=SCOPE, touch=False)
    assert recall.search(request, ADMIN).hits == []
