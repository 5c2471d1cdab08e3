"""Capture: decide what of a conversation turn becomes memory, without an LLM (seeds 000, 001).

Order per turn: empty -> system channel -> role -> injected prompt (source tag, fingerprints) ->
secret (keys, passwords, card numbers: seed 004) -> per sentence: question -> salience gate ->
classification into seed 001's kinds, one candidate per fact ("我叫东升, 幸运数字是 88" gives an
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

from recall.normalize import (
    name_key,
    normalize_text,
)
from recall.tiers import ImportanceLabel, Kind, Tier
from recall.write.deterministic import Captured, deterministic_capture
from recall.write.guards import injection_reason, is_system_channel, secret_kind
from recall.write.importance import grade, label_for

MIN_CONFIDENCE = 0.55
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


# ---- salience and questions ------------------------------------------------------------------

_SALIENT_EN = re.compile(
    r"\bmy name\b|\bcall me\b|\bi(?:'m| am) called\b|\bi(?:'d)? prefer\b|"
    r'\bi (?:really |also |still |do )?(?:like|love|enjoy|hate|dislike|prefer)\b|'
    r"\bi (?:don't|do not|never) (?:like|want|use|eat|drink|work)\b|"
    r"\bremember (?:that|this|:)|\bplease remember\b|^\s*remember\b|\bdon't forget\b|"
    r'\bnote that\b|\bkeep in mind\b|\bmy (?:[\w-]+ ){0,2}(?:is|are|was|were)\b|'
    r'\bmy (?:wife|husband|partner|girlfriend|boyfriend|son|daughter|kids?|children|mother|mom|'
    r'mum|father|dad|brother|sister|colleague|coworker|boss|manager|friend|birthday|phone|'
    r'email|address|favou?rite|team|company|project)\b|'
    r'\bi (?:live|lived|work|worked|moved|was born|grew up|studied)\b|'
    r"\bi(?:'m| am) (?:from|based in|allergic|vegetarian|vegan)\b|"
    r"\bi(?:'m| am) (?:a|an) (?!bit\b|little\b|lot\b)\w+|"
    r'\bfrom now on\b|\b(?:always|never|please) (?:use|reply|answer|respond|write|call|run)\b|'
    r'\bwe (?:use|decided|agreed|deploy|release|switched)\b|\bour (?:project|repo|team|release)\b|'
    r'\bi (?:switched|moved) to\b',
    re.IGNORECASE,
)
_SALIENT_ZH = re.compile(
    r'记住|记一下|记下来|帮我记|别忘了|不要忘|我叫|叫我|我是(?!说|不是|在问|想问)|'
    r'我的(?!天|妈呀|哥呀)|我(?:很|最|比较|特别|更|也|还|一直|不)?(?:喜欢|讨厌|偏好|偏爱|习惯)|'
    r'我爱(?!你)|我家|我住|我妻子|我老婆|我老公|我丈夫|我女朋友|我男朋友|我儿子|我女儿|'
    r'我爸|我妈|我父亲|我母亲|我生日|我出生|我在.{1,12}(?:工作|上班|上学|读书)|我来自|'
    r'我有(?!点|些|一点|个问题|问题|事|空)|我不(?:吃|喝|用)|以后(?:都|请)?(?:用|回答|回复|叫)|回答不要|回复不要|不要用|别用|'
    r'我们(?:的项目|决定|用|改用|上线)|我已经(?:搬|换|改)|我搬到|我换成|我改用'
)
_EXPLICIT = re.compile(
    r'^\s*(?:please\s+)?(?:remember|note)(?:\s+that)?\s*[:：,，]?\s*|'
    r'^\s*(?:请|帮我)?(?:记住|记一下|记下来|别忘了|不要忘了?)\s*[:：,，]?\s*',
    re.IGNORECASE,
)
_EXPLICIT_ANYWHERE = re.compile(r'\bremember that\b|\bdon\'t forget\b|记住|别忘了', re.I)
_Q_MARK = re.compile(r'[?？]\s*[\W_]*$')
_Q_ZH = re.compile(
    r'(?:吗|呢|么|嘛)\s*[\W_]*$|什么|啥|哪|谁|多少|几(?:个|点|号|岁|月|天|年|次|位)|怎么|为什么|'
    r'是不是|有没有|能不能|可不可以|对不对'
)
_Q_EN = re.compile(
    r"^\s*(?:what|what's|whats|who|who's|whom|whose|where|where's|when|why|how|which|do|does|"
    r'did|is|are|am|was|were|can|could|would|will|should|shall|may|might|have|has)\b',
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """True for questions: a final ?/？, a Chinese interrogative or an English question opener."""
    if _Q_MARK.search(text):
        return True
    body = _EXPLICIT.sub('', text, count=1)
    if body != text:
        return False  # "remember that …" is an instruction, whatever words follow
    return bool(_Q_ZH.search(text) or _Q_EN.search(text))


def salience(text: str) -> SalienceCheck:
    """Whether `text` passes the first-person salience gate (EN + ZH), and why."""
    if not text or not text.strip():
        return SalienceCheck(passes=False, reason='empty')
    if is_question(text):
        return SalienceCheck(passes=False, reason='question')
    captured = deterministic_capture(text)
    if captured:
        return SalienceCheck(passes=True, reason=f'capture:{captured[0].kind}')
    for pattern in (_SALIENT_ZH, _SALIENT_EN, _PROCEDURE):
        match = pattern.search(text)
        if match:
            return SalienceCheck(passes=True, reason=f'marker:{match.group(0).strip().lower()}')
    return SalienceCheck(passes=False, reason='no_marker')


# ---- classification --------------------------------------------------------------------------

_SENTENCE = re.compile(r'[^。！？!?；;\n]+[。！？!?；;]*')
_EN_STOP = re.compile(r'(?<=[a-z0-9)"\'])\.\s+(?=[A-Z\u4e00-\u9fff])')
_CLAUSE = re.compile(r'\s*[,，、]\s*|\s+(?:and|but|also)\s+(?=(?:my|i|i\'m|our)\b)', re.I)
_LEAD_CONJ = re.compile(
    r'^(?:and|but|also|plus|还有|另外|而且|并且|然后|以及|同时)\s*[,，]?\s*', re.I
)
_TRIM = re.compile(r'^[\s,，;；、:：]+|[\s,，;；、:：。.!！~～]+$')
_SUMMARY = re.compile(r'^\s*(?:summary|tl;dr|session summary|摘要|总结|小结)\s*[:：]', re.I)
_PROCEDURE = re.compile(
    r'先.+(?:再|然后|之后).+|步骤|流程|以后遇到.+就|遇到.+(?:先|就)|每次.+(?:都要|先|就)|'
    r'\bfirst\b.+\bthen\b|\bstep \d|\bwhenever\b|\bevery time\b.+|\bto (?:deploy|release|'
    r'restart|publish|roll back|rollback)\b.*\b(?:run|use|do)\b|\bbefore (?:deploying|merging|'
    r'releasing|pushing|committing)\b',
    re.IGNORECASE,
)
_NAME_ZH = re.compile(
    r'(?:我叫|叫我|我的名字(?:是|叫)|我名字(?:是|叫))\s*([^\s,，。！？!?、;；:：]{1,12})'
)
_NAME_EN = re.compile(
    r"\b(?:my name is|my name's|call me|i'm called|i am called)\s+"
    r"([A-Z\u00c0-\u024f][\w'-]*(?:\s+[A-Z\u00c0-\u024f][\w'-]*){0,2}|[\u4e00-\u9fff]{1,6})",
    re.IGNORECASE,
)
_RELATIONSHIP = re.compile(
    r'我的?(?:妻子|老婆|老公|丈夫|爱人|女朋友|男朋友|儿子|女儿|孩子|爸爸|妈妈|父亲|母亲|哥哥|姐姐|'
    r'弟弟|妹妹|同事|老板|上司|领导|朋友|室友|搭档|经理)|'
    r'\bmy (?:wife|husband|partner|girlfriend|boyfriend|son|daughter|kids?|children|mother|mom|'
    r'mum|father|dad|brother|sister|colleague|coworker|co-worker|boss|manager|friend|roommate|'
    r'teammate)\b|\b(?:reports to|works with|is married to|is my (?:wife|husband|boss|manager|'
    r'friend|colleague|brother|sister|son|daughter|partner))\b',
    re.IGNORECASE,
)
_PREFERENCE = re.compile(
    r'我(?:很|最|比较|特别|更|也|还|一直|不太|不)?(?:喜欢|爱|讨厌|偏好|偏爱|习惯|想要)|我不(?:吃|喝|用|要)|'
    r'(?:回答|回复|代码|输出|文档)(?:请|要|不要|别|用)|不要用|别用|以后(?:都|请)?(?:用|回答|回复)|'
    r"\bi (?:really |also |still |do |don't |do not |never )?(?:prefer|like|love|enjoy|hate|"
    r'dislike|want)\b|\bmy favou?rite\b|\b(?:always|never|please) (?:use|reply|answer|respond|'
    r"write)\b|\bfrom now on\b|\bdon't use\b|\bi'd prefer\b|\bi (?:switched|moved) to\b",
    re.IGNORECASE,
)
_PROJECT = re.compile(
    r'项目|仓库|版本|上线|发布|进度|阻塞|里程碑|截止|排期|需求|迭代|'
    r'\b(?:project|repo|repository|release|milestone|sprint|deadline|blocked|blocker|shipped|'
    r'launch|roadmap|migration|we decided|decided to|in progress|merged|deployed)\b',
    re.IGNORECASE,
)
_PREDICATE = re.compile(
    r'是|叫|住|喜欢|爱|讨厌|生日|出生|有|在.{0,10}(?:工作|上班)|用|来自|='
    r'|\b(?:is|are|was|were|am|live|lives|work|works|prefer|prefers|like|likes|love|loves|hate|'
    r"use|uses|born|call|have|has|own)\b|'s\b|'m\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"我|\b(?:i|i'm|i've|i'd|my|mine|me|we|our)\b", re.IGNORECASE)
_COPULA_ZH = re.compile(r'^[\u4e00-\u9fff\w\s]{1,12}?(?:是|为|=)')
_COPULA_EN = re.compile(
    r"^(?!(?:i|my|i'm|we|our|he|she|they|it|the|a|an|this|that)\b)[\w\s-]{1,30}?"
    r'\b(?:is|are|=)\b',
    re.IGNORECASE,
)
_FACT_ZH = re.compile(r'是|有|在|住|来自|出生|毕业|工作|养了|开')
_FACT_EN = re.compile(
    r"\b(?:is|are|was|were|am|have|has|own|live|lives|work|works|from|born|studied)\b|'s\b|'m\b",
    re.IGNORECASE,
)

# Seed 001: entity core+pinned 0.85-1.0; explicit remember 0.75-0.95; extracted kinds
# 0.55-0.80 in working; summary 0.50-0.70. Bands bound the heuristic grade of policy.grade.
_BANDS: dict[Kind, tuple[Tier, bool, float, float]] = {
    Kind.ENTITY: (Tier.CORE, True, 0.85, 1.0),
    Kind.REMEMBER: (Tier.CORE, False, 0.75, 0.95),
    Kind.PREFERENCE: (Tier.WORKING, False, 0.55, 0.8),
    Kind.FACT: (Tier.WORKING, False, 0.55, 0.8),
    Kind.PROJECT_STATE: (Tier.WORKING, False, 0.55, 0.8),
    Kind.RELATIONSHIP: (Tier.WORKING, False, 0.55, 0.8),
    Kind.PROCEDURE: (Tier.WORKING, False, 0.55, 0.8),
    Kind.SUMMARY: (Tier.WORKING, False, 0.5, 0.7),
}
EXPLICIT_IMPORTANCE = 0.85


def kind_defaults(kind: Kind) -> tuple[Tier, bool, float, float]:
    """(tier, pinned, importance low, importance high) of `kind` per seed 001."""
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


def _clauses(sentence: str) -> list[str]:
    """Split a sentence into facts at commas, merging back pieces that state nothing alone."""
    pieces = [_LEAD_CONJ.sub('', p) for p in _CLAUSE.split(sentence) if p and p.strip()]
    clauses: list[str] = []
    for piece in pieces:
        piece = _TRIM.sub('', piece)
        if not piece:
            continue
        standalone = _PREDICATE.search(piece) or deterministic_capture(piece)
        if clauses and not standalone:
            # "I like tea, coffee and juice": the list continues the previous clause
            sep = '，' if re.search(r'[\u4e00-\u9fff]$', clauses[-1]) else ', '
            clauses[-1] = f'{clauses[-1]}{sep}{piece}'
        else:
            clauses.append(piece)
    return clauses


def _with_subject(clause: str, first_person: bool) -> str:
    """Own a subject-less clause of a first-person sentence: "幸运数字是 88" -> "我的…"."""
    if not first_person or _FIRST_PERSON.search(clause):
        return clause
    if _COPULA_ZH.match(clause) and re.match(r'[\u4e00-\u9fff]', clause):
        return f'我的{clause}'
    if _COPULA_EN.match(clause):
        return f'my {clause}'
    return clause


def _classify_clause(
    clause: str, *, explicit: bool, first_person: bool, now: datetime | None
) -> Candidate | None:
    caps = deterministic_capture(clause, now)
    if caps:
        return _candidate(
            Kind.ENTITY,
            clause,
            confidence=0.95,
            rule=f'capture:{caps[0].kind}',
            explicit=explicit,
            captured=caps,
            now=now,
        )
    for pattern in (_NAME_ZH, _NAME_EN):
        match = pattern.search(clause)
        if match:
            name = re.sub(r'[了吧哦啊呀啦]+$', '', match.group(1)).strip()
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
    rules = (
        (_RELATIONSHIP, Kind.RELATIONSHIP, 0.75, 'relationship'),
        (_PREFERENCE, Kind.PREFERENCE, 0.75, 'preference'),
        (_PROJECT, Kind.PROJECT_STATE, 0.65, 'project_state'),
    )
    for pattern, kind, confidence, rule in rules:
        if pattern.search(clause):
            return _candidate(
                kind, clause, confidence=confidence, rule=rule, explicit=explicit, now=now
            )
    if explicit:
        # an explicit "remember" of a plain statement is seed 001's `remember` kind
        return _candidate(
            Kind.REMEMBER, clause, confidence=0.9, rule='remember', explicit=True, now=now
        )
    if first_person and (_FACT_ZH.search(clause) or _FACT_EN.search(clause)):
        return _candidate(
            Kind.FACT, clause, confidence=0.7, rule='fact', explicit=explicit, now=now
        )
    if first_person:
        # salient but shapeless: kept only if nothing better came out of the sentence
        return _candidate(Kind.FACT, clause, confidence=0.5, rule='fallback', now=now)
    return None


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
    for sentence in _sentences(text):
        if is_question(sentence):
            skipped.append(Skipped(text=sentence, reason=SkipReason.QUESTION))
            continue
        gate = salience(sentence)
        if not gate.passes:
            skipped.append(
                Skipped(text=sentence, reason=SkipReason.NOT_SALIENT, detail=gate.reason)
            )
            continue
        explicit = bool(_EXPLICIT.match(sentence) or _EXPLICIT_ANYWHERE.search(sentence))
        body = _TRIM.sub('', _EXPLICIT.sub('', sentence, count=1))
        if not body:
            skipped.append(Skipped(text=sentence, reason=SkipReason.EMPTY))
            continue
        first_person = bool(_FIRST_PERSON.search(body)) or explicit
        if _PROCEDURE.search(body):
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
        for clause in _clauses(body):
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


def _select(candidates: list[Candidate]) -> tuple[list[Candidate], list[Skipped]]:
    kept: list[Candidate] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for c in candidates:
        keys = {f'text:{normalize_text(c.text)}'} | ({c.entity_key} if c.entity_key else set())
        if keys & seen:
            skipped.append(Skipped(text=c.text, reason=SkipReason.DUPLICATE, detail=c.rule))
            continue
        if c.confidence < MIN_CONFIDENCE:
            skipped.append(Skipped(text=c.text, reason=SkipReason.LOW_CONFIDENCE, detail=c.rule))
            continue
        if len(kept) >= MAX_ITEMS_PER_TURN:
            skipped.append(Skipped(text=c.text, reason=SkipReason.OVER_LIMIT, detail=c.rule))
            continue
        seen |= keys
        kept.append(c)
    return kept, skipped


def classify(text: str, now: datetime | None = None) -> list[Candidate]:
    """Candidates from the salient, non-question sentences of `text`, one per fact."""
    candidates, _ = _analyse(text, now)
    kept, _ = _select(candidates)
    return kept


def capture(
    text: str,
    role: str | None = 'user',
    channel: str | None = None,
    source: str | None = None,
    now: datetime | None = None,
) -> CaptureDecision:
    """Everything capture decides about one turn: candidates to store and skips with reasons."""
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
        # assistant and tool turns are not what the user told us (seed 004: prefer user text)
        return whole(SkipReason.NOT_USER, f'role:{who}')
    injected = injection_reason(text, source)
    if injected is not None:
        return whole(SkipReason.INJECTED, injected)
    secret = secret_kind(text)
    if secret is not None:
        return whole(SkipReason.SECRET, secret)
    candidates, skipped = _analyse(text, now)
    kept, dropped = _select(candidates)
    skipped += dropped
    captured = deterministic_capture(text, now)
    reason: SkipReason | None = None
    if not kept:
        reasons = [s.reason for s in skipped]
        reason = next(
            (r for r in (SkipReason.QUESTION, SkipReason.LOW_CONFIDENCE) if r in reasons),
            SkipReason.NOT_SALIENT,
        )
    return CaptureDecision(candidates=kept, skipped=skipped, reason=reason, captured=captured)
