"""The ranking stage of a search: the channels' fused candidates in, the ranked hits out.

A candidate's score is its fused score (RRF, or the learned model's probability of relevance),
moved by decay, importance and pinning (`recall.decay.multiplier`), by a speaker and a date that
the question names, by the caller's own authorship and by trust. Only the head of the fused order
can reach `top_k` after those moves, so only that window is built into hits; `explain` scores
every candidate and reports each one's factors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from core.clock import to_epoch
from recall.decay import Vitals, multiplier, payload_vitals, relevance, vitals
from recall.models import Chunk, Supersession
from recall.read.channels import Found
from recall.read.context import (
    calibrated_cosine,
    content_pairs,
    holds_pair,
    query_period,
    text_coverage,
    written_in_chinese,
)
from recall.read.fusion import (
    LEARNED_CHANNELS,
    Fused,
    FusionConfig,
    LinearModel,
    feature_matrix,
    learned_head,
    learned_scores,
    shipped_model,
    turn_flags,
)
from recall.read.slots import asked, is_cjk, query_content, replaced_in
from recall.read.weights import (
    BELOW_REPLACEMENT,
    CONTEXT_SHARE,
    EN_REACH_SHARE,
    MIN_RANK_WINDOW,
    RANK_WINDOW_FACTOR,
    STALE_FACTOR,
    UNTRUSTED_FACTOR,
    USER_BOOST,
    ZH_UNPAIRED_REACH,
)
from recall.schemas import Hit, SearchMode, SearchRequest
from recall.speakers import query_names, turn_speaker
from recall.tiers import Trust


# Scored and Ranked are dataclasses, not models: they hold models and payloads that are valid
# already, and validating them again (each payload dict copied) costs a search measurable
# GIL-held time under load
@dataclass(frozen=True, slots=True)
class Scored:
    """A ranked candidate; only those the policy keeps become Hit models (validated once each)."""

    id: str
    score: float
    payload: dict[str, Any]
    # the receipt of the score, built only for the candidates the policy keeps (~10 of ~30)
    explained: Callable[[], dict[str, float]]
    # the Chunk, built when first read: ranking reads the payload, and validating a payload
    # into a Chunk (~15 us) is worth it only for the hits the policy keeps
    built: list[Chunk] = field(default_factory=list, compare=False)

    @property
    def chunk(self) -> Chunk:
        """The candidate's memory as a Chunk."""
        if not self.built:
            self.built.append(Chunk.from_payload(self.payload))
        return self.built[0]

    @property
    def components(self) -> dict[str, float]:
        """The hit's receipt: its channel ranks and scores and what moved it."""
        return self.explained()

    def hit(self) -> Hit:
        """The client's view of this candidate."""
        c = self.chunk
        return Hit(
            id=c.id,
            text=c.text,
            score=self.score,
            components=self.components,
            kind=c.kind,
            tier=c.tier,
            scope=c.scope,
            user_id=c.user_id,
            importance=c.importance,
            pinned=c.pinned,
            created_at=c.created_at,
            metadata=c.metadata,
            superseded_by=c.superseded_by,
            supersession=Supersession.model_validate(c.supersession) if c.supersession else None,
            stale=[Supersession.model_validate(r) for r in c.stale],
        )


@dataclass(frozen=True, slots=True)
class Ranked:
    """The ranked hits, how many fell below the relevance floor, each candidate's factors
    (`explain` only) and the speakers the question names."""

    hits: list[Scored]
    below_floor: int
    factors: dict[str, dict[str, float]]
    speakers: frozenset[str]


def learned(req: SearchRequest, recipe: FusionConfig, found: Found) -> bool:
    """The learned model ranks hybrid searches over the channels it was fitted on."""
    method = req.fusion.value if req.fusion is not None else recipe.method
    return (
        method == 'learned'
        and req.mode == SearchMode.HYBRID
        # the graph speaks through its slot evidence, not as a channel of the model
        and all(c in LEARNED_CHANNELS or c == 'graph' for c in found.channels)
    )


