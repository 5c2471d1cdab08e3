"""Conflicts by subject and predicate (issue 13): a new home, employer or editor supersedes the
old one even when the two texts share almost no words, in English and Chinese."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from core.clock import ManualClock
from recall.models import MEMORIES
from recall.schemas import MemoryIn, WriteStatus
from recall.write.facts import facts_of
from recall.write.supersession import Stated, replaced
from recall.write.writer import MemoryWriter
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder
from vectors.memory import InMemoryVectorStore

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:slots'


def _writer(vectors: InMemoryVectorStore) -> MemoryWriter:
    return MemoryWriter(vectors, HashEmbedder(), Bm25Encoder(), ManualClock(NOW))


@pytest.mark.parametrize(
    ('old', 'new'),
    [
        ('I live in Berlin', 'I moved to Paris'),
        ('我住在北京', '我已经搬到上海了'),
        ('I use vim for everything', 'switched to VS Code'),
        ('I work at Initech', 'I just started a new job at Globex'),
        ('我在阿里巴巴工作', '我上个月入职了字节跳动'),
    ],
)
def test_a_new_value_of_the_same_slot_supersedes_the_old_memory(old: str, new: str):
    vectors = InMemoryVectorStore()
    writer = _writer(vectors)
    [first] = writer.capture(SCOPE, old, user_id='u1')[1]
    [second] = writer.capture(SCOPE, new, user_id='u1')[1]
    assert second.status == WriteStatus.CREATED
    assert first.id is not None and second.superseded == [first.id]
    [stored] = vectors.retrieve(MEMORIES, [first.id])
    assert stored.payload['superseded'] is True


def test_another_users_slot_and_a_pinned_memory_are_left_alone():
    vectors = InMemoryVectorStore()
    writer = _writer(vectors)
    [theirs] = writer.remember([MemoryIn(scope=SCOPE, text='I live in Berlin', user_id='u2')])
    [pinned] = writer.remember(
        [MemoryIn(scope=SCOPE, text='I live in Rome', user_id='u1', pinned=True)]
    )
    [mine] = writer.remember([MemoryIn(scope=SCOPE, text='I moved to Paris', user_id='u1')])
    assert mine.superseded in (None, [])
    for ident in (theirs.id, pinned.id):
        assert ident is not None
        [stored] = vectors.retrieve(MEMORIES, [ident])
        assert not stored.payload.get('superseded')


def test_the_same_value_again_is_no_conflict_and_other_facts_have_no_slot():
    moved, lives = (
        Stated.of('n', 'I moved to Paris in June', None),
        Stated.of('o', 'I live in Paris', None),
    )
    assert not replaced(moved, lives)
    assert not [f for f in facts_of('I like tea') if f.single]
    assert not [f for f in facts_of('I love Paris') if f.single]
    now = [
        (f.slot, f.value)
        for f in facts_of("I used to use Emacs but now I'm on Neovim.")
        if not f.past
    ]
    assert now == [('editor', 'neovim')]


class SameVector:
    """Every text embeds alike: what a model that cannot read a language does to it."""

    name = 'same-vector'
    dim = 8

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0] + [0.0] * 7 for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0] + [0.0] * 7


def test_two_keyed_values_are_never_merged_by_similarity_alone():
    # issue 12 item 2: the parents' birthdays on one day differ in their subject, not their text
    vectors = InMemoryVectorStore()
    writer = MemoryWriter(vectors, SameVector(), Bm25Encoder(), ManualClock(NOW))
    [mother] = writer.capture(SCOPE, '我妈妈的生日是5月9日。', user_id='u1')[1]
    [father] = writer.capture(SCOPE, '我爸爸的生日也是5月9日。', user_id='u1')[1]
    assert (mother.status, father.status) == (WriteStatus.CREATED, WriteStatus.CREATED)
    assert mother.id != father.id


@pytest.mark.parametrize(
    ('old', 'new', 'slot'),
    [
        ('I prefer short answers.', 'Please give detailed answers.', 'answer_length'),
        ('I prefer miles for measurements.', 'Please use kilometres.', 'unit:distance'),
        ('My work email is a@b.com', 'My work email is c@d.com', 'email:work'),
    ],
)
def test_a_qualified_or_chosen_slot_holds_one_value(old: str, new: str, slot: str):
    [record] = replaced(Stated.of('n', new, None), Stated.of('o', old, None))
    assert record.slot == slot and record.rule == 'slot'


def test_a_qualified_slot_is_another_slot():
    work, own = (
        Stated.of('o', 'My work email is a@b.com', None),
        Stated.of('n', 'My email is c@d.com', None),
    )
    assert replaced(own, work) == []
