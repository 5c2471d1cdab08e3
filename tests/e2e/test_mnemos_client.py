"""`mnemos_client` against a real service on a loopback port: every call, sync and async, typed
answers and one error tree."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemos_client import (
    AsyncMnemos,
    ConnectionFailed,
    Forbidden,
    InvalidRequest,
    Memory,
    Mnemos,
    MnemosError,
    NotFound,
    Retry,
    SearchResponse,
    Unauthorized,
    normalize_details,
)
from mnemos_client.models import KGSearchResponse
from tests.e2e.http_calls import JOB_DEADLINE_S
from tests.live import TOKEN, live_service
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


@pytest.fixture(scope='module')
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with live_service(tmp_path_factory.mktemp('client-data')) as base:
        yield base


@pytest.fixture(scope='module')
def mnemos(url: str) -> Iterator[Mnemos]:
    with Mnemos(url, TOKEN) as client:
        yield client


@pytest.fixture
def scope() -> str:
    return f'agent:c{uuid.uuid4().hex[:10]}'


def test_remember_get_pin_unpin_and_delete_round_trip(mnemos: Mnemos, scope: str) -> None:
    written = mnemos.remember(scope, 'Alice prefers green tea', kind='preference', user_id='alice')
    assert written.status == 'created' and isinstance(written.memory, Memory)
    again = mnemos.remember(scope, 'Alice prefers green tea', kind='preference', user_id='alice')
    assert again.status == 'merged'
    memory_id = written.id
    assert memory_id is not None
    assert mnemos.get(memory_id).text == 'Alice prefers green tea'
    assert mnemos.pin(memory_id).pinned is True
    assert mnemos.unpin(memory_id).pinned is False
    assert mnemos.delete(memory_id).deleted == memory_id
    with pytest.raises(NotFound) as caught:
        mnemos.get(memory_id)
    assert caught.value.status == 404 and caught.value.error == 'not_found'
    assert caught.value.details and isinstance(caught.value.details[0], dict)


def test_update_keeps_the_old_version_in_the_history_and_users_are_listed(
    mnemos: Mnemos, scope: str
) -> None:
    written = mnemos.remember(scope, 'Gina lives in Porto', user_id='gina')
    assert written.id is not None
    updated = mnemos.update(written.id, text='Gina lives in Lisbon', reason='moved')
    assert updated.text == 'Gina lives in Lisbon' and updated.id == written.id
    history = mnemos.history(written.id)
    assert [v.text for v in history.versions] == ['Gina lives in Porto']
    assert history.current.text == 'Gina lives in Lisbon'
    assert [(u.user_id, u.memories) for u in mnemos.users(scope).users] == [('gina', 1)]


def test_batch_search_stats_and_listing(mnemos: Mnemos, scope: str) -> None:
    batch = mnemos.remember_batch(
        [
            {'scope': scope, 'text': 'Bob moved to Berlin in 2024'},
            {'scope': scope, 'text': 'Carol plays the cello', 'kind': 'fact'},
        ]
    )
    assert [r.status for r in batch.results] == ['created', 'created']
    found = mnemos.search('Where does Bob live?', scope, top_k=2, mode='bm25')
    assert isinstance(found, SearchResponse)
    assert found.hits[0].text == 'Bob moved to Berlin in 2024'
    assert 'bm25' in found.receipt.channels
    filtered = mnemos.search('cello', scope, filters={'kinds': ['fact']}, mode='bm25')
    assert [h.text for h in filtered.hits] == ['Carol plays the cello']
    stats = mnemos.stats(scope)
    assert stats.total == 2 and stats.by_kind == {'note': 1, 'fact': 1}
    assert {m.text for m in mnemos.iter_memories(scope)} == {
        'Bob moved to Berlin in 2024',
        'Carol plays the cello',
    }
    assert len(mnemos.list_memories(scope, limit=1).items) == 1


def test_capture_and_bundle(mnemos: Mnemos, scope: str) -> None:
    captured = mnemos.capture(scope, 'Remember that my favourite colour is teal.')
    assert captured.stored and captured.stored[0].status == 'created'
    bundle = mnemos.bundle(scope, 'What is my favourite colour?')
    assert bundle.ids == [captured.stored[0].id] and 'teal' in bundle.text
    assert bundle.receipt is not None


def test_knowledge_graph_search_and_entities(mnemos: Mnemos, scope: str) -> None:
    mnemos.remember(scope, 'Alice works at Acme.')

    def extracted() -> KGSearchResponse | None:
        found = mnemos.kg_search('Alice', scope, hops=1)
        return found if found.facts else None

    found = wait_until(extracted, 'the graph never saw the write', JOB_DEADLINE_S)
    assert [(f.subject, f.predicate, f.object) for f in found.facts] == [
        ('Alice', 'works_at', 'Acme')
    ]
    listed = mnemos.entities(scope)
    assert {e.name for e in listed.items} >= {'Alice', 'Acme'} and listed.total >= 2
    [alice] = mnemos.entities(scope, q='ali').items
    detail = mnemos.entity(alice.id, scope)
    assert [f.object for f in detail.current] == ['Acme']


def test_sessions_jobs_and_episodes(mnemos: Mnemos, scope: str) -> None:
    message = {
        'role': 'user',
        'content': 'I switched to the Berlin office',
        'ts': '2026-05-01T09:00Z',
    }
    accepted = mnemos.complete_session('chat-1', scope, [message])
    assert mnemos.wait_job(accepted.job_id, timeout=JOB_DEADLINE_S).state == 'done'
    assert accepted.job_id in [j.id for j in mnemos.jobs(scope)]
    assert [e.id for e in mnemos.episodes(scope)] == [accepted.episode_id]


def test_export_then_import_keeps_every_record(mnemos: Mnemos, scope: str) -> None:
    mnemos.remember_batch([{'scope': scope, 'text': f'export me {i}'} for i in range(3)])
    records = list(mnemos.export(scope))
    assert mnemos.export_count(scope) == 3 and len(records) == 3
    report = mnemos.import_records(records, dedupe='id')
    assert (report.read, report.imported, report.skipped_duplicate) == (3, 0, 3)
    again = mnemos.import_records(records, dedupe='none')
    assert again.imported == 3 and mnemos.stats(scope).total == 3


def test_forget_a_user_removes_their_memories(mnemos: Mnemos, scope: str) -> None:
    mnemos.remember(scope, 'Dana likes jazz', user_id='dana')
    mnemos.remember(scope, 'Eve likes rock', user_id='eve')
    report = mnemos.forget(scope=scope, user_id='dana')
    assert report.memories == 1
    assert [m.text for m in mnemos.iter_memories(scope)] == ['Eve likes rock']


def test_service_errors_are_typed_and_carry_the_json_error(url: str, mnemos: Mnemos) -> None:
    with pytest.raises(Unauthorized) as caught, Mnemos(url, 'wrong-token') as stranger:
        stranger.stats('agent:x')
    assert caught.value.status == 401 and caught.value.body['error'] == 'unauthorized'
    with pytest.raises(InvalidRequest) as invalid:
        mnemos.request('POST', '/v1/memory_search', json={'query': 'x', 'scope': 'agent:x', 'k': 1})
    assert invalid.value.details[0]['loc']
    agent = mnemos.request('POST', '/v1/tokens', json={'agent_id': 'other'}).json()['token']
    with Mnemos(url, agent) as other:
        assert other.whoami().scope == 'agent:other'
        with pytest.raises(Forbidden):
            other.stats()


def test_bad_options_fail_here_as_mnemos_errors_naming_the_field(mnemos: Mnemos) -> None:
    with pytest.raises(InvalidRequest) as caught:
        mnemos.search('tea', 'main')
    assert caught.value.details[0]['loc'] == ['scope'] and caught.value.status == 422
    with pytest.raises(InvalidRequest) as caught:
        mnemos.search('tea', 'agent:x', top_k=0)
    assert caught.value.details[0]['loc'] == ['top_k']
    with pytest.raises(InvalidRequest) as caught:
        mnemos.remember('agent:x', 'tea', colour='green')  # type: ignore[call-arg]
    assert caught.value.details[0]['loc'] == ['colour']
    assert isinstance(caught.value, MnemosError)


@pytest.mark.parametrize('bad', ['../teams/core', 'a/b', '..', '', 'x?y=1'])
def test_ids_are_checked_before_they_reach_a_path(mnemos: Mnemos, bad: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        mnemos.delete(bad)
    assert caught.value.details[0]['loc'] == ['memory_id']
    with pytest.raises(InvalidRequest):
        mnemos.complete_session(bad or '/', 'agent:x', [])


def test_the_token_and_address_come_from_the_environment(
    url: str, scope: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ('MNEMOS_API_KEY', 'MNEMOS_TOKEN', 'KG_API_TOKEN', 'KG_URL'):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv('MNEMOS_URL', url)
    monkeypatch.setenv('MNEMOS_API_KEY', TOKEN)
    with Mnemos() as client:
        assert client.url == url
        assert client.remember(scope, 'from the environment').status == 'created'
    monkeypatch.delenv('MNEMOS_API_KEY')
    monkeypatch.setenv('KG_API_TOKEN', TOKEN)
    with Mnemos() as client:
        assert client.stats(scope).total == 1


def test_an_unreachable_service_raises_connection_failed_after_the_retries() -> None:
    retry = Retry(retries=2, backoff_s=0.01)
    with (
        Mnemos('http://127.0.0.1:9', 'x', timeout=2, retry=retry) as client,
        pytest.raises(ConnectionFailed) as caught,
    ):
        client.health()
    assert caught.value.status == 0 and isinstance(caught.value, MnemosError)


def test_details_of_every_shape_become_a_list_of_objects() -> None:
    assert normalize_details(None) == []
    assert normalize_details({'what': 'memory'}) == [{'what': 'memory'}]
    assert normalize_details([{'loc': ['q']}, 'text']) == [{'loc': ['q']}, {'msg': 'text'}]


def test_the_async_client_makes_the_same_calls(url: str, scope: str) -> None:
    async def scenario() -> None:
        async with AsyncMnemos(url, TOKEN) as mnemos:
            written = await mnemos.remember(scope, 'Frank brews coffee', kind='fact')
            assert written.status == 'created' and written.id
            found = await mnemos.search('coffee', scope, mode='bm25')
            assert [h.text for h in found.hits] == ['Frank brews coffee']
            assert [m.text async for m in mnemos.iter_memories(scope)] == ['Frank brews coffee']
            assert [r['text'] async for r in mnemos.export(scope)] == ['Frank brews coffee']
            assert (await mnemos.pin(written.id)).pinned
            await mnemos.delete(written.id)
            with pytest.raises(NotFound):
                await mnemos.get(written.id)
            with pytest.raises(InvalidRequest):
                await mnemos.search('x', 'nope')

    asyncio.run(scenario())


@pytest.fixture(scope='module')
def default_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A service on the default embedder, as the README's reader runs it: the example asks
    "what does Alice drink?" of "Alice prefers green tea", answered by meaning (the hash
    embedder reads words; half of the question's is not enough to answer it)."""
    with live_service(tmp_path_factory.mktemp('readme-data'), embedder='minilm') as base:
        yield base


