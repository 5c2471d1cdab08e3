"""Extractor on spaCy: entities from NER, proper nouns and noun chunks; facts from the parse."""

from __future__ import annotations

import functools
import logging
import multiprocessing
import os
import queue
import re
import threading
import time
from collections import Counter
from collections.abc import Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import datetime
from typing import Any

from kg.dates import MONTHS, resolve_date
from kg.models import EntityMention, EntityType, Extraction, RelationMention, SourceText

log = logging.getLogger(__name__)

# NER is the costly pipe (it has its own tok2vec); the rest of the work needs tagger + parser.
_NER_LABELS = {
    'PERSON': EntityType.PERSON,
    'ORG': EntityType.ORG,
    'GPE': EntityType.PLACE,
    'LOC': EntityType.PLACE,
    'FAC': EntityType.PLACE,
    'PRODUCT': EntityType.PRODUCT,
    'EVENT': EntityType.EVENT,
    'WORK_OF_ART': EntityType.PRODUCT,
    'LANGUAGE': EntityType.CONCEPT,
}
_NOT_ENTITIES = {'DATE', 'TIME', 'PERCENT', 'MONEY', 'QUANTITY', 'ORDINAL', 'CARDINAL'}
# A name is trusted once NER has labelled it this often; later texts naming only trusted
# names skip NER. The votes also outvote a single wrong label ("Alice" tagged ORG once).
_TRUSTED_VOTES = 2
_MAX_CACHED_NAMES = 50_000
# below this many texts a round trip to a worker process costs more than it saves
_POOL_MIN_TEXTS = 64
_POOL_PART = 64  # texts per task sent to a worker
_READ_AHEAD = 4  # parts parsed ahead of the caller

_SPEAKER_PRONOUNS = {'i', 'me', 'my', 'mine', 'myself'}
_SKIP_NOUNS = {
    'thing',
    'things',
    'lot',
    'time',
    'way',
    'bit',
    'kind',
    'sort',
    'something',
    'anything',
    'everything',
    'nothing',
    'one',
    'ones',
    'stuff',
    'day',
    'days',
    'week',
    'month',
    'year',
    'years',
    'today',
    'yesterday',
    'tomorrow',
    'moment',
    'while',
    'fun',
    'idea',
    'chance',
    'part',
    'lots',
    'kinds',
    'all',
    'some',
    'much',
    'more',
    'most',
    'other',
    'others',
    'same',
}
_NON_NAMES = {
    'hey',
    'hi',
    'hello',
    'thanks',
    'thank',
    'wow',
    'yeah',
    'yes',
    'no',
    'ok',
    'okay',
    'oh',
    'omg',
    'lol',
    'bye',
    'cool',
    'great',
    'awesome',
    'sure',
    'haha',
    'congrats',
    'dear',
    'mr',
    'mrs',
    'ms',
    'dr',
    'monday',
    'tuesday',
    'wednesday',
    'thursday',
    'friday',
    'saturday',
    'sunday',
    'i',
    'god',
    'good',
    'nice',
    'glad',
    'sorry',
    'well',
    'so',
    'wait',
    'anyway',
    'sounds',
    'love',
    'happy',
    'id',
    'btw',
    'please',
    'definitely',
    'totally',
} | set(MONTHS)
_HEAD_TYPES = {
    **dict.fromkeys(('project', 'initiative', 'program', 'campaign'), EntityType.PROJECT),
    **dict.fromkeys(
        ('tool', 'app', 'library', 'framework', 'editor', 'software', 'language'),
        EntityType.TOOL,
    ),
    **dict.fromkeys(
        (
            'company',
            'inc',
            'corp',
            'university',
            'school',
            'club',
            'team',
            'group',
            'bank',
            'agency',
            'foundation',
            'center',
            'centre',
            'college',
            'lab',
        ),
        EntityType.ORG,
    ),
    **dict.fromkeys(('city', 'street', 'park', 'lake', 'river', 'island'), EntityType.PLACE),
}

