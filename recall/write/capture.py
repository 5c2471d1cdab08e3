"""Capture: decide what of a conversation turn becomes memory, without an LLM.

Order per turn: empty -> system channel -> role -> injected prompt (source tag, fingerprints) ->
secret (keys, passwords, card numbers) -> per sentence: question -> salience gate ->
classification into memory kinds, one candidate per fact ("我叫东升, 幸运数字是 88" gives an
entity and a fact, never a raw note). Text stays in
the input language. Deterministic capture (phone, email, ids, birthdays) runs on every sentence
and makes it salient by itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from recall.normalize import name_key, normalize_text
from recall.recall_block import strip_recall_blocks
from recall.schemas import MemoryIn
from recall.tiers import ImportanceLabel, Kind, Source, Tier
from recall.write.deterministic import Captured, deterministic_capture
from recall.write.fact_base import split_clauses
from recall.write.fact_patterns import CHOSEN_SLOTS, LEAD_ONLY
from recall.write.facts import (
    amends,
    correction_facts,
    facts_of,
    joined_changes,
    joined_corrections,
)
from recall.write.guards import injection_reason, is_system_channel, mask_turn
from recall.write.importance import grade, label_for
from recall.write.rules import (
    ANAPHORIC_LESSON,
    CONTINUATION,
    DIET_FACT,
    DIET_PREFERENCE,
    EXPLICIT,
    EXPLICIT_ANYWHERE,
    FACT_EN,
    FACT_ZH,
    LESSON,
    NAME_EN,
    NAME_IM,
    NAME_ZH,
    NOT_A_NAME,
    POSSESSION,
    PREDICATE,
    PREFERENCE,
    PROCEDURE,
    PROJECT,
    PROJECT_STATUS,
    QUESTION_EN,
    QUESTION_MARK,
    QUESTION_ZH,
    RELATIONSHIP,
    REPROACH,
    REQUEST,
    SALIENT_EN,
    SALIENT_ZH,
    STYLE_INSTRUCTION,
    ZH_VERB_LEAD,
)

MIN_CONFIDENCE = 0.55
# the kind of a clause known only by the slot of its fact
SLOT_KINDS = {
    'name': Kind.ENTITY,
    'phone': Kind.ENTITY,
    'email': Kind.ENTITY,
    'partner': Kind.RELATIONSHIP,
    **dict.fromkeys(
        ('likes', 'prefers', 'habit', 'hobby', 'editor', 'answer_format', 'answer_language',
         'answer_length', 'unit'),
        Kind.PREFERENCE,
    ),
}  # fmt: skip
MAX_ITEMS_PER_TURN = 6


class SkipReason(StrEnum):
    """Why (part of) a turn was not captured."""

    EMPTY = 'empty'
    SYSTEM_CHANNEL = 'system_channel'
    NOT_USER = 'not_user'
    INJECTED = 'injected'
    SECRET = 'secret'
    QUESTION = 'question'
    NOT_SALIENT = 'not_salient'
    LOW_CONFIDENCE = 'low_confidence'
    OVER_LIMIT = 'over_limit'
    DUPLICATE = 'duplicate'


class Candidate(BaseModel):
    """A memory to write: kind, text in the input language, tier and importance from its kind."""

    kind: Kind
    text: str
    tier: Tier
    importance: float = Field(ge=0.0, le=1.0)
    importance_label: ImportanceLabel
    pinned: bool = False
    confidence: float = Field(ge=0.0, le=1.0)
    entity_key: str | None = None
    explicit: bool = Field(default=False, description='the user asked to remember it')
    rule: str = Field(description='the rule that classified it, for receipts')
    captured: list[Captured] = Field(default_factory=list)
    observed_at: datetime | None = None


class Skipped(BaseModel):
    """A part of the turn that was not captured, and why."""

    text: str
    reason: SkipReason
    detail: str | None = None


class SalienceCheck(BaseModel):
    """Whether text carries durable first-person signal, and the marker that said so."""

    model_config = ConfigDict(frozen=True)

    passes: bool
    reason: str


class CaptureDecision(BaseModel):
    """What a turn yields: candidates to store and skipped parts with reasons."""

    candidates: list[Candidate] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    reason: SkipReason | None = Field(default=None, description='set when the whole turn skipped')
    captured: list[Captured] = Field(default_factory=list)

    @property
    def kinds(self) -> list[Kind]:
        """Kinds of the candidates, in order."""
        return [c.kind for c in self.candidates]

    def writes(
        self, scope: str, user_id: str | None, channel: str | None, at: datetime | None = None
    ) -> list[MemoryIn]:
        """The candidates as writes of the user's own words, tagged as captured; `at` is the
        message's time (their event time)."""
        return [
            MemoryIn(
                scope=scope,
                text=c.text,
                kind=c.kind,
                user_id=user_id,
                importance=c.importance,
                importance_label=c.importance_label,
                pinned=c.pinned,
                tier=c.tier,
                entity_key=c.entity_key,
                source=Source.USER,
                source_ref=channel,
                created_at=at,
                metadata={'captured_by': 'capture', 'confidence': c.confidence},
            )
            for c in self.candidates
        ]


