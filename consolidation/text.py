"""Extractive text tools of consolidation, pure functions: sentences, TextRank, abstract, topics,
and the clustered synthesis of several episodes that dreaming writes when no LLM is configured."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.lazy_re import lazy_compile
from core.text import ENGLISH_STOP_WORDS
from core.text import words as word_set
from kg.extraction.zh_reader import ZhReader

ABSTRACT_CHARS = 200
SUMMARY_CHARS = 2_000
# one unpunctuated 32 KB message must not become a 32 KB "sentence"
SENTENCE_CHARS = 400
CUE_BONUS = 1.0

# Chinese sentences end at 。！？； with no space after them
_SENTENCE_END = lazy_compile(r'(?<=[.!?])\s+|(?<=[。！？；])\s*|\n{1,}')
_WORD = lazy_compile(r"[A-Za-z][A-Za-z0-9'+#.-]*[A-Za-z0-9+#]|[A-Za-z]|\d+")
_HAN_RUN = lazy_compile(r'[\u4e00-\u9fff]+')
# Chinese function words: a bigram made only of these says nothing about the topic
_ZH_FUNCTION = set('的了是在我你他她它们这那和与就也都还很吗呢吧啊呀么个一不有要会说')
# jieba tags of names and proper nouns: people, places, organisations, other proper nouns
_ZH_TOPIC_TAGS = {'nr', 'nrfg', 'nrt', 'ns', 'nt', 'nz'}
_ZH = ZhReader()  # loads jieba on first Chinese text
_CAP_RUN = lazy_compile(
    r"\b(?:[A-Z][A-Za-z0-9+#.&'-]*[A-Za-z0-9+#]|[A-Z])"
    r"(?:\s+(?:of|de|la|von|van|the|&)?\s*(?:[A-Z][A-Za-z0-9+#.&'-]*[A-Za-z0-9+#]|[A-Z]))*"
)


# the shared English list plus chat fillers, which are never what a session was about
STOPWORDS = ENGLISH_STOP_WORDS | word_set(
    """ok okay yes yeah sure thanks thank please hi hello hey let lets also well really maybe
    great good fine right"""
)
# Capitalised only because they open a sentence or address someone: never topics on their own.
_NOT_TOPICS = STOPWORDS | word_set(
    """i i'm i've i'll i'd let's sounds perfect got noted done true cool nice awesome alright
    today tomorrow yesterday monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december user
    assistant system tool note update remember"""
)


def split_sentences(text: str) -> list[str]:
    """Sentences of `text` (end punctuation or line breaks), stripped, empty ones dropped."""
    parts = (p.strip(' \t-*•>#') for p in _SENTENCE_END.split(text))
    return [p for p in parts if len(p) > 1]


def words(text: str) -> list[str]:
    """Lower-cased content words (stopwords removed); Chinese runs give their character
    bigrams, so Chinese sentences overlap, rank and dedupe like English ones."""
    found = [w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in STOPWORDS]
    for run in _HAN_RUN.findall(text):
        grams = [run[i : i + 2] for i in range(len(run) - 1)] or [run]
        found += [g for g in grams if not set(g) <= _ZH_FUNCTION]
    return found


def _similarity(a: Sequence[str], b: Sequence[str]) -> float:
    # TextRank's overlap measure: shared words normalised by the log of the sentence lengths
    if len(a) < 2 or len(b) < 2:
        shared = len(set(a) & set(b))
        return float(shared) / 2.0 if shared else 0.0
    shared = len(set(a) & set(b))
    return shared / (math.log(len(a)) + math.log(len(b))) if shared else 0.0


def textrank(sentences: Sequence[str]) -> list[float]:
    """TextRank score of each sentence (PageRank over the word-overlap graph)."""
    if not sentences:
        return []
    tokens = [words(s) for s in sentences]
    n = len(sentences)
    weights = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            weights[i, j] = weights[j, i] = _similarity(tokens[i], tokens[j])
    if not weights.any():
        # nothing links the sentences: prefer the longer, more informative ones
        return [float(len(t)) for t in tokens]
    return _pagerank(weights)


def _pagerank(weights: np.ndarray, damping: float = 0.85, tol: float = 1e-8) -> list[float]:
    # power iteration on numpy: networkx's own pagerank needs scipy, which we do not ship
    n = weights.shape[0]
    out = weights.sum(axis=1)
    dangling = out == 0
    transition = np.divide(
        weights, out[:, None], out=np.zeros_like(weights), where=~dangling[:, None]
    )
    rank = np.full(n, 1.0 / n)
    for _ in range(200):
        spread = rank @ transition + rank[dangling].sum() / n
        nxt = (1.0 - damping) / n + damping * spread
        if np.abs(nxt - rank).sum() < tol:
            rank = nxt
            break
        rank = nxt
    return [float(x) for x in rank]


def summarize(texts: Sequence[str], *, max_sentences: int | None = None) -> str:
    """Extractive summary: the top TextRank sentences in their original order."""
    every = [clip(s) for t in texts for s in split_sentences(t)]
    sentences = _dedupe([s for s in every if len(words(s)) >= 2]) or _dedupe(every)
    if not sentences:
        return ''
    k = max_sentences or max(3, min(8, math.ceil(len(sentences) * 0.2)))
    # cue phrases (Edmundson): preferences and decisions are what memory is for, so they rank
    # with the most central sentences even when they share few words with the rest
    ranks = textrank(sentences)
    bonus = max(ranks) * CUE_BONUS
    scores = [
        r + bonus if _PREFERENCE.search(t) or _DECISION.search(t) else r
        for r, t in zip(ranks, sentences, strict=True)
    ]
    ranked = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    chosen: list[int] = []
    size = 0
    for i in ranked:
        if len(chosen) >= k:
            break
        if chosen and size + len(sentences[i]) > SUMMARY_CHARS:
            continue
        chosen.append(i)
        size += len(sentences[i]) + 1
    picked = [_terminated(sentences[i]) for i in sorted(chosen)]
    # Chinese sentences follow each other without a space
    return ''.join(s if s[-1] in '。！？' else s + ' ' for s in picked).strip()


def abstract(summary: str, limit: int = ABSTRACT_CHARS) -> str:
    """One sentence of at most `limit` characters: the summary's first, cut at a word if long."""
    sentences = split_sentences(summary)
    first = _terminated(sentences[0]) if sentences else summary.strip()
    return clip(first, limit)