# (verb lemma, preposition) -> predicate; the small vocabulary that the temporal rules know
_VERB_PREP = {
    ('work', 'at'): 'works_at',
    ('work', 'for'): 'works_at',
    ('work', 'in'): 'works_in',
    ('work', 'on'): 'works_on',
    ('work', 'with'): 'works_with',
    ('intern', 'at'): 'works_at',
    ('live', 'in'): 'lives_in',
    ('live', 'at'): 'lives_in',
    ('move', 'to'): 'lives_in',
    ('relocate', 'to'): 'lives_in',
    ('settle', 'in'): 'lives_in',
    ('move', 'into'): 'lives_in',
    ('study', 'at'): 'studies_at',
    ('study', 'in'): 'studies_at',
    ('enroll', 'in'): 'studies_at',
    ('bear', 'in'): 'born_in',
    ('grow', 'in'): 'grew_up_in',
    ('grow_up', 'in'): 'grew_up_in',
    ('marry', 'to'): 'married_to',
    ('married', 'to'): 'married_to',
    ('engage', 'to'): 'engaged_to',
    ('engaged', 'to'): 'engaged_to',
    ('report', 'to'): 'reports_to',
    ('come', 'from'): 'from',
    ('be', 'from'): 'from',
    ('originate', 'from'): 'from',
    ('volunteer', 'at'): 'volunteers_at',
    ('volunteer', 'for'): 'volunteers_at',
    ('travel', 'to'): 'visited',
    ('go', 'to'): 'went_to',
    ('graduate', 'from'): 'graduated_from',
    ('hire', 'by'): 'works_at',
    ('employ', 'by'): 'works_at',
}
_VERB_OBJ = {
    'marry': 'married_to',
    'prefer': 'prefers',
    'like': 'likes',
    'love': 'likes',
    'enjoy': 'likes',
    'adore': 'likes',
    'hate': 'dislikes',
    'dislike': 'dislikes',
    'use': 'uses',
    'own': 'owns',
    'visit': 'visited',
    'lead': 'leads',
    'manage': 'manages',
    'found': 'founded',
    'date': 'dating',
    'meet': 'met',
    'adopt': 'adopted',
    'study': 'studies',
    'teach': 'teaches',
    'play': 'plays',
    'attend': 'attends',
}
_REL_NOUNS = {
    **dict.fromkeys(('sister', 'brother', 'sibling', 'sis', 'bro'), 'sibling_of'),
    **dict.fromkeys(('wife', 'husband', 'spouse'), 'married_to'),
    **dict.fromkeys(('partner',), 'partner_of'),
    **dict.fromkeys(('girlfriend', 'boyfriend', 'fiance', 'fiancee'), 'dating'),
    **dict.fromkeys(('mother', 'father', 'mom', 'dad', 'parent', 'mum'), 'parent_of'),
    **dict.fromkeys(('son', 'daughter', 'child', 'kid'), 'child_of'),
    **dict.fromkeys(('friend', 'buddy', 'bestie', 'pal'), 'friend_of'),
    **dict.fromkeys(('boss', 'manager', 'supervisor'), 'manages'),
    **dict.fromkeys(('colleague', 'coworker', 'co-worker', 'teammate'), 'colleague_of'),
    **dict.fromkeys(('cousin', 'aunt', 'uncle', 'niece', 'nephew'), 'relative_of'),
    **dict.fromkeys(('grandmother', 'grandfather', 'grandma', 'grandpa'), 'grandparent_of'),
    **dict.fromkeys(('mentor',), 'mentor_of'),
    **dict.fromkeys(('neighbor', 'neighbour'), 'neighbor_of'),
}
# predicates say what their ends are: stronger evidence than one NER label
_PREDICATE_TYPES: dict[str, tuple[EntityType | None, EntityType | None]] = {
    'works_at': (EntityType.PERSON, EntityType.ORG),
    'studies_at': (EntityType.PERSON, EntityType.ORG),
    'lives_in': (None, EntityType.PLACE),
    'born_in': (EntityType.PERSON, EntityType.PLACE),
    'grew_up_in': (EntityType.PERSON, EntityType.PLACE),
    'works_on': (None, EntityType.PROJECT),
    **{
        p: (EntityType.PERSON, EntityType.PERSON)
        for p in set(_REL_NOUNS.values()) | {'married_to', 'engaged_to', 'reports_to'}
    },
}

_EMAIL = re.compile(r'[\w.+-]+@[\w-]+(?:\.[\w-]+)+')
_PHONE = re.compile(
    r'(?<![\w-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}[\s.-]\d{3,4}(?:[\s.-]\d{2,4})?'
    r'(?![\w-])'
)
_ISO_DATE = re.compile(r'^\d{4}-\d{2}-\d{2}$')
_ID = re.compile(
    r'\b((?:employee|customer|account|order|member|membership|passport|ticket|badge|license|'
    r'licence|user|student|booking|confirmation|tracking)\s+(?:id|number|no\.?|#|code))'
    r'\s*(?:is|:|#|=)?\s*([A-Za-z0-9][A-Za-z0-9-]{2,})',
    re.IGNORECASE,
)
_FACT_CHARS = 300


