"""The framework adapters of `mnemos_client` with the frameworks' real packages against a real
service: LangGraph's `BaseStore`, LangChain's retriever and tools, LlamaIndex's retriever and
tools."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
from langgraph.store.base import InvalidNamespaceError

from mnemos_client import Mnemos
from mnemos_client.langgraph import MnemosStore, namespace_scope, scope_namespace
from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def mnemos(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mnemos]:
    with (
        live_service(tmp_path_factory.mktemp('adapters-data')) as url,
        Mnemos(url, TOKEN) as client,
    ):
        yield client


@pytest.fixture
def label() -> str:
    return f'u{uuid.uuid4().hex[:10]}'


def test_namespaces_and_scopes_map_both_ways() -> None:
    assert namespace_scope(('alice',)) == 'agent:alice'
    assert namespace_scope(('alice', 'prefs')) == 'agent:alice:prefs'
    assert scope_namespace('agent:alice:prefs') == ('alice', 'prefs')
    assert scope_namespace('team:core') is None
    for bad in [(), ('a', 'b', 'c'), ('a/b',), ('',)]:
        with pytest.raises(InvalidNamespaceError):
            namespace_scope(bad)


def test_the_langgraph_store_puts_gets_searches_lists_and_deletes(
    mnemos: Mnemos, label: str
) -> None:
    store = MnemosStore(mnemos)
    ns = (label, 'prefs')
    store.put(ns, 'drink', {'text': 'Alice prefers green tea', 'strength': 2})
    store.put(ns, 'city', {'text': 'Alice lives in Porto'})
    item = store.get(ns, 'drink')
    assert item is not None and item.value == {'text': 'Alice prefers green tea', 'strength': 2}
    assert item.key == 'drink' and tuple(item.namespace) == ns
    # a put on an existing key edits that memory: one item, the old text in its history
    store.put(ns, 'city', {'text': 'Alice lives in Lisbon'})
    city = store.get(ns, 'city')
    assert city is not None and city.value == {'text': 'Alice lives in Lisbon'}
    assert len([m for m in mnemos.iter_memories(namespace_scope(ns))]) == 2
    found = store.search(ns, query='Where does Alice live now?', limit=1)
    assert [(i.key, i.value['text']) for i in found] == [('city', 'Alice lives in Lisbon')]
    assert found[0].score is not None
    assert [i.key for i in store.search(ns, filter={'strength': 2})] == ['drink']
    assert ns in store.list_namespaces(prefix=(label,))
    assert store.list_namespaces(prefix=(label,), max_depth=1) == [(label,)]
    store.delete(ns, 'drink')
    assert store.get(ns, 'drink') is None
    assert [i.key for i in store.search(ns)] == ['city']


def test_values_without_a_text_are_stored_as_json(mnemos: Mnemos, label: str) -> None:
    store = MnemosStore(mnemos)
    store.put((label,), 'profile', {'name': 'Bob', 'languages': ['pt', 'en']})
    item = store.get((label,), 'profile')
    assert item is not None and item.value == {'name': 'Bob', 'languages': ['pt', 'en']}
    [memory] = mnemos.iter_memories(f'agent:{label}')
    assert memory.text == '{"languages": ["pt", "en"], "name": "Bob"}'


def test_the_langgraph_store_works_from_async_code(mnemos: Mnemos, label: str) -> None:
    store = MnemosStore(mnemos)

    async def scenario() -> None:
        await store.aput((label,), 'tz', {'text': 'Carol works in UTC+1'})
        item = await store.aget((label,), 'tz')
        assert item is not None and item.value['text'] == 'Carol works in UTC+1'
        assert [i.key for i in await store.asearch((label,), query='time zone')] == ['tz']

    asyncio.run(scenario())


def test_the_langchain_retriever_and_tools(mnemos: Mnemos, label: str) -> None:
    from mnemos_client.langchain import MnemosRetriever, mnemos_tools

    scope = f'agent:{label}'
    remember, search = mnemos_tools(mnemos, scope)
    assert remember.name == 'remember_memory' and search.name == 'search_memory'
    assert remember.invoke({'text': 'Dana is allergic to peanuts', 'kind': 'fact'}).startswith(
        'created: '
    )
    mnemos.remember(scope, 'Dana runs marathons')
    retriever = MnemosRetriever(client=mnemos, scope=scope, top_k=1, options={'mode': 'bm25'})
    [doc] = retriever.invoke('peanuts allergy')
    assert doc.page_content == 'Dana is allergic to peanuts'
    assert doc.metadata['kind'] == 'fact' and doc.metadata['score'] > 0
    assert 'Dana is allergic to peanuts' in search.invoke({'query': 'what is Dana allergic to?'})
    [adoc] = asyncio.run(retriever.ainvoke('marathons'))
    assert adoc.page_content == 'Dana runs marathons'


def test_the_llamaindex_retriever_and_tools(mnemos: Mnemos, label: str) -> None:
    from mnemos_client.llamaindex import MnemosRetriever, mnemos_tools

    scope = f'agent:{label}'
    remember, search = mnemos_tools(mnemos, scope)
    assert remember.metadata.name == 'remember_memory'
    assert str(remember.call(text='Erin speaks Japanese', kind='fact')).startswith('created: ')
    mnemos.remember(scope, 'Erin collects stamps')
    retriever = MnemosRetriever(mnemos, scope, top_k=1, mode='bm25')
    [node] = retriever.retrieve('which language does Erin speak? Japanese')
    assert node.node.get_content() == 'Erin speaks Japanese' and node.score is not None
    assert node.node.metadata['kind'] == 'fact'
    assert 'Erin collects stamps' in str(search.call(query='stamps'))
