"""Slot synonyms for relevance: a question and the memory that answers it often name one slot
with different words ("Where do I live?" / "I moved to Berlin", "What are my hobbies?" / "I love
climbing", 我在哪里工作 / 我上个月入职了阿里巴巴). `recall.read.context.coverage` counts a query
term as present when the memory holds a word of the term's slot.

Chinese queries are read one character at a time, and their function characters (我, 的, 在,
哪, 里…) are in almost every memory: a memory must share a content character (or a slot word)
with the query to count at all (`recall.read.context.confidence` then ignores the cosine of the
default, English, embedder, which between two unrelated Chinese sentences reaches 0.6-0.7).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from vectors.bm25 import tokenize

# English words of one slot (the write side's slot name, recall.write.facts, where the slot is
# one it records supersession for); each is stemmed as BM25 stems it
_EN_SLOTS: tuple[tuple[str | None, str], ...] = (
    (
        'lives_in',
        'live lives living lived home based reside resident move moved moving relocate '
        'relocated settle settled city town',
    ),
    (
        'works_at',
        'work works working worked job jobs employer employ employed company office hired join '
        'joined career workplace offer',
    ),
    (None, 'hobby hobbies like likes love loves enjoy enjoys fan passion pastime sport sports'),
    (None, 'language languages speak speaks spoken fluent'),
    ('title', 'title role position profession occupation promoted became'),
    ('partner', 'wife husband spouse married partner'),
    (None, 'pet pets cat cats dog dogs animal animals'),
    # what an assistant is told about its own answers
    (
        'answer_format',
        'format formatting style answer answers reply replies respond write prose paragraph '
        'paragraphs bullet bullets list lists table tables',
    ),
    (
        'unit',
        'unit units measurement measurements metric imperial miles kilometres kilometers pounds '
        'kilograms celsius fahrenheit',
    ),
    ('name', 'call called name named nickname'),
    ('answer_length', 'long length short detailed brief concise'),
    ('editor', 'editor editors ide vim neovim emacs vscode'),
)
_EN_GROUPS = tuple(words for _, words in _EN_SLOTS)
# Chinese words of one slot; a character of a query word counts when the memory holds any word
# of the slot
_ZH_SLOTS: tuple[tuple[str | None, tuple[str, ...]], ...] = (
    ('lives_in', ('住', '搬', '家住', '家在', '生活', '定居', '城市', '居住')),
    ('works_at', ('工作', '上班', '入职', '跳槽', '任职', '就职', '加入', '公司', '雇主', '单位')),
    (None, ('爱好', '喜欢', '热爱', '兴趣', '爱', '运动')),
    (None, ('语言', '外语', '会说', '说得')),
    ('title', ('职位', '职务', '职业', '当了', '升职', '转行')),
    (None, ('宠物', '养了', '猫', '狗')),
    ('partner', ('妻子', '老婆', '太太', '夫人', '媳妇', '丈夫', '老公', '结婚', '爱人')),
    ('answer_format', ('格式', '排版', '列表', '要点', '段落', '表格', '回答')),
    (None, ('希望', '喜欢', '想要', '偏好', '更喜欢', '要', '不再', '以后', '改成')),
    ('name', ('称呼', '叫我', '名字', '叫')),
    ('answer_language', ('语言', '中文', '英文', '日文', '用英语', '用中文')),
    ('answer_length', ('简短', '详细', '长度', '多长', '简洁')),
    ('editor', ('编辑器',)),
)
_ZH_GROUPS = tuple(words for _, words in _ZH_SLOTS)
# the many-valued fact slots (recall.write.facts) a query word names; with the single-valued
# ones of _EN_SLOTS, a memory stating a fact of the slot ("I'm good at Rust": skill) answers the
# word though it shares none with it ("What languages do I code in?")
_EN_MANY: tuple[tuple[str, str], ...] = (
    ('skill', 'skill skills code coding program programming developer language languages'),
    ('language', 'language languages speak speaks spoken fluent'),
    ('likes', 'hobby hobbies like likes love loves enjoy enjoys activity activities sport sports'),
    ('hobby', 'hobby hobbies activity activities pastime sport sports'),
    ('pet', 'pet pets animal animals'),
)
# a word naming an answer setting only when the question also asks of answers or units (one of
# the cues): "Which language should you answer in?" asks the answer language, "What languages
# do I speak?" does not; "Which weight unit" asks the unit of weight, "What's my weight?" not
_EN_PAIRED: tuple[tuple[str, str, str], ...] = (
    ('answer_language', 'language languages', 'answer answers reply replies respond write'),
    ('unit:weight', 'weight weights', 'unit units measure measurement'),
    ('unit:distance', 'distance distances', 'unit units measure measurement'),
    ('unit:temperature', 'temperature temperatures', 'unit units measure measurement'),
)
# characters that carry no topic: a memory sharing only these with a query says nothing of it
CJK_FUNCTION = frozenset(
    '我你您他她它们的了是在有哪里些什么怎吗呢吧啊呀和与也都就还又很个这那谁一多少做'
)
_YEAR = re.compile(r'(?:19|20)\d\d')
_DATE_CHARS = frozenset('年月日号')
_CJK = re.compile(r'[\u3400-\u4dbf\u4e00-\u9fff]')
_PIECES = re.compile(r'[\u3400-\u4dbf\u4e00-\u9fff]|[^\W\u3400-\u4dbf\u4e00-\u9fff]+')


@cache
def _english() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for group in _EN_GROUPS:
        stems = set(tokenize(group))
        for stem in stems:
            out.setdefault(stem, set()).update(stems - {stem})
    return {k: frozenset(v) for k, v in out.items()}


@cache
def _chinese() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for group in _ZH_GROUPS:
        for word in group:
            for char in word:
                if char not in CJK_FUNCTION:
                    out.setdefault(char, set()).update(group)
    return {k: frozenset(v) for k, v in out.items()}


def is_cjk(terms: Sequence[str]) -> bool:
    """Whether a query's terms are mostly Chinese characters (a mixed word counts its letters)."""
    return _is_cjk(tuple(terms))