def capture_attributes(text: str) -> dict[str, list[str]]:
    """Phones, emails and ids found by pattern (deterministic, no model)."""
    found: dict[str, list[str]] = {}
    emails = _EMAIL.findall(text)
    if emails:
        found['emails'] = list(dict.fromkeys(emails))
    phones = []
    for m in _PHONE.finditer(_EMAIL.sub(' ', text)):
        value = m.group(0).strip()
        digits = sum(c.isdigit() for c in value)
        if 7 <= digits <= 15 and not _ISO_DATE.match(value):
            phones.append(value)
    if phones:
        found['phones'] = list(dict.fromkeys(phones))
    ids = [f'{label.lower()}: {value}' for label, value in _ID.findall(text)]
    if ids:
        found['ids'] = list(dict.fromkeys(ids))
    return found


def clean_name(text: str) -> str:
    """A surface name without possessive marks, quotes or surrounding punctuation."""
    text = re.sub(r"[’']s$", '', text.strip())
    return text.strip(' \t\n"\'`.,;:!?()[]{}')


class SpacyExtractor:
    """Extractor over a spaCy English pipeline, loaded lazily on first use.

    With `workers` > 0, large batches are parsed in that many worker processes (spaCy holds the
    GIL, so threads would not help); small batches and single texts stay in this process.
    """

    def __init__(self, model_name: str, batch_size: int = 256, workers: int = 0) -> None:
        self._model_name = model_name
        self._batch_size = batch_size
        self._workers = max(0, workers)
        self._pools: list[ProcessPoolExecutor] = []
        self._pool_lock = threading.Lock()
        self._nlp: Any = None
        self._lemmatizer: Any = None
        self._lock = threading.Lock()  # spaCy pipelines are not documented as thread-safe
        self._votes: dict[str, Counter[EntityType]] = {}
        self._lemmas: dict[tuple[str, str], str] = {}

    def _load(self) -> Any:
        if self._nlp is None:
            import spacy

            # tok2vec + tagger + parser run on every text; NER only where a name is new
            nlp = spacy.load(self._model_name)
            has_rules = 'lemmatizer' in nlp.pipe_names
            self._lemmatizer = nlp.get_pipe('lemmatizer') if has_rules else None
            self._nlp = nlp
        return self._nlp

    def extract(self, texts: Sequence[SourceText]) -> list[Extraction]:
        """One Extraction per text; a text that fails yields an empty Extraction."""
        return [e for part in self.extract_parts(texts) for e in part]

    def extract_parts(self, texts: Sequence[SourceText]) -> Iterator[list[Extraction]]:
        """Extractions in input order, in consecutive parts, so a caller can store one part
        while the workers parse the next."""
        if not texts:
            return
        if self._workers and len(texts) >= _POOL_MIN_TEXTS:
            # parsing goes on in a thread while the caller stores the parts already handed over
            # (Kuzu, onnxruntime and the wait on workers release the GIL)
            yield from read_ahead(self._pooled(texts), _READ_AHEAD)
        else:
            yield self._extract_here(texts)

    def close(self) -> None:
        """Stop the worker processes, if any were started."""
        self._drop_pools(wait=True)

    def _extract_here(self, texts: Sequence[SourceText]) -> list[Extraction]:
        with self._lock:
            nlp = self._load()
            skip = [p for p in ('ner', 'lemmatizer', 'attribute_ruler') if p in nlp.pipe_names]
            texts_in = (t.text for t in texts)
            docs = list(nlp.pipe(texts_in, disable=skip, batch_size=self._batch_size))
            # NER gating and the reader share the proper-noun runs and the sentences
            runs = [list(_proper_runs(doc)) for doc in docs]
            bounds = [_sentence_bounds(doc) for doc in docs]
            ner_ran = self._run_ner(nlp, docs, runs, bounds)
            out = []
            for doc, item, ran, names, sents in zip(
                docs, texts, ner_ran, runs, bounds, strict=True
            ):
                try:
                    out.append(_DocReader(self, doc, item, ran, names, sents).read())
                except Exception:  # one odd parse must not sink a batch
                    log.exception('extraction failed for one text; skipped')
                    out.append(Extraction())
            return out

    def _pool_list(self) -> list[ProcessPoolExecutor]:
        with self._pool_lock:
            if not self._pools:
                # spawn, not fork: the parent holds threads (Flask, Kuzu, onnxruntime)
                ctx = multiprocessing.get_context('spawn')
                self._pools = [
                    ProcessPoolExecutor(
                        1,
                        mp_context=ctx,
                        initializer=_worker_init,
                        initargs=(self._model_name, self._batch_size, os.getpid()),
                    )
                    for _ in range(self._workers)
                ]
                for pool in self._pools:
                    # a pool spawns its process on the first task: start (and load) them all
                    # now, together, not one when its first part arrives
                    pool.submit(os.getpid)
            return self._pools

    def _pooled(self, texts: Sequence[SourceText]) -> Iterator[list[Extraction]]:
        pools = self._pool_list()
        parts = [texts[i : i + _POOL_PART] for i in range(0, len(texts), _POOL_PART)]
        slot = part_slots(len(parts), len(pools))
        ahead = 3 * (len(pools) + 1)
        futures: dict[int, Future[list[Extraction]] | None] = {}
        mine: dict[int, list[Extraction]] = {}  # own parts parsed early, while a worker was busy

        def submit_up_to(limit: int) -> None:
            for j in range(len(futures), min(limit, len(parts))):
                remote = slot[j] is not None
                futures[j] = self._submit(pools[slot[j] or 0], parts[j]) if remote else None

        for i, part in enumerate(parts):
            submit_up_to(i + ahead)
            if slot[i] is None:
                early = mine.pop(i, None)
                yield early if early is not None else self._extract_here(part)
                continue
            future = futures[i]
            # rather than wait for the worker, parse this process's next part of the window
            # (its own parts stay in order, so its type votes are the same on every run)
            while future is not None and not future.done():
                own = next(
                    (j for j in range(i + 1, len(futures)) if slot[j] is None and j not in mine),
                    None,
                )
                if own is None:
                    break
                mine[own] = self._extract_here(parts[own])
            yield self._collect(part, future)
            futures[i] = None  # drop the result as soon as it is handed over

    def _submit(
        self, pool: ProcessPoolExecutor, part: Sequence[SourceText]
    ) -> Future[list[Extraction]] | None:
        try:
            return pool.submit(_worker_extract, list(part))
        except (BrokenProcessPool, RuntimeError):
            self._drop_pools(wait=False)
            return None

    def _collect(
        self, part: Sequence[SourceText], future: Future[list[Extraction]] | None
    ) -> list[Extraction]:
        if future is not None:
            try:
                return future.result()
            except BrokenProcessPool:
                log.exception('an extraction worker died; parsing this part in-process')
                self._drop_pools(wait=False)
        return self._extract_here(part)

    def _drop_pools(self, wait: bool) -> None:
        # the next large batch starts fresh workers
        with self._pool_lock:
            pools, self._pools = self._pools, []
        for pool in pools:
            pool.shutdown(wait=wait, cancel_futures=True)

    def _run_ner(
        self,
        nlp: Any,
        docs: list[Any],
        runs: list[list[tuple[str, int, int]]],
        bounds: list[list[tuple[int, int]]],
    ) -> list[bool]:
        from spacy.tokens import Span

        if 'ner' not in nlp.pipe_names:
            return [False] * len(docs)
        # NER has its own tok2vec and costs as much as the rest of the pipeline: run it only on
        # the sentences that hold a name not yet trusted, each as a small doc of its own
        targets: list[tuple[int, int, int]] = []
        for i in range(len(docs)):
            sentences: dict[int, int] = {}
            for name, start, _ in runs[i]:
                if self._votes_for(name).total() < _TRUSTED_VOTES:
                    # Token.sent scans the doc's sentences on every call
                    first, last = next((a, b) for a, b in bounds[i] if a <= start < b)
                    sentences[first] = last
            targets.extend((i, start, end) for start, end in sorted(sentences.items()))
        pieces = [docs[i][start:end].as_doc() for i, start, end in targets]
        ner = nlp.get_pipe('ner')
        for _ in ner.pipe(pieces, batch_size=self._batch_size):
            pass  # annotates the pieces in place
        if len(self._votes) > _MAX_CACHED_NAMES:
            self._votes.clear()
        found: dict[int, list[Any]] = {}
        for (i, start, _), piece in zip(targets, pieces, strict=True):
            for ent in piece.ents:
                found.setdefault(i, []).append(
                    Span(docs[i], start + ent.start, start + ent.end, label=ent.label_)
                )
                label = _NER_LABELS.get(ent.label_)
                if label is not None:
                    self._votes.setdefault(clean_name(ent.text), Counter())[label] += 1
        for i, spans in found.items():
            docs[i].set_ents(spans, default='unmodified')
        ran = [False] * len(docs)
        for i, _, _ in targets:
            ran[i] = True
        return ran

    def vote(self, name: str, etype: EntityType, weight: int = 2) -> None:
        """Record type evidence from the parse (it outweighs one NER label)."""
        self._votes.setdefault(name, Counter())[etype] += weight

    def _votes_for(self, name: str) -> Counter[EntityType]:
        return self._votes.get(name) or Counter()

    def type_of(self, name: str) -> EntityType:
        """Majority NER label seen for a name so far (OTHER when never labelled)."""
        votes = self._votes.get(name)
        return votes.most_common(1)[0][0] if votes else EntityType.OTHER

    def lemma(self, token: Any) -> str:
        """Verb lemma through the rule lemmatizer, cached; other words lower-cased."""
        low = token.lower_
        if not token.tag_.startswith('VB') or self._lemmatizer is None:
            return low
        key = (low, token.tag_)
        found = self._lemmas.get(key)
        if found is None:
            token.pos_ = 'VERB'  # the rules key on the coarse POS the attribute ruler would set
            lemmas = self._lemmatizer.rule_lemmatize(token)
            found = lemmas[0].lower() if lemmas else low
            if len(self._lemmas) < 100_000:
                self._lemmas[key] = found
        return found