class Signals:
    """The query-dependent signals of a search's candidates, each confidence computed once."""

    def __init__(
        self, req: SearchRequest, found: Found, terms: list[str], moment: datetime
    ) -> None:
        self._found = found
        # the query's words as coverage counts them, worked out once for every candidate
        self._words = query_content(terms)
        # a Chinese query weighs the channels by the learned model's Chinese correction
        self.cjk = is_cjk(terms)
        self._cosine = _cosines(found, self.cjk)
        # only dialogue turns have a speaker: not field notes, nor a user's every note
        self._spoken = _spoken(found)
        self.named = query_names(req.query, {s for s in self._spoken.values() if s})
        self._query = req.query
        # the owners the question names (`_owned`): built when a candidate has a user
        self._owners: frozenset[str] | None = None
        self._period = query_period(req.query, moment)
        self._own: dict[str, float] = {}
        self._covered: dict[str, float] = {}
        # each candidate's `cheap` signals: learned_head reads them of every candidate, `full`
        # again of those it scores
        self._cheap: dict[str, dict[str, float]] = {}
        self._pairs = content_pairs(req.query) if self.cjk else frozenset[str]()

    @property
    def names_time(self) -> bool:
        """Whether the query names a time (it asks what held then, not what holds now)."""
        return self._period is not None

    def sure(self, ident: str) -> float:
        """How surely the candidate's own text answers the query (recall.read.context)."""
        if ident not in self._own:
            covered = self.covered(ident)
            # recall.read.context confidence, its coverage read once for `reach` too
            chinese_miss = covered == 0.0 and self.cjk
            self._own[ident] = 0.0 if chinese_miss else max(covered, self._cosine.get(ident, 0.0))
        return self._own[ident]

    def least(self, ident: str) -> float:
        """A bound `full(ident)`'s confidence never falls below for a query not in Chinese:
        the calibrated cosine of the candidate (recall.read.context confidence), and its share
        of its lenders'."""
        own = self._cosine.get(ident, 0.0)
        lenders = self._found.lent_by.get(ident)
        if not lenders:
            return own
        payloads, cosine = self._found.payloads, self._cosine
        shares = [CONTEXT_SHARE * cosine.get(i, 0.0) for i in lenders if i in payloads]
        return max([own, *shares])

    def covered(self, ident: str) -> float:
        """The share of the query's words the candidate's own text holds (recall.read.context)."""
        if ident not in self._covered:
            self._covered[ident] = text_coverage(self._words, *self._text(ident))
        return self._covered[ident]

    def _owned(self, ident: str) -> float:
        """`covered(ident)`, a word of the question naming the memory's user held by it."""
        user = self._found.payloads[ident].get('user_id')
        if not user or user not in self._named_owners():
            return self.covered(ident)
        text, stated = self._text(ident)
        return text_coverage(self._words, f'{text} {user}', stated)

    def _named_owners(self) -> frozenset[str]:
        """The users of this search's memories the question names: "Where does Ann live?" of
        Ann's "I moved to Berlin" (the user a memory belongs to is a word it holds for whether
        the question is answered, en_reach)."""
        if self._owners is None:
            users = {p.get('user_id') for p in self._found.payloads.values()}
            owners = {u for user in users if user and _name_like(u := str(user))}
            self._owners = query_names(self._query, owners) if owners else frozenset[str]()
        return self._owners

    def _text(self, ident: str) -> tuple[str, frozenset[str]]:
        payload = self._found.payloads[ident]
        slots = payload.get('slots')  # most memories state no fact of a slot
        return _said(payload), frozenset(str(s) for s in slots) if slots else _NO_SLOTS

    def cheap(self, ident: str) -> dict[str, float]:
        """Every signal but `confidence`, the one that costs real work; worked out once per
        candidate and shared, so callers only read it."""
        signal = self._cheap.get(ident)
        if signal is not None:
            return signal
        payload = self._found.payloads[ident]
        spoken = self._spoken.get(ident)
        period = self._period
        signal = self._cheap[ident] = {
            # a dialogue turn the question's subject spoke (spoken: turns only)
            'speaker_named': 1.0 if spoken in self.named else 0.0,
            'date_match': 1.0 if period and period.holds(payload.get('created_at')) else 0.0,
            # the learned score's calibration differs for dialogue turns (recall.read.fusion)
            'turn': 1.0 if spoken else 0.0,
        }
        return signal

    def full(self, ident: str) -> dict[str, float]:
        """Every signal of the candidate. For a Chinese query `confidence` is the coverage
        alone (the default embedder reads no Chinese, so its cosine is no evidence for the
        learned model) and `reach` what only the relevance floor's question "is anything here
        at all" reads (`_Ranking._below_floor`, `zh_reach`)."""
        found = self._found
        lent = [i for i in found.lent_by.get(ident, ()) if i in found.payloads]
        # a turn found through its neighbour shares in the neighbour's confidence, and in the
        # relevance the graph vouches for (recall.read.evidence)
        vouched = found.graph.sure.get(ident, 0.0)
        if not self.cjk:
            sure = max([self.sure(ident), vouched, *(CONTEXT_SHARE * self.sure(i) for i in lent)])
            reach = en_reach(self._owned(ident), self._cosine.get(ident, 0.0), vouched)
            return {**self.cheap(ident), 'confidence': sure, 'reach': reach}
        read = max([self.covered(ident), vouched, *(CONTEXT_SHARE * self.covered(i) for i in lent)])
        paired = holds_pair(self._pairs, self._text(ident)[0])
        return {**self.cheap(ident), 'confidence': read, 'reach': zh_reach(read, vouched, paired)}