def test_the_readme_client_example_runs_as_written(
    default_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    readme = (Path(__file__).resolve().parents[2] / 'README.md').read_text(encoding='utf-8')
    section = readme[readme.index('## Python client') :]
    example = re.search(r'```python\n(.*?)```', section, re.DOTALL)
    assert example is not None and 'from mnemos_client import' in example[1]
    (tmp_path / 'mnemos-data').mkdir()
    (tmp_path / 'mnemos-data' / 'api_token').write_text(TOKEN + '\n')
    monkeypatch.chdir(tmp_path)
    # only the address differs: this service listens on a free port, not 8765
    code = example[1].replace('http://127.0.0.1:8765', default_url)
    exec(compile(code, 'README.md', 'exec'), {})  # noqa: S102
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith('Alice prefers green tea')
    assert out[1].startswith('channels: [')
    assert out[-1].startswith('404 not_found [{')


def test_tokens_teams_documents_snapshot_and_hydrate(mnemos: Mnemos, scope: str) -> None:
    agent = f'a{uuid.uuid4().hex[:8]}'
    created = mnemos.create_token(agent)
    assert created.agent_id == agent and created.token
    assert created.token_id in [t.token_id for t in mnemos.tokens(agent)]
    assert mnemos.revoke_token(created.token_id).revoked_at is not None
    team = mnemos.put_team(f't{agent}', leader='lead', members=['m1'])
    assert mnemos.team(team.team_id).members == ['m1']
    assert mnemos.delete_team(team.team_id).deleted
    with pytest.raises(NotFound):
        mnemos.team(team.team_id)
    report = mnemos.index_document(scope, 'notes/tea.md', '# Tea\n\nAlice brews oolong at 85 C.\n')
    assert report.chunks >= 1 and report.embedded == report.chunks
    assert mnemos.delete_document(scope, 'notes/tea.md').deleted == report.chunks
    pinned = mnemos.remember(scope, 'Hana keeps bees', pinned=True)
    assert pinned.status == 'created'
    markdown = mnemos.snapshot(scope)
    assert 'Hana keeps bees' in markdown
    other = f'agent:h{uuid.uuid4().hex[:8]}'
    assert mnemos.hydrate(other, markdown).written == 1
    assert [m.text for m in mnemos.iter_memories(other)] == ['Hana keeps bees']
