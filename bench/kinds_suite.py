"""The kinds suite's data and scoring: several kinds of memory, their questions and gold refs.

Pure: no service. `bench/kinds.py` writes each kind through HTTP as a plain client would and
asks the questions; this module says what is written, what counts as found, and how a plain
BM25 over the same texts ranks them.

Kinds:
- `turns`: LoCoMo dev dialogue turns ("Name: words", the session date as event time); gold is
  the question's evidence dia_ids.
- `notes`: the same conversations' `observation` fields, third-person notes, each citing the
  turn it came from; a question's evidence turn is found by any note that cites it.
- `summaries`: one prose summary per session; an evidence turn is found by its session's summary.
- `bank_en`, `bank_zh`: a person's memory bank (profile fields "X's Gender: female" and prose,
  relationships, events of a few sentences, preferences, "Name: words" dialogues without a time,
  Markdown documents) with hand-worded questions (bench/data/kinds_bank_*.json).
- `zh`: the Chinese recall set (bench/data/zh_recall.json).
- `mixed`: one scope holding a conversation's turns, notes and summaries, the English bank and
  the Chinese set at once; each question keeps the gold of its own kind.

A question's gold is a tuple of pieces, each a set of refs any one of which finds that piece:
recall@k is the share of pieces found in the first k hits, MRR the reciprocal rank of the first
hit that finds any piece.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import Stemmer

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / 'bench' / 'data'
KINDS = ('turns', 'notes', 'summaries', 'bank_en', 'bank_zh', 'zh', 'mixed')
# the conversation whose kinds share the mixed scope with the bank and the Chinese set
MIXED_CONVERSATION = 'conv-26'


@dataclass(frozen=True)
class Memory:
    """One memory as a client writes it; `at` is its event time (ISO), when it has one."""

    ref: str
    text: str
    at: str | None = None


@dataclass(frozen=True)
class Document:
    """A Markdown document indexed through `/v1/documents`; each chunk's ref is
    `<path>#<its last heading>`."""

    path: str
    markdown: str


Gold = tuple[frozenset[str], ...]


@dataclass(frozen=True)
class Question:
    """A question asked in `scope`, its gold pieces and a tag (sub-kind, category, source)."""

    scope: str
    text: str
    gold: Gold
    tag: str = ''


@dataclass
class KindSet:
    """One kind: what each scope holds and the questions asked over them."""

    name: str
    memories: dict[str, list[Memory]] = field(default_factory=dict)
    documents: dict[str, list[Document]] = field(default_factory=dict)
    questions: list[Question] = field(default_factory=list)
    # per scope, the turns (dia_ids) each note cites
    cites: dict[str, dict[str, set[str]]] = field(default_factory=dict)

    def scopes(self) -> list[str]:
        """Every scope this kind writes to."""
        return list(dict.fromkeys([*self.memories, *self.documents]))


# ---- LoCoMo kinds --------------------------------------------------------------------------

_EVIDENCE = re.compile(r'D:?\s*(\d+)\s*:\s*(\d+)')
_SESSION = re.compile(r'session_(\d+)')


def _dia_ids(raw: Any) -> list[str]:
    items = raw if isinstance(raw, list) else [raw]
    return [f'D{int(s)}:{int(t)}' for item in items for s, t in _EVIDENCE.findall(str(item))]


def _session_dates(conversation: dict[str, Any]) -> dict[int, str]:
    from bench._common import iso, parse_session_date

    out: dict[int, str] = {}
    for key, value in conversation.items():
        m = _SESSION.fullmatch(key)
        if m and isinstance(value, list):
            out[int(m.group(1))] = iso(parse_session_date(conversation[f'{key}_date_time']))
    return out


def _turn_text(turn: dict[str, Any]) -> str:
    text = f'{turn["speaker"]}: {turn["text"]}'
    if turn.get('blip_caption'):
        text += f' [image: {turn["blip_caption"]}]'
    return text


def locomo_kinds(samples: Sequence[dict[str, Any]], prefix: str = 'agent:kinds') -> list[KindSet]:
    """`turns`, `notes` and `summaries` of LoCoMo samples (categories 1-4 with evidence)."""
    turns, notes, summaries = KindSet('turns'), KindSet('notes'), KindSet('summaries')
    for sample in samples:
        sid = str(sample['sample_id'])
        conv = sample['conversation']
        dates = _session_dates(conv)
        scope = {k.name: f'{prefix}-{k.name}-{sid}' for k in (turns, notes, summaries)}
        known: set[str] = set()
        for number in sorted(dates):
            for turn in conv[f'session_{number}']:
                known.add(turn['dia_id'])
                turns.memories.setdefault(scope['turns'], []).append(
                    Memory(turn['dia_id'], _turn_text(turn), dates[number])
                )
        citing: dict[str, set[str]] = {}
        for key, by_speaker in sample.get('observation', {}).items():
            m = _SESSION.match(key)
            at = dates.get(int(m.group(1))) if m else None
            for entries in by_speaker.values():
                for text, cited in entries:
                    ref = f'o{len(citing)}'
                    citing[ref] = set(_dia_ids(cited))
                    notes.memories.setdefault(scope['notes'], []).append(Memory(ref, text, at))
        for key, text in sample.get('session_summary', {}).items():
            m = _SESSION.match(key)
            if m and str(text).strip():
                number = int(m.group(1))
                summaries.memories.setdefault(scope['summaries'], []).append(
                    Memory(f's{number}', str(text), dates.get(number))
                )
        notes.cites[scope['notes']] = citing
        by_dia: dict[str, set[str]] = {}
        for ref, cited in citing.items():
            for dia in cited:
                by_dia.setdefault(dia, set()).add(ref)
        for qa in sample['qa']:
            category = int(qa['category'])
            evidence = [d for d in dict.fromkeys(_dia_ids(qa.get('evidence', []))) if d in known]
            if category == 5 or not evidence:
                continue
            text, tag = str(qa['question']), f'category {category}'
            turns.questions.append(
                Question(scope['turns'], text, tuple(frozenset({d}) for d in evidence), tag)
            )
            cited_gold = _pieces(frozenset(by_dia[d]) for d in evidence if d in by_dia)
            if cited_gold:
                notes.questions.append(Question(scope['notes'], text, cited_gold, tag))
            sessions = _pieces(frozenset({f's{d[1:].split(":")[0]}'}) for d in evidence)
            summaries.questions.append(Question(scope['summaries'], text, sessions, tag))
    return [turns, notes, summaries]


def _pieces(items: Iterable[frozenset[str]]) -> Gold:
    return tuple(dict.fromkeys(i for i in items if i))


# ---- hand-written kinds --------------------------------------------------------------------


def bank_kind(name: str, path: Path) -> KindSet:
    """A memory bank file: {scope, memories: [{id, text, at?}], documents: [{path, markdown}],
    questions: [{q, gold: [ref...], type}]}; each gold ref is a piece of its own."""
    raw = json.loads(path.read_text(encoding='utf-8'))
    scope = raw['scope']
    out = KindSet(name)
    out.memories[scope] = [Memory(m['id'], m['text'], m.get('at')) for m in raw['memories']]
    if raw.get('documents'):
        out.documents[scope] = [Document(d['path'], d['markdown']) for d in raw['documents']]
    refs = {m.ref for m in out.memories[scope]} | {
        ref for d in out.documents.get(scope, []) for ref in document_refs(d)
    }
    for q in raw['questions']:
        missing = [g for g in q['gold'] if g not in refs]
        if missing:
            raise ValueError(f'{path.name}: question {q["q"]!r} names unknown gold {missing}')
        gold = tuple(frozenset({g}) for g in q['gold'])
        out.questions.append(Question(scope, q['q'], gold, q.get('type', '')))
    return out


def zh_kind(path: Path, scope: str = 'agent:kinds-zh') -> KindSet:
    """The Chinese recall set: notes of one user without an event time, questions with gold."""
    raw = json.loads(path.read_text(encoding='utf-8'))
    out = KindSet('zh')
    out.memories[scope] = [Memory(m['id'], m['text']) for m in raw['memories']]
    for q in raw['queries']:
        gold = tuple(frozenset({g}) for g in q['gold'])
        out.questions.append(Question(scope, q['text'], gold, q.get('kind', '')))
    return out


def document_refs(doc: Document) -> list[str]:
    """The ref of each chunk the service makes of `doc`, in its order."""
    from recall.documents.markdown import chunk_markdown

    return [
        f'{doc.path}#{c.heading_path[-1] if c.heading_path else ""}'
        for c in chunk_markdown(doc.markdown)
        if c.text.strip()
    ]


def mixed_kind(kinds: Sequence[KindSet], scope: str = 'agent:kinds-mixed') -> KindSet:
    """One scope holding the conversation MIXED_CONVERSATION's turns, notes and summaries, the
    English bank and the Chinese set; memory refs are prefixed with their kind (document refs
    name their path already). A LoCoMo question's evidence turn is found by the turn, a note
    citing it or its session's summary."""
    by_name = {k.name: k for k in kinds}
    out = KindSet('mixed')
    memories: list[Memory] = []
    documents: list[Document] = []
    locomo = ('turns', 'notes', 'summaries')
    for name in (*locomo, 'bank_en', 'zh'):
        kind = by_name[name]
        for held, items in kind.memories.items():
            if name in locomo and not held.endswith(MIXED_CONVERSATION):
                continue
            memories += [Memory(f'{name}:{m.ref}', m.text, m.at) for m in items]
        for docs in kind.documents.values():
            documents += docs
    out.memories[scope] = memories
    if documents:
        out.documents[scope] = documents
    cites = next(
        (c for s, c in by_name['notes'].cites.items() if s.endswith(MIXED_CONVERSATION)), {}
    )
    for q in by_name['turns'].questions:
        if not q.scope.endswith(MIXED_CONVERSATION):
            continue
        pieces = []
        for piece in q.gold:
            (dia,) = piece
            refs = {f'turns:{dia}', f'summaries:s{dia[1:].split(":")[0]}'}
            refs |= {f'notes:{ref}' for ref, cited in cites.items() if dia in cited}
            pieces.append(frozenset(refs))
        out.questions.append(Question(scope, q.text, tuple(pieces), 'turns'))
    for name in ('bank_en', 'zh'):
        for q in by_name[name].questions:
            gold = tuple(frozenset(r if '#' in r else f'{name}:{r}' for r in p) for p in q.gold)
            out.questions.append(Question(scope, q.text, gold, name))
    return out


