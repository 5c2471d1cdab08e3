"""Contradiction detection between a new memory and a similar existing one.

similarity  = 0.4 jaccard + 0.4 cosine + 0.2 bm25
              cosine missing -> jaccard alone (no renormalisation);
              bm25 missing   -> 0.5 jaccard + 0.5 cosine
boost       = min(1, 0.4 [negation] + 0.3 [preference_change] + 0.3 [temporal_shift]
                     + 0.3 [value_change])
score       = min(1, similarity + 0.3 boost)

verdict     duplicate      normalised texts equal, or no signal and similarity >= 0.85
            supersedes     a signal fired and score >= 0.6
            complementary  similarity >= 0.3: same topic, both stay
            unrelated      otherwise

Jaccard runs on topic tokens: lower-cased, lightly stemmed words and CJK character bigrams, with
negation words, change/shift markers and stop words removed, so "I like tea" and "I don't like
tea" overlap fully and the negation shows up as a signal rather than as distance.
`bm25` is expected in [0, 1] (the raw score divided by the query's self-score or the channel's
top score); it is clamped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from recall.normalize import normalize_text


class ConflictKind(StrEnum):
    """How a new memory relates to an existing one."""

    DUPLICATE = 'duplicate'
    SUPERSEDES = 'supersedes'
    COMPLEMENTARY = 'complementary'
    UNRELATED = 'unrelated'


class ConflictThresholds(BaseModel):
    """Weights and thresholds of the verdict (the formulas in the module docstring)."""

    model_config = ConfigDict(frozen=True)

    jaccard_weight: float = 0.4
    cosine_weight: float = 0.4
    bm25_weight: float = 0.2
    conflict: float = Field(default=0.6, description='score at which a signal means supersede')
    duplicate: float = Field(default=0.85, description='similarity for a signal-free duplicate')
    related: float = Field(default=0.3, description='similarity below which texts are unrelated')
    signal_weight: float = Field(default=0.3, description='share of the boost added to the score')
    negation_overlap: float = Field(default=0.3, description='topic overlap a negation needs')
    shift_overlap: float = Field(default=0.2, description='topic overlap a change/shift needs')
    value_overlap: float = Field(default=0.6, description='overlap of the non-value words')


DEFAULT_CONFLICT_THRESHOLDS = ConflictThresholds()
SIGNAL_BOOST = {
    'negation': 0.4,
    'preference_change': 0.3,
    'temporal_shift': 0.3,
    'value_change': 0.3,
}


class ConflictVerdict(BaseModel):
    """Verdict on (new, existing): kind, total score, the signals that fired and the parts."""

    model_config = ConfigDict(frozen=True)

    kind: ConflictKind
    score: float
    similarity: float
    signals: list[str] = Field(default_factory=list)
    components: dict[str, float] = Field(default_factory=dict)


class Existing(BaseModel):
    """A stored memory similar to the new one, with the store's cosine and normalised BM25."""

    id: str
    text: str
    cosine: float | None = None
    bm25: float | None = None


class ConflictMatch(BaseModel):
    """An existing memory and the verdict of the new text against it."""

    id: str
    verdict: ConflictVerdict


# ---- lexicon ---------------------------------------------------------------------------------

