"""Dreaming (L1 -> L0): consolidate recurring episodes of one (scope, user) pair into a long-term
memory document (`episodic.created` job), then mark those episodes promoted.

Runs when at least `dreaming_threshold` unpromoted live episodes exist for the pair, at most once
per `dreaming_debounce_seconds` per pair (a lease in the job store, shared by every process).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from consolidation import llm, text
from consolidation.episodic import pair_filter, scan
from consolidation.models import Episode
from core.clock import to_epoch
from recall.models import EPISODES
from recall.schemas import MemoryIn
from recall.tiers import Kind, Source

if TYPE_CHECKING:
    from consolidation.context import JobContext

log = logging.getLogger(__name__)

BATCH = 10  # episodes consolidated per run (GoClaw's choice)
MAX_DOCUMENT_CHARS = 12_000
LLM_PROMPT = (
    "You consolidate an AI agent's session summaries into long-term memory. Write Markdown with "
    'the sections "## Preferences", "## Project facts", "## Recurring patterns" and '
    '"## Decisions", each a short bullet list of durable facts stated in the sessions. '
    'Do not invent anything; omit empty sections.'
)


def document_path(when: datetime) -> str:
    """`_system/dreaming/YYYYMMDD-consolidated.md`, dated by the run."""
    return f'_system/dreaming/{when:%Y%m%d}-consolidated.md'


def synthesize(services: JobContext, episodes: list[Episode], title: str) -> tuple[str, str]:
    """The consolidated document and how it was made ('llm' or 'extractive')."""
    if llm.enabled(services.settings):
        joined = '\n\n'.join(
            f'Session {e.session_key} ({e.ended_at:%Y-%m-%d}): {e.summary}' for e in episodes
        )
        reply = llm.complete(services.settings, LLM_PROMPT, joined[-60_000:], max_tokens=4096)
        if reply:
            return f'# {title}\n\n{reply.strip()}\n', 'llm'
    items = [text.EpisodeText(id=e.id, summary=e.summary, topics=tuple(e.topics)) for e in episodes]
    return text.synthesize(items, title).document, 'extractive'


def dream(services: JobContext, params: dict[str, Any]) -> dict[str, Any]:
    """Promote a (scope, user) pair's unpromoted episodes into one `dream` memory."""
    scope = str(params['scope'])
    user_id = params.get('user_id')
    settings = services.settings
    now = services.clock.now()
    flt = pair_filter(scope, user_id, promoted=False, live_at=now)
    waiting = services.vectors.count(EPISODES, flt)
    if waiting < settings.dreaming_threshold:
        return {'status': 'skipped', 'reason': 'below_threshold', 'unpromoted': waiting}
    lease = f'dreaming:{scope}:{user_id or "*"}'
    if not services.jobs.claim(lease, now, settings.dreaming_debounce_seconds):
        return {'status': 'skipped', 'reason': 'debounced', 'unpromoted': waiting}

    episodes = sorted(scan(services, flt), key=lambda e: (e.ended_at, e.id))[:BATCH]
    if len(episodes) < settings.dreaming_threshold:  # another run promoted them meanwhile
        return {'status': 'skipped', 'reason': 'below_threshold', 'unpromoted': len(episodes)}
    when = to_epoch(now)
    path = document_path(now)
    title = f'Consolidated memory {now:%Y-%m-%d}' + (f' for {user_id}' if user_id else '')
    document, origin = synthesize(services, episodes, title)
    document = text.clip(document, MAX_DOCUMENT_CHARS)
    item = MemoryIn(
        scope=scope,
        user_id=user_id,
        text=document,
        kind=Kind.DREAM,
        source=Source.CONSOLIDATION,
        source_ref=path,
        importance=0.7,
        tags=['dreaming'],
        metadata={'path': path, 'episode_ids': [e.id for e in episodes], 'synthesis': origin},
    )
    [written] = services.writer.remember([item])
    services.vectors.set_payload(
        EPISODES, {e.id: {'promoted': True, 'promoted_at': when} for e in episodes}
    )
    return {
        'status': 'promoted',
        'memory_id': written.id,
        'path': path,
        'episodes': [e.id for e in episodes],
        'synthesis': origin,
    }