# a search asks these of its one query for each of ~150 candidates: each is worked out once per
# query (and kept for the next few queries)
@lru_cache(maxsize=256)
def _is_cjk(terms: tuple[str, ...]) -> bool:
    return mostly(''.join(terms), _CJK)


def mostly(text: str, chars: re.Pattern[str]) -> bool:
    """Whether `text` holds one of `chars` and they make at least half of its letters."""
    found = len(chars.findall(text))
    return found > 0 and found * 2 >= sum(1 for c in text if c.isalpha())


def query_words(terms: Sequence[str]) -> list[str]:
    """The query's terms as coverage counts them: Chinese one character at a time (a word the
    tokenizer left whole, "2025年我在哪家公司上班", is split into its characters and its runs of
    digits or letters), without a year and the date characters around it (the date picks the
    time, not the topic: the date boost and the graph read it)."""
    return list(_query_words(tuple(terms)))


@lru_cache(maxsize=256)
def _query_words(terms: tuple[str, ...]) -> tuple[str, ...]:
    split: list[str] = []
    for term in terms:
        if len(term) > 1 and _CJK.search(term):
            split.extend(_PIECES.findall(term))
        else:
            split.append(term)
    words = list(dict.fromkeys(split))
    if any(_YEAR.fullmatch(w) for w in words):
        words = [w for w in words if not _YEAR.fullmatch(w) and w not in _DATE_CHARS]
    return tuple(words or terms)


@dataclass(frozen=True, slots=True)
class QueryWords:
    """What coverage needs of one query, worked out once for its ~150 candidates."""

    words: tuple[str, ...]
    # (word, whether it is one Chinese character, the other words of its slot) of each word
    # that counts: a function character counts neither way (coverage_of)
    content: tuple[tuple[str, bool, frozenset[str]], ...]


def query_content(terms: Sequence[str]) -> QueryWords:
    """What `coverage_of` needs of a query's terms, for a caller that reads many memories."""
    return _query_content(tuple(terms))


@lru_cache(maxsize=256)
def _query_content(terms: tuple[str, ...]) -> QueryWords:
    words = _query_words(terms)
    content = tuple((w, *_slot_words(w)) for w in words if w not in CJK_FUNCTION)
    return QueryWords(words, content)


def coverage_of(
    terms: Sequence[str], have: frozenset[str], text: str, stated: frozenset[str] = frozenset()
) -> float:
    """Share of the query's words the memory holds (a word of a term's slot counting for the
    term, and a word naming a slot the memory `stated` a fact of); 0 when the memory shares
    only Chinese function characters with the query."""
    return covered_share(_query_content(tuple(terms)), have, text, stated)