_NEGATION_EN = re.compile(
    r"\b(not|no|never|none|nobody|nothing|neither|nor|cannot|can't|don't|doesn't|didn't|"
    r"isn't|aren't|wasn't|weren't|won't|wouldn't|shouldn't|hasn't|haven't|hadn't|dislikes?|"
    r"hates?)\b|n't\b",
    re.IGNORECASE,
)
# 不/没/别/未 negate; 不错 ("not bad" = good) and 不过 ("however") do not
_NEGATION_ZH = re.compile(r'(?:不(?!错|过|久|少|同))|没|别(?!人|的)|未(?!来)|讨厌')
_CHANGE_EN = re.compile(
    r'\b(now prefers?|now likes?|now uses?|switched to|switching to|changed to|no longer|'
    r'instead|anymore|any more|not any longer|rather than|prefers? .* over)\b',
    re.IGNORECASE,
)
_CHANGE_ZH = re.compile(r'不再|改成|改为|改用|换成|换了|现在更?喜欢|现在用|已经不|不喜欢了')
_SHIFT_EN = re.compile(
    r'\b(moved to|moved|relocated|now lives?|now living|now works?|now|as of|recently|currently|'
    r'these days|nowadays|since|from now on|starting|no longer|switched)\b',
    re.IGNORECASE,
)
_SHIFT_ZH = re.compile(r'已经|现在|目前|如今|搬到|搬去|搬家|从今天起|从现在起|最近|刚刚|自从|改为')
_ABSOLUTE = re.compile(r'\b(always|forever|never|every time)\b|一直|永远|总是|从来', re.IGNORECASE)
_PREFERENCE = re.compile(
    r'\b(prefers?|preferred|likes?|liked|loves?|favou?rite|enjoys?|hates?|dislikes?|'
    r'wants?|uses?)\b|喜欢|偏好|爱|最爱|讨厌|习惯|想要|偏爱|喜爱',
    re.IGNORECASE,
)
# Markers are cut out before computing topic overlap: they carry the signal, not the topic.
_MARKERS_ZH = re.compile(
    r'不再|改成|改为|改用|换成|换了|已经|现在|目前|如今|从今天起|从现在起|最近|刚刚|一直|永远|'
    r'总是|了|吗|呢|吧|啊|的'
)
_CJK = re.compile(r'[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+')
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STOP = frozenset(
    (
        'a',
        'an',
        'the',
        'is',
        'are',
        'was',
        'were',
        'am',
        'be',
        'been',
        'being',
        'of',
        'to',
        'in',
        'on',
        'at',
        'for',
        'and',
        'or',
        'but',
        'with',
        'by',
        'as',
        'it',
        'its',
        'this',
        'that',
        'these',
        'those',
        'there',
        'here',
        'do',
        'does',
        'did',
        'so',
        'very',
        'really',
        'just',
        'also',
        'too',
        'then',
        'than',
        'now',
        'no',
        'not',
        'never',
        'longer',
        'anymore',
        'instead',
        'recently',
        'currently',
        'since',
        'nowadays',
    )
)
# Where someone lives is the commonest temporal fact; "moved to X" and "lives in Y" share a slot.
_SYNONYMS = {
    'moved': 'live',
    'move': 'live',
    'relocated': 'live',
    'reside': 'live',
    'resides': 'live',
    'lives': 'live',
    'living': 'live',
    'lived': 'live',
}
_SYNONYMS_ZH = re.compile(r'搬到了?|搬去了?|搬家到|定居在|定居于|住到|住在|居住在')
_NUMBER = re.compile(r'\d+(?:[.,]\d+)*')


def _stem(word: str) -> str:
    word = _SYNONYMS.get(word, word)
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in ('ing', 'ed', 'es', 's'):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith('ss'):
            return word[: -len(suffix)]
    return word


def topic_tokens(text: str) -> set[str]:
    """Tokens for overlap: stemmed English words and CJK bigrams, without markers and negation."""
    # negation goes before normalising, which would split "don't" into "don" and "t"
    folded = normalize_text(_NEGATION_EN.sub(' ', text.replace('\u2019', "'")))
    tokens: set[str] = set()
    for run in _CJK.findall(_SYNONYMS_ZH.sub('住在', folded)):
        run = _NEGATION_ZH.sub('', _MARKERS_ZH.sub('', run))
        if len(run) == 1:
            tokens.add(run)
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    latin = _CJK.sub(' ', folded)
    tokens.update(_stem(w) for w in _WORD.findall(latin) if w not in _STOP)
    return tokens


