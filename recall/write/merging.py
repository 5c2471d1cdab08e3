"""What a merge changes in a stored memory: it only ever adds, so no stored fact is lost."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from core.clock import to_epoch
from recall.models import ANY_USER, MEMORIES, MERGE_RECORDS, Chunk, MergeRecord
from recall.normalize import content_hash
from recall.schemas import MemoryIn
from recall.tiers import Tier
from recall.write.conflicts import topic_tokens
from recall.write.trust import trust_of, trust_rank
from vectors.models import PointFilter
from vectors.ports import VectorStore

# stored memories of one entity key read per write: a key shared by several people's memories
# (a birthday without its owner's name) is rare and small
KEYED_CANDIDATES = 10


def merged_change(base: dict[str, Any], item: MemoryIn, now: datetime) -> dict[str, Any]:
    """The payload change of merging `item` into the stored `base`: a merge only adds. It
    keeps the pin, the higher importance, the older event time, the stored metadata (its
    keys win; new keys are added) and the union of tags, and counts one more access. The
    merged write is recorded in the memory's history (`merges`), and the latest event time it
    was stated at as `stated_at`."""
    recorded = _merge_record(base, item, now)
    if trust_rank(trust_of(item)) < trust_rank(base.get('trust')):
        # the same text from a less trusted source is one more access and nothing else
        return {
            'access_count': int(base.get('access_count', 0)) + 1,
            'accessed_at': to_epoch(now),
            'updated_at': to_epoch(now),
            **recorded,
        }
    importance = max(float(base.get('importance', 0.5)), item.importance or 0.0)
    pinned = bool(base.get('pinned')) or item.pinned
    tags = list(dict.fromkeys([*base.get('tags', []), *item.tags]))
    change: dict[str, Any] = {
        'access_count': int(base.get('access_count', 0)) + 1,
        'accessed_at': to_epoch(now),
        'updated_at': to_epoch(now),
        'importance': importance,
        'metadata': {**item.metadata, **base.get('metadata', {})},
        'pinned': pinned,
        'tags': tags,
        **recorded,
    }
    if pinned:
        change['tier'] = Tier.CORE.value
    if trust_rank(trust_of(item)) > trust_rank(base.get('trust')):
        change['trust'] = trust_of(item).value
    stored_at = base.get('created_at')
    if item.created_at is not None and (
        not isinstance(stored_at, int | float) or to_epoch(item.created_at) < stored_at
    ):
        change['created_at'] = to_epoch(item.created_at)
    # `created_at` keeps the first saying; supersession needs the last one too
    change['stated_at'] = max(to_epoch(item.created_at or now), stated_at(base))
    return change


def stated_at(payload: Mapping[str, Any]) -> float:
    """The latest event time a stored memory was stated at (epoch seconds; 0 when unknown): a
    restatement merged into it counts, so a fact said again is as current as its last saying."""
    times = [payload.get('created_at'), payload.get('stated_at')]
    return max((float(t) for t in times if isinstance(t, int | float)), default=0.0)


def _merge_record(base: dict[str, Any], item: MemoryIn, now: datetime) -> dict[str, Any]:
    """The payload change that adds `item` to the merges recorded on `base`."""
    if base.get('content_hash') == content_hash(item.text):
        reason = 'same text'
    elif item.entity_key and item.entity_key == base.get('entity_key'):
        reason = 'same entity key'
    else:
        reason = 'similar text'
    record = MergeRecord(
        at=now, text=item.text, reason=reason, source=item.source, trust=trust_of(item)
    )
    kept = [*base.get('merges', []), record.model_dump(mode='json')][-MERGE_RECORDS:]
    return {'merges': kept, 'merge_count': int(base.get('merge_count', 0)) + 1}


def same_subject(new: str | None, old: object) -> bool:
    """Whether a write by `new` may merge with a memory stored for `old` (unknown matches)."""
    # two speakers named differently say different things about different people
    return new is None or not isinstance(old, str) or not old or new == old


# ---- what may merge --------------------------------------------------------------------------
# words that name whom a memory is about when they open it ("Our son …", "My mother's …")
_KIN = frozenset(
    {
        'son', 'daughter', 'mother', 'father', 'mom', 'mum', 'dad', 'wife', 'husband', 'brother',
        'sister', 'grandmother', 'grandfather', 'grandma', 'grandpa', 'grandson', 'granddaughter',
        'aunt', 'uncle', 'cousin', 'niece', 'nephew', 'boyfriend', 'girlfriend', 'fiance',
        'fiancee', 'partner', 'baby', 'kid', 'child', 'children', 'boss', 'friend', 'neighbour',
        'neighbor', 'stepson', 'stepdaughter', 'twin',
    }
)  # fmt: skip
_KIN_ZH = re.compile(
    r'儿子|女儿|妈妈|母亲|爸爸|父亲|妻子|老婆|丈夫|老公|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|外婆|孙子|孙女|'
    r'叔叔|阿姨|舅舅|表哥|表姐|堂哥|男朋友|女朋友|老板|朋友'
)
# words that open a memory without naming anyone
_OPENERS = frozenset(
    {
        'i', 'my', 'our', 'his', 'her', 'their', 'your', 'its', 'we', 'you', 'he', 'she', 'they',
        'it', 'this', 'that', 'the', 'a', 'an', 'and', 'also', 'remember', 'note', 'today',
        'tomorrow', 'yesterday', 'then', 'so', 'but', 'please',
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+(?:'s)?")


def subjects(text: str) -> set[str]:
    """Whom `text` is about, read from its opening words: names and kin words before the first
    other word ("Leo", "Our son Leo's", "我儿子"); empty when it opens with "I" or a verb."""
    found: set[str] = set()
    for word in _WORD.findall(text[:120]):
        bare = word.removesuffix("'s")
        lower = bare.lower()
        if lower in _KIN:
            found.add(lower)
        elif bare[:1].isupper() and lower not in _OPENERS:
            found.add(bare)
        elif lower not in _OPENERS or lower == 'i':
            break
    found.update(_KIN_ZH.findall(text[:8]))
    return found


def different_subjects(new: str, old: str) -> bool:
    """True when both texts name whom they are about and neither names a part of the other:
    "Leo was born …" and "Mia was born …", "Our son …" and "Our daughter …" are two memories
    however alike, never a merge or a supersession."""
    a, b = subjects(new), subjects(old)
    return bool(a and b) and not (a <= b or b <= a)


def keeps_content(new: str, old: str) -> bool:
    """Whether merging `new` into the stored `old` loses nothing of it: every topic token of
    the whole new text (names, numbers, nouns) is in the old one. Cosines compare clamped
    texts (head and tail of a long one), so two long texts that differ only in what the clamp
    drops look identical to them; this compares everything."""
    return not different_subjects(new, old) and topic_tokens(new) <= topic_tokens(old)


def keyed_twin(
    vectors: VectorStore, item: MemoryIn, fresh: Mapping[str, tuple[int, Chunk]]
) -> str | None:
    """The memory this write's entity key (phone:…, birthday:…) names, in its batch or stored
    for its user and scope, unless it is about someone else (the twins' shared birthday)."""
    if not item.entity_key:
        return None
    for ident, (_, chunk) in fresh.items():
        if (chunk.scope, chunk.user_id, chunk.entity_key) == (
            item.scope,
            item.user_id,
            item.entity_key,
        ) and not different_subjects(item.text, chunk.text):
            return ident
    flt = PointFilter(
        scopes=[item.scope],
        any_of={'entity_key': [item.entity_key], 'owner': [item.user_id or ANY_USER]},
        none_of={'superseded': [True]},
    )
    found, _ = vectors.scroll(MEMORIES, flt, KEYED_CANDIDATES)
    for point in found:
        if not different_subjects(item.text, str(point.payload.get('text', ''))):
            return point.id
    return None