def covered_share(
    query: QueryWords,
    have: frozenset[str],
    text: str,
    stated: frozenset[str] = frozenset(),
    mixed: str | None = None,
) -> float:
    """`coverage_of` with the query's words worked out already (`query_content`); `mixed`: the
    text's `mixed_text`, when the caller has it (None: read here if needed)."""
    if not query.content:
        return 0.0  # no words, or only function characters: none can count
    slots: dict[str, frozenset[str]] = {}
    named: frozenset[str] = frozenset()
    bases: frozenset[str] = frozenset()
    if stated:
        slots = _stated_by()
        named, bases = _stated_words(query.words, stated)
    # a Chinese question's function characters (我, 的, 什么, 怎么…) say nothing of its topic:
    # they count neither way, so a correction that shares the topic's words answers as well as
    # one that repeats the question's frame
    found = 0
    for word, chinese, synonyms in query.content:
        if word in have:
            found += 1
            continue
        if mixed is None:
            mixed = mixed_text(text)
        if (
            (mixed and _latin_in(word, mixed))
            or word in named
            or (any(w in text for w in synonyms) if chinese else not synonyms.isdisjoint(have))
            or (stated and slots.get(word, frozenset()) & bases)
        ):
            found += 1
    return found / len(query.content) if found else 0.0


