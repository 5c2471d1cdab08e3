"""Entity resolution: one scope's names in memory, matched exactly, fuzzily and by embedding."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence

import numpy as np
from rapidfuzz import fuzz

from core.lazy_re import lazy_compile
from kg.models import Entity, EntityMention, EntityType

FUZZY_MERGE = 90.0  # rapidfuzz ratio at or above which two names are one entity at write
FUZZY_AMBIGUOUS = 80.0
EMBED_MERGE = 0.95
EMBED_AMBIGUOUS = 0.85
_MIN_FUZZY_CHARS = 5  # "Al" vs "Ali" are different people: short names must match exactly
_WORD = lazy_compile(r"[^\w\s'-]+")
_LEADING = ('the ', 'a ', 'an ', 'my ', 'our ')
_SOFT_TYPES = (EntityType.OTHER, EntityType.CONCEPT)
# "Microsoft Corporation" is Microsoft: legal-form suffixes never tell two organisations apart
_CORPORATE = lazy_compile(
    r'(?:\s+(?:corporation|corp|incorporated|inc|limited|ltd|llc|plc|gmbh|co|company))+$|'
    r'(?:股份有限公司|有限责任公司|有限公司|公司|集团)$'
)
_QUERY_WORD = lazy_compile(r"[\w][\w'.-]*")
_MAX_NGRAM = 4  # longest phrase of a query looked up as a name
_STOP_WORDS = (
    'a an the i me my you your we our he she it they them his her its their is are was were be '
    'been do does did what who whom where when why how which that this these those of in on at '
    'to for from with about and or not no yes any all some has have had will would can could '
    'should shall may might must there here than then so if as by up out into over'
)
_STOP = frozenset(_STOP_WORDS.split())
# well-known abbreviations, word by word: "NYC Marathon" is the New York City Marathon
ABBREVIATIONS = {
    'nyc': 'new york city',
    'sf': 'san francisco',
    'uk': 'united kingdom',
    'usa': 'united states',
    'hk': 'hong kong',
    'intl': 'international',
    'univ': 'university',
    'dept': 'department',
    'mt': 'mount',
}


def normalize(name: str) -> str:
    """Matching key of a name: lower case, no punctuation or possessive, no leading article,
    no corporate suffix ("Microsoft Corporation" -> "microsoft"), abbreviations spelt out
    ("NYC Marathon" -> "new york city marathon")."""
    key = _WORD.sub(' ', name.lower()).replace("'s ", ' ').strip()
    key = re.sub(r"'s$", '', key)
    for article in _LEADING:
        if key.startswith(article):
            key = key[len(article) :]
    key = ' '.join(ABBREVIATIONS.get(word, word) for word in key.split())
    bare = _CORPORATE.sub('', key).strip()
    return bare or key


def trigrams(key: str) -> set[str]:
    """Character trigrams of a padded key (the fuzzy candidates' blocking index)."""
    padded = f'  {key} '
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


def types_compatible(a: EntityType, b: EntityType) -> bool:
    """Vague types (other, concept) agree with anything; specific ones must be equal."""
    return a == b or a in _SOFT_TYPES or b in _SOFT_TYPES


class NameIndex:
    """Live entities of one scope by name key, trigram and name vector; safe across threads."""

    def __init__(self, entities: Iterable[Entity], vectors: dict[str, list[float]] | None = None):
        self._lock = threading.Lock()
        self.entities: dict[str, Entity] = {}
        self.redirect: dict[str, str] = {}  # merged id -> surviving id
        self._keys: dict[str, str] = {}
        self._grams: dict[str, set[str]] = {}
        self._vec_ids: list[str] = []
        # rows [0, len(_vec_ids)) are in use; capacity doubles, so adding a name stays O(1)
        self._matrix: np.ndarray | None = None
        for entity in entities:
            self.put(entity)
        for ident, vec in (vectors or {}).items():
            self.put_vector(ident, vec)

    # ---- writes --------------------------------------------------------------------------

    def put(self, entity: Entity) -> None:
        """Add or refresh an entity (a merged one becomes a redirect)."""
        with self._lock:
            if entity.merged_into is not None:
                self.redirect[entity.id] = entity.merged_into
                self.entities.pop(entity.id, None)
                for key in [k for k, v in self._keys.items() if v == entity.id]:
                    self._keys[key] = entity.merged_into
                return
            self.entities[entity.id] = entity
            for name in (entity.canonical_name, entity.name, *entity.aliases):
                key = normalize(name)
                if not key:
                    continue
                self._keys.setdefault(key, entity.id)
                for gram in trigrams(key):
                    self._grams.setdefault(gram, set()).add(entity.id)

    def put_vector(self, ident: str, vector: Sequence[float]) -> None:
        """Remember a name vector (unit length) for embedding matches."""
        vec = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(vec))
        if norm == 0.0:
            return
        with self._lock:
            used = len(self._vec_ids)
            if self._matrix is None or used == len(self._matrix):
                grown = np.zeros((max(64, 2 * used), len(vec)), dtype=np.float32)
                if self._matrix is not None:
                    grown[:used] = self._matrix
                self._matrix = grown
            self._matrix[used] = vec / norm
            self._vec_ids.append(ident)

    # ---- reads ---------------------------------------------------------------------------

    def live(self, ident: str) -> str:
        """The surviving id of an entity (follows merges)."""
        seen = set()
        while ident in self.redirect and ident not in seen:
            seen.add(ident)
            ident = self.redirect[ident]
        return ident

    def exact(self, name: str) -> str | None:
        """Entity whose name or alias normalises to the same key."""
        key = normalize(name)
        found = self._keys.get(key)
        return self.live(found) if found else None

    def fuzzy(self, name: str, threshold: float, limit: int = 5) -> list[tuple[str, float]]:
        """Entities whose names score >= threshold (rapidfuzz ratio), best first."""
        key = normalize(name)
        if len(key) < _MIN_FUZZY_CHARS:
            return []
        grams = trigrams(key)
        with self._lock:
            counts: dict[str, int] = {}
            for gram in grams:
                for ident in self._grams.get(gram, ()):
                    counts[ident] = counts.get(ident, 0) + 1
            # candidates must share a good part of their trigrams before rapidfuzz runs
            floor = max(2, len(grams) // 2)
            candidates = [i for i, c in counts.items() if c >= floor and i in self.entities]
            entities = [self.entities[i] for i in candidates]
        scored = []
        for entity in entities:
            best = max(
                fuzz.ratio(key, normalize(n)) for n in (entity.canonical_name, *entity.aliases)
            )
            if best >= threshold:
                scored.append((entity.id, float(best)))
        scored.sort(key=lambda x: -x[1])
        return scored[:limit]

    def nearest(
        self, vector: Sequence[float], threshold: float, limit: int = 5
    ) -> list[tuple[str, float]]:
        """Live entities whose name vectors have cosine >= threshold, best first."""
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query))
        if norm == 0.0:
            return []
        with self._lock:
            if self._matrix is None or not self._vec_ids:
                return []
            ids = self._vec_ids
            sims = self._matrix[: len(ids)] @ (query / norm)
        order = np.argsort(-sims)[: limit * 3]
        out: list[tuple[str, float]] = []
        for i in order:
            if sims[i] < threshold:
                break
            ident = self.live(ids[i])
            if ident in self.entities and all(ident != o for o, _ in out):
                out.append((ident, float(sims[i])))
        return out[:limit]


