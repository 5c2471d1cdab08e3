"""Chinese extraction: entities from jieba's part-of-speech tags (nr person, ns place, nt org) and
facts from clause patterns, in the English extractor's predicate vocabulary, so that a user's
facts in either language meet in one graph ("我在阿里巴巴工作" and "I work at Alibaba" are both
`works_at`). "我" is the speaker; a clause without a subject borrows the one before it in its
sentence; dates come from the clause that holds them (kg.dates reads Chinese dates too).

jieba is a pure-Python package with its dictionary inside (no model download); it loads lazily,
once per process (about a second).
"""

from __future__ import annotations

import re
import threading
from datetime import datetime
from typing import Any

from core.lazy_re import lazy_compile
from kg.dates import resolve_date
from kg.extraction.lexicon import (
    FACT_CHARS,
    HOUSEHOLD_PREDICATES,
    KNOWN_TOOLS,
    PREDICATE_TYPES,
    clean_name,
)
from kg.extraction.places import is_place
from kg.models import (
    NAMED,
    EntityMention,
    EntityType,
    Extraction,
    RelationMention,
    SourceText,
)

_CJK = lazy_compile(r'[\u4e00-\u9fff]')
_SENTENCES = lazy_compile(r'[^。！？!?；;\n]+')
_CLAUSES = lazy_compile(r'[，,、]')

