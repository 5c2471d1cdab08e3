"""Consolidation without stores: extractive text, dreaming synthesis, job states, the outbox."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from consolidation import text
from consolidation.expiry import prunable
from consolidation.models import SessionIn, episode_id
from consolidation.semantic import entity_ids_of
from core.clock import ManualClock
from core.jobs import JobName
from core.settings import Settings
from jobs.models import JobStatus
from jobs.queue import DramatiqJobQueue, InlineJobQueue, make_job_queue, queue_of
from jobs.store import InMemoryJobStore, SqliteJobStore
from recall.models import Chunk
from recall.tiers import Kind, Tier
from tests.waiting import DEADLINE_S, wait_until

SESSION = [
    "Hi! I'm planning the Mnemos launch with Alice Johnson next week.",
    'The Mnemos project uses Qdrant Edge and Kuzu for storage. '
    'We decided to ship the embedded mode first.',
    'Alice prefers green tea and she likes short meetings. Bob from Acme Corp reviews the API.',
    'Sounds good. The deadline for the Mnemos release is March 3.',
    'ok thanks',
]


# ---- extractive text ----------------------------------------------------------------------


def test_sentences_split_on_end_punctuation_and_line_breaks():
    assert text.split_sentences('One here. Two there!\nThree?  ') == [
        'One here.',
        'Two there!',
        'Three?',
    ]


def test_textrank_ranks_the_sentence_sharing_most_words_highest():
    sentences = [
        'Qdrant stores dense vectors.',
        'Mnemos stores dense vectors in Qdrant and property graphs in Kuzu.',
        'The weather was nice.',
        'Kuzu stores property graphs.',
    ]
    scores = text.textrank(sentences)
    assert max(range(4), key=lambda i: scores[i]) == 1
    assert min(range(4), key=lambda i: scores[i]) == 2


def test_textrank_of_unlinked_sentences_prefers_the_longer():
    assert text.textrank(['Alpha beta.', 'Gamma delta epsilon.']) == [2.0, 3.0]


def test_synthesis_clusters_link_overlapping_sentences_transitively_in_first_seen_order():
    sentences = [
        'red green blue',  # 0 ~ 2 (blue green red shared)
        'cats dogs mice',  # 1 ~ 4
        'red green blue yellow',  # 2 ~ 0, 2 ~ 3
        'green blue yellow purple',  # 3 ~ 2 (3 of 5 words), not ~ 0 (2 of 5): joins through 2
        'cats dogs mice birds',
        'nothing shared here',
    ]
    assert text._clusters(sentences) == [[0, 2, 3], [1, 4], [5]]


def test_the_extractive_summary_keeps_central_sentences_in_order_and_drops_chatter():
    summary = text.summarize(SESSION)
    assert 'Mnemos' in summary
    assert 'ok thanks' not in summary.lower()
    assert 'Hi!' not in summary
    picked = [s for s in text.split_sentences(' '.join(SESSION)) if s in summary]
    positions = [summary.index(s) for s in picked]
    assert positions == sorted(positions)


def test_a_summary_of_nothing_is_empty_and_a_huge_sentence_is_clipped():
    assert text.summarize([]) == ''
    summary = text.summarize(['word ' * 20_000])
    assert 0 < len(summary) <= text.SENTENCE_CHARS + 2


def test_the_abstract_is_one_sentence_of_at_most_200_characters():
    assert text.abstract('Alice ships Mnemos. Then more happens.') == 'Alice ships Mnemos.'
    long = 'Alice ' + 'really ' * 60 + 'ships Mnemos. Second sentence.'
    out = text.abstract(long)
    assert len(out) <= 200
    assert out.endswith('…')
    assert 'Second' not in out


def test_key_topics_are_proper_noun_phrases_most_frequent_first():
    topics = text.key_topics(SESSION)
    assert topics[0] == 'Mnemos'
    for expected in ('Alice Johnson', 'Qdrant Edge', 'Kuzu', 'Acme Corp', 'API'):
        assert expected in topics
    for noise in ('Hi', 'Sounds', 'The', 'We', 'March'):
        assert noise not in topics


def test_a_sentence_initial_ordinary_word_is_not_a_topic():
    topics = text.key_topics(['Storage is cheap. We talked about storage with Dana.'])
    assert topics == ['Dana']


# ---- dreaming synthesis -------------------------------------------------------------------


def test_synthesis_sorts_statements_into_sections_and_counts_recurrence():
    episodes = [
        text.EpisodeText(
            'e1',
            'Alice prefers green tea in the morning. We decided to use Kuzu.',
            ('Alice', 'Kuzu'),
        ),
        text.EpisodeText(
            'e2',
            'Alice prefers green tea. The Mnemos project deadline is March 3.',
            ('Alice', 'Mnemos'),
        ),
        text.EpisodeText(
            'e3',
            'The Mnemos release uses Qdrant Edge. Standup ran long again.',
            ('Mnemos', 'Qdrant Edge'),
        ),
    ]
    out = text.synthesize(episodes, 'Consolidated memory')
    assert out.sections['preferences'] == [
        'Alice prefers green tea in the morning. (in 2 sessions)'
    ]
    assert out.sections['decisions'] == ['We decided to use Kuzu.']
    assert 'The Mnemos project deadline is March 3.' in out.sections['project_facts']
    assert 'Alice came up in 2 sessions.' in out.sections['recurring_patterns']
    assert 'Mnemos came up in 2 sessions.' in out.sections['recurring_patterns']
    assert out.document.startswith('# Consolidated memory\n')
    assert '## Preferences' in out.document and '## Decisions' in out.document
    assert 'Standup' not in out.document  # one-off, not a fact of any section


def test_a_statement_repeated_across_sessions_is_a_recurring_pattern_once():
    episodes = [
        text.EpisodeText(f'e{i}', 'The nightly build failed on the staging cluster.')
        for i in range(3)
    ]
    out = text.synthesize(episodes, 'T')
    assert out.sections['recurring_patterns'] == [
        'The nightly build failed on the staging cluster. (3 sessions)'
    ]


# ---- models -------------------------------------------------------------------------------


def test_episode_ids_are_stable_per_scope_session_and_compaction():
    a = episode_id('agent:a', 's1', 0)
    assert a == episode_id('agent:a', 's1', 0)
    assert a != episode_id('agent:a', 's1', 1)
    assert a != episode_id('agent:b', 's1', 0)


def test_a_session_names_each_bad_field():
    with pytest.raises(ValidationError) as caught:
        SessionIn.model_validate(
            {
                'scope': 'agent:a',
                'messages': [{'role': 'user', 'content': 'x' * 40_000, 'ts': 'yesterday'}],
            }
        )
    locs = {tuple(e['loc']) for e in caught.value.errors()}
    assert ('messages', 0, 'content') in locs
    assert ('messages', 0, 'ts') in locs


def test_a_naive_timestamp_is_taken_as_utc():
    session = SessionIn.model_validate(
        {
            'scope': 'agent:a',
            'messages': [{'role': 'user', 'content': 'x', 'ts': '2026-01-02T03:04'}],
        }
    )
    assert session.messages[0].ts == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)


def test_entity_ids_are_read_from_lists_models_and_mappings():
    class Result:
        entity_ids = ['a', 'b']

    assert entity_ids_of(['a', 'b', 'a']) == ['a', 'b']
    assert entity_ids_of(Result()) == ['a', 'b']
    assert entity_ids_of({'entity_ids': ['c']}) == ['c']
    assert entity_ids_of(None) == []


# ---- hygiene ------------------------------------------------------------------------------


def _chunk(ident: str, now: datetime, **fields: Any) -> Chunk:
    base: dict[str, Any] = dict(
        id=ident,
        scope='agent:a',
        text=ident,
        created_at=now - timedelta(days=90),
        updated_at=now - timedelta(days=90),
        content_hash=ident,
        tier=Tier.PERIPHERAL,
        kind=Kind.NOTE,
    )
    base.update(fields)
    return Chunk(**base)


def test_hygiene_keeps_the_floor_and_never_prunes_core_or_pinned():
    now = datetime(2026, 6, 1, tzinfo=UTC)
    chunks = [_chunk(f'old{i}', now, updated_at=now - timedelta(days=60 + i)) for i in range(5)]
    chunks += [
        _chunk('core', now, tier=Tier.CORE),
        _chunk('pinned', now, pinned=True),
        _chunk('fresh', now, updated_at=now),
        _chunk('gone', now, tier=Tier.CORE, expires_at=now - timedelta(days=1)),
        _chunk('expired', now, expires_at=now - timedelta(days=1)),
        _chunk('superseded', now, superseded=True),
    ]
    doomed = prunable(chunks, now, floor=6)
    # 9 live (5 old + core + pinned + fresh + gone-but-core) above a floor of 6: the 3 oldest go
    assert set(doomed) == {'expired', 'superseded', 'old4', 'old3', 'old2'}
    assert prunable(chunks, now, floor=100) == ['expired', 'superseded']


# ---- job states and the outbox ------------------------------------------------------------


def test_graph_jobs_go_to_the_graph_queue():
    assert {queue_of(j) for j in ('index_graph', 'semantic', 'dedup')} == {'graph'}
    assert {queue_of(j) for j in ('episodic', 'dreaming', 'expiry')} == {'consolidation'}


def test_the_sqlite_outbox_tracks_states_and_lists_unfinished_jobs(tmp_path: Path):
    clock = ManualClock()
    store = SqliteJobStore(tmp_path / 'jobs.sqlite3', clock)
    store.create('j1', 'episodic', 'consolidation', {'scope': 'agent:a'}, 'agent:a')
    store.create('j2', 'expiry', 'consolidation', {}, None)
    store.started('j1', 'h:1')
    clock.advance(timedelta(seconds=5))
    store.finished('j1', error='boom', final=False)
    info = store.get('j1')
    assert info is not None
    assert (info.state, info.attempts, info.error) == (JobStatus.QUEUED, 1, 'boom')
    store.started('j1', 'h:1')
    store.finished('j1', result={'ok': 1})
    store.close()

    reopened = SqliteJobStore(tmp_path / 'jobs.sqlite3', clock)
    done = reopened.get('j1')
    assert done is not None
    assert (done.state, done.attempts, done.result) == (JobStatus.DONE, 2, {'ok': 1})
    assert done.updated_at > done.created_at
    assert [p[0] for p in reopened.pending()] == ['j2']
    reopened.close()


@pytest.mark.parametrize('kind', ['sqlite', 'memory'])
def test_a_lease_is_held_until_it_expires_by_the_given_clock(tmp_path: Path, kind: str):
    clock = ManualClock()
    store: Any = InMemoryJobStore(clock)
    if kind == 'sqlite':
        store = SqliteJobStore(tmp_path / 'j.sqlite3', clock)
    t0 = clock.now()
    assert store.claim('k', t0, 600)
    assert not store.claim('k', t0 + timedelta(seconds=599), 600)
    assert store.claim('k', t0 + timedelta(seconds=600), 600)
    assert store.claim('other', t0, 600)
    assert store.claim('zero', t0, 0) and store.claim('zero', t0, 0)


def _queue(tmp_path: Path, runner: Any, threads: int = 2) -> DramatiqJobQueue:
    settings = Settings.load({}, data_dir=tmp_path, worker_threads=threads)
    queue = make_job_queue(settings, runner, ManualClock())
    assert isinstance(queue, DramatiqJobQueue)
    return queue


def _wait_state(queue: Any, job_id: str, state: JobStatus) -> Any:
    def reached() -> Any:
        info = queue.get(job_id)
        return info if info is not None and info.state == state else None

    return wait_until(reached, lambda: f'job {job_id} never reached {state}: {queue.get(job_id)}')


def test_the_embedded_queue_runs_jobs_on_dramatiq_and_records_results(tmp_path: Path):
    seen: list[tuple[str, dict[str, Any]]] = []

    def runner(name: str, params: dict[str, Any]) -> Any:
        seen.append((name, params))
        return {'echo': params}

    queue = _queue(tmp_path, runner)
    queue.start()
    try:
        job_id = queue.enqueue(JobName.EPISODIC, scope='agent:a', n=1)
        info = _wait_state(queue, job_id, JobStatus.DONE)
        assert info.result == {'echo': {'scope': 'agent:a', 'n': 1}}
        assert info.attempts == 1 and info.scope == 'agent:a'
        assert ('episodic', {'scope': 'agent:a', 'n': 1}) in seen
    finally:
        queue.close()


def test_a_failing_job_is_retried_then_marked_failed_with_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from jobs import actors

    monkeypatch.setitem(actors.OPTIONS, 'min_backoff', 10)
    monkeypatch.setitem(actors.OPTIONS, 'max_backoff', 50)

    def runner(name: str, params: dict[str, Any]) -> Any:
        raise RuntimeError('always broken')

    queue = _queue(tmp_path, runner)
    queue.start()
    try:
        job_id = queue.enqueue(JobName.DEDUP, scope='agent:a')
        info = _wait_state(queue, job_id, JobStatus.FAILED)
        assert info.attempts == 4  # first try + max_retries=3
        assert info.error == 'RuntimeError: always broken'
    finally:
        queue.close()


def test_accepted_jobs_survive_a_restart_through_the_outbox(tmp_path: Path):
    ran: list[int] = []
    lock = threading.Lock()

    def runner(name: str, params: dict[str, Any]) -> Any:
        if name == 'episodic':  # the periodic expiry sweep also runs on start
            with lock:
                ran.append(params['n'])

    first = _queue(tmp_path, runner)  # never started: the process dies before running them
    ids = [first.enqueue(JobName.EPISODIC, n=n) for n in range(5)]
    first.close()
    assert ran == []

    second = _queue(tmp_path, runner)
    second.start()
    try:
        for job_id in ids:
            _wait_state(second, job_id, JobStatus.DONE)
        assert sorted(ran) == [0, 1, 2, 3, 4]
        assert second.wait_idle(DEADLINE_S)
    finally:
        second.close()


def test_the_inline_queue_runs_at_once_and_records_failures():
    def runner(name: str, params: dict[str, Any]) -> Any:
        if params.get('fail'):
            raise ValueError('bad')
        return 42

    queue = InlineJobQueue(runner, ManualClock())
    done = queue.get(queue.enqueue(JobName.EPISODIC))
    assert done is not None and (done.state, done.result) == (JobStatus.DONE, 42)
    with pytest.raises(ValueError):
        queue.enqueue(JobName.EPISODIC, fail=True)