def key_topics(texts: Sequence[str], limit: int = 10) -> list[str]:
    """Proper-noun phrases (capitalised runs and acronyms), most frequent first."""
    joined = '\n'.join(texts)
    lower_words = {m.group(0) for m in _WORD.finditer(joined) if m.group(0).islower()}
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    for sentence in (s for t in texts for s in split_sentences(t)):
        for match in _CAP_RUN.finditer(sentence):
            phrase = _trim_phrase(match.group(0))
            if not phrase:
                continue
            tokens = phrase.split()
            at_start = match.start() == 0 or not sentence[: match.start()].strip(' "\'(')
            if len(tokens) == 1:
                word = tokens[0]
                low = word.lower()
                if low in _NOT_TOPICS or len(word) < 2:
                    continue
                # a sentence-initial word also used in lower case is an ordinary word
                if at_start and low in lower_words and not word.isupper():
                    continue
            key = phrase
            counts[key] += 1
            first_seen.setdefault(key, len(first_seen))
    if _HAN_RUN.search(joined):
        for word, flag in _ZH.tags(joined):
            word = word.strip()
            if flag in _ZH_TOPIC_TAGS and len(word) >= 2:
                counts[word] += 1
                first_seen.setdefault(word, len(first_seen))
    ranked = sorted(counts, key=lambda p: (-counts[p], first_seen[p]))
    return ranked[:limit]


def clip(sentence: str, limit: int = SENTENCE_CHARS) -> str:
    """`sentence` cut at a word boundary to at most `limit` characters."""
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    if ' ' in cut:
        cut = cut[: cut.rfind(' ')]
    return cut.rstrip(' ,;:') + '…'


def _trim_phrase(phrase: str) -> str:
    tokens = phrase.split()
    # leading sentence-openers ("The", "I", "Yesterday") are not part of a name
    while tokens and tokens[0].lower() in _NOT_TOPICS:
        tokens = tokens[1:]
    while tokens and tokens[-1].lower() in {'of', 'de', 'la', 'von', 'van', 'the', '&'}:
        tokens = tokens[:-1]
    return ' '.join(t.rstrip('.') for t in tokens)


def _terminated(sentence: str) -> str:
    sentence = sentence.strip()
    if sentence[-1:] in '.!?。！？；':
        return sentence
    return sentence + ('。' if _HAN_RUN.search(sentence[-1:]) else '.')


