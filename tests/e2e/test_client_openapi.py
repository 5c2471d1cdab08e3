"""The client's models against the service's `/openapi.json`: a request model has exactly the
service's fields, an answer model no field the service does not send, each option TypedDict the
request's optional fields, and each enumeration the service's values. A field added to the service
fails here until the client offers it (clients/python/mnemos_client/models.py and options.py)."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from core.settings import Settings
from mnemos_client import AsyncMnemos, Mnemos
from mnemos_client import models as m
from mnemos_client import options as o

REQUESTS: dict[type[BaseModel], str] = {
    m.MemoryIn: 'MemoryIn',
    m.MemoryPatch: 'MemoryPatch',
    m.SearchFilters: 'SearchFilters',
    m.SearchRequest: 'SearchRequest',
    m.CaptureIn: 'CaptureIn',
    m.BundleIn: 'BundleIn',
    m.KGSearchRequest: 'KGSearchRequest',
    m.SessionMessage: 'SessionMessage',
    m.SessionIn: 'SessionIn',
    m.ForgetIn: 'ForgetIn',
    m.HydrateIn: 'HydrateIn',
    m.DocumentIn: 'DocumentIn',
    m.TokenIn: 'TokenIn',
    m.TeamIn: 'TeamIn',
}

ANSWERS: dict[type[BaseModel], str] = {
    m.ErrorDetail: 'ErrorDetail',
    m.Memory: 'ChunkOut',
    m.Supersession: 'Supersession',
    m.LineRedaction: 'LineRedaction',
    m.MemoryVersion: 'MemoryVersion',
    m.MergeRecord: 'MergeRecord',
    m.Superseder: 'Superseder',
    m.SupersededMemory: 'SupersededMemory',
    m.MemoryHistory: 'MemoryHistory',
    m.UserCount: 'UserCount',
    m.UserList: 'UserList',
    m.WriteResult: 'MemoryWritten',
    m.BatchItemError: 'BatchItemError',
    m.BatchItemResult: 'BatchItem',
    m.BatchResult: 'BatchWritten',
    m.MemoryPage: 'MemoryList',
    m.Deleted: 'Deleted',
    m.Hit: 'Hit',
    m.Receipt: 'Receipt',
    m.SearchResponse: 'SearchResponse',
    m.Stats: 'Stats',
    m.CapturedItem: 'CapturedMemory',
    m.SkippedItem: 'Skipped',
    m.CaptureResult: 'CaptureOut',
    m.Bundle: 'BundleOut',
    m.Entity: 'EntityOut',
    m.Fact: 'FactOut',
    m.GraphPath: 'PathOut',
    m.KGSearchResponse: 'KGSearchResponse',
    m.EntityDetail: 'EntityDetail',
    m.EntityList: 'EntityList',
    m.SessionAccepted: 'JobAccepted',
    m.JobInfo: 'JobInfo',
    m.JobList: 'JobList',
    m.Episode: 'EpisodeOut',
    m.EpisodeList: 'EpisodeList',
    m.LineError: 'LineError',
    m.ImportReport: 'ImportReport',
    m.ForgetReport: 'ForgetReport',
    m.HydrateReport: 'HydrateReport',
    m.DocumentReport: 'DocumentReport',
    m.DocumentDeleted: 'DocumentDeleted',
    m.Token: 'TokenOut',
    m.TokenCreated: 'TokenCreated',
    m.TokenList: 'TokenList',
    m.TokenRevoked: 'TokenRevoked',
    m.Team: 'TeamOut',
    m.WhoAmI: 'WhoAmI',
    m.Check: 'Check',
    m.Health: 'Health',
    m.Ready: 'Ready',
}

# option TypedDict -> (request model, the fields the call takes positionally)
OPTIONS: dict[Any, tuple[str, set[str]]] = {
    o.MemoryOptions: ('MemoryIn', {'scope', 'text'}),
    o.MemoryChanges: ('MemoryPatch', set()),
    o.SearchOptions: ('SearchRequest', {'query', 'scope'}),
    o.CaptureOptions: ('CaptureIn', {'scope', 'text'}),
    o.BundleOptions: ('BundleIn', {'scope', 'message'}),
    o.GraphSearchOptions: ('KGSearchRequest', {'query', 'scope'}),
    o.SessionOptions: ('SessionIn', {'scope', 'messages'}),
}

# every operation of the document -> the client method that calls it, or why there is none
OPERATIONS: dict[str, str] = {
    'healthz': 'health',
    'observability_readyz': 'ready',
    'agents_whoami': 'whoami',
    'memory_create_memory': 'remember',
    'memory_create_memories': 'remember_batch',
    'memory_list_memories': 'list_memories',
    'memory_get_memory': 'get',
    'memory_delete_memory': 'delete',
    'memory_pin_memory': 'pin',
    'memory_unpin_memory': 'unpin',
    'memory_memory_search': 'search',
    'memory_memory_stats': 'stats',
    'updates_update_memory': 'update',
    'updates_memory_history': 'history',
    'updates_list_users': 'users',
    'capture_capture_turn': 'capture',
    'capture_recall_bundle': 'bundle',
    'graph_knowledge_graph_search': 'kg_search',
    'graph_get_entity': 'entity',
    'graph_list_entities': 'entities',
    'sessions_complete': 'complete_session',
    'sessions_job_status': 'job',
    'sessions_jobs': 'jobs',
    'sessions_episodes': 'episodes',
    'admin_export': 'export',
    'admin_import_': 'import_records',
    'admin_forget_': 'forget',
    'admin_snapshot': 'snapshot',
    'admin_hydrate': 'hydrate',
    'admin_index_document': 'index_document',
    'admin_delete_document': 'delete_document',
    'agents_create_token': 'create_token',
    'agents_list_tokens': 'tokens',
    'agents_revoke_token': 'revoke_token',
    'agents_put_team': 'put_team',
    'agents_get_team': 'team',
    'agents_delete_team': 'delete_team',
}
# operations an application does not call: pages and scrapes (`request()` reaches them)
NOT_WRAPPED = {
    'observability_metrics',
    'openapi_openapi_json',
    'openapi_docs',
    'openapi_docs_asset',
    'ui_page',
    'ui_asset',
}

ENUMS: dict[str, Any] = {
    'Kind': m.Kind,
    'Tier': m.Tier,
    'ImportanceLabel': m.ImportanceLabel,
    'Source': m.Source,
    'Trust': m.Trust,
    'SearchMode': m.SearchMode,
    'FusionMethod': m.FusionMethod,
    'WriteStatus': m.WriteStatus,
    'JobStatus': m.JobStatus,
    'Dedupe': m.Dedupe,
    'EntityType': m.EntityType,
}


@pytest.fixture(scope='module')
def document(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from api.app import create_app

    data_dir = Path(tmp_path_factory.mktemp('openapi-data'))
    settings = Settings.load(
        {},
        data_dir=data_dir,
        api_token='client-openapi-token-0123456789a',
        embedder='hash',
        extract_workers=0,
    )
    app = create_app(settings)
    try:
        yield app.test_client().get('/openapi.json').get_json()
    finally:
        app.extensions['mnemos'].close()


@pytest.fixture(scope='module')
def schemas(document: dict[str, Any]) -> dict[str, Any]:
    return dict(document['components']['schemas'])


def test_every_operation_has_a_client_method_in_both_clients(document: dict[str, Any]) -> None:
    operations = {
        op['operationId']
        for methods in document['paths'].values()
        for op in methods.values()
        if isinstance(op, dict) and 'operationId' in op
    }
    unknown = operations - set(OPERATIONS) - NOT_WRAPPED
    assert not unknown, (
        f'operations without a client method: {sorted(unknown)} (add one to both clients in '
        'clients/python/mnemos_client, or name the operation in NOT_WRAPPED)'
    )
    for name in OPERATIONS.values():
        assert callable(getattr(Mnemos, name)) and callable(getattr(AsyncMnemos, name)), name


@pytest.mark.parametrize('model', list(REQUESTS), ids=lambda c: c.__name__)
def test_a_request_model_has_exactly_the_services_fields(
    schemas: dict[str, Any], model: type[BaseModel]
) -> None:
    server = schemas[REQUESTS[model]]
    ours, theirs = set(model.model_fields), set(server['properties'])
    assert ours == theirs, (
        f'missing here: {theirs - ours}; unknown there: {ours - theirs} '
        '(clients/python/mnemos_client/models.py, and options.py for a call option)'
    )
    required = {n for n, f in model.model_fields.items() if f.is_required()}
    assert required == set(server.get('required', [])), model.__name__


@pytest.mark.parametrize('model', list(ANSWERS), ids=lambda c: c.__name__)
def test_an_answer_model_reads_only_fields_the_service_sends(
    schemas: dict[str, Any], model: type[BaseModel]
) -> None:
    server = schemas[ANSWERS[model]]
    theirs = set(server['properties'])
    assert set(model.model_fields) <= theirs, set(model.model_fields) - theirs
    required = {n for n, f in model.model_fields.items() if f.is_required()}
    assert required <= set(server.get('required', [])), required - set(server.get('required', []))


@pytest.mark.parametrize('options', list(OPTIONS), ids=lambda c: c.__name__)
def test_the_typed_options_are_the_requests_other_fields(
    schemas: dict[str, Any], options: Any
) -> None:
    name, positional = OPTIONS[options]
    assert set(typing.get_type_hints(options)) == set(schemas[name]['properties']) - positional


@pytest.mark.parametrize('name', list(ENUMS))
def test_the_enumerations_match(schemas: dict[str, Any], name: str) -> None:
    assert set(typing.get_args(ENUMS[name])) == set(schemas[name]['enum'])