# kin and work relations said from the speaker's side: "我妹妹张敏" -> 张敏 sibling_of 我
KIN = {
    **dict.fromkeys(('妻子', '老婆', '丈夫', '老公', '爱人', '太太', '先生'), 'married_to'),
    **dict.fromkeys(('女朋友', '男朋友', '对象', '未婚妻', '未婚夫'), 'dating'),
    **dict.fromkeys(('儿子', '女儿', '孩子'), 'child_of'),
    **dict.fromkeys(('爸爸', '妈妈', '父亲', '母亲', '爸', '妈'), 'parent_of'),
    **dict.fromkeys(('哥哥', '姐姐', '弟弟', '妹妹'), 'sibling_of'),
    **dict.fromkeys(('老板', '上司', '领导', '主管', '经理'), 'manages'),
    **dict.fromkeys(('同事',), 'colleague_of'),
    **dict.fromkeys(('朋友', '好朋友'), 'friend_of'),
}
_KIN_ALT = '|'.join(sorted(KIN, key=len, reverse=True))
_KIN_NAMED = lazy_compile(
    rf'^我的?({_KIN_ALT})(叫|是|名叫)([\u4e00-\u9fff]{{2,4}}?)(?=$|[，,是在也])'
)
_KIN_LEAD = lazy_compile(rf'^我的?({_KIN_ALT})(?!的)')
_KIN_OF = lazy_compile(rf'^是([\u4e00-\u9fff]{{1,4}}?)的({_KIN_ALT})$')
_NAMED = lazy_compile(r'^(叫|名叫|名字是|名字叫|是)([\u4e00-\u9fff]{2,4})$')
# words between a subject and its verb that say when or how, not what
_FILLER = lazy_compile(
    r'^(?:\d{4}\s*年(?:\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?)?|去年|今年|前年|上个?月|这个?月|'
    r'下个?月|上周|昨天|今天|现在|目前|已经|终于|刚刚?|也|还|都|一直|平时|后来|最近|又|就|才|从小|'
    r'本来|原来|曾经|以前|之前)+'
)
_OBJECT_END = lazy_compile(r'(?:了|的|呢|啊|吧|呀|啦|哦|嘛|\s)+$')
_JOINED = '入职了?|加入了?|跳槽到了?|跳槽去了?|就职于|任职于|供职于|去了'
_STUDY = '读书|上学|读研究生|读研|读博|念书|上大学|读大学|求学'
_MOVED = '搬到了?|搬去了?|搬回了?|迁居到?|定居在?|定居于'
_USED = '用|使用|改用|换成了?|换用|转用|转到了?|切换到了?'
# ASCII only: \w would run on into the Chinese that follows ("用Python写代码")
_LATIN_NAME = r'[A-Za-z][A-Za-z0-9_.+#-]*(?: [A-Z][A-Za-z0-9_.+#-]*)?'
_COUNTER = '一辆|一台|一套|一部|一只|辆|台|套|部'
# (pattern over the clause after its subject, predicate, object group)
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (lazy_compile(p), pred)
    for p, pred in (
        (r'^在(?P<o>.{1,14}?)(?:工作|上班|任职|实习|打工|担任|当|做)', 'works_at'),
        (rf'^(?:从.{{1,12}}?)?(?:{_JOINED})(?P<o>.{{1,14}})$', 'works_at'),
        (r'^(?:被)?(?P<o>.{1,12}?)(?:录用|聘用)', 'works_at'),
        (rf'^在(?P<o>.{{1,14}}?)(?:{_STUDY})', 'studies_at'),
        (r'^在(?P<o>.{1,14}?)长大', 'grew_up_in'),
        (r'^在(?P<o>.{1,14}?)(?:生活|定居|居住)', 'lives_in'),
        (r'^在(?P<o>.{1,14}?)出生', 'born_in'),
        (r'^(?:出生在|出生于|生于)(?P<o>.{1,14})$', 'born_in'),
        (rf'^(?:从.{{1,12}}?)?(?:{_MOVED})(?P<o>.{{1,14}})$', 'lives_in'),
        (r'^(?:住在|住|家住|家在)(?P<o>[^的]{1,14})$', 'lives_in'),
        (r'^(?:来自|老家在|老家是)(?P<o>.{1,14})$', 'from'),
        (r'^(?:毕业于)(?P<o>.{1,14})$', 'graduated_from'),
        (r'^从(?P<o>.{1,14}?)毕业', 'graduated_from'),
        (r'^(?:娶了|嫁给了?)(?P<o>.{1,8})$', 'married_to'),
        (r'^和(?P<o>.{1,8}?)结婚', 'married_to'),
        (r'^向(?P<o>.{1,8}?)汇报', 'reports_to'),
        (r'^(?:很|最|也|特别|比较)?不喜欢(?:打|玩|吃|喝|看|听)?(?P<o>.{1,10})$', 'dislikes'),
        (r'^讨厌(?:打|玩|吃|喝|看|听)?(?P<o>.{1,10})$', 'dislikes'),
        (r'^(?:很|最|也|特别|比较)?(?:喜欢|爱)(?:打|玩|吃|喝|看|听)?(?P<o>.{1,10})$', 'likes'),
        (rf'^(?:从\s*{_LATIN_NAME}\s*)?(?:习惯|喜欢|一直|现在)?(?:{_USED})\s*(?P<o>{_LATIN_NAME})',
         'uses'),
        (rf'^(?:开(?:着|的是)?(?:{_COUNTER})|(?:买了|入手了)(?:{_COUNTER})?)(?:.{{0,6}}的)?'
         r'(?P<o>.{1,10})$', 'owns'),
        (r'^(?:是|担任|转行当了?|当了|成为了?|成了|(?:工作|职业|职位)是)(?:一名|一个|一位|个|名|位)?'
         r'(?P<o>[\u4e00-\u9fff]{2,8})$', 'role'),
    )
)  # fmt: skip
# the speaker together with their household ("我们搬到了上海", "我和老婆住在成都"): like English
# "we", it states the speaker's home and nothing else of theirs; 我们全家/我们家 is the speaker
_HOUSEHOLD = lazy_compile(
    r'^(?:我们|咱们|我(?:和|跟)(?:老婆|老公|妻子|丈夫|爱人|太太|先生|家人|孩子|女朋友|男朋友))'
    r'(?:俩|两个人?|一起)*'
)
_FAMILY = lazy_compile(r'^我们(?:全家|一家人?|家)')
_NOT_OBJECT = lazy_compile(r'[我你他她它们这那哪什么谁吗呢]|^\d+$|^的|离|去上班|去公司')
_ORG_SUFFIX = lazy_compile(r'(?:公司|集团|大学|学院|银行|医院|研究所|实验室|中学|小学|科技|网络)$')
_TAG_TYPES = {
    'nr': EntityType.PERSON,
    'nrfg': EntityType.PERSON,
    'nrt': EntityType.PERSON,
    'ns': EntityType.PLACE,
    'nt': EntityType.ORG,
}


def is_chinese(text: str) -> bool:
    """True when Han characters make up at least a fifth of the letters of `text`."""
    han = len(_CJK.findall(text))
    if not han:
        return False
    letters = sum(1 for c in text if c.isalpha())
    return han >= 0.2 * max(1, letters)


