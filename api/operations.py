"""Every built-in route, as the OpenAPI document describes it (one `Operation` per route).

See api/openapi.py for what an entry says and how to add one.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from api import admin, agents, capture, graph, memory, sessions, updates
from api.openapi import Operation, Raw, register
from api.responses import (
    BatchWritten,
    BundleOut,
    CaptureOut,
    Deleted,
    DocumentDeleted,
    EntityList,
    EpisodeList,
    Health,
    JobAccepted,
    JobList,
    MemoryList,
    MemoryWritten,
    Ready,
    TeamOut,
    TokenCreated,
    TokenList,
    TokenRevoked,
    WhoAmI,
)
from consolidation.forget import ForgetIn, ForgetReport
from consolidation.models import SessionIn
from core.scopes import ScopeId
from jobs.models import JobInfo
from kg.models import EntityDetail, KGSearchRequest, KGSearchResponse
from recall.admin.service import HydrateReport, ImportReport
from recall.documents.index import DocumentReport
from recall.history import MemoryHistory, UserList
from recall.schemas import ChunkOut, MemoryIn, SearchRequest, SearchResponse, Stats
from recall.write.updates import MemoryPatch


class EntityArgs(BaseModel):
    """Query of `GET /v1/kg/entities/{entity_id}`."""

    model_config = ConfigDict(extra='forbid')

    scope: ScopeId


MEMORY_ID = {'ident': 'memory id (a uuid) from a write or a search'}
SCOPED = (403,)

register(
    # ---- service ------------------------------------------------------------------------------
    Operation(
        'get',
        '/healthz',
        'healthz',
        'Liveness: the process answers',
        responses={200: Health},
        auth=False,
        tag='service',
    ),
    Operation(
        'get',
        '/readyz',
        'observability.readyz',
        'Readiness: every store answers a probe',
        responses={200: Ready, 503: Ready},
        auth=False,
        tag='service',
    ),
    Operation(
        'get',
        '/metrics',
        'observability.metrics',
        'Prometheus metrics (admin token)',
        responses={200: Raw('text/plain; version=0.0.4', 'Prometheus text exposition format')},
        errors=(403,),
        tag='service',
    ),
    Operation(
        'get',
        '/openapi.json',
        'openapi.openapi_json',
        'This OpenAPI 3.1 document',
        responses={200: Raw('application/json', 'OpenAPI 3.1', {'type': 'object'})},
        auth=False,
        tag='service',
    ),
    Operation(
        'get',
        '/docs',
        'openapi.docs',
        'Interactive API docs (Swagger UI, works offline)',
        responses={200: Raw('text/html', 'Swagger UI page')},
        auth=False,
        tag='service',
    ),
    Operation(
        'get',
        '/docs/assets/{name}',
        'openapi.docs_asset',
        'A Swagger UI asset of /docs',
        responses={200: Raw('*/*', 'CSS, JavaScript or an icon')},
        path_params={'name': 'swagger-ui.css, swagger-ui-bundle.js or favicon-32x32.png'},
        auth=False,
        tag='service',
    ),
    # ---- memories -----------------------------------------------------------------------------
    Operation(
        'post',
        '/v1/memories',
        'memory.create_memory',
        'Write one memory',
        body=MemoryIn,
        responses={201: MemoryWritten, 200: MemoryWritten},
        errors=SCOPED,
        description='201 when new; 200 when it merged into, or was skipped as, a duplicate.',
    ),
    Operation(
        'post',
        '/v1/memories/batch',
        'memory.create_memories',
        'Write many memories',
        body=memory.BatchIn,
        responses={200: BatchWritten},
        description='Each item is a MemoryIn, validated on its own: a bad item gets its error '
        'in `results`, the others are written.',
    ),
    Operation(
        'get',
        '/v1/memories',
        'memory.list_memories',
        "List (or search) a scope's memories",
        query=memory.ListArgs,
        responses={200: MemoryList},
        errors=SCOPED,
    ),
    Operation(
        'get',
        '/v1/memories/{ident}',
        'memory.get_memory',
        'One memory',
        path_params=MEMORY_ID,
        responses={200: ChunkOut},
    ),
    Operation(
        'delete',
        '/v1/memories/{ident}',
        'memory.delete_memory',
        'Delete one memory',
        path_params=MEMORY_ID,
        responses={200: Deleted},
        errors=SCOPED,
    ),
    Operation(
        'post',
        '/v1/memories/{ident}/pin',
        'memory.pin_memory',
        'Pin: Core, never demoted',
        path_params=MEMORY_ID,
        responses={200: ChunkOut},
        errors=SCOPED,
    ),
    Operation(
        'post',
        '/v1/memories/{ident}/unpin',
        'memory.unpin_memory',
        'Unpin: decays again',
        path_params=MEMORY_ID,
        responses={200: ChunkOut},
        errors=SCOPED,
    ),
    Operation(
        'post',
        '/v1/memory_search',
        'memory.memory_search',
        'Hybrid recall with a receipt',
        body=SearchRequest,
        responses={200: SearchResponse},
        errors=SCOPED,
    ),
    Operation(
        'get',
        '/v1/memory/stats',
        'memory.memory_stats',
        'Counts by tier, kind and scope',
        query=memory.StatsArgs,
        responses={200: Stats},
        errors=SCOPED,
        description='Without `scope`, every scope: admin token only.',
    ),
    Operation(
        'post',
        '/v1/memories/capture',
        'capture.capture_turn',
        'Capture a conversation turn',
        body=capture.CaptureIn,
        responses={200: CaptureOut},
        errors=SCOPED,
    ),
    Operation(
        'post',
        '/v1/recall/bundle',
        'capture.recall_bundle',
        'Memories packed for one turn',
        body=capture.BundleIn,
        responses={200: BundleOut},
        errors=SCOPED,
    ),
    # ---- knowledge graph ----------------------------------------------------------------------
    Operation(
        'post',
        '/v1/knowledge_graph_search',
        'graph.knowledge_graph_search',
        'Entities, facts valid at as_of, and paths',
        body=KGSearchRequest,
        responses={200: KGSearchResponse},
        errors=SCOPED,
        tag='graph',
    ),
    Operation(
        'get',
        '/v1/kg/entities/{entity_id}',
        'graph.get_entity',
        'One entity: aliases, current facts and their history',
        query=EntityArgs,
        path_params={'entity_id': 'entity id from knowledge_graph_search'},
        responses={200: EntityDetail},
        errors=(403, 503),
        tag='graph',
    ),
    # ---- sessions and jobs --------------------------------------------------------------------
    Operation(
        'post',
        '/v1/sessions/{session_key}/complete',
        'sessions.complete',
        'Consolidate a finished session into an episode (async)',
        body=SessionIn,
        responses={202: JobAccepted},
        errors=SCOPED,
        tag='sessions',
        path_params={'session_key': 'your session id, [A-Za-z0-9_.:-]{1,200}'},
    ),
    Operation(
        'get',
        '/v1/jobs/{job_id}',
        'sessions.job_status',
        "A job's state",
        path_params={'job_id': 'job id from a 202 response'},
        responses={200: JobInfo},
        tag='sessions',
    ),
    Operation(
        'get',
        '/v1/episodes',
        'sessions.episodes',
        'Episodes of a scope, newest first',
        query=sessions.EpisodesQuery,
        responses={200: EpisodeList},
        errors=SCOPED,
        tag='sessions',
    ),
    # ---- admin and documents ------------------------------------------------------------------
    Operation(
        'get',
        '/v1/admin/export',
        'admin.export',
        'Export memories as JSONL (admin)',
        query=admin.ExportArgs,
        errors=(403,),
        tag='admin',
        responses={200: Raw('application/x-ndjson', 'one chunk object per line')},
    ),
    Operation(
        'post',
        '/v1/admin/import',
        'admin.import_',
        'Import JSONL chunk records (admin)',
        query=admin.ImportArgs,
        body=Raw('application/x-ndjson', 'one chunk object per line'),
        responses={200: ImportReport},
        errors=(403,),
        tag='admin',
    ),
    Operation(
        'post',
        '/v1/admin/forget',
        'admin.forget_',
        'Forget a user or a scope: memories, episodes, graph mentions and facts (admin; an '
        'agent token within a scope it may write)',
        body=ForgetIn,
        responses={200: ForgetReport},
        errors=(403,),
        tag='admin',
    ),
    Operation(
        'get',
        '/v1/admin/snapshot',
        'admin.snapshot',
        "Markdown of a scope's Core memories",
        query=admin.SnapshotArgs,
        errors=(403,),
        tag='admin',
        responses={200: Raw('text/markdown', 'the snapshot, readable by POST /v1/admin/hydrate')},
    ),
    Operation(
        'post',
        '/v1/admin/hydrate',
        'admin.hydrate',
        'Write a snapshot back as Core memories',
        body=admin.HydrateIn,
        responses={200: HydrateReport},
        errors=(403,),
        tag='admin',
    ),
    Operation(
        'post',
        '/v1/documents',
        'admin.index_document',
        'Index a Markdown document',
        body=admin.DocumentIn,
        responses={200: DocumentReport},
        errors=SCOPED,
        tag='documents',
    ),
    Operation(
        'delete',
        '/v1/documents',
        'admin.delete_document',
        "Delete a document's chunks",
        query=admin.DocumentArgs,
        responses={200: DocumentDeleted},
        errors=SCOPED,
        tag='documents',
    ),
    # ---- tokens and teams ---------------------------------------------------------------------
    Operation(
        'get',
        '/v1/whoami',
        'agents.whoami',
        'Who the token stands for: admin, or an agent and its scopes',
        responses={200: WhoAmI},
        tag='agents',
    ),
    Operation(
        'post',
        '/v1/tokens',
        'agents.create_token',
        'Issue an agent token (admin)',
        body=agents.TokenIn,
        responses={201: TokenCreated},
        errors=(403,),
        tag='agents',
    ),
    Operation(
        'get',
        '/v1/tokens',
        'agents.list_tokens',
        'Registered tokens, never secrets (admin)',
        query=agents.TokenArgs,
        responses={200: TokenList},
        errors=(403,),
        tag='agents',
    ),
    Operation(
        'delete',
        '/v1/tokens/{token_id}',
        'agents.revoke_token',
        'Revoke a token (admin)',
        path_params={'token_id': 'token_id from POST /v1/tokens'},
        responses={200: TokenRevoked},
        errors=(403,),
        tag='agents',
    ),
    Operation(
        'put',
        '/v1/teams/{team_id}',
        'agents.put_team',
        'Create or replace a team (admin)',
        path_params={'team_id': 'team id, [A-Za-z0-9_.-]{1,128}'},
        body=agents.TeamIn,
        responses={200: TeamOut},
        errors=(403,),
        tag='agents',
    ),
    Operation(
        'get',
        '/v1/teams/{team_id}',
        'agents.get_team',
        'A team (admin, leader, members)',
        path_params={'team_id': 'team id'},
        responses={200: TeamOut},
        errors=(422,),
        tag='agents',
    ),
    Operation(
        'delete',
        '/v1/teams/{team_id}',
        'agents.delete_team',
        'Delete a team (admin)',
        path_params={'team_id': 'team id'},
        responses={200: Deleted},
        errors=(403, 422),
        tag='agents',
    ),
)

register(
    Operation(
        'get',
        '/v1/kg/entities',
        'graph.list_entities',
        'Live entities of a scope, most mentioned first',
        query=graph.EntitiesArgs,
        responses={200: EntityList},
        errors=(403,),
        tag='graph',
    )
)

# edits, history and users
register(
    Operation(
        'patch',
        '/v1/memories/{ident}',
        'updates.update_memory',
        "Edit a memory's text, tags, importance, pin or metadata",
        path_params=MEMORY_ID,
        body=MemoryPatch,
        responses={200: ChunkOut},
        errors=SCOPED,
        description='The id stays. The replaced state is kept as a version (GET .../history); '
        'searches read only the current one. A new text is embedded and extracted into the '
        'graph again, and the facts only the old text said are retracted.',
    ),
    Operation(
        'get',
        '/v1/memories/{ident}/history',
        'updates.memory_history',
        "A memory's versions, merges and supersession",
        path_params=MEMORY_ID,
        responses={200: MemoryHistory},
    ),
    Operation(
        'get',
        '/v1/jobs',
        'sessions.jobs',
        'The newest jobs of a scope',
        query=sessions.JobsQuery,
        responses={200: JobList},
        errors=SCOPED,
        tag='sessions',
        description='Without `scope`, every job (system jobs too): admin token only.',
    ),
    Operation(
        'get',
        '/v1/users',
        'updates.list_users',
        'Users with memories in a scope',
        query=updates.UsersArgs,
        responses={200: UserList},
        errors=SCOPED,
    ),
)

# the memory inspector page (static; it asks for a token and calls the routes above)
register(
    Operation(
        'get',
        '/ui',
        'ui.page',
        'The memory inspector page',
        responses={200: Raw('text/html', 'the inspector; it asks for a token')},
        auth=False,
        tag='service',
    ),
    Operation(
        'get',
        '/ui/{name}',
        'ui.asset',
        'A script or stylesheet of the inspector',
        responses={200: Raw('*/*', 'JavaScript or CSS')},
        path_params={'name': "file name of the page's assets"},
        auth=False,
        tag='service',
    ),
)