# ---- salience and questions ------------------------------------------------------------------


_POLITE_REQUEST = re.compile(
    r'(?i)\s*(?:could|can|would|will) you (?:please )?|'
    r'\s*(?:可以|能|能不能|可不可以|麻烦)(?:请)?你?'
)


def is_question(text: str) -> bool:
    """True for questions: a final ?/？, a Chinese interrogative or an English question opener."""
    if _POLITE_REQUEST.match(text) and any(f.slot in CHOSEN_SLOTS for f in facts_of(text)):
        return False  # "Could you write in paragraphs?": how to answer, asked politely
    if QUESTION_MARK.search(text):
        return True
    body = EXPLICIT.sub('', text, count=1)
    if body != text:
        return False  # "remember that …" is an instruction, whatever words follow
    if re.match(r"\s*(?:do not|don't|please)\b", text, re.IGNORECASE):
        return False  # an imperative: "Do not summarise the question back to me"
    if PROCEDURE.search(text) and re.search(r'[,，]', text):
        return False  # "When a build fails, check the cache first": a rule, not a question
    return bool(QUESTION_ZH.search(text) or QUESTION_EN.search(text))


def salience(text: str) -> SalienceCheck:
    """Whether `text` passes the first-person salience gate (EN + ZH), and why."""
    if not text or not text.strip():
        return SalienceCheck(passes=False, reason='empty')
    if is_question(text):
        return SalienceCheck(passes=False, reason='question')
    captured = deterministic_capture(text)
    if captured:
        return SalienceCheck(passes=True, reason=f'capture:{captured[0].kind}')
    if _name_of(text):
        return SalienceCheck(passes=True, reason='name')
    stated = facts_of(text) or correction_facts(text)
    if stated:
        # a fact of a slot (a move, a job, a language, a correction) is durable by itself
        return SalienceCheck(passes=True, reason=f'fact:{stated[0].slot}')
    for pattern in (SALIENT_ZH, SALIENT_EN, PROCEDURE, RELATIONSHIP, LESSON, PROJECT_STATUS):
        match = pattern.search(text)
        if match:
            return SalienceCheck(passes=True, reason=f'marker:{match.group(0).strip().lower()}')
    return SalienceCheck(passes=False, reason='no_marker')


# ---- classification --------------------------------------------------------------------------

