"""Settings grouped by component: every `KG_*` name still works, the README's table is generated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.errors import ConfigurationError
from core.settings import FLAT, GROUPS, Settings, _Flat
from core.settings_table import markdown_table

ROOT = Path(__file__).resolve().parents[2]
START, END = '<!-- settings:start -->', '<!-- settings:end -->'

# every variable the service read before its settings were grouped: none may go away or change
NAMES = [
    'API_TOKEN',
    'CORS_ORIGINS',
    'DATA_DIR',
    'DREAMING_DEBOUNCE_SECONDS',
    'DREAMING_THRESHOLD',
    'EMBED_BATCH_SIZE',
    'EMBED_CACHE_SIZE',
    'EMBED_DOCUMENT_CACHE_SIZE',
    'EMBED_MAX_CHARS',
    'EMBED_THREADS',
    'EMBEDDER',
    'EPISODE_TTL_DAYS',
    'EXPIRY_INTERVAL_SECONDS',
    'EXTRACT_WORKER_NICE',
    'EXTRACT_WORKERS',
    'GRAPH_ENABLED',
    'GRAPH_NAME_INDEX_ENTITIES',
    'HOST',
    'KUZU_BUFFER_POOL_MB',
    'KUZU_PATH',
    'LLM_API_KEY',
    'LLM_BASE_URL',
    'LLM_MODEL',
    'LOG_FORMAT',
    'LOG_LEVEL',
    'MAX_BATCH_ITEMS',
    'MAX_BODY_BYTES',
    'MAX_DOCUMENT_BYTES',
    'MAX_TEXT_BYTES',
    'MODEL_CACHE_DIR',
    'PORT',
    'QDRANT_API_KEY',
    'QDRANT_URL',
    'QUERY_BATCH_MAX',
    'QUERY_BATCH_MS',
    'REDIS_URL',
    'SEARCH_CONCURRENCY',
    'SEARCH_OVERLAP_THREADS',
    'SPACY_MODEL',
    'STOP_BUDGET_S',
    'VECTOR_PAYLOAD_CACHE',
    'VECTOR_PAYLOAD_CACHE_MB',
    'VECTOR_PAYLOAD_WARM',
    'VECTOR_QUANTIZATION',
    'VECTOR_SEARCH_THREADS',
    'VECTOR_SEGMENT_KB',
    'VECTOR_STORAGE',
    'WORKER_THREADS',
]


def test_the_readme_settings_table_is_the_generated_one():
    readme = (ROOT / 'README.md').read_text(encoding='utf-8')
    assert START in readme and END in readme, 'README.md lost its settings markers'
    held = readme.split(START, 1)[1].split(END, 1)[0].strip()
    assert held == markdown_table().strip(), (
        'README.md settings table is stale: run `python -m core.settings_table` and paste it '
        'between the settings markers'
    )


def test_every_known_variable_is_still_a_setting_in_one_group():
    assert sorted(f'{n.upper()}' for n in FLAT) == sorted(NAMES)
    assert sum(len(model.model_fields) for model in GROUPS.values()) == len(FLAT)


def test_each_variable_sets_its_grouped_field_and_reads_flat_too(tmp_path: Path):
    settings = Settings.load(
        {
            'KG_PORT': '9001',
            'KG_KUZU_BUFFER_POOL_MB': '64',
            'KG_EMBEDDER': 'hash',
            'KG_MAX_TEXT_BYTES': '100',
            'KG_WORKER_THREADS': '3',
            'KG_VECTOR_STORAGE': 'mmap',
            'KG_DATA_DIR': str(tmp_path),
        }
    )
    assert (settings.server.port, settings.port) == (9001, 9001)
    assert (settings.graph.kuzu_buffer_pool_mb, settings.kuzu_buffer_pool_mb) == (64, 64)
    assert (settings.recall.embedder, settings.embedder) == ('hash', 'hash')
    assert (settings.limits.max_text_bytes, settings.jobs.worker_threads) == (100, 3)
    assert settings.vectors.vector_storage == 'mmap'
    assert settings.graph_path == tmp_path / 'graph.kuzu'


def test_flat_accessors_cover_every_setting_and_read_its_group():
    flat = {name: v for name, v in vars(Settings).items() if isinstance(v, _Flat)}
    assert {name: v.group for name, v in flat.items()} == FLAT
    settings = Settings()
    for name, group in FLAT.items():
        assert getattr(settings, name) == getattr(getattr(settings, group), name)


@pytest.mark.parametrize('name', ['KG_NOPE', 'KG_GRAPH', 'KG_SERVER', 'KG_DATADIR'])
def test_unknown_variables_are_still_refused(name: str):
    with pytest.raises(ConfigurationError, match=name):
        Settings.load({name: '1'})


def test_a_bad_value_names_its_variable_not_its_group():
    with pytest.raises(ConfigurationError, match=r'kuzu_buffer_pool_mb: .*greater than or equal'):
        Settings.load({'KG_KUZU_BUFFER_POOL_MB': '1'})
    with pytest.raises(ConfigurationError, match='KG_REDIS_URL needs KG_QDRANT_URL'):
        Settings.load({'KG_REDIS_URL': 'redis://x'})


def test_a_file_takes_flat_keys_or_group_tables_and_variables_win(tmp_path: Path):
    path = tmp_path / 'mnemos.toml'
    path.write_text('port = 9100\n[graph]\nextract_workers = 0\nspacy_model = "x"\n')
    settings = Settings.load({'KG_SPACY_MODEL': 'y'}, config_file=path)
    assert (settings.port, settings.extract_workers, settings.spacy_model) == (9100, 0, 'y')
    path.write_text('[graph]\nnope = 1\n')
    with pytest.raises(ConfigurationError, match='nope'):
        Settings.load({}, config_file=path)


def test_copies_and_constructors_take_flat_names():
    settings = Settings.model_validate({'api_token': 'settings-token-0123', 'graph_enabled': False})
    assert (settings.server.api_token, settings.graph.graph_enabled) == (
        'settings-token-0123',
        False,
    )
    copied = settings.model_copy(update={'api_token': None, 'port': 1234})
    assert (copied.server.api_token, copied.api_token, copied.port) == (None, None, 1234)
    assert copied.graph_enabled is False
    assert Settings.model_validate_json(settings.model_dump_json()) == settings
    with pytest.raises((AttributeError, ValueError)):  # frozen either way
        settings.port = 1  # type: ignore[misc]


def test_descriptions_say_what_a_knob_does_not_which_run_measured_it():
    for model in GROUPS.values():
        for name, info in model.model_fields.items():
            assert info.description, f'{name} has no description'
            narration = re.search(
                r'bench/|measured|requests/s|searches/s|\brun \d', info.description
            )
            assert narration is None, f'{name}: {info.description}'