def _dedupe(sentences: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for s in sentences:
        key = ' '.join(words(s)) or s.lower()
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


# ---- dreaming synthesis -------------------------------------------------------------------

_PREFERENCE = lazy_compile(
    r'\b(prefer|prefers|preferred|like|likes|love|loves|hate|hates|dislike|dislikes|favou?rite|'
    r"enjoy|enjoys|rather|always use|never use|don't want|do not want|wants?)\b|"
    r'喜欢|偏好|讨厌|最爱|不要用|别用|习惯用',
    re.IGNORECASE,
)
_DECISION = lazy_compile(
    r'\b(decided|decide|decision|agreed|agree on|chose|chosen|choose|going with|settled on|'
    r"will use|we'll use|switch(?:ed)? to|plan to|approved|picked)\b|"
    r'决定|约定|商定|同意|选定|改用|换成',
    re.IGNORECASE,
)
_PROJECT = lazy_compile(
    r'\b(project|deadline|release|launch|milestone|version|repo|repository|service|api|'
    r'database|deploy|deployed|uses|using|built with|runs on|migrat\w+|sprint|roadmap|client)\b',
    re.IGNORECASE,
)
SECTIONS = ('preferences', 'project_facts', 'recurring_patterns', 'decisions')


@dataclass(frozen=True)
class EpisodeText:
    """What dreaming reads of one episode."""

    id: str
    summary: str
    topics: tuple[str, ...] = ()


@dataclass(frozen=True)
class Synthesis:
    """The consolidated memory: items per section, and the markdown document."""

    sections: dict[str, list[str]]
    document: str


def synthesize(episodes: Sequence[EpisodeText], title: str, limit: int = 8) -> Synthesis:
    """Cluster the episodes' sentences and sort them into preferences, project facts, recurring
    patterns and decisions; each cluster contributes its most central sentence once."""
    items: list[tuple[str, str]] = []  # (episode id, sentence)
    for ep in episodes:
        for sentence in split_sentences(ep.summary):
            if len(words(sentence)) >= 2:
                items.append((ep.id, _terminated(clip(sentence))))
    clusters = _clusters([s for _, s in items])
    sections: dict[str, list[str]] = {name: [] for name in SECTIONS}
    scored: list[tuple[int, int, str, set[str]]] = []
    for members in clusters:
        episodes_in = {items[i][0] for i in members}
        representative = items[_central(members, [s for _, s in items])][1]
        scored.append((len(episodes_in), len(members), representative, episodes_in))
    # most widespread first: a statement seen in several sessions is the most durable one
    scored.sort(key=lambda t: (-t[0], -t[1], t[2]))
    for spread, _size, sentence, _eps in scored:
        if _PREFERENCE.search(sentence):
            section = 'preferences'
        elif _DECISION.search(sentence):
            section = 'decisions'
        elif spread >= 2:
            section = 'recurring_patterns'
        elif _PROJECT.search(sentence):
            section = 'project_facts'
        else:
            continue
        if section == 'recurring_patterns':
            suffix = f' ({spread} sessions)'
        else:
            suffix = f' (in {spread} sessions)' if spread >= 2 else ''
        if len(sections[section]) < limit:
            sections[section].append(sentence + suffix)
    topic_counts: Counter[str] = Counter(t for ep in episodes for t in set(ep.topics))
    for topic, count in topic_counts.most_common():
        if count < 2 or len(sections['recurring_patterns']) >= limit:
            break
        sections['recurring_patterns'].append(f'{topic} came up in {count} sessions.')
    return Synthesis(sections=sections, document=_document(title, sections, len(episodes)))


def _clusters(sentences: Sequence[str], threshold: float = 0.5) -> list[list[int]]:
    """Groups of sentences linked by word overlap (Jaccard >= threshold), transitively."""
    tokens = [set(words(s)) for s in sentences]
    root = list(range(len(sentences)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for i in range(len(sentences)):
        for j in range(i + 1, len(sentences)):
            union = tokens[i] | tokens[j]
            if union and len(tokens[i] & tokens[j]) / len(union) >= threshold:
                root[find(j)] = find(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(sentences)):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _central(members: list[int], sentences: Sequence[str]) -> int:
    if len(members) == 1:
        return members[0]
    tokens = {i: set(words(sentences[i])) for i in members}

    def overlap(i: int) -> float:
        return sum(len(tokens[i] & tokens[j]) / (len(tokens[i] | tokens[j]) or 1) for j in members)

    return max(members, key=lambda i: (overlap(i), -i))


_HEADINGS = {
    'preferences': 'Preferences',
    'project_facts': 'Project facts',
    'recurring_patterns': 'Recurring patterns',
    'decisions': 'Decisions',
}


def _document(title: str, sections: dict[str, list[str]], episodes: int) -> str:
    lines = [f'# {title}', '', f'Consolidated from {episodes} sessions.']
    for name in SECTIONS:
        if sections[name]:
            lines += ['', f'## {_HEADINGS[name]}', *(f'- {item}' for item in sections[name])]
    return '\n'.join(lines) + '\n'