def load_suite(
    locomo_path: Path,
    data: Path = DATA,
    *,
    kinds: Sequence[str] = KINDS,
    max_questions: int | None = None,
) -> list[KindSet]:
    """Every kind of the suite (those named in `kinds`), each with at most `max_questions`
    questions (a smoke check)."""
    samples = json.loads(locomo_path.read_text(encoding='utf-8'))
    out = locomo_kinds(samples)
    out.append(bank_kind('bank_en', data / 'kinds_bank_en.json'))
    out.append(bank_kind('bank_zh', data / 'kinds_bank_zh.json'))
    out.append(zh_kind(data / 'zh_recall.json'))
    out.append(mixed_kind(out))
    chosen = [k for k in out if k.name in kinds]
    if max_questions is not None:
        for k in chosen:
            k.questions = k.questions[:max_questions]
    return chosen


# ---- scoring -------------------------------------------------------------------------------

KS = (5, 10)
METRICS = ('recall@10', 'R@5', 'mrr')


def score(ranked: Sequence[frozenset[str]], gold: Gold, depth: int = 10) -> dict[str, float]:
    """recall@10, R@5 (shares of gold pieces found in the first 10 / 5 hits) and MRR over the
    first `depth` hits; `ranked` holds each hit's refs (a merged memory may hold several)."""
    if not gold:
        raise ValueError('a question without gold cannot be scored')

    def found(k: int) -> float:
        seen: set[str] = set().union(*ranked[:k]) if ranked[:k] else set()
        return sum(1 for piece in gold if piece & seen) / len(gold)

    first = next(
        (n for n, refs in enumerate(ranked[:depth], start=1) if any(p & refs for p in gold)),
        None,
    )
    return {'recall@10': found(10), 'R@5': found(5), 'mrr': 1.0 / first if first else 0.0}