_SENTENCE = re.compile(r'[^。！？!?；;\n]+[。！？!?；;]*')
_EN_STOP = re.compile(r'(?<=[a-z0-9)"\'])\.\s+(?=[A-Z\u4e00-\u9fff])')
_CLAUSE = re.compile(
    r'\s*[,，、]\s*(?!\d{4}\b)|\s+(?:and|but|also)\s+(?=(?:my|i|i\'m|our)\b)|'
    r'\s+and\s+(?=(?:my\s+)?(?:e-?mail|phone|number|mobile|cell|wechat|address)\b)',
    re.I,
)
_LEAD_CONJ = re.compile(
    r'^(?:(?:and|but|also|plus|so|well|ok|okay|anyway|actually|btw|by the way|oh)\b|'
    r'还有|另外|而且|并且|然后|以及|同时|对了|顺便说一下|顺便)\s*[,，]?\s*',
    re.I,
)
_TRIM = re.compile(r'^[\s,，;；、:：]+|[\s,，;；、:：。.!！~～]+$')
_SUMMARY = re.compile(r'^\s*(?:summary|tl;dr|session summary|摘要|总结|小结)\s*[:：]', re.I)
_SUBJECT_LEAD = re.compile(r"^(?:我|\b(?:i|i'm|i've|my|we|our)\b)", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"我|\b(?:i|i'm|i've|i'd|my|mine|me|we|our)\b", re.IGNORECASE)
_COPULA_ZH = re.compile(r'^[\u4e00-\u9fff\w\s]{1,12}?(?:是|为|=)')
_COPULA_EN = re.compile(
    r"^(?!(?:i|my|i'm|we|our|he|she|they|it|the|a|an|this|that)\b)[\w\s-]{1,30}?"
    r'\b(?:is|are|=)\b',
    re.IGNORECASE,
)
# per kind: entities core and pinned at 0.85-1.0, explicit remembers and lessons core at
# 0.75-0.95, extracted kinds working at 0.55-0.80, summaries 0.50-0.70; a band bounds the
# heuristic grade of `importance.grade`
_BANDS: dict[Kind, tuple[Tier, bool, float, float]] = {
    Kind.ENTITY: (Tier.CORE, True, 0.85, 1.0),
    Kind.REMEMBER: (Tier.CORE, False, 0.75, 0.95),
    Kind.LESSON: (Tier.CORE, False, 0.75, 0.95),  # a durable rule: core, but not pinned
    Kind.PREFERENCE: (Tier.WORKING, False, 0.55, 0.8),
    Kind.FACT: (Tier.WORKING, False, 0.55, 0.8),
    Kind.PROJECT_STATE: (Tier.WORKING, False, 0.55, 0.8),
    Kind.RELATIONSHIP: (Tier.WORKING, False, 0.55, 0.8),
    Kind.PROCEDURE: (Tier.WORKING, False, 0.55, 0.8),
    Kind.SUMMARY: (Tier.WORKING, False, 0.5, 0.7),
}
EXPLICIT_IMPORTANCE = 0.85


def kind_defaults(kind: Kind) -> tuple[Tier, bool, float, float]:
    """(tier, pinned, importance low, importance high) of `kind`."""
    return _BANDS.get(kind, (Tier.PERIPHERAL, False, 0.1, 0.3))  # note: the compatibility bucket


def _candidate(
    kind: Kind,
    text: str,
    *,
    confidence: float,
    rule: str,
    explicit: bool = False,
    captured: Iterable[Captured] = (),
    key: str | None = None,
    now: datetime | None = None,
) -> Candidate:
    tier, pinned, low, high = kind_defaults(kind)
    importance = min(high, max(low, grade(text, kind).importance))
    if explicit:
        importance = max(importance, EXPLICIT_IMPORTANCE)
    caps = list(captured)
    return Candidate(
        kind=kind,
        text=text,
        tier=tier,
        importance=round(importance, 4),
        importance_label=label_for(importance),
        pinned=pinned,
        confidence=confidence,
        entity_key=key or (caps[0].entity_key if caps else None),
        explicit=explicit,
        rule=rule,
        captured=caps,
        observed_at=now,
    )


def _sentences(text: str) -> list[str]:
    text = _EN_STOP.sub('.\n', text)
    return [s.strip() for s in _SENTENCE.findall(text) if _TRIM.sub('', s)]


def _pieces(sentence: str) -> list[str]:
    """The sentence cut at commas, each piece without the conjunction or filler in front of it,
    unless that lead says the piece corrects what came before ("Actually, I prefer Beth")."""
    out: list[str] = []
    lead = ''
    for piece in split_clauses(_CLAUSE, sentence):
        if not piece or not piece.strip():
            continue
        cut = _LEAD_CONJ.sub('', piece)
        said = f'{lead}{piece.strip()}'
        if not _TRIM.sub('', cut) or LEAD_ONLY.fullmatch(piece.strip()):
            lead = f'{said}, '  # "Actually," / "No," leads the next piece
            continue
        lead = ''
        out.append(said if amends(said) and not amends(cut) else cut)
    return out