# a search reads coverage of each of its candidates, and the memories stating facts state few
# distinct sets of slots: what a question's words name of each set is worked out once
@lru_cache(maxsize=1024)
def _stated_words(
    words: tuple[str, ...], stated: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """The question's words naming a slot the memory states, and the slots it states with
    their bases (a qualified slot, "unit:weight", is stated of its base as well)."""
    named = _zh_named(words, stated) | _en_named(words, stated)
    return named, stated | {s.split(':')[0] for s in stated}


def mixed_text(text: str) -> str:
    """The casefolded text if it holds a Chinese character (where `coverage_of` looks for a
    Latin query word inside the text, not among its terms), else ''."""
    return text.casefold() if _CJK.search(text) else ''


def _latin_in(word: str, folded: str) -> bool:
    """Whether a Latin query word stands whole in Chinese text: the tokenizer keeps a mixed run
    ("emoji的限制取消了") as one term, so the word is not among the text's terms."""
    if not (word.isascii() and word.isalnum()):
        return False
    return re.search(rf'(?<![a-z0-9]){re.escape(word)}(?![a-z0-9])', folded) is not None


# a question about answers (回答, 回复) asks any of the answer settings
_ZH_ANSWERS = ('回答', '回复')
# and the rules for them ("emoji的限制取消了" for 回答里能用emoji吗: recall.write.facts reads
# every rule as one for the answers)
_ANSWER_SLOTS = ('answer_format', 'answer_language', 'answer_length', 'rule')
# the Chinese words naming a unit the asker prefers, for a memory stating it
# ("别用英里了。用公里吧。" for 距离用什么单位): only coverage reads them, no question asks a slot
# by them (asked)
_ZH_UNITS = (
    ('unit:distance', ('距离', '里程', '单位')),
    ('unit:weight', ('重量', '体重', '单位')),
    ('unit:temperature', ('温度', '气温', '单位')),
)


@cache
def _stated_by() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    named = [(slot, words) for slot, words in _EN_SLOTS if slot is not None]
    for slot, words in (*named, *_EN_MANY):
        for stem in tokenize(words):
            out.setdefault(stem, set()).add(slot)
    return {k: frozenset(v) for k, v in out.items()}


@cache
def _zh_stated_words() -> tuple[tuple[str, frozenset[str]], ...]:
    """(word, slots) of every Chinese slot word of two characters or more: a question holding
    the whole word names the slot ("排版" the answer format, not "反转" a change of title)."""
    out: dict[str, set[str]] = {}
    zh = [(slot, words) for slot, words in _ZH_SLOTS if slot is not None]
    zh += [(slot, _ZH_ANSWERS) for slot in _ANSWER_SLOTS]
    zh += list(_ZH_UNITS)
    for slot, words in zh:
        for word in words:
            if len(word) > 1:
                out.setdefault(word, set()).add(slot)
    return tuple((w, frozenset(s)) for w, s in out.items())


def _zh_named(words: Sequence[str], stated: frozenset[str]) -> frozenset[str]:
    """The characters of the question's Chinese slot words whose slot the memory states
    ("写成一段话" states a format: 排, 版 of "我希望你怎么排版回答" count for it)."""
    have = set(words)
    return frozenset(
        char
        for word, slots in _zh_stated_words()
        if slots & stated and have.issuperset(word)
        for char in word
    )


@cache
def _en_paired() -> tuple[tuple[str, frozenset[str], frozenset[str]], ...]:
    return tuple(
        (slot, frozenset(tokenize(topic)), frozenset(tokenize(cue)))
        for slot, topic, cue in _EN_PAIRED
    )


def _en_named(words: Sequence[str], stated: frozenset[str]) -> frozenset[str]:
    """The question's English words naming a slot the memory states, when the question holds
    both a topic and a cue of it ("language" and "answer" for a memory stating the answer
    language, "Stop using English; Spanish please", which shares neither)."""
    have = set(words)
    return frozenset(
        w
        for slot, topic, cue in _en_paired()
        if slot in stated and have & topic and have & cue
        for w in have & (topic | cue)
    )


def slot_synonym_in(term: str, have: frozenset[str], text: str) -> bool:
    """Whether the memory (its terms `have`, its `text`) holds a word of the term's slot."""
    chinese, words = _slot_words(term)
    if chinese:
        return any(word in text for word in words)
    return not words.isdisjoint(have)


@lru_cache(maxsize=4096)
def _slot_words(term: str) -> tuple[bool, frozenset[str]]:
    """Whether the term is one Chinese character, and the other words of its slot."""
    if _CJK.fullmatch(term):
        return True, _chinese().get(term, frozenset())
    return False, _english().get(term, frozenset())


@cache
def _english_slots() -> dict[str, frozenset[str]]:
    out: dict[str, set[str]] = {}
    for slot, words in _EN_SLOTS:
        if slot is not None:
            for stem in tokenize(words):
                out.setdefault(stem, set()).add(slot)
    return {k: frozenset(v) for k, v in out.items()}


# a question about someone of the asker's ("my mother", 我妈妈) asks their slot, not the asker's
_EN_KIN = re.compile(
    r'\b(?:my|our)\s+(?:\w+\s+)?(?:wife|husband|partner|mother|mom|mum|father|dad|parents?|'
    r'sister|brother|son|daughter|kids?|children|friend|boss|manager|colleague|roommate|'
    r'neighbou?r|girlfriend|boyfriend|family)\b'
)
_ZH_KIN = re.compile(
    r'我(?:的)?(?:妻子|老婆|丈夫|老公|爸爸|妈妈|父亲|母亲|父母|哥哥|姐姐|弟弟|妹妹|儿子|女儿|孩子|'
    r'朋友|同事|老板|男朋友|女朋友|室友|邻居|爱人|太太|先生|家人)'
)
_EN_SELF = re.compile(r"\b(?:i|i'm|i've|me|my|mine|myself)\b")


@dataclass(frozen=True, slots=True)
class Asked:
    """The single-valued slots a question names (the write side's names) and whose."""

    slots: frozenset[str]
    folded: str
    # the asker's own slot: "I"/"my"/我, not someone of theirs ("my mother", 我妈妈)
    own: bool

    def about(self, record: Mapping[str, Any], user_id: str | None) -> bool:
        """Whether a supersession record is of a slot this question asks, of its subject."""
        if str(record.get('slot', '')).split(':')[0] not in self.slots:
            return False
        subject = str(record.get('subject', '')).casefold()
        if self.own and subject in ('self', (user_id or '').casefold()):
            return True
        if self.own and user_id is None:
            return True  # the asker is unknown: a first-person record is theirs
        return bool(subject) and subject != 'self' and _names(self.folded, subject)


def _names(folded: str, name: str) -> bool:
    if _CJK.search(name):
        return name in folded
    return re.search(rf'\b{re.escape(name)}\b', folded) is not None


@lru_cache(maxsize=256)  # a search asks it twice of one query (recall.read.ranking)
def asked(query: str) -> Asked:
    """What a question asks of single-valued slots: "Where do I live now?" asks the asker's
    `lives_in`, 孙丽在哪家公司上班 孙丽's `works_at`; 我的老家 (a hometown) asks no home."""
    folded = query.casefold()
    found: set[str] = set()
    table = _english_slots()
    for stem in tokenize(folded):
        found.update(table.get(stem, ()))
    if _CJK.search(query):
        text = query.replace('老家', '')
        for slot, words in _ZH_SLOTS:
            if slot is not None and any(w in text for w in words if len(w) > 1 or w == '住'):
                found.add(slot)
    if 'title' in found:
        found.discard('works_at')  # "what is my job title" asks the title, not the employer
    kin = _EN_KIN.search(folded) or _ZH_KIN.search(query)
    own = not kin and (bool(_EN_SELF.search(folded)) or '我' in query)
    return Asked(slots=frozenset(found), folded=folded, own=own)


def replaced_in(payload: Mapping[str, Any], question: Asked, user_id: str | None) -> list[str]:
    """The ids of the memories that replaced what this memory said of the slot the question
    asks, of its subject (its `stale` records: the memory stays current for its other facts)."""
    records = payload.get('stale') or ()
    return [str(r['by']) for r in records if isinstance(r, Mapping) and question.about(r, user_id)]
