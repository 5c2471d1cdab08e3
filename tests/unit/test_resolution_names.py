"""Entity resolution of abbreviations and corporate suffixes (issue 13): one entity per thing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kg.models import Entity, EntityType, entity_id
from kg.resolution import NameIndex, normalize
from tests.waiting import DEADLINE_S

NOW = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ('a', 'b'),
    [
        ('NYC Marathon', 'New York City Marathon'),
        ('Microsoft', 'Microsoft Corporation'),
        ('Acme Corp.', 'Acme, Inc.'),
        ('The Walt Disney Company', 'Walt Disney'),
        ('微软公司', '微软'),
        ('阿里巴巴集团', '阿里巴巴'),
    ],
)
def test_abbreviations_and_corporate_suffixes_share_one_key(a: str, b: str):
    assert normalize(a) == normalize(b)


@pytest.mark.parametrize(('a', 'b'), [('Apple', 'Apple Music'), ('Co-op', 'Coop'), ('Inc', 'Ink')])
def test_different_names_keep_different_keys(a: str, b: str):
    assert normalize(a) != normalize(b)


def test_a_name_index_finds_the_entity_by_either_form():
    key = normalize('New York City Marathon')
    marathon = Entity(
        id=entity_id('s', key),
        scope='s',
        name='New York City Marathon',
        canonical_name=key,
        type=EntityType.EVENT,
        created_at=NOW,
        updated_at=NOW,
    )
    corp_key = normalize('Microsoft Corporation')
    microsoft = marathon.model_copy(
        update={
            'id': entity_id('s', corp_key),
            'name': 'Microsoft Corporation',
            'canonical_name': corp_key,
            'type': EntityType.ORG,
        }
    )
    index = NameIndex([marathon, microsoft])
    assert index.exact('NYC Marathon') == marathon.id
    assert index.exact('Microsoft') == microsoft.id


def test_a_cached_scope_is_served_while_another_scope_loads() -> None:
    # a big scope's index takes a while to load (every entity read from the graph); searches
    # of scopes already cached must not wait for it
    import threading

    from kg.resolution import NameIndex, NameIndexes

    release = threading.Event()

    def load(scope: str) -> NameIndex:
        if scope == 'agent:big':
            release.wait(2 * DEADLINE_S)
        return NameIndex([])

    indexes = NameIndexes(load, max_entities=10)
    small = indexes.get('agent:small')
    loader = threading.Thread(target=indexes.get, args=('agent:big',))
    loader.start()
    try:
        answered = threading.Event()

        def search_small() -> None:
            indexes.get('agent:small')
            answered.set()

        threading.Thread(target=search_small).start()
        assert answered.wait(DEADLINE_S), 'a cached scope waited for another scope to load'
        assert indexes.get('agent:small') is small
    finally:
        release.set()
        loader.join()
    assert len(indexes) == 2
