"""Ranking signals fire on what the query and the hit show: a speaker boost for a turn its
subject spoke (never a field note or a block of several speakers' lines), context neighbours for
dialogue turns only, and no signal in a single-channel mode."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from core.auth import Principal
from core.clock import ManualClock
from core.text_cache import CACHED_TEXT
from recall import speakers
from recall.read.context import neighbours_of
from recall.schemas import MemoryIn, SearchMode, SearchRequest
from recall.service import RecallService
from recall.speakers import is_turn, prefix_speaker, speaker_of, turn_speaker
from recall.write.writer import MemoryWriter
from tests.fakes import InMemoryVectorStore
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder

NOW = datetime(2026, 3, 1, tzinfo=UTC)
SCOPE = 'agent:gates'
ADMIN = Principal(name='t', admin=True)


def test_a_field_note_has_no_speaker_in_either_language():
    for text in ("Maya Patel's Gender: female", "Chris Jones' Age: 41", '李娜的性别：女'):
        assert prefix_speaker(text) is None, text
        assert turn_speaker({'text': text, 'metadata': {}}) is None, text
        assert not is_turn({'text': text, 'metadata': {}}), text
    # a write still falls back to the user, but a read never counts that as a speaker
    assert speaker_of("Maya Patel's Gender: female", {}, 'u1') == 'u1'
    assert prefix_speaker('Maya: I ran the half marathon') == 'Maya'


def test_a_labelled_note_has_no_speaker_in_either_language():
    notes = [
        "X's Gender: female",
        '发布流程：先提测，再上线',
        '更正：我的邮箱改了',
        '注意：周五不开会',
        'Note: buy milk',
        'Update: the launch moved to May',
        'Address: 12 High Street',
        'TODO: renew the passport',
        'Summary: we chose Postgres',
        'Meeting Notes: budget approved',
        '上线前检查项：跑完回归',
    ]
    for text in notes:
        assert prefix_speaker(text) is None, text
        assert not is_turn({'text': text, 'metadata': {}}), text
        # a write falls back to the user id, never to the label
        assert speaker_of(text, {}, 'u1') == 'u1', text
    speakers = [
        ('Caroline: hi', 'Caroline'),
        ('李娜：你好', '李娜'),
        ('欧阳娜娜：好的', '欧阳娜娜'),
        ('Dr. Lee: fine', 'Dr. Lee'),
    ]
    for text, name in speakers:
        assert prefix_speaker(text) == name, text
        assert is_turn({'text': text, 'metadata': {}}), text


def test_a_block_of_several_speakers_lines_is_not_one_turn():
    block = 'Maya: Spain again?\nTom: Only the beach.\nMaya: Cadiz then.'
    assert prefix_speaker(block) is None
    assert prefix_speaker('Maya: first line\nand a second one') == 'Maya'


def _service() -> tuple[RecallService, MemoryWriter]:
    store, clock = InMemoryVectorStore(), ManualClock(NOW)
    writer = MemoryWriter(store, HashEmbedder(), Bm25Encoder(), clock)
    return RecallService(store, HashEmbedder(), Bm25Encoder(), clock, writer), writer


def test_a_field_note_and_a_dialogue_block_never_get_a_speaker_boost():
    recall, writer = _service()
    texts = [
        "Maya Patel's Gender: female",
        'Maya: Spain again this summer?\nTom: Only the beach, Maya.',
        'Maya: my gender studies essay is due',
    ]
    # days apart: no turn is the other's neighbour
    results = writer.remember(
        [
            MemoryIn(scope=SCOPE, text=t, created_at=NOW - timedelta(days=3 * n))
            for n, t in enumerate(texts)
        ]
    )
    note, block, turn = (str(r.id) for r in results)
    request = SearchRequest(
        query='What is the gender of Maya Patel?', scope=SCOPE, touch=False, explain=True
    )
    found = recall.search(request, ADMIN)
    factors = found.receipt.factors
    assert factors is not None
    assert factors[note]['speaker_named'] == 0.0
    assert factors[block]['speaker_named'] == 0.0
    assert factors[turn]['speaker_named'] == 1.0
    assert found.receipt.speakers == ['Maya']
    # and only the turn is calibrated as one (recall.read.fusion turn_calibration)
    assert [factors[i]['turn'] for i in (note, block, turn)] == [0.0, 0.0, 1.0]


def test_a_non_dialogue_memory_never_gets_context_neighbours():
    recall, writer = _service()
    start = NOW - timedelta(days=2)
    facts = ["Maya Patel's Gender: female", "Maya Patel's Age: 34", 'Maya prefers oat milk']
    written = writer.remember(
        [
            MemoryIn(scope=SCOPE, text=t, created_at=start + timedelta(minutes=n))
            for n, t in enumerate(facts)
        ]
    )
    ids = [str(r.id) for r in written]
    payloads = {p.id: p.payload for p in recall._vectors.retrieve('memories', ids)}
    assert payloads[ids[1]]['prev_id'] == ids[0]  # linked as written, yet no neighbours
    assert neighbours_of(ids, payloads) == {}
    request = SearchRequest(query='How old is Maya Patel?', scope=SCOPE, touch=False)
    found = recall.search(request, ADMIN)
    assert 'context' not in {k.removesuffix('_rank') for h in found.hits for k in h.components}
    # dialogue turns of one session still lend each other context
    turns = writer.remember(
        [
            MemoryIn(scope=SCOPE, text=t, created_at=start + timedelta(hours=1, minutes=n))
            for n, t in enumerate(['Ann: What did you paint?', 'Bo: A sunrise over the lake.'])
        ]
    )
    turn_ids = [str(r.id) for r in turns]
    payloads = {p.id: p.payload for p in recall._vectors.retrieve('memories', turn_ids)}
    assert neighbours_of(turn_ids, payloads) == {
        turn_ids[1]: [turn_ids[0]],
        turn_ids[0]: [turn_ids[1]],
    }


def test_a_single_channel_mode_scores_by_the_channel_alone():
    recall, writer = _service()
    texts = [
        "Maya Patel's Gender: female",
        'Maya: gender, Maya Patel said, is not a topic for the ward',
        'Tom: the gender pay gap in carpentry',
    ]
    writer.remember(
        [
            MemoryIn(scope=SCOPE, text=t, created_at=NOW - timedelta(days=400 * n), pinned=n == 2)
            for n, t in enumerate(texts)
        ]
    )
    request = SearchRequest(
        query='gender of Maya Patel', scope=SCOPE, touch=False, mode=SearchMode.BM25
    )
    found = recall.search(request, ADMIN)
    channel = found.receipt.channels['bm25']
    assert [h.id for h in found.hits] == channel[: len(found.hits)]
    assert all(
        not {'speaker_boost', 'date_boost', 'user_boost', 'trust_factor'} & set(h.components)
        for h in found.hits
    )
    scores = [h.score for h in found.hits]
    assert scores == sorted(scores, reverse=True)


def test_a_speaker_read_again_is_the_same():
    # prefix_speaker is kept per text: a repeated text, and a text differing only after the
    # prefix, each get their own reading
    for _ in range(2):
        assert prefix_speaker('Maya: I ran') == 'Maya'
        assert prefix_speaker("Maya's Gender: female") is None
        assert prefix_speaker('Maya: I ran\nLee: me too') is None
    # a long text is read as well, and not held as a cache key
    held = speakers._read_prefix.cache_info().currsize
    long = 'Maya: ' + 'word ' * CACHED_TEXT
    assert prefix_speaker(long) == 'Maya'
    assert prefix_speaker(long + '\nLee: me too') is None
    assert speakers._read_prefix.cache_info().currsize == held
