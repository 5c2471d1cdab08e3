"""Episodic memory (L1): one episode per completed session (`session.completed` job).

Emits `episodic.created`: the semantic job (graph extraction) and the dreaming job.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from consolidation import llm, text
from consolidation.models import Episode, SessionIn, SummarySource, episode_id, source_id
from core.jobs import JobName, LockHeld
from recall.models import ANY_USER, EPISODES, episodes_spec
from recall.normalize import content_hash
from recall.recall_block import strip_recall_blocks
from recall.write.guards import redact_secrets
from vectors.models import CollectionSpec, PointFilter, Range, VectorPoint

if TYPE_CHECKING:
    from consolidation.context import JobContext

log = logging.getLogger(__name__)

CREATE_LEASE_SECONDS = 120.0
# Roles whose words make up the session; system prompts and tool output are not memory.
SPOKEN_ROLES = ('user', 'assistant')
LLM_SUMMARY_PROMPT = (
    'Summarise this conversation for long-term memory in at most 8 sentences of plain prose. '
    'Keep names, decisions, preferences, dates and open tasks; leave out pleasantries.'
)


def episodes_collection(dim: int) -> CollectionSpec:
    """The `episodes` spec plus the chunk-shaped fields `memory_search` filters episodes on."""
    base = episodes_spec(dim)
    return base.model_copy(
        update={
            'keyword_fields': (*base.keyword_fields, 'owner', 'kind', 'trust', 'source'),
            'bool_fields': (*base.bool_fields, 'superseded'),
        }
    )


def ensure_episodes(services: JobContext) -> None:
    """Create the `episodes` collection and its indexes if missing."""
    services.vectors.ensure_collection(episodes_collection(services.embedder.dim))


def complete_session(services: JobContext, session_key: str, session: SessionIn) -> tuple[str, str]:
    """Accept a completed session: enqueue its episodic job; returns (job id, episode id).

    Secret-looking spans (keys, passwords, card numbers) are redacted before the transcript is
    queued, so neither the job store nor the episode ever holds them.
    """
    messages = [m.model_dump(mode='json') for m in session.messages]
    redacted = 0
    for message in messages:
        clean = redact_secrets(message['content'])
        redacted += clean != message['content']
        message['content'] = clean
    if redacted:
        log.info('session %s: secrets redacted from %d messages', session_key, redacted)
    params: dict[str, Any] = {
        'scope': session.scope,
        'user_id': session.user_id,
        'session_key': session_key,
        'compaction_count': session.compaction_count,
        'messages': messages,
        'summary': redact_secrets(session.summary) if session.summary else None,
    }
    job_id = services.jobs.enqueue(JobName.EPISODIC, **params)
    return job_id, episode_id(session.scope, session_key, session.compaction_count)


def get_episode(services: JobContext, ident: str) -> Episode | None:
    """The stored episode with this id, or None."""
    found = services.vectors.retrieve(EPISODES, [ident])
    return Episode.from_payload(found[0].payload) if found else None


def _summary(services: JobContext, session: SessionIn) -> tuple[str, SummarySource]:
    if session.summary:
        return session.summary.strip(), 'given'
    spoken = [m for m in session.messages if m.role in SPOKEN_ROLES] or session.messages
    if llm.enabled(services.settings):
        transcript = '\n'.join(f'{m.role}: {text.clip(m.content, 2000)}' for m in spoken)
        reply = llm.complete(
            services.settings, LLM_SUMMARY_PROMPT, transcript[-60_000:], max_tokens=1024
        )
        if reply:
            return reply, 'llm'
    return text.summarize([m.content for m in spoken]), 'extractive'


def without_recall(session: SessionIn) -> SessionIn | None:
    """The session with injected recall blocks cut from its messages and summary (recall
    Mnemos injected is never stored again as memory); None when nothing but recall is left."""
    messages = []
    for message in session.messages:
        content = strip_recall_blocks(message.content)
        if content:
            messages.append(message.model_copy(update={'content': content}))
    if not messages:
        return None
    summary = strip_recall_blocks(session.summary) if session.summary else None
    return session.model_copy(update={'messages': messages, 'summary': summary or None})


def summarize_session(services: JobContext, params: dict[str, Any]) -> dict[str, Any]:
    """Create the session's episode unless it exists (a replay is a no-op), then emit."""
    session_key = str(params['session_key'])
    session = SessionIn.model_validate({k: v for k, v in params.items() if k != 'session_key'})
    ident = episode_id(session.scope, session_key, session.compaction_count)
    if get_episode(services, ident) is not None:
        return {'episode_id': ident, 'status': 'exists'}
    # a replay racing the first run (another thread or worker) waits for it through a retry,
    # so downstream jobs are emitted once
    # a process killed mid-job leaves its lock behind: a live holder makes this run wait, a
    # dead one's lock is taken over at once (the job is replayed from the outbox on restart)
    held = services.jobs.lock(f'episode:{ident}', services.clock.now(), CREATE_LEASE_SECONDS)
    if held:
        raise LockHeld(f'episode {ident}', held)

    own = without_recall(session)
    if own is None:
        return {'episode_id': ident, 'status': 'skipped', 'reason': 'recall_only'}
    session = own
    summary, origin = _summary(services, session)
    if not summary:
        summary, origin = text.clip(session.messages[0].content, 2000), 'extractive'
    spoken = [m.content for m in session.messages if m.role in SPOKEN_ROLES]
    topics = text.key_topics([summary, *spoken])
    now = services.clock.now()
    times = [m.ts for m in session.messages]
    episode = Episode(
        id=ident,
        scope=session.scope,
        user_id=session.user_id,
        session_key=session_key,
        compaction_count=session.compaction_count,
        source_id=source_id(session_key, session.compaction_count),
        summary=summary,
        summary_source=origin,
        abstract=text.abstract(summary),
        topics=topics,
        message_count=len(session.messages),
        started_at=min(times),
        ended_at=max(times),
        created_at=now,
        updated_at=now,
        expires_at=now + timedelta(days=services.settings.episode_ttl_days),
        content_hash=content_hash(summary),
    )
    _store(services, episode)
    # episodic.created: graph extraction, and dreaming for this (scope, user) pair
    # with its user: forgetting the user cancels it, or waits for it while it runs
    semantic = services.jobs.enqueue(
        JobName.SEMANTIC, scope=episode.scope, user_id=episode.user_id, episode_id=episode.id
    )
    dreaming = services.jobs.enqueue(JobName.DREAMING, scope=episode.scope, user_id=episode.user_id)
    return {
        'episode_id': ident,
        'status': 'created',
        'summary_source': origin,
        'next': {'semantic': semantic, 'dreaming': dreaming},
    }