def _clauses(sentence: str) -> list[str]:
    """Split a sentence into facts at commas, merging back pieces that state nothing alone
    ("I like tea, coffee and juice") or that continue the clause before ("…，是一名医生",
    "…, they are twins", "…，这是重要原则"), and dropping requests to the assistant."""
    clauses: list[str] = []
    pieces = _pieces(sentence)
    for piece in pieces:
        piece = _TRIM.sub('', piece)
        if not piece:
            continue
        if clauses and REQUEST.match(piece):
            continue  # "…，推荐几家火锅店吧": what they asked for is not what they told us
        standalone = (
            _SUBJECT_LEAD.match(piece)
            or ZH_VERB_LEAD.match(piece)
            or LESSON.match(piece)
            or PREDICATE.search(piece)
            or deterministic_capture(piece)
        )
        joins = clauses and (not standalone or CONTINUATION.match(piece))
        if joins and not deterministic_capture(piece):
            # "I like tea, coffee and juice": the list continues the previous clause
            sep = '，' if re.search(r'[\u4e00-\u9fff]$', clauses[-1]) else ', '
            clauses[-1] = f'{clauses[-1]}{sep}{piece}'
        else:
            clauses.append(piece)
    return clauses


def _with_subject(clause: str, first_person: bool) -> str:
    """Own a subject-less clause of a first-person sentence: "幸运数字是 88" -> "我的…",
    "不喜欢猫" -> "我不喜欢猫"."""
    if not first_person or _FIRST_PERSON.search(clause):
        return clause
    if ZH_VERB_LEAD.match(clause):
        return f'我{clause}'
    if _COPULA_ZH.match(clause) and re.match(r'[\u4e00-\u9fff]', clause):
        return f'我的{clause}'
    if _COPULA_EN.match(clause):
        return f'my {clause}'
    return clause


# "别再叫我小王了，叫王总": a refused name is not the speaker's; the one given after it is
_REFUSED_ZH = re.compile(r'(?:别|不要|不用|不许)再?$')
_GIVEN_AFTER_ZH = re.compile(r'[，,]\s*(?:请|就|改)?叫(?!我)([^\s,，。！？!?、;；:：]{1,12})')


def _name_of(clause: str) -> str | None:
    for pattern in (NAME_ZH, NAME_EN):
        matches = list(pattern.finditer(clause))
        if pattern is NAME_ZH and matches:
            kept = [m for m in matches if not _REFUSED_ZH.search(clause[: m.start()])]
            given = _GIVEN_AFTER_ZH.search(clause, matches[0].end()) if not kept else None
            matches = kept or ([given] if given else [])
        if matches:
            name = re.sub(r'[了吧哦啊呀啦]+$', '', matches[0].group(1)).strip()
            if name:
                return name
    match = NAME_IM.search(clause)
    if match and not NOT_A_NAME.search(match.group(1).lower()):
        return match.group(1)
    return None


def _classify_clause(
    clause: str, *, explicit: bool, first_person: bool, now: datetime | None
) -> Candidate | None:
    """The memory a clause makes, by the first step that knows it: an entity (a captured id
    or a name), a pattern of a kind (lesson, style, relationship, diet, preference, project),
    then a plain statement (explicit, status, first-person fact, a fact of a slot)."""
    return (
        _entity(clause, explicit=explicit, now=now)
        or _by_pattern(clause, explicit=explicit, first_person=first_person, now=now)
        or _statement(clause, explicit=explicit, first_person=first_person, now=now)
    )