def jaccard(a: set[str], b: set[str]) -> float:
    """|a & b| / |a | b|; 0 for two empty sets."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


# topic-token overlap two texts need before a cosine may call them the same memory
MERGE_MIN_OVERLAP = 0.5


def merge_agrees(new: str, old: str, *, reads_cjk: bool) -> bool:
    """Whether a semantic duplicate verdict can be trusted beyond its cosine: the texts share
    most topic tokens (words, or CJK bigrams), and the embedder reads their script: an English
    model's cosines between Chinese texts say nothing (我叫东升 vs 我喜欢狗: 0.79). When unsure,
    both memories stay; equal normalised texts merge before this (same id)."""
    if not reads_cjk and (_CJK.search(new) or _CJK.search(old)):
        return False
    return jaccard(topic_tokens(new), topic_tokens(old)) >= MERGE_MIN_OVERLAP


def _negations(text: str) -> int:
    text = text.replace('\u2019', "'")
    return len(_NEGATION_EN.findall(text)) + len(_NEGATION_ZH.findall(text))


def _has(pattern: re.Pattern[str], text: str) -> bool:
    return pattern.search(text) is not None


def _value_change(new: str, old: str, t: ConflictThresholds) -> bool:
    """Same statement shape, different numbers: "lucky number is 88" vs "... is 66"."""
    new_numbers, old_numbers = set(_NUMBER.findall(new)), set(_NUMBER.findall(old))
    if not new_numbers or not old_numbers or new_numbers == old_numbers:
        return False
    strip = lambda s: topic_tokens(_NUMBER.sub(' ', s))  # noqa: E731
    return jaccard(strip(new), strip(old)) >= t.value_overlap


def signals(
    new: str, old: str, thresholds: ConflictThresholds = DEFAULT_CONFLICT_THRESHOLDS
) -> list[str]:
    """Contradiction signals between `new` and the older `old`, in a fixed order."""
    t = thresholds
    overlap = jaccard(topic_tokens(new), topic_tokens(old))
    found: list[str] = []
    # parity, not count: "not unlike" is as positive as "like"
    if _negations(new) % 2 != _negations(old) % 2 and overlap > t.negation_overlap:
        found.append('negation')
    changed = _has(_CHANGE_EN, new) or _has(_CHANGE_ZH, new)
    both_prefer = _has(_PREFERENCE, new) and _has(_PREFERENCE, old)
    differs = topic_tokens(new) != topic_tokens(old)
    if (changed and overlap >= t.shift_overlap) or (both_prefer and differs and overlap > 0.3):
        found.append('preference_change')
    shifted = _has(_SHIFT_EN, new) or _has(_SHIFT_ZH, new)
    if shifted and overlap >= t.shift_overlap and (differs or _has(_ABSOLUTE, old)):
        found.append('temporal_shift')
    if _value_change(new, old, t):
        found.append('value_change')
    return found


def similarity(
    jaccard_score: float,
    cosine: float | None,
    bm25: float | None,
    thresholds: ConflictThresholds = DEFAULT_CONFLICT_THRESHOLDS,
) -> float:
    """Weighted fusion of the three similarities, degrading as the module docstring says."""
    t = thresholds
    if cosine is None:
        return jaccard_score
    cos = min(max(cosine, 0.0), 1.0)
    if bm25 is None:
        total = t.jaccard_weight + t.cosine_weight
        return (t.jaccard_weight * jaccard_score + t.cosine_weight * cos) / total
    bm = min(max(bm25, 0.0), 1.0)
    return t.jaccard_weight * jaccard_score + t.cosine_weight * cos + t.bm25_weight * bm


def detect(
    new_text: str,
    existing_text: str,
    *,
    cosine: float | None = None,
    bm25: float | None = None,
    thresholds: ConflictThresholds = DEFAULT_CONFLICT_THRESHOLDS,
) -> ConflictVerdict:
    """How `new_text` relates to `existing_text`: duplicate, supersedes, complementary or not."""
    t = thresholds
    jac = jaccard(topic_tokens(new_text), topic_tokens(existing_text))
    sim = similarity(jac, cosine, bm25, t)
    parts = {'jaccard': round(jac, 6), 'similarity': round(sim, 6)}
    if cosine is not None:
        parts['cosine'] = cosine
    if bm25 is not None:
        parts['bm25'] = bm25
    if normalize_text(new_text) == normalize_text(existing_text):
        return ConflictVerdict(
            kind=ConflictKind.DUPLICATE, score=1.0, similarity=1.0, components=parts
        )
    fired = signals(new_text, existing_text, t)
    boost = min(1.0, sum(SIGNAL_BOOST[s] for s in fired))
    # capped at 1 so scores compare across verdicts; the boost is still in the components
    score = min(1.0, sim + t.signal_weight * boost)
    parts['boost'] = boost
    if fired and score >= t.conflict:
        kind = ConflictKind.SUPERSEDES
    elif not fired and sim >= t.duplicate:
        kind = ConflictKind.DUPLICATE
    elif sim >= t.related:
        kind = ConflictKind.COMPLEMENTARY
    else:
        kind = ConflictKind.UNRELATED
    return ConflictVerdict(
        kind=kind, score=round(score, 6), similarity=round(sim, 6), signals=fired, components=parts
    )


def assess(
    new_text: str,
    existing: Sequence[Existing],
    thresholds: ConflictThresholds = DEFAULT_CONFLICT_THRESHOLDS,
) -> list[ConflictMatch]:
    """Verdicts against every candidate, strongest first (supersedes, duplicate, then score)."""
    order = {
        ConflictKind.SUPERSEDES: 0,
        ConflictKind.DUPLICATE: 1,
        ConflictKind.COMPLEMENTARY: 2,
        ConflictKind.UNRELATED: 3,
    }
    matches = [
        ConflictMatch(
            id=e.id,
            verdict=detect(new_text, e.text, cosine=e.cosine, bm25=e.bm25, thresholds=thresholds),
        )
        for e in existing
    ]
    return sorted(matches, key=lambda m: (order[m.verdict.kind], -m.verdict.score, m.id))