# shorter names ("Al", "Mel") must match by key: a vector says too little
_EMBED_CHARS = 5


def embeddable(mention: EntityMention) -> bool:
    """Whether a name is worth a vector: a named thing of 5+ characters.

    "NYC Marathon" and "New York City Marathon" share no trigrams, so only a vector can tie
    them; common-noun concepts ("painting", "adoption agencies") resolve by key and trigrams,
    and are most of the names in conversation, each a model call (~2 ms) saved.
    """
    return mention.type is not EntityType.CONCEPT and len(normalize(mention.name)) >= _EMBED_CHARS


# the scopes' name indexes kept in memory together, in entities (an entity with its keys,
# trigrams and name vector is a few KB, so this bounds them to ~200 MB); a scope dropped is
# loaded again from the graph on its next write or search
MAX_INDEX_ENTITIES = 50_000


class NameIndexes:
    """Each scope's NameIndex, loaded by `load(scope)` on first use and kept, most recently used
    last. `trim` drops the least recently used once they hold more than `max_entities`
    entities together, so the service's memory follows the scopes it is working on, not every
    scope it has ever touched (bench/README.md, "Measurements the code's comments rely on").

    Only the single writer trims (under its lock, between writes), so a write's own indexes
    stay cached while it runs, and an index is never loaded while a write to its scope is
    half done."""

    def __init__(self, load: Callable[[str], NameIndex], max_entities: int) -> None:
        self._load = load
        self._max = max_entities
        self._lock = threading.Lock()  # the cache itself: held for dict operations only
        self._loading = threading.Lock()  # one load at a time; hits do not wait for it
        self._cached: OrderedDict[str, NameIndex] = OrderedDict()

    def get(self, scope: str) -> NameIndex:
        """The scope's index, loaded now if it is not cached."""
        index = self._hit(scope)
        if index is not None:
            return index
        with self._loading:
            index = self._hit(scope)  # loaded while this one waited
            if index is None:
                index = self._load(scope)  # a big scope's takes a while: hits go on meanwhile
                with self._lock:
                    self._cached[scope] = index
            return index

    def _hit(self, scope: str) -> NameIndex | None:
        with self._lock:
            index = self._cached.get(scope)
            if index is not None:
                self._cached.move_to_end(scope)
            return index

    def trim(self) -> None:
        """Drop least recently used indexes while they hold more than `max_entities`."""
        with self._lock:
            held = sum(len(i.entities) for i in self._cached.values())
            while held > self._max and len(self._cached) > 1:
                _, dropped = self._cached.popitem(last=False)
                held -= len(dropped.entities)

    def clear(self) -> None:
        """Drop every index (erased entities must not be resolved to)."""
        with self._lock:
            self._cached.clear()

    def __len__(self) -> int:
        return len(self._cached)