def mean_scores(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """Question-weighted mean of each metric (NaN without rows), and `n`."""
    out = {m: (sum(r[m] for r in rows) / len(rows) if rows else math.nan) for m in METRICS}
    return out | {'n': float(len(rows))}


# ---- a plain BM25 over the same texts ------------------------------------------------------

# bm25s's defaults: Lucene's idf, k1 1.5, b 0.75, tokens of two or more word characters,
# English stopwords and Snowball stems; CJK runs become characters and character pairs (a
# whole run as one token, as bm25s's pattern leaves it, would match no paraphrase)
PLAIN_K1 = 1.5
PLAIN_B = 0.75
_PLAIN_TOKEN = re.compile(r'[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+|\w\w+')
_CJK = re.compile(r'[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]')
_stemmer = Stemmer.Stemmer('english')


def plain_tokens(text: str) -> list[str]:
    """bm25s-style tokens: casefolded, stopwords out, English stems; CJK uni- and bigrams."""
    from core.text import ENGLISH_STOP_WORDS

    out: list[str] = []
    for token in _PLAIN_TOKEN.findall(unicodedata.normalize('NFKC', text).casefold()):
        if _CJK.match(token):
            out.extend(token)
            out.extend(token[i : i + 2] for i in range(len(token) - 1))
        elif token not in ENGLISH_STOP_WORDS:
            out.append(_stemmer.stemWord(token))
    return out


class PlainBM25:
    """Okapi BM25 over a fixed list of texts (what bm25s computes, in plain Python)."""

    def __init__(self, texts: Sequence[str]) -> None:
        """Index `texts`; `search` answers with their positions."""
        self._docs = [Counter(plain_tokens(t)) for t in texts]
        self._lengths = [sum(d.values()) for d in self._docs]
        self._avg = (sum(self._lengths) / len(self._lengths)) if self._lengths else 1.0
        df: Counter[str] = Counter()
        for d in self._docs:
            df.update(d.keys())
        n = len(self._docs)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._postings: dict[str, list[int]] = {}
        for i, d in enumerate(self._docs):
            for t in d:
                self._postings.setdefault(t, []).append(i)

    def search(self, query: str, k: int = 10) -> list[tuple[int, float]]:
        """The `k` best (position, score) pairs with a positive score, best first, ties by
        position."""
        scores: dict[int, float] = {}
        for term in dict.fromkeys(plain_tokens(query)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for i in self._postings[term]:
                tf = self._docs[i][term]
                norm = PLAIN_K1 * (1 - PLAIN_B + PLAIN_B * self._lengths[i] / self._avg)
                scores[i] = scores.get(i, 0.0) + idf * tf * (PLAIN_K1 + 1) / (tf + norm)
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