def _entity(clause: str, *, explicit: bool, now: datetime | None) -> Candidate | None:
    """A clause with a deterministic capture (phone, email, ids) or a name is an entity."""
    caps = deterministic_capture(clause, now)
    if caps:
        rule = f'capture:{caps[0].kind}'
        return _candidate(
            Kind.ENTITY,
            clause,
            confidence=0.95,
            rule=rule,
            explicit=explicit,
            captured=caps,
            now=now,
        )
    name = _name_of(clause)
    if name:
        return _candidate(
            Kind.ENTITY,
            clause,
            confidence=0.9,
            rule='name',
            explicit=explicit,
            key=name_key(name),
            now=now,
        )
    return None


def _by_pattern(
    clause: str, *, explicit: bool, first_person: bool, now: datetime | None
) -> Candidate | None:
    """A clause a kind's pattern recognises."""
    if LESSON.search(clause) and not explicit:
        # a correction of the assistant is a durable rule, core but not pinned
        return _candidate(Kind.LESSON, clause, confidence=0.8, rule='lesson', now=now)
    if STYLE_INSTRUCTION.match(clause) and not first_person:
        # "…，用简洁的中文": how to answer, said after a correction
        return _candidate(Kind.PREFERENCE, clause, confidence=0.7, rule='style', now=now)
    if POSSESSION.search(clause) and first_person:
        return _candidate(Kind.FACT, clause, confidence=0.75, rule='possession', now=now)
    if RELATIONSHIP.search(clause):
        return _candidate(
            Kind.RELATIONSHIP,
            clause,
            confidence=0.75,
            rule='relationship',
            explicit=explicit,
            now=now,
        )
    for pattern, kind in ((DIET_FACT, Kind.FACT), (DIET_PREFERENCE, Kind.PREFERENCE)):
        if pattern.search(clause) and first_person:
            return _candidate(kind, clause, confidence=0.75, rule='diet', now=now)
    rules = (
        (PREFERENCE, Kind.PREFERENCE, 0.75, 'preference'),
        (PROJECT, Kind.PROJECT_STATE, 0.65, 'project_state'),
    )
    for pattern, kind, confidence, rule in rules:
        if pattern.search(clause):
            return _candidate(
                kind, clause, confidence=confidence, rule=rule, explicit=explicit, now=now
            )
    return None


def _statement(
    clause: str, *, explicit: bool, first_person: bool, now: datetime | None
) -> Candidate | None:
    """A plain statement: kept when asked to, when it tells a project's status, a first-person
    fact or a fact of a slot; a salient first-person clause otherwise falls back to a fact."""
    if explicit:
        # an explicit "remember" of a plain statement is the `remember` kind
        return _candidate(
            Kind.REMEMBER, clause, confidence=0.9, rule='remember', explicit=True, now=now
        )
    if PROJECT_STATUS.search(clause):
        return _candidate(Kind.PROJECT_STATE, clause, confidence=0.65, rule='status', now=now)
    if first_person and (FACT_ZH.search(clause) or FACT_EN.search(clause)):
        return _candidate(Kind.FACT, clause, confidence=0.7, rule='fact', now=now)
    # "把小王换成王总": an explicit correction names no slot, supersession finds the one it fixes
    stated = facts_of(clause) or correction_facts(clause)
    if stated:
        # "I no longer like bullet points", "我跳槽到阿里巴巴了", "I worked at Acme in 2023"
        kind = SLOT_KINDS.get(stated[0].slot.split(':')[0], Kind.FACT)
        return _candidate(kind, clause, confidence=0.75, rule=f'fact:{stated[0].slot}', now=now)
    if first_person:
        # salient but shapeless: kept only if nothing better came out of the sentence
        return _candidate(Kind.FACT, clause, confidence=0.5, rule='fallback', now=now)
    return None


def _lesson_clauses(clauses: list[str]) -> list[str]:
    """In a correction, what follows the rule stays with it ("Don't suggest Windows, I'm on
    Linux"), except a positive style instruction ("回答不要用表格，用简洁的中文")."""
    out: list[str] = []
    in_lesson = False
    for clause in clauses:
        lesson = LESSON.search(clause) and not REPROACH.match(clause)
        lesson = lesson and not ANAPHORIC_LESSON.match(clause)
        if in_lesson and not STYLE_INSTRUCTION.match(clause) and not lesson:
            sep = '，' if re.search(r'[\u4e00-\u9fff]$', out[-1]) else ', '
            out[-1] = f'{out[-1]}{sep}{clause}'
            continue
        in_lesson = bool(LESSON.search(clause))
        out.append(clause)
    return out


