"""Settings, scopes, principals, chunk ids and the Python filter evaluator."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from core.auth import Principal
from core.errors import ConfigurationError, Forbidden, ReadOnlyForTeamMember
from core.scopes import agent_of, is_scope
from core.settings import Settings
from recall.models import Chunk, chunk_id
from recall.normalize import content_hash, normalize_text
from vectors.filtering import matches
from vectors.models import PointFilter, Range, canonical_ids


@pytest.mark.parametrize(
    'scope', ['global', 'agent:a', 'agent:A_b.c-9', 'agent:a:cron', 'team:t1', 'agent:' + 'x' * 128]
)
def test_well_formed_scopes_are_accepted(scope):
    assert is_scope(scope)


@pytest.mark.parametrize(
    'scope',
    [
        '',
        'Global',
        'agent:',
        'agent:a:b:c',
        'team:a:b',
        'user:a',
        'agent:a b',
        'agent:' + 'x' * 129,
        'agent:a/b',
        'agent:ä',
    ],
)
def test_malformed_scopes_are_refused(scope):
    assert not is_scope(scope)


def test_agent_of_reads_channel_scopes_too():
    assert agent_of('agent:bot:cron') == 'bot'
    assert agent_of('team:x') is None


def test_settings_refuse_redis_without_a_qdrant_server():
    with pytest.raises(ConfigurationError, match='KG_REDIS_URL needs KG_QDRANT_URL'):
        Settings.load({'KG_REDIS_URL': 'redis://127.0.0.1:6379/0'})


def test_settings_refuse_unknown_kg_variables_and_name_them():
    with pytest.raises(ConfigurationError, match='KG_DATADIR'):
        Settings.load({'KG_DATADIR': '/tmp/x'})


def test_settings_report_the_bad_field():
    with pytest.raises(ConfigurationError, match='port'):
        Settings.load({'KG_PORT': 'eighty'})


def test_settings_read_a_toml_file_and_env_overrides_it(tmp_path: Path):
    config = tmp_path / 'mnemos.toml'
    config.write_text('port = 9000\nworker_threads = 3\n')
    settings = Settings.load({'KG_CONFIG': str(config), 'KG_PORT': '9100'})
    assert (settings.port, settings.worker_threads) == (9100, 3)


def test_settings_embedded_mode_is_implied_by_no_qdrant_url(tmp_path: Path):
    settings = Settings.load({}, data_dir=tmp_path)
    assert settings.embedded
    assert settings.graph_path == tmp_path / 'graph.kuzu'


def test_an_agent_writes_its_own_and_channel_scopes_only():
    bot = Principal(name='bot', agent_id='bot')
    assert bot.can_write('agent:bot') and bot.can_write('agent:bot:cron')
    assert not bot.can_write('agent:other') and not bot.can_write('global')
    assert bot.can_read('global')
    with pytest.raises(Forbidden):
        bot.require_read('agent:other')


def test_a_team_member_reads_but_never_writes_its_leader():
    member = Principal(name='m', agent_id='m', leader_scopes=('agent:lead',))
    member.require_read('agent:lead')
    with pytest.raises(ReadOnlyForTeamMember, match='memory is read-only for team members'):
        member.require_write('agent:lead')


def test_chunk_ids_are_stable_and_depend_on_scope_user_and_text():
    a = chunk_id('agent:a', None, normalize_text('Hello  World'))
    assert a == chunk_id('agent:a', None, normalize_text('hello world!'))
    assert a != chunk_id('agent:a', 'u', normalize_text('hello world'))
    assert a != chunk_id('agent:b', None, normalize_text('hello world'))
    # pinned value: ids must never change across versions, or re-ingest would duplicate
    assert a == chunk_id('agent:a', None, 'hello world')


def test_content_hash_ignores_case_width_whitespace_and_cjk_punctuation():
    assert content_hash('我叫东升，幸运数字是88。') == content_hash('我叫东升 幸运数字是８８')
    assert content_hash('ABC  def') == content_hash('abc def')
    assert content_hash('abc') != content_hash('abd')


def _chunk(**extra: Any) -> Chunk:
    now = datetime(2024, 1, 1, tzinfo=UTC)
    return Chunk(
        id='i', scope='agent:a', text='t', created_at=now, updated_at=now, content_hash='h', **extra
    )


def test_chunk_payload_round_trips_and_keys_userless_memories_as_any_owner():
    chunk = _chunk(tags=['x'], metadata={'k': [1, {'z': None}]})
    payload = chunk.to_payload()
    assert payload['owner'] == '*'
    assert payload['created_at'] == datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    assert Chunk.from_payload(payload) == chunk


def test_python_filter_follows_store_semantics():
    payload = _chunk(tags=['a', 'b'], user_id='u').to_payload()
    assert matches(payload, PointFilter(scopes=None))
    assert not matches(payload, PointFilter(scopes=[]))
    assert matches(payload, PointFilter(scopes=['agent:a'], any_of={'tags': ['b', 'z']}))
    assert not matches(payload, PointFilter(scopes=['agent:a'], none_of={'tags': ['a']}))
    assert not matches(payload, PointFilter(scopes=['agent:a'], any_of={'owner': ['*']}))
    ts = payload['created_at']
    assert matches(payload, PointFilter(scopes=None, ranges={'created_at': Range(gte=ts)}))
    assert not matches(payload, PointFilter(scopes=None, ranges={'created_at': Range(lte=ts - 1)}))
    assert not matches(payload, PointFilter(scopes=None, ranges={'expires_at': Range(gte=0)}))


def test_python_filter_keeps_bools_and_integers_apart_and_ranges_any_list_element():
    flags = {'scope': 'agent:a', 'pinned': True, 'count': 1, 'scores': [1.0, 5.0]}
    assert matches(flags, PointFilter(scopes=None, any_of={'pinned': [True]}))
    assert not matches(flags, PointFilter(scopes=None, any_of={'pinned': [1]}))
    assert not matches(flags, PointFilter(scopes=None, any_of={'count': [True]}))
    assert matches(flags, PointFilter(scopes=None, none_of={'count': [True]}))
    assert not matches(flags, PointFilter(scopes=None, ranges={'pinned': Range(gte=0)}))
    assert matches(flags, PointFilter(scopes=None, ranges={'scores': Range(gte=4.0)}))
    assert not matches(flags, PointFilter(scopes=None, ranges={'scores': Range(gte=6.0)}))


def test_canonical_ids_keep_canonical_ids_and_canonicalise_or_drop_the_rest() -> None:
    plain = '0f8fad5b-d9cb-469f-a165-70867728950e'
    other = '7c9e6679-7425-40de-944b-e07fc1f90ae7'
    asked: list[Any] = [
        plain,
        plain.upper(),  # the same id: once, in its canonical form
        '{' + other + '}',
        'urn:uuid:' + other,  # the same again
        plain.replace('-', ''),  # hex alone is an id too
        'not-an-id',
        plain + 'x',
        plain[:-1] + 'g',  # 'g' is not hex: neither form takes it
        None,
        42,
    ]
    assert canonical_ids(asked) == [plain, other]


def test_python_filter_reads_top_level_keys_and_nested_paths_alike():
    # top-level keys take a short path; a `.` or `[]` key still walks the payload
    payload = {'scope': 'agent:a', 'tags': [None, 'x'], 'a': {'b': 'y'}, 'stale': [{'by': 'z'}]}
    assert matches(payload, PointFilter(scopes=None, any_of={'tags': ['x']}))
    assert not matches(payload, PointFilter(scopes=None, any_of={'tags': ['y']}))
    assert not matches(payload, PointFilter(scopes=None, any_of={'missing': ['x']}))
    assert matches(payload, PointFilter(scopes=None, any_of={'a.b': ['y']}))
    assert not matches(payload, PointFilter(scopes=None, any_of={'a': ['y']}))
    assert matches(payload, PointFilter(scopes=None, any_of={'stale[].by': ['z']}))
    assert matches(payload, PointFilter(scopes=None, none_of={'stale': ['z']}))