def _store(services: JobContext, episode: Episode) -> None:
    indexed = ' '.join([episode.summary, *episode.topics])
    [dense] = services.embedder.embed([indexed])
    point = VectorPoint(
        id=episode.id,
        dense=dense,
        sparse=services.sparse.encode_document(indexed),
        payload=episode.to_payload(),
    )
    services.vectors.upsert(EPISODES, [point])


def episode_filter(
    scopes: list[str] | None,
    user_id: str | None = None,
    *,
    promoted: bool | None = None,
    live_at: datetime | None = None,
) -> PointFilter:
    """Episodes in `scopes` of one user (None: any), optionally by promotion and still live."""
    flt = PointFilter(scopes=scopes)
    if user_id is not None:
        flt.any_of['user_id'] = [user_id]
    if promoted is not None:
        flt.any_of['promoted'] = [promoted]
    if live_at is not None:
        flt.ranges['expires_at'] = Range(gte=live_at.timestamp())
    return flt


def pair_filter(
    scope: str, user_id: str | None, *, promoted: bool, live_at: datetime
) -> PointFilter:
    """Episodes of exactly one (scope, user) pair; a user-less pair matches user-less episodes."""
    flt = episode_filter([scope], promoted=promoted, live_at=live_at)
    flt.any_of['owner'] = [user_id or ANY_USER]
    return flt


def scan(services: JobContext, flt: PointFilter, cap: int = 10_000) -> list[Episode]:
    """Every episode matching `flt` (at most `cap`), in id order."""
    out: list[Episode] = []
    offset: str | None = None
    while len(out) < cap:
        points, offset = services.vectors.scroll(EPISODES, flt, min(256, cap - len(out)), offset)
        out.extend(Episode.from_payload(p.payload) for p in points)
        if offset is None:
            break
    return out


def list_episodes(
    services: JobContext, scope: str, user_id: str | None, limit: int
) -> list[Episode]:
    """Live episodes of a scope (and user), newest session first."""
    found = scan(services, episode_filter([scope], user_id, live_at=services.clock.now()))
    found.sort(key=lambda e: (e.ended_at, e.id), reverse=True)
    return found[:limit]


class EpisodeService:
    """Sessions and episodes for the API: accept a completed session, list live episodes."""

    def __init__(self, context: JobContext) -> None:
        self._context = context

    def complete_session(self, session_key: str, session: SessionIn) -> tuple[str, str]:
        """Enqueue the session's episodic job; returns (job id, episode id)."""
        return complete_session(self._context, session_key, session)

    def live(self, scope: str, user_id: str | None, limit: int) -> list[Episode]:
        """Live episodes of a scope (and user), newest session first."""
        return list_episodes(self._context, scope, user_id, limit)

    def get(self, ident: str) -> Episode | None:
        """The stored episode with this id, or None."""
        return get_episode(self._context, ident)

    def count(self) -> int:
        """Stored episodes in every scope (for metrics)."""
        return self._context.vectors.count(EPISODES, PointFilter(scopes=None))
