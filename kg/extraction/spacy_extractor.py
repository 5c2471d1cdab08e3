"""Extractor on spaCy: entities from NER, proper nouns and noun chunks; facts from the parse."""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from kg.extraction.lexicon import (
    MAX_CACHED_NAMES,
    NER_LABELS,
    POOL_MIN_TEXTS,
    POOL_PART,
    READ_AHEAD,
    TRUSTED_VOTES,
    clean_name,
)
from kg.extraction.pool import part_slots, read_ahead
from kg.extraction.reader import DocReader, proper_runs, sentence_bounds
from kg.extraction.zh_reader import ZhReader, is_chinese
from kg.models import EntityType, Extraction, SourceText

log = logging.getLogger(__name__)

# seconds a worker parsing at close may take to finish before it is terminated
CLOSE_GRACE_S = 2.0


# NER is the costly pipe (it has its own tok2vec); the rest of the work needs tagger + parser.
class SpacyExtractor:
    """Extractor over a spaCy English pipeline, loaded lazily on first use.

    With `workers` > 0, large batches are parsed in that many worker processes (spaCy holds the
    GIL, so threads would not help). Small batches and single texts stay in this process until
    a large batch has started the workers; from then on they go to the first worker.
    """

    def __init__(
        self, model_name: str, batch_size: int = 256, workers: int = 0, nice: int = 0
    ) -> None:
        """`workers` processes parse large batches, each `nice` steps below this process's
        priority: parsing is background work, and on a small machine parsers at the same
        priority slow the embedding of the very write that queued them."""
        self._model_name = model_name
        self._batch_size = batch_size
        self._workers = max(0, workers)
        self._nice = max(0, nice)
        self._pools: list[ProcessPoolExecutor] = []
        self._pool_lock = threading.Lock()
        self._closing = False  # close() cancels queued parts: those must not be parsed here
        self._nlp: Any = None
        self._lemmatizer: Any = None
        self._lock = threading.Lock()  # spaCy pipelines are not documented as thread-safe
        self._votes: dict[str, Counter[EntityType]] = {}
        self._lemmas: dict[tuple[str, str], str] = {}
        self._zh = ZhReader()  # Chinese texts: jieba, the same predicate vocabulary

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
        if self._workers and len(texts) >= POOL_MIN_TEXTS:
            # parsing goes on in a thread while the caller stores the parts already handed over
            # (Kuzu, onnxruntime and the wait on workers release the GIL)
            yield from read_ahead(self._pooled(texts), READ_AHEAD)
        elif (pool := self._running_pool()) is not None:
            # a bulk write started the workers: a small batch (a single write's turn) is parsed
            # there too, so its parse does not hold this process's GIL while searches wait
            yield self._collect(texts, self._submit(pool, texts))
        else:
            yield self._extract_here(texts)

    def close(self) -> None:
        """Stop the worker processes, if any were started: a part being parsed gets
        CLOSE_GRACE_S to finish, then its worker is terminated (the graph job that asked for it
        is durable and runs again after a restart), so a stop signal never hangs on spaCy."""
        with self._pool_lock:
            pools, self._pools = self._pools, []
            self._closing = True
        deadline = time.monotonic() + CLOSE_GRACE_S
        for pool in pools:
            # ProcessPoolExecutor has no public terminate: its worker processes are here
            processes = list((getattr(pool, '_processes', None) or {}).values())
            # shutdown(wait=False) forgets the pool's manager thread, which goes on closing the
            # pool's pipes: it must be done before close() returns, or it works on descriptors
            # whose numbers the process may already have given to someone else
            manager = getattr(pool, '_executor_manager_thread', None)
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.join(max(0.0, deadline - time.monotonic()))
                if process.is_alive():
                    log.warning('extraction worker %s busy at close: terminated', process.pid)
                    process.terminate()
                    process.join(5)
            if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
                manager.join(5)

    def _extract_here(self, texts: Sequence[SourceText]) -> list[Extraction]:
        chinese = [is_chinese(t.text) for t in texts]
        if not any(chinese):
            return self._extract_english(texts)
        english = iter(
            self._extract_english([t for t, zh in zip(texts, chinese, strict=True) if not zh])
        )
        out = []
        for item, zh in zip(texts, chinese, strict=True):
            if not zh:
                out.append(next(english))
                continue
            try:
                out.append(self._zh.read(item))
            except Exception:  # one odd text must not sink a batch
                log.exception('Chinese extraction failed for one text; skipped')
                out.append(Extraction())
        return out

    def _extract_english(self, texts: Sequence[SourceText]) -> list[Extraction]:
        if not texts:
            return []
        with self._lock:
            nlp = self._load()
            skip = [p for p in ('ner', 'lemmatizer', 'attribute_ruler') if p in nlp.pipe_names]
            texts_in = (t.text for t in texts)
            docs = list(nlp.pipe(texts_in, disable=skip, batch_size=self._batch_size))
            # NER gating and the reader share the proper-noun runs and the sentences
            runs = [list(proper_runs(doc)) for doc in docs]
            bounds = [sentence_bounds(doc) for doc in docs]
            ner_ran = self._run_ner(nlp, docs, runs, bounds)
            out = []
            for doc, item, ran, names, sents in zip(
                docs, texts, ner_ran, runs, bounds, strict=True
            ):
                try:
                    out.append(DocReader(self, doc, item, ran, names, sents).read())
                except Exception:  # one odd parse must not sink a batch
                    log.exception('extraction failed for one text; skipped')
                    out.append(Extraction())
            return out

    def _running_pool(self) -> ProcessPoolExecutor | None:
        """The first worker pool if a large batch has started them, else None (a small batch
        never starts them: two workers hold ~375 MB)."""
        with self._pool_lock:
            return self._pools[0] if self._pools else None

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
                        initargs=(self._model_name, self._batch_size, os.getpid(), self._nice),
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
        parts = [texts[i : i + POOL_PART] for i in range(0, len(texts), POOL_PART)]
        slot = part_slots(len(parts), len(pools))
        ahead = 3 * (len(pools) + 1)
        futures: dict[int, Future[list[Extraction]] | None] = {}
        mine: dict[int, list[Extraction]] = {}  # own parts parsed early, while a worker was busy

        def submit_up_to(limit: int) -> None:
            for j in range(len(futures), min(limit, len(parts))):
                remote = slot[j] is not None
                futures[j] = self._submit(pools[slot[j] or 0], parts[j]) if remote else None

        for i, part in enumerate(parts):
            self._check_open()
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
                self._check_open()
                mine[own] = self._extract_here(parts[own])
            yield self._collect(part, future)
            futures[i] = None  # drop the result as soon as it is handed over

    def _check_open(self) -> None:
        if self._closing:
            # stopping: a batch parsed in part is not parsed here to its end (which held the
            # stop for seconds); its graph job is durable and runs again after a restart
            raise CancelledError('the extractor was closed')

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
                if self._closing:
                    raise  # terminated by close(): the graph job runs again after a restart
                log.exception('an extraction worker died; parsing this part in-process')
                self._drop_pools(wait=False)
            except CancelledError:
                if self._closing:
                    raise  # stopping: the graph job is durable and runs again after a restart
                # another thread dropped the pools (its worker died) and cancelled this part
                # with them: the part is still this caller's to parse
                log.warning('an extraction part was cancelled with its pool; parsing it here')
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
                if self._votes_for(name).total() < TRUSTED_VOTES:
                    # Token.sent scans the doc's sentences on every call
                    first, last = next((a, b) for a, b in bounds[i] if a <= start < b)
                    sentences[first] = last
            targets.extend((i, start, end) for start, end in sorted(sentences.items()))
        pieces = [docs[i][start:end].as_doc() for i, start, end in targets]
        ner = nlp.get_pipe('ner')
        for _ in ner.pipe(pieces, batch_size=self._batch_size):
            pass  # annotates the pieces in place
        if len(self._votes) > MAX_CACHED_NAMES:
            self._votes.clear()
        found: dict[int, list[Any]] = {}
        for (i, start, _), piece in zip(targets, pieces, strict=True):
            for ent in piece.ents:
                found.setdefault(i, []).append(
                    Span(docs[i], start + ent.start, start + ent.end, label=ent.label_)
                )
                label = NER_LABELS.get(ent.label_)
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


_WORKER: SpacyExtractor | None = None


def _worker_init(model_name: str, batch_size: int, parent: int, nice: int) -> None:
    global _WORKER
    if nice:
        os.nice(nice)
    # the parent's pid comes from the parent: it may already be gone by the time we run
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    _WORKER = SpacyExtractor(model_name, batch_size)
    _WORKER._load()


def _exit_with_parent(parent: int) -> None:
    # a pool worker only notices its parent is gone when it next reads a task; a service killed
    # hard never sends one, so without this check its idle workers would outlive it
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _worker_extract(texts: list[SourceText]) -> list[Extraction]:
    assert _WORKER is not None, 'worker not initialised'
    return _WORKER.extract(texts)