def name_seeds(query: str, indexes: Sequence[NameIndex], fuzzy_cutoff: float) -> dict[str, float]:
    """Entities a query names, by score: the longest phrases (up to four words) that are a name
    or alias score 1.0; each word left over scores its fuzzy ratio / 100 against the names."""
    words = _QUERY_WORD.findall(query)
    seeds: dict[str, float] = {}
    covered: set[int] = set()
    for size in range(min(_MAX_NGRAM, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            span = set(range(start, start + size))
            if span & covered:
                continue
            phrase = ' '.join(words[start : start + size])
            if size == 1 and phrase.lower() in _STOP:
                continue
            for index in indexes:
                found = index.exact(phrase)
                if found is not None:
                    seeds[found] = max(seeds.get(found, 0.0), 1.0)
                    covered |= span
    for i, word in enumerate(words):
        if i in covered or word.lower() in _STOP:
            continue
        for index in indexes:
            for found, score in index.fuzzy(word, fuzzy_cutoff, limit=2):
                seeds[found] = max(seeds.get(found, 0.0), score / 100.0)
    return seeds


_CJK_RUN = lazy_compile(r'[\u3400-\u4dbf\u4e00-\u9fff]+')
_MAX_CJK_NAME = 8  # characters: the longest Chinese name looked up inside a question


def cjk_seeds(query: str, indexes: Sequence[NameIndex]) -> dict[str, float]:
    """Entities a Chinese query names inside a run of characters ("张伟在哪里工作" names 张伟):
    the longest substrings (2 to 8 characters) that are a name or alias score 1.0. Chinese has
    no spaces, so the graph's own names are the segmentation: a word splitter would have to
    know every name the graph knows to cut at it."""
    seeds: dict[str, float] = {}
    for run in _CJK_RUN.findall(query):
        covered = [False] * len(run)
        for size in range(min(_MAX_CJK_NAME, len(run)), 1, -1):
            for start in range(len(run) - size + 1):
                if any(covered[start : start + size]):
                    continue
                phrase = run[start : start + size]
                for index in indexes:
                    found = index.exact(phrase)
                    if found is not None:
                        seeds[found] = 1.0
                        covered[start : start + size] = [True] * size
                        break
    return seeds