def _sentences_of(text: str) -> list[str]:
    """Sentences, with an anaphoric correction ("don't do that", "不要这样") joined to the
    sentence it points at, and a correction told across a semicolon ("Stop using pounds;
    kilograms please") or a full stop ("Stop using miles. Kilometers please.") kept whole."""
    out: list[str] = []
    for sentence in _sentences(text):
        body = _TRIM.sub('', sentence)
        if out and _completes(out[-1], body) == 'stop':
            # the user's own words: "Stop using miles. Kilometers please"
            out[-1] = f'{out[-1].rstrip()}{"" if re.search(r"。$", out[-1]) else " "}{body}'
        elif out and (ANAPHORIC_LESSON.match(body) or _completes(out[-1], body)):
            out[-1] = f'{_TRIM.sub("", out[-1])}; {body}'
        else:
            out.append(sentence)
    return out


def _completes(before: str, body: str) -> str | None:
    """How `body` gives the new value of the slot the sentence `before` negates or retracts,
    one correction, so one memory: after a semicolon ('semicolon'), or after a full stop
    ('stop') when `before` only refuses a choice (a unit, the answers' language or format) and
    names no value of its own; None when it does not."""
    if re.search(r'[;；]\s*$', before):
        joint = 'semicolon'
    elif re.search(r'[.。!！]\s*$', before) and _refuses_only(before):
        joint = 'stop'
    else:
        return None
    return joint if len(joined_corrections([_TRIM.sub('', before), body])) == 1 else None


def _refuses_only(sentence: str) -> bool:
    """Whether `sentence` refuses a chosen value and states nothing else ("Stop using miles.",
    "别用英里了。"): it waits for the value the next sentence gives."""
    facts = facts_of(sentence)
    return bool(facts) and all(not f.positive and f.slot in CHOSEN_SLOTS for f in facts)


def _analyse(text: str, now: datetime | None) -> tuple[list[Candidate], list[Skipped]]:
    candidates: list[Candidate] = []
    skipped: list[Skipped] = []
    if _SUMMARY.match(text):
        body = _TRIM.sub('', _SUMMARY.sub('', text, count=1))
        if body:
            candidates.append(
                _candidate(Kind.SUMMARY, body, confidence=0.8, rule='summary', now=now)
            )
        return candidates, skipped
    for sentence in _sentences_of(text):
        if is_question(sentence):
            statement = _before_question(sentence)
            if statement is None:
                skipped.append(Skipped(text=sentence, reason=SkipReason.QUESTION))
                continue
            sentence = statement
        gate = salience(sentence)
        if not gate.passes:
            skipped.append(
                Skipped(text=sentence, reason=SkipReason.NOT_SALIENT, detail=gate.reason)
            )
            continue
        explicit = bool(EXPLICIT.match(sentence) or EXPLICIT_ANYWHERE.search(sentence))
        body = _TRIM.sub('', EXPLICIT.sub('', sentence, count=1))
        if not body:
            skipped.append(Skipped(text=sentence, reason=SkipReason.EMPTY))
            continue
        first_person = bool(_FIRST_PERSON.search(body)) or explicit
        if PROCEDURE.search(body) and not (LESSON.match(body) and not explicit):
            candidates.append(
                _candidate(
                    Kind.PROCEDURE,
                    body,
                    confidence=0.7,
                    rule='procedure',
                    explicit=explicit,
                    now=now,
                )
            )
            continue
        for clause in joined_corrections(joined_changes(_lesson_clauses(_clauses(body)))):
            clause = _with_subject(clause, first_person)
            candidate = _classify_clause(
                clause, explicit=explicit, first_person=first_person, now=now
            )
            if candidate is None:
                skipped.append(
                    Skipped(text=clause, reason=SkipReason.NOT_SALIENT, detail='unclassified')
                )
            else:
                candidates.append(candidate)
    return candidates, skipped