def _cosines(found: Found, cjk: bool) -> dict[str, float]:
    """Each dense candidate's calibrated cosine; for an English question none to a memory
    written in Chinese (the default embedder reads no Chinese: its cosine there is noise)."""
    payloads = found.payloads
    cosines = {p.id: calibrated_cosine(p.score) for p in found.channels.get('dense', [])}
    if not cjk:
        for ident, cosine in cosines.items():
            # below COSINE_FLOOR the cosine counts for nothing already: no text to read
            if cosine > 0.0 and ident in payloads and written_in_chinese(_said(payloads[ident])):
                cosines[ident] = 0.0
    return cosines


def _said(payload: Mapping[str, Any]) -> str:
    return str(payload.get('text', ''))


_NO_SLOTS = frozenset[str]()


def _spoken(found: Found) -> dict[str, str | None]:
    """The turn speaker of each fused candidate, read once per search: the context channel
    has read those of the turns it links (`found.speakers`), the rest are read here."""
    payloads, read = found.payloads, found.speakers
    for f in found.fused:
        if f.id not in read and f.id in payloads:
            read[f.id] = turn_speaker(payloads[f.id])
    return {f.id: read[f.id] for f in found.fused if f.id in payloads}


# user ids that name a role, not a person: a question saying "the user" names no one's memory
_ROLE_IDS = frozenset({'user', 'admin', 'agent', 'default', 'test', 'me', 'self', 'owner'})


def _name_like(user_id: str) -> bool:
    """Whether a user id is a name a question may use for its owner ("ann", "李娜"): one word of
    letters, not a role; "user-1" or "bob.acme" would credit "user" or "acme" to every memory of
    their owner."""
    return len(user_id) > 1 and user_id.isalpha() and user_id.casefold() not in _ROLE_IDS


def en_reach(covered: float, cosine: float, vouched: float) -> float:
    """How far a hit of an English question reaches towards the relevance floor (whether the
    question is answered at all): its calibrated cosine, what the graph vouches, or its coverage
    once it holds EN_REACH_SHARE of the question's words. A hit holding one common word of
    three ("mountain", "friend", "work") kept its coverage of 0.33 above the floor, and 30-60 %
    of unrelated questions were answered; this gate answers 4-23 % of them at no recall cost on
    turns, notes and the memory bank (bench/README.md, kinds: "The English floor's reach")."""
    return max(covered if covered >= EN_REACH_SHARE else 0.0, cosine, vouched)


def zh_reach(read: float, vouched: float, paired: bool) -> float:
    """How far a hit of a Chinese question reaches towards the relevance floor: its coverage
    when it repeats a two-character word of the question (content_pairs) or covers half of it,
    else only what the graph vouches. Unrelated Chinese questions share scattered common
    characters (天, 人, 大, 喜欢…) with some memory and the default embedder puts unrelated
    Chinese sentences at cosine 0.6-0.7, so the former reach (coverage or calibrated cosine)
    answered ~95% of them; this one answers ~9% at a cost of a few short questions answered
    by one shared character (bench/README.md, kinds: "The Chinese floor's reach")."""
    return read if paired or read >= ZH_UNPAIRED_REACH else vouched