_DONE = object()


def read_ahead(items: Iterator[Any], depth: int) -> Generator[Any, None, None]:
    """The items of `items`, produced by a thread up to `depth` ahead of the consumer.

    An exception in the producer is raised to the consumer; a consumer that stops early stops
    the producer at its next item.
    """
    ready: queue.Queue[Any] = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def offer(entry: tuple[Any, BaseException | None]) -> bool:
        while not stop.is_set():
            try:
                ready.put(entry, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not offer((item, None)):
                    return
            offer((_DONE, None))
        except BaseException as exc:  # handed to the consumer, which raises it
            offer((_DONE, exc))

    thread = threading.Thread(target=produce, name='extract-read-ahead', daemon=True)
    thread.start()
    try:
        while True:
            item, error = ready.get()
            if error is not None:
                raise error
            if item is _DONE:
                return
            yield item
    finally:
        stop.set()
        close = getattr(items, 'close', None)
        thread.join(timeout=30)
        if not thread.is_alive() and close is not None:
            close()


def part_slots(parts: int, workers: int) -> list[int | None]:
    """Which worker parses each part (None: this process), fixed for a given shape.

    Of every 2·workers + 1 parts this process takes one: it also stores what the workers
    parse (resolution, name embeddings, Kuzu), so an equal share made it the slowest parser.
    Fixed slots mean each parser sees the same names in the same order on every run, so type
    votes, hence the result, are reproducible.
    """
    cycle = 2 * workers + 1
    return [None if j % cycle == cycle - 1 else (j % cycle) % workers for j in range(parts)]


_WORKER: SpacyExtractor | None = None


def _worker_init(model_name: str, batch_size: int, parent: int) -> None:
    global _WORKER
    # the parent's pid comes from the parent: it may already be gone by the time we run
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    _WORKER = SpacyExtractor(model_name, batch_size)
    _WORKER._load()


def _exit_with_parent(parent: int) -> None:
    # a pool worker only notices its parent is gone when it next reads a task; a service killed
    # hard never sends one, which left idle workers (160 MB each) behind
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _worker_extract(texts: list[SourceText]) -> list[Extraction]:
    assert _WORKER is not None, 'worker not initialised'
    return _WORKER.extract(texts)


_WORD_GROUPS: dict[str, Iterable[str]] = {
    'proper': ('NNP', 'NNPS'),
    'non_names': _NON_NAMES,
    'speaker': _SPEAKER_PRONOUNS,
    'subject': ('nsubj', 'nsubjpass'),
    'borrow': ('xcomp', 'conj'),
    'appos': ('appos',),
}


@functools.lru_cache(maxsize=64)
def _string_ids(strings: Any, group: str) -> frozenset[int]:
    """The ids that token attribute arrays hold for a word group (symbol ids or hashes, as
    spaCy has them), once per string store."""
    return frozenset(strings.add(w) for w in _WORD_GROUPS[group])


def _sentence_bounds(doc: Any) -> list[tuple[int, int]]:
    """(start, end) token offsets of the parse's sentences, read from the SENT_START array."""
    from spacy.attrs import SENT_START

    starts = [i for i, flag in enumerate(doc.to_array(SENT_START).tolist()) if flag == 1]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return list(zip(starts, [*starts[1:], len(doc)], strict=True))


def _proper_runs(doc: Any) -> Iterable[tuple[str, int, int]]:
    """Maximal runs of proper-noun tokens as (name, start, end)."""
    # attribute arrays: a Token object per token costs more than the whole test
    from spacy.attrs import IS_ALPHA, LOWER, TAG

    proper_tags = _string_ids(doc.vocab.strings, 'proper')
    non_names = _string_ids(doc.vocab.strings, 'non_names')
    start = None
    for i, (tag, lower, alpha) in enumerate(doc.to_array([TAG, LOWER, IS_ALPHA]).tolist()):
        proper = tag in proper_tags and lower not in non_names and alpha
        if proper and start is None:
            start = i
        elif not proper and start is not None:
            yield clean_name(doc[start:i].text), start, i
            start = None
    if start is not None:
        yield clean_name(doc[start:].text), start, len(doc)


class _DocReader:
    """Reads one parsed doc into an Extraction."""

    def __init__(
        self,
        owner: SpacyExtractor,
        doc: Any,
        item: SourceText,
        ner_ran: bool,
        proper_runs: list[tuple[str, int, int]],
        sentences: list[tuple[int, int]],
    ) -> None:
        self.owner = owner
        self.doc = doc
        self.item = item
        self.speaker = clean_name(item.speaker) if item.speaker else None
        self.entities: dict[str, EntityMention] = {}
        self.tok_ent: dict[int, str] = {}
        self.relations: list[RelationMention] = []
        self.seen: set[tuple[str, str, str]] = set()
        self.soft: set[str] = set()  # common-noun entities: kept only if a fact uses them
        self.ner_ran = ner_ran
        self.proper_runs = proper_runs
        self.sentences = sentences
        self.text = doc.text  # Doc.text joins every token on each call

    def read(self) -> Extraction:
        self._named_entities()
        heads = sorted(self._fact_heads())
        for start, end in self.sentences:
            mine = [h for h in heads if start <= h < end]
            if mine:  # a sentence with no fact head yields nothing: skip its date and text
                self._sentence(start, end, mine)
        self._apply_type_cues()
        self._attributes()
        used = {r.subject for r in self.relations} | {r.object for r in self.relations}
        entities = [
            m for n, m in self.entities.items() if n not in self.soft or n in used or m.attributes
        ]
        return Extraction(entities=entities, relations=self.relations)

    # ---- entities ------------------------------------------------------------------------

    def _add(self, name: str, etype: EntityType, tokens: Iterable[int] = ()) -> str:
        mention = self.entities.get(name)
        if mention is None:
            mention = EntityMention(name=name, type=etype, speaker=name == self.speaker)
            self.entities[name] = mention
        elif mention.type in (EntityType.OTHER, EntityType.CONCEPT) and etype not in (
            EntityType.OTHER,
            EntityType.CONCEPT,
        ):
            mention.type = etype
        for i in tokens:
            self.tok_ent.setdefault(i, name)
        return name

    def _named_entities(self) -> None:
        blocked: set[int] = set()
        if self.ner_ran:
            for ent in self.doc.ents:
                if ent.label_ in _NOT_ENTITIES:
                    blocked.update(range(ent.start, ent.end))
                elif ent.label_ in _NER_LABELS:
                    name = clean_name(ent.text)
                    if (
                        name
                        and name.lower() not in _NON_NAMES
                        and ent.text.isascii()
                        and not any(c.isdigit() for c in name)
                    ):
                        self._add_span(name, ent.start, ent.end)
        for name, start, end in self.proper_runs:
            if name and not any(i in blocked or i in self.tok_ent for i in range(start, end)):
                self._add_span(name, start, end)
        if self.speaker:
            from spacy.attrs import LOWER

            pronouns = _string_ids(self.doc.vocab.strings, 'speaker')
            lowers = self.doc.to_array(LOWER).tolist()
            mine = [i for i, low in enumerate(lowers) if low in pronouns]
            if mine:
                self._add(self.speaker, EntityType.PERSON, mine)

    def _add_span(self, name: str, start: int, end: int) -> None:
        head = self.doc[end - 1].head
        head_type = _HEAD_TYPES.get(head.lower_) if head.i == end else None
        if head_type is not None and head.tag_.startswith('NN'):
            # "the Apollo project", "Hillside school": the head noun says what it is
            self._add(f'{name} {head.text}', head_type, range(start, end + 1))
        else:
            self._add(name, self.owner.type_of(name), range(start, end))

    def _arg(self, tok: Any) -> str | None:
        """The entity a subject/object token stands for, making noun-chunk entities on demand."""
        if tok.i in self.tok_ent:
            return self.tok_ent[tok.i]
        for child in tok.children:  # "Alice Smith" heads on Smith; compounds carry the name
            if child.dep_ == 'compound' and child.i in self.tok_ent:
                return self.tok_ent[child.i]
        if not tok.tag_.startswith('NN') or tok.lower_ in _SKIP_NOUNS or not tok.is_alpha:
            return None
        parts = [c for c in tok.lefts if c.dep_ in ('compound', 'amod') and c.is_alpha]
        words = [c.lower_ for c in parts if c.dep_ == 'compound'] + [tok.lower_]
        name = ' '.join(words)
        if name not in self.entities:
            self.soft.add(name)
        return self._add(name, _HEAD_TYPES.get(tok.lower_, EntityType.CONCEPT), [tok.i])

    # ---- relations -----------------------------------------------------------------------

    def _sentence(self, start: int, end: int, heads: list[int]) -> None:
        doc = self.doc
        last = doc[end - 1]
        text = self.text[doc[start].idx : last.idx + len(last.text)]  # what Span.text gives
        when = resolve_date(text, self.item.at) or self.item.at
        fact = text.strip()[:_FACT_CHARS]
        for i in heads:
            tok = doc[i]
            if tok.dep_ == 'appos':
                self._kinship_pair(tok.head, tok, when, fact)
            subjects = self._subjects(tok)
            if not subjects or any(c.dep_ == 'neg' for c in tok.children):
                continue
            lemma = self.owner.lemma(tok)
            for subj_tok in subjects:
                subj = self._subject_entity(subj_tok, when, fact)
                if subj is None:
                    continue
                if (
                    lemma == 'be'
                    or tok.lemma_ == 'be'
                    or tok.lower_ in ('is', 'am', 'are', 'was', 'were', "'s", "'m", "'re")
                ):
                    self._copula(tok, subj_tok, subj, when, fact)
                else:
                    self._verb(tok, lemma, subj, when, fact)

    def _fact_heads(self) -> set[int]:
        """Tokens that can start a fact: those with a subject, their xcomp/conj dependents (which
        borrow it), and appositions; every other token yields nothing."""
        from spacy.attrs import DEP, HEAD

        strings = self.doc.vocab.strings
        subject = _string_ids(strings, 'subject')
        borrow = _string_ids(strings, 'borrow')
        [appos] = _string_ids(strings, 'appos')
        deps = self.doc.to_array(DEP).tolist()
        # HEAD is a signed offset from the token, stored as uint64
        offsets = self.doc.to_array(HEAD).astype('int64').tolist()
        rows = list(zip(deps, offsets, strict=True))
        with_subject = {i + off for i, (dep, off) in enumerate(rows) if dep in subject}
        return with_subject | {
            i
            for i, (dep, off) in enumerate(rows)
            if dep == appos or (dep in borrow and off and i + off in with_subject)
        }

    def _subjects(self, tok: Any) -> list[Any]:
        found = [c for c in tok.children if c.dep_ in ('nsubj', 'nsubjpass')]
        if not found and tok.dep_ in ('xcomp', 'conj') and tok.head.i != tok.i:
            found = [c for c in tok.head.children if c.dep_ in ('nsubj', 'nsubjpass')]
        return [s for f in found for s in (f, *_conjuncts(f))]

    def _subject_entity(self, tok: Any, when: datetime, fact: str) -> str | None:
        # "my sister Carol lives in Berlin": the subject is Carol, and she is my sister
        for child in tok.children:
            if child.dep_ == 'appos' and self._arg(child):
                self._kinship_pair(tok, child, when, fact)
                return self._arg(child)
        return self._arg(tok)

    def _emit(
        self,
        subj: str | None,
        predicate: str,
        obj: str | None,
        when: datetime,
        fact: str,
        confidence: float = 0.9,
    ) -> None:
        if not subj or not obj or subj == obj or (subj, predicate, obj) in self.seen:
            return
        self.seen.add((subj, predicate, obj))
        self.relations.append(
            RelationMention(
                subject=subj,
                predicate=predicate,
                object=obj,
                fact=fact,
                valid_from=when,
                confidence=confidence,
            )
        )

    def _kinship(self, noun: Any) -> tuple[str, str] | None:
        """(predicate, possessor entity) of "Bob's sister", "my sister", "the sister of Bob"."""
        predicate = _REL_NOUNS.get(noun.lower_)
        if predicate is None:
            return None
        for child in noun.children:
            if child.dep_ == 'poss':
                owner = (
                    self._arg(child) if child.lower_ not in _SPEAKER_PRONOUNS else (self.speaker)
                )
                if owner:
                    return predicate, owner
            if child.dep_ == 'prep' and child.lower_ == 'of':
                for pobj in child.children:
                    if pobj.dep_ == 'pobj' and self._arg(pobj):
                        return predicate, self._arg(pobj)  # type: ignore[return-value]
        return None

    def _kinship_pair(self, noun: Any, name_tok: Any, when: datetime, fact: str) -> None:
        for rel_noun, person in ((noun, name_tok), (name_tok, noun)):
            kin = self._kinship(rel_noun)
            if kin is not None:
                self._emit(self._arg(person), kin[0], kin[1], when, fact)
                return

    def _copula(self, tok: Any, subj_tok: Any, subj: str, when: datetime, fact: str) -> None:
        for child in tok.children:
            if child.dep_ == 'attr':
                if self._kinship(child) is not None:  # "Alice is Bob's sister"
                    pred, owner = self._kinship(child)  # type: ignore[misc]
                    self._emit(subj, pred, owner, when, fact)
                elif self._kinship(subj_tok) is not None:  # "my sister is Alice"
                    pred, owner = self._kinship(subj_tok)  # type: ignore[misc]
                    self._emit(self._arg(child), pred, owner, when, fact)
                elif child.tag_.startswith('NN') and child.lower_ not in _SKIP_NOUNS:
                    self._role(child, subj, when, fact)
            elif child.dep_ in ('acomp', 'prep'):
                word = child.lower_ if child.dep_ == 'acomp' else 'be'
                preps = (
                    [child]
                    if child.dep_ == 'prep'
                    else [c for c in child.children if c.dep_ == 'prep']
                )
                for prep in preps:
                    predicate = _VERB_PREP.get((word, prep.lower_))
                    for pobj in _pobjs(prep):
                        obj = self._arg(pobj)
                        if predicate:
                            self._emit(subj, predicate, obj, when, fact)

    def _role(self, noun: Any, subj: str, when: datetime, fact: str) -> None:
        if noun.i in self.tok_ent and self.entities[self.tok_ent[noun.i]].type in (
            EntityType.PERSON,
            EntityType.PLACE,
        ):
            return  # "this is Alice": an identity, not a role
        if not noun.is_alpha or noun.lower_ in _NON_NAMES:
            return
        words = [c.lower_ for c in noun.lefts if c.dep_ in ('compound', 'amod') and c.is_alpha]
        role = ' '.join([*words, noun.text if noun.tag_.startswith('NNP') else noun.lower_])
        role_entity = self._add(role, EntityType.CONCEPT)
        if self.entities[role_entity].type == EntityType.OTHER:
            self.entities[role_entity].type = EntityType.CONCEPT
        self._emit(subj, 'role', role_entity, when, fact, 0.8)
        for prep in (c for c in noun.children if c.dep_ == 'prep' and c.lower_ in ('of', 'at')):
            for pobj in _pobjs(prep):
                org = self._arg(pobj)
                if org and self.entities[org].type != EntityType.CONCEPT:
                    self._emit(subj, 'works_at', org, when, fact)

    def _verb(self, tok: Any, lemma: str, subj: str, when: datetime, fact: str) -> None:
        particle = next((c.lower_ for c in tok.children if c.dep_ == 'prt'), None)
        verb = f'{lemma}_{particle}' if particle else lemma
        for child in tok.children:
            if child.dep_ in ('dobj', 'attr'):
                for obj_tok in (child, *_conjuncts(child)):
                    obj = self._arg(obj_tok)
                    if obj is None:
                        continue
                    predicate = _VERB_OBJ.get(verb, verb)
                    if verb == 'join':
                        proper = self.entities[obj].type not in (
                            EntityType.CONCEPT,
                            EntityType.OTHER,
                        ) or obj_tok.tag_.startswith('NNP')
                        predicate = 'works_at' if proper else 'member_of'
                    known = verb in _VERB_OBJ or verb == 'join'
                    self._emit(subj, predicate, obj, when, fact, 0.9 if known else 0.6)
            elif child.dep_ in ('prep', 'agent'):
                prep = child.lower_
                known_prep = _VERB_PREP.get((verb, prep)) or _VERB_PREP.get((lemma, prep))
                for pobj in _pobjs(child):
                    obj = self._arg(pobj)
                    if obj is None:
                        continue
                    self._emit(
                        subj,
                        known_prep or f'{verb}_{prep}',
                        obj,
                        when,
                        fact,
                        0.9 if known_prep else 0.6,
                    )

    # ---- types and attributes --------------------------------------------------------------

    def _apply_type_cues(self) -> None:
        for rel in self.relations:
            subj_type, obj_type = _PREDICATE_TYPES.get(rel.predicate, (None, None))
            for name, cue in ((rel.subject, subj_type), (rel.object, obj_type)):
                mention = self.entities.get(name)
                if cue is not None and mention is not None and not mention.speaker:
                    mention.type = cue
                    self.owner.vote(name, cue)
        for mention in self.entities.values():
            if mention.speaker:
                mention.type = EntityType.PERSON

    def _attributes(self) -> None:
        if not capture_attributes(self.text):  # most texts name no phone, email or id
            return
        for sent in self.doc.sents:
            found = capture_attributes(sent.text)
            if not found:
                continue
            owner = None
            if self.speaker and any(t.lower_ in _SPEAKER_PRONOUNS for t in sent):
                owner = self.speaker
            else:
                named = [self.tok_ent[t.i] for t in sent if t.i in self.tok_ent]
                named = [n for n in named if self.entities[n].type != EntityType.CONCEPT]
                owner = named[0] if named else self.speaker
            if owner is None:
                continue
            if owner not in self.entities:
                self._add(owner, EntityType.PERSON)
            attrs = self.entities[owner].attributes
            for key, values in found.items():
                attrs[key] = list(dict.fromkeys([*attrs.get(key, []), *values]))


def _conjuncts(tok: Any) -> list[Any]:
    return [c for c in tok.children if c.dep_ == 'conj' and c.tag_ != 'CC']


def _pobjs(prep: Any) -> list[Any]:
    found = [c for c in prep.children if c.dep_ == 'pobj']
    return [p for f in found for p in (f, *_conjuncts(f))]