def _before_question(sentence: str) -> str | None:
    """The statement in front of a question ("I moved to Amsterdam, can you recommend …?"),
    or None when the whole sentence asks."""
    parts = re.split(r'\s*[,，]\s*', sentence)
    for cut in range(len(parts) - 1, 0, -1):
        head, tail = '，'.join(parts[:cut]), '，'.join(parts[cut:])
        if is_question(tail) and not is_question(head) and salience(head).passes:
            return head
    return None


def _select(candidates: list[Candidate]) -> tuple[list[Candidate], list[Skipped]]:
    kept: list[Candidate] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    distilled = 0
    for c in candidates:
        keys = {f'text:{normalize_text(c.text)}'} | ({c.entity_key} if c.entity_key else set())
        if keys & seen:
            skipped.append(Skipped(text=c.text, reason=SkipReason.DUPLICATE, detail=c.rule))
            continue
        if c.confidence < MIN_CONFIDENCE:
            skipped.append(Skipped(text=c.text, reason=SkipReason.LOW_CONFIDENCE, detail=c.rule))
            continue
        # deterministic capture (phone, email, ids) is kept whatever the per-turn cap
        if not c.captured:
            if distilled >= MAX_ITEMS_PER_TURN:
                skipped.append(Skipped(text=c.text, reason=SkipReason.OVER_LIMIT, detail=c.rule))
                continue
            distilled += 1
        seen |= keys
        kept.append(c)
    return kept, skipped


def classify(text: str, now: datetime | None = None) -> list[Candidate]:
    """Candidates from the salient, non-question sentences of `text`, one per fact."""
    candidates, _ = _analyse(strip_recall_blocks(text), now)
    kept, _ = _select(candidates)
    return kept


def capture(
    text: str,
    role: str | None = 'user',
    channel: str | None = None,
    source: str | None = None,
    now: datetime | None = None,
) -> CaptureDecision:
    """Everything capture decides about one turn: candidates to store and skips with reasons.

    An injected recall block ("## Relevant Memory (current turn only)" …) is cut out first:
    recall is never persisted, and what the user wrote around it still counts."""
    if not text or not text.strip():
        return CaptureDecision(
            reason=SkipReason.EMPTY, skipped=[Skipped(text=text or '', reason=SkipReason.EMPTY)]
        )

    def whole(reason: SkipReason, detail: str | None = None) -> CaptureDecision:
        return CaptureDecision(
            reason=reason, skipped=[Skipped(text=text, reason=reason, detail=detail)]
        )

    if is_system_channel(channel):
        return whole(SkipReason.SYSTEM_CHANNEL, channel)
    who = (role or 'user').strip().lower()
    if who == 'system':
        return whole(SkipReason.INJECTED, 'role:system')
    if who != 'user':
        # assistant and tool turns are not what the user told us: only user text is kept
        return whole(SkipReason.NOT_USER, f'role:{who}')
    own = strip_recall_blocks(text)
    if not own:
        return whole(SkipReason.INJECTED, 'recall_block')
    injected = injection_reason(own, source)
    if injected is not None:
        return whole(SkipReason.INJECTED, injected)
    own, masked = mask_turn(own)  # the secret spans go, the rest of the turn stays
    if not own:
        return whole(SkipReason.SECRET, masked[0])
    candidates, skipped = _analyse(own, now)
    # a clause that held the secret ("my password is [redacted:password]") is worth nothing
    kept, dropped = _select([c for c in candidates if '[redacted:' not in c.text])
    skipped += dropped + [Skipped(text=m, reason=SkipReason.SECRET, detail=m) for m in masked]
    captured = deterministic_capture(own, now)
    reason: SkipReason | None = None
    if not kept:
        reasons = [s.reason for s in skipped]
        order = (SkipReason.QUESTION, SkipReason.LOW_CONFIDENCE, SkipReason.SECRET)
        reason = next((r for r in order if r in reasons), SkipReason.NOT_SALIENT)
    return CaptureDecision(candidates=kept, skipped=skipped, reason=reason, captured=captured)