@dataclass(frozen=True, slots=True)
class _Factors:
    """What moves one candidate's fused score."""

    rel: float
    lift: float
    spoke: float
    when: float
    user: float
    graph: float
    trusted: float

    def product(self) -> float:
        """The factor on the fused score (the graph's own factor is in that score already)."""
        return self.lift * self.spoke * self.when * self.user * self.trusted

    def moved(self) -> tuple[tuple[str, float], ...]:
        """The named factors, for the hit's components when they move it."""
        return (
            ('speaker_boost', self.spoke),
            ('date_boost', self.when),
            ('user_boost', self.user),
            ('trust_factor', self.trusted),
            ('graph_factor', self.graph),
        )


def _learned_order(
    req: SearchRequest,
    found: Found,
    signals: Signals,
    model: LinearModel,
    ids: list[str],
    size: int,
    low: list[float] | None,
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """A logistic model over every candidate's channel features and signals: its probability
    of relevance is the fused score. Without `explain`, only candidates that can reach the
    window get the costly signals (`low`: each one's least confidence, if known)."""
    lists = {c: [(p.id, p.score) for p in pts] for c, pts in found.channels.items()}
    if not req.explain:
        return learned_head(model, ids, lists, size, signals.cheap, signals.full, signals.cjk, low)
    extras = {i: signals.full(i) for i in ids}
    matrix = feature_matrix(ids, lists, extras)
    probability = learned_scores(model, matrix, turn_flags(ids, extras), signals.cjk)
    return {i: float(p) for i, p in zip(ids, probability, strict=True)}, extras


class _Ranking:
    """One search's ranking: the window of the fused order scored, deduplicated and sorted."""

    def __init__(
        self,
        req: SearchRequest,
        recipe: FusionConfig,
        found: Found,
        terms: list[str],
        floor: float,
        moment: datetime,
    ) -> None:
        self._req = req
        self._recipe = recipe
        self._found = found
        self._floor = floor
        self._now = to_epoch(moment)
        self.signals = Signals(req, found, terms, moment)
        self._model = shipped_model() if learned(req, recipe, found) else None
        self._extras: dict[str, dict[str, float]] = {}
        self._fused_by_id = {f.id: f for f in found.fused}
        # `mode: bm25` / `dense` show the channel as it ranks: no boosts, decay or factors
        self._pure = req.mode != SearchMode.HYBRID
        self.factors: dict[str, dict[str, float]] = {}
        self.below = 0
        # a Chinese query: whether a candidate of the window reaches the floor (_below_floor)
        self._answered = False
        self._best_by_text: dict[str, Scored] = {}
        self._less_trusted: set[str] = set()

    def _order(self) -> tuple[dict[str, float], list[str]]:
        """The fused score of each candidate and their order."""
        found = self._found
        ids = [f.id for f in found.fused if f.id in found.payloads]
        if self._model is None:
            return {f.id: f.score for f in found.fused}, ids
        base, self._extras = _learned_order(
            self._req, found, self.signals, self._model, ids, self._size(), self._least(ids)
        )
        return base, sorted(base, key=lambda i: (-base[i], i))

    def _least(self, ids: list[str]) -> list[float] | None:
        """Each candidate's least confidence, with which the learned head scores fewer of them
        (recall.read.fusion learned_head), when only the head's scores are read: no graph
        evidence and no candidate replaced in the slot the question asks (both read scores
        below the head); None otherwise."""
        found, signals = self._found, self.signals
        if signals.cjk or found.graph.sure or found.graph.stale:
            return None  # a Chinese memory's cosine does not count without a shared word
        if not self._pure and not signals.names_time and _replaced(self._req, found, ids):
            return None
        return [signals.least(i) for i in ids]

    def _size(self) -> int:
        # only the head of the order can reach top_k after boosts; building models for the
        # whole candidate depth would cost more than the store queries themselves
        return max(self._req.top_k * RANK_WINDOW_FACTOR, MIN_RANK_WINDOW)

    def run(self) -> Ranked:
        """The ranked hits of the window (every candidate's factors under `explain`)."""
        found = self._found
        base, order = self._order()
        size = self._size()
        # the graph's slot evidence (recall.read.evidence); a chunk it says holds is ranked even
        # when it would sit below the window
        base, moved = found.graph.lift(base)
        if not self._pure and not self.signals.names_time:
            base, moved = _sink_replaced(self._req, found, base, moved)
        window = order[:size] + [i for i in order[size:] if i in found.graph.sure]
        in_window = set(window)
        # `mode: bm25` / `dense` with a floor keep their channel's order under it; an English
        # question there has no cosine to reach by (bm25) or no words to (dense)
        if self._floor > 0.0 and (self.signals.cjk or not self._pure):
            self._answered = any(
                self._signal(i)['reach'] >= self._floor for i in window if not self._expired(i)
            )
        else:
            self._answered = True
        for ident in order if self._req.explain else window:
            self._consider(ident, base[ident], moved.get(ident, 1.0), ident in in_window)
        # on equal scores trusted memories rank first
        ranked = sorted(
            self._best_by_text.values(),
            key=lambda h: (-h.score, h.id in self._less_trusted, h.id),
        )
        return Ranked(
            hits=ranked, below_floor=self.below, factors=self.factors, speakers=self.signals.named
        )

    def _consider(self, ident: str, base: float, graph: float, in_window: bool) -> None:
        """Score one candidate and keep it if it beats its text's twin."""
        req = self._req
        if self._expired(ident):
            return
        payload = self._found.payloads[ident]
        signal = self._signal(ident)
        if not req.explain and self._below_floor(signal):
            self.below += 1  # only window ids get here; building its chunk would be wasted
            return
        read = payload_vitals(payload)
        built = [] if read is not None else [Chunk.from_payload(payload)]
        factors = self._factors(payload, read or vitals(built[0]), signal, graph)
        if req.explain:
            self.factors[ident] = {
                'decay_multiplier': round(factors.lift, 6),
                'user_boost': factors.user,
                'trust_factor': factors.trusted,
                **{k: round(v, 4) for k, v in signal.items()},
            }
        if not in_window:
            return
        if self._below_floor(signal):
            self.below += 1
            return
        # the partial holds what the receipt reads, not the ranking: a hit holding its ranking
        # (which holds the hits) was a cycle per search left to the cyclic GC (~2,000 objects)
        learned = self._model is not None
        item = self._fused_by_id[ident]
        explained = partial(_components, item, learned, self._pure, base, factors, signal)
        factor = 1.0 if self._pure else factors.product()
        hit = Scored(
            id=str(payload.get('id', ident)),
            score=base * factor,
            payload=payload,
            explained=explained,
            built=built,
        )
        self._keep(hit, factors.trusted != 1.0)

    def _expired(self, ident: str) -> bool:
        expires = self._found.payloads[ident].get('expires_at')
        return isinstance(expires, int | float) and expires <= self._now

    def _signal(self, ident: str) -> dict[str, float]:
        signal = self._extras.get(ident)
        if signal is None:
            signal = self._extras[ident] = self.signals.full(ident)
        return signal

    def _below_floor(self, signal: dict[str, float]) -> bool:
        """Whether a candidate falls under the relevance floor. The floor first asks whether the
        question is answered at all: a candidate of the window must reach it (`reach`: for an
        English query `en_reach`, for a Chinese one coverage with a shared word, `zh_reach`),
        else nothing is returned. An English candidate is then kept when its confidence reaches
        the floor. A Chinese one is kept when it shares a content word with the query and the
        ranking orders them: the default embedder reads no Chinese, so a paraphrase's
        confidence is the share of the question's characters it holds, which cannot tell an
        answer sharing one word from a near miss (bench/README.md, kinds: "The floor on Chinese
        questions")."""
        if 'reach' not in signal or self._floor <= 0.0:  # no floor: a channel's whole order
            return signal['confidence'] < self._floor
        if not self._answered:
            return True
        if self.signals.cjk:
            return signal['confidence'] <= 0.0
        return signal['confidence'] < self._floor

    def _factors(
        self, payload: Mapping[str, Any], life: Vitals, signal: dict[str, float], graph: float
    ) -> _Factors:
        req, recipe, now = self._req, self._recipe, self._now
        # the fused rank stays dominant: decay, importance and pinning move a hit by at
        # most ~10%, enough to reorder near-ties (recall.decay.multiplier)
        rel = relevance(life, now)
        # the learned model has already weighed speaker and date
        plain = self._model is None
        own = req.user_id is not None and payload.get('user_id') == req.user_id
        trusted = payload.get('trust', Trust.TRUSTED) == Trust.TRUSTED
        return _Factors(
            rel=rel,
            lift=multiplier(life, now, rel=rel),
            spoke=1.0 + recipe.speaker_boost * signal['speaker_named'] if plain else 1.0,
            when=1.0 + recipe.date_boost * signal['date_match'] if plain else 1.0,
            user=USER_BOOST if own else 1.0,
            graph=graph,
            trusted=1.0 if trusted else UNTRUSTED_FACTOR,
        )

    def _keep(self, hit: Scored, untrusted: bool) -> None:
        # the user's own copy of a text wins over a shared twin of it
        if untrusted:
            self._less_trusted.add(hit.id)
        key = str(hit.payload.get('content_hash', hit.id))
        twin = self._best_by_text.get(key)
        if twin is None or (hit.score, twin.id in self._less_trusted) > (twin.score, False):
            self._best_by_text[key] = hit


def _components(
    item: Fused, learned: bool, pure: bool, base: float, factors: _Factors, signal: dict[str, float]
) -> dict[str, float]:
    """A hit's receipt: its channel ranks and scores and what moved it."""
    components = {f'{k}_rank': float(v) for k, v in item.ranks.items()}
    components.update({k: round(v, 6) for k, v in item.channel_scores.items()})
    components['fused'] = base
    components['relevance'] = round(factors.rel, 6)
    components['decay_multiplier'] = round(factors.lift, 6)
    components['confidence'] = round(signal['confidence'], 4)
    if learned:
        components['learned'] = 1.0
    for name, value in factors.moved():
        if value != 1.0 and not pure:
            components[name] = value
    return components


def _sink_replaced(
    req: SearchRequest, found: Found, base: dict[str, float], moved: dict[str, float]
) -> tuple[dict[str, float], dict[str, float]]:
    """Rank below its replacement a memory whose value of the slot the question asks was
    replaced ("I live in Leeds and work at Arup" after "I moved to York", for "Where do I
    live?"); its other facts still answer other questions, so it is only moved, not hidden."""
    replaced = _replaced(req, found, base)
    if not replaced:
        return base, moved
    out, factors = dict(base), dict(moved)
    # a value replaced twice (Leeds -> York -> Lisbon) sinks below what replaced it after that
    # one has sunk in turn
    for _ in range(3):
        for ident, newer in replaced.items():
            known = [out[i] for i in newer if i in out and i != ident]
            target = min(known) * BELOW_REPLACEMENT if known else base[ident] * STALE_FACTOR
            if 0 < target < out[ident]:
                factors[ident] = factors.get(ident, 1.0) * target / out[ident]
                out[ident] = target
    return out, factors


def _replaced(req: SearchRequest, found: Found, ids: Iterable[str]) -> dict[str, list[str]]:
    """The ids of these candidates whose value of the slot the question asks was replaced, each
    with the ids of the memories that replaced it."""
    question = asked(req.query)
    if not question.slots:
        return {}
    return {
        ident: newer
        for ident in ids
        if ident in found.payloads
        and (newer := replaced_in(found.payloads[ident], question, req.user_id))
    }


def rank(
    req: SearchRequest,
    recipe: FusionConfig,
    found: Found,
    terms: list[str],
    floor: float,
    moment: datetime,
) -> Ranked:
    """The ranked hits of what the channels found, at `moment`; candidates whose confidence is
    below `floor` are counted, not kept."""
    return _Ranking(req, recipe, found, terms, floor, moment).run()