class ZhReader:
    """Reads Chinese texts into Extractions (thread-safe; jieba is loaded on first use)."""

    def __init__(self) -> None:
        self._posseg: Any = None
        self._lock = threading.Lock()

    def _tagger(self) -> Any:
        with self._lock:
            if self._posseg is None:
                import logging

                import jieba
                import jieba.posseg

                jieba.setLogLevel(logging.WARNING)
                self._posseg = jieba.posseg
            return self._posseg

    def tags(self, text: str) -> list[tuple[str, str]]:
        """(word, POS flag) pairs of `text`."""
        return [(p.word, p.flag) for p in self._tagger().cut(text)]

    def read(self, item: SourceText) -> Extraction:
        """Entities and facts of one Chinese text."""
        return _Reading(self, item).run()


class _Reading:
    def __init__(self, reader: ZhReader, item: SourceText) -> None:
        self.reader = reader
        self.item = item
        self.speaker = clean_name(item.speaker) if item.speaker else None
        self.entities: dict[str, EntityMention] = {}
        self.relations: list[RelationMention] = []
        self.seen: set[tuple[str, str, str]] = set()
        self.places: set[str] = set()

    def run(self) -> Extraction:
        text = self.item.text
        if self.speaker:
            # a chat log's "张伟: 我在阿里巴巴工作" is 张伟 speaking: with the name left in, every
            # first clause would begin with it and lose its first-person facts
            said = re.match(rf'\s*{re.escape(self.speaker)}\s*[:：]\s*', text)
            text = text[said.end() :] if said else text
        words = self.reader.tags(text)
        for word, flag in words:
            etype = _TAG_TYPES.get(flag)
            name = word.strip()
            if etype == EntityType.PLACE and not is_place(name):
                etype = EntityType.OTHER  # jieba's `ns` on a company name (京东)
            if etype is not None and len(name) >= 2 and not _NOT_OBJECT.search(name):
                self._entity(name, etype)
        persons = {w for w, f in words if f in ('nr', 'nrfg', 'nrt') and len(w) >= 2}
        self.places = {w for w, f in words if f == 'ns' and is_place(w)}
        if self.speaker and re.search(r'我(?!们)|我们(?:全家|一家|家)', text):
            self._entity(self.speaker, EntityType.PERSON, speaker=True)
        for sentence in _SENTENCES.findall(text):
            when = resolve_date(sentence, self.item.at) or self.item.at
            subject: str | None = None
            for clause in _CLAUSES.split(sentence):
                clause = clause.strip()
                if clause:
                    subject = self._clause(clause, subject, persons, when, sentence)
        return Extraction(entities=list(self.entities.values()), relations=self.relations)

    def _entity(self, name: str, etype: EntityType, speaker: bool = False) -> str:
        mention = self.entities.get(name)
        if mention is None:
            mention = EntityMention(name=name, type=etype, speaker=speaker)
            self.entities[name] = mention
        elif mention.type in (EntityType.OTHER, EntityType.CONCEPT) or etype == EntityType.PERSON:
            mention.type = etype if not mention.speaker else EntityType.PERSON
        return name

    def _emit(self, subj: str, predicate: str, obj: str, when: datetime, fact: str) -> None:
        obj = _OBJECT_END.sub('', obj).strip()
        if not obj or _NOT_OBJECT.search(obj) or subj == obj:
            return
        if predicate == 'lives_in' and obj.casefold() in KNOWN_TOOLS:
            predicate = 'uses'  # "我搬到了Emacs": a move to software changes a tool, not a home
        if (subj, predicate, obj) in self.seen:
            return
        self.seen.add((subj, predicate, obj))
        subj_type, obj_type = PREDICATE_TYPES.get(predicate, (None, None))
        if subj not in self.entities:
            self._entity(subj, subj_type or EntityType.PERSON)
        known = self.entities.get(obj)
        if obj_type is None and _ORG_SUFFIX.search(obj):
            obj_type = EntityType.ORG
        if known is not None and known.type == EntityType.PERSON and not known.speaker:
            # jieba tags many company names as names of people (阿里巴巴 nr): where one works
            # or lives is not a person
            known.type = obj_type or known.type
        if known is None or obj_type is not None:
            self._entity(obj, obj_type or (known.type if known else EntityType.CONCEPT))
        if obj_type is not None:
            self.entities[obj].certain = True  # what the fact says it is outweighs jieba's tag
        self.relations.append(
            RelationMention(
                subject=subj,
                predicate=predicate,
                object=obj,
                fact=fact.strip()[:FACT_CHARS],
                valid_from=when,
                confidence=0.85,
            )
        )

    def _identity(
        self, subject: str, rest: str, persons: set[str], when: datetime, fact: str
    ) -> bool:
        """ "李娜是张伟的妻子" (kin of a named person), "我叫陈静" / "我是陈静" (the speaker's
        name); True when the clause said one of these."""
        kin = _KIN_OF.match(rest)
        if kin and (kin.group(1) in persons or kin.group(1) == '我'):
            owner = self.speaker if kin.group(1) == '我' else kin.group(1)
            if owner:
                self._entity(owner, EntityType.PERSON, speaker=owner == self.speaker)
                self._emit(subject, KIN[kin.group(2)], owner, when, fact)
            return True
        named = _NAMED.match(rest)
        if (
            subject == self.speaker
            and named
            and (named.group(1) != '是' or named.group(2) in persons)
        ):
            self._entity(named.group(2), EntityType.PERSON)
            self._emit(subject, NAMED, named.group(2), when, fact)
            return True
        return False

    def _household(self, clause: str, when: datetime, fact: str) -> bool:
        """The speaker's home that a household clause states; True when the clause is one."""
        lead = _HOUSEHOLD.match(clause)
        if self.speaker is None or lead is None or _FAMILY.match(clause):
            return False
        rest = _FILLER.sub('', clause[lead.end() :].strip()).strip()
        for pattern, predicate in _PATTERNS:
            match = pattern.match(rest)
            if match:
                obj = match.group('o')
                if predicate in HOUSEHOLD_PREDICATES and obj.casefold() not in KNOWN_TOOLS:
                    self._entity(self.speaker, EntityType.PERSON, speaker=True)
                    self._emit(self.speaker, predicate, obj, when, fact)
                break
        return True

    def _clause(
        self, clause: str, subject: str | None, persons: set[str], when: datetime, fact: str
    ) -> str | None:
        """Facts of one clause; returns the subject the next clause of the sentence borrows."""
        when = resolve_date(clause, self.item.at) or when
        # "去年我从腾讯跳槽到了阿里巴巴": a time said before the subject (its date is read above)
        clause = _FILLER.sub('', clause).strip() or clause
        rest = clause
        named = _KIN_NAMED.match(clause)
        if named and (named.group(2) != '是' or named.group(3) in persons):
            # "我老板叫王强" names him; "我老公是程序员" says what he does, not who he is
            kin, name = named.group(1), named.group(3)
            if self.speaker:
                self._entity(name, EntityType.PERSON)
                self._emit(name, KIN[kin], self.speaker, when, fact)
            return name
        lead = _KIN_LEAD.match(clause)
        after = clause[lead.end() :] if lead else ''
        name = next((p for p in persons if after.startswith(p)), None) if lead else None
        if lead and name:
            # "我妹妹张敏在腾讯工作": 张敏 is my sister, and the subject of what follows
            self._entity(name, EntityType.PERSON)
            if self.speaker:
                self._emit(name, KIN[lead.group(1)], self.speaker, when, fact)
            subject, rest = name, after[len(name) :]
        elif self._household(clause, when, fact):
            return None  # a household's clause lends the next one no subject
        elif re.match(r'^我(?!们)', clause) or _FAMILY.match(clause):
            # "我们全家搬去西安了": the family's home is the speaker's
            subject = self.speaker
            rest = re.sub(r'^我们(?:全家|一家人?|家)|^我(?:的)?', '', clause)
            if subject is None:
                return None  # no speaker: first-person facts are skipped, as in English
        else:
            person = next((p for p in persons if clause.startswith(p)), None)
            if person is not None:
                subject, rest = person, clause[len(person) :]
        if subject is None:
            return None
        rest = _FILLER.sub('', rest.strip()).strip()
        rest = re.sub(r'^(?:不住.{1,8}?了)$', '', rest)
        if self._identity(subject, rest, persons, when, fact):
            return subject
        for pattern, predicate in _PATTERNS:
            match = pattern.match(rest)
            if match:
                obj = match.group('o')
                if predicate == 'works_at' and obj in self.places:
                    # "我在上海工作", "我跳槽到了杭州": a city, not an employer
                    predicate = 'works_in'
                self._emit(subject, predicate, obj, when, fact)
                break
        return subject
