"""The MCP tools: small input models an LLM can fill, lean answers, and the client call of each.

The tools take what a model decides (the query, the text, the id) and nothing else: the scope
and the user come from the server's defaults (`--scope`/`MNEMOS_SCOPE`, `--user`/`MNEMOS_USER`,
else an agent token's own scope), and ranking stays with the service's calibrated defaults
(no fusion, weights, floors or explain knobs). Answers keep what a model reads (ids, texts,
kinds, times), not the receipts and score parts the HTTP API returns for debugging.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, cast

import mcp_types as types
from pydantic import BaseModel, ConfigDict, Field

from mnemos_client import UUID_PATTERN, InvalidRequest, Mnemos
from mnemos_client import Memory as StoredMemory
from mnemos_client.models import Kind as ClientKind


# the client's `Kind` values as an enum, so each tool schema names the type once (`$defs/Kind`);
# tests/unit/test_client_package.py keeps the two equal
class Kind(StrEnum):
    """What a memory is; drives default tier and importance."""

    ENTITY = 'entity'
    PREFERENCE = 'preference'
    FACT = 'fact'
    PROCEDURE = 'procedure'
    PROJECT_STATE = 'project_state'
    RELATIONSHIP = 'relationship'
    REMEMBER = 'remember'
    SUMMARY = 'summary'
    LESSON = 'lesson'
    FAILURE = 'failure'
    NOTE = 'note'
    DOCUMENT = 'document'
    EPISODIC = 'episodic'
    DREAM = 'dream'


ID_CHARS = r'[A-Za-z0-9_.-]{1,128}'
SCOPE_PATTERN = rf'^(global|agent:{ID_CHARS}(:{ID_CHARS})?|team:{ID_CHARS})$'

Scope = Annotated[
    str | None,
    Field(
        default=None,
        pattern=SCOPE_PATTERN,
        description='agent:<id>[:<channel>], team:<id> or global; omit for the default scope.',
    ),
]
UserId = Annotated[
    str | None,
    Field(
        default=None,
        pattern=rf'^{ID_CHARS}$',
        description='The user it is about; omit for the default user.',
    ),
]
MemoryId = Annotated[
    str, Field(pattern=UUID_PATTERN, description='Memory id (a uuid) from a search or a write.')
]


@dataclass(frozen=True)
class Defaults:
    """The scope and user a tool call uses when its arguments leave them out."""

    scope: str | None = None
    user_id: str | None = None


NO_DEFAULTS = Defaults()


def check_defaults(defaults: Defaults) -> str | None:
    """What is wrong with configured defaults (a malformed scope or user id), or None."""
    if defaults.scope is not None and not re.match(SCOPE_PATTERN, defaults.scope):
        return f'--scope/MNEMOS_SCOPE {defaults.scope!r} is not a scope: use {SCOPE_PATTERN}'
    if defaults.user_id is not None and not re.match(rf'^{ID_CHARS}$', defaults.user_id):
        return f'--user/MNEMOS_USER {defaults.user_id!r} is not a user id ({ID_CHARS})'
    return None


@dataclass(frozen=True)
class Caller:
    """Who a tool call runs as: a client carrying their token, and their defaults."""

    client: Mnemos
    defaults: Defaults = NO_DEFAULTS

    def scope(self, given: str | None) -> str:
        """The scope argument, else the default; a tool error naming `scope` when neither."""
        scope = given or self.defaults.scope
        if scope is None:
            message = 'no default scope: pass scope, or start mnemos mcp with --scope'
            raise InvalidRequest(
                422,
                'invalid_request',
                f'scope: {message}',
                [{'loc': ['scope'], 'msg': message, 'type': 'missing'}],
            )
        return scope

    def user(self, given: str | None) -> str | None:
        """The user argument, else the default user (None: no user)."""
        return given or self.defaults.user_id


class _In(BaseModel):
    model_config = ConfigDict(extra='forbid')


# ---- inputs ---------------------------------------------------------------------------------


class SearchIn(_In):
    query: str = Field(min_length=1, max_length=2000, description='What to look for.')
    scope: Scope
    user_id: UserId
    kind: Kind | None = Field(default=None, description='Only memories of this kind.')
    top_k: int = Field(default=8, ge=1, le=50, description='How many hits.')


class GraphIn(_In):
    query: str = Field(min_length=1, max_length=2000, description='Entity or question.')
    scope: Scope
    user_id: UserId
    as_of: datetime | None = Field(
        default=None, description='Facts valid at this time (ISO 8601); default now.'
    )


class AddIn(_In):
    text: str = Field(min_length=1, max_length=32_000, description='The conversation turn.')
    role: Literal['user', 'assistant'] = Field(default='user', description='Who said it.')
    scope: Scope
    user_id: UserId


class RememberIn(_In):
    text: str = Field(min_length=1, max_length=32_000, description='The memory, verbatim.')
    kind: Kind = Field(default=Kind.NOTE, description='What it is.')
    importance: float | None = Field(default=None, ge=0, le=1, description='0-1.')
    tags: list[str] = Field(default_factory=list, max_length=32, description='Labels.')
    pinned: bool = Field(default=False, description='Core memory, never demoted.')
    scope: Scope
    user_id: UserId


class MemoryRef(_In):
    id: MemoryId


class UpdateIn(_In):
    id: MemoryId
    text: str | None = Field(default=None, min_length=1, max_length=32_000, description='New text.')
    tags: list[str] | None = Field(default=None, max_length=32, description='Replaces the tags.')
    importance: float | None = Field(default=None, ge=0, le=1, description='0-1.')
    reason: str | None = Field(default=None, max_length=500, description='Why, for the history.')


class ListIn(_In):
    scope: Scope
    kind: Kind | None = Field(default=None, description='Only memories of this kind.')
    limit: int = Field(default=20, ge=1, le=100, description='Page size.')
    offset: str | None = Field(default=None, max_length=64, description='`next` of the last page.')


class BundleIn(_In):
    message: str = Field(min_length=1, max_length=8000, description='The message to answer.')
    max_tokens: int = Field(default=800, ge=16, le=8000, description='Token budget.')
    scope: Scope
    user_id: UserId


class ForgetIn(_In):
    confirm: Literal[True] = Field(description='true: the user asked to be forgotten.')
    user_id: UserId
    scope: Scope


# ---- answers --------------------------------------------------------------------------------


class Hit(BaseModel):
    id: str
    text: str
    kind: str
    score: float
    created_at: datetime


class Hits(BaseModel):
    hits: list[Hit]


class Fact(BaseModel):
    fact: str
    subject: str
    predicate: str
    object: str
    valid_from: datetime | None
    valid_to: datetime | None
    current: bool


class Graph(BaseModel):
    entities: list[str]
    facts: list[Fact]
    warnings: list[str] = []  # e.g. an "I" in the question that no user resolves


class Stored(BaseModel):
    id: str | None
    kind: str
    text: str
    status: str


class Added(BaseModel):
    stored: list[Stored]
    skipped: str | None = None


class Written(BaseModel):
    status: str
    id: str | None
    reason: str | None = None


class Memory(BaseModel):
    id: str
    text: str
    kind: str
    scope: str
    user_id: str | None
    tier: str
    importance: float
    pinned: bool
    tags: list[str]
    created_at: datetime
    updated_at: datetime
    superseded_by: str | None


class Pinned(BaseModel):
    id: str
    pinned: bool
    tier: str


class Page(BaseModel):
    items: list[Memory]
    next: str | None


class Deleted(BaseModel):
    deleted: str


class Packed(BaseModel):
    text: str
    ids: list[str]


class Forgotten(BaseModel):
    memories: int
    episodes: int
    graph_facts: int | None


def _memory(chunk: StoredMemory) -> Memory:
    return Memory.model_validate(chunk.model_dump(mode='json'))


# ---- calls ----------------------------------------------------------------------------------


def _search(c: Caller, a: SearchIn) -> Hits:
    filters = {'kinds': [a.kind]} if a.kind else {}
    found = c.client.search(
        a.query, c.scope(a.scope), user_id=c.user(a.user_id), top_k=a.top_k, filters=filters
    )
    return Hits(hits=[Hit.model_validate(h.model_dump(mode='json')) for h in found.hits])


def _graph(c: Caller, a: GraphIn) -> Graph:
    user = c.user(a.user_id)  # "I" in the question: the default user, when there is one
    found = c.client.kg_search(a.query, c.scope(a.scope), as_of=a.as_of, user_id=user)
    facts = [Fact.model_validate(f.model_dump(mode='json')) for f in found.facts]
    entities = [e.name for e in found.entities]
    return Graph(entities=entities, facts=facts, warnings=found.warnings)


def _add(c: Caller, a: AddIn) -> Added:
    done = c.client.capture(c.scope(a.scope), a.text, role=a.role, user_id=c.user(a.user_id))
    stored = [Stored.model_validate(s.model_dump(mode='json')) for s in done.stored]
    return Added(stored=stored, skipped=done.skipped)


def _remember(c: Caller, a: RememberIn) -> Written:
    fields = a.model_dump(exclude={'scope', 'user_id', 'text'}, exclude_none=True)
    done = c.client.remember(c.scope(a.scope), a.text, user_id=c.user(a.user_id), **fields)
    return Written(status=done.status, id=done.id, reason=done.reason)


def _update(c: Caller, a: UpdateIn) -> Memory:
    return _memory(c.client.update(a.id, **a.model_dump(exclude={'id'}, exclude_none=True)))


def _list(c: Caller, a: ListIn) -> Page:
    page = c.client.list_memories(
        c.scope(a.scope), kind=cast(ClientKind | None, a.kind), limit=a.limit, offset=a.offset
    )
    return Page(items=[_memory(m) for m in page.items], next=page.next)


def _delete(c: Caller, a: MemoryRef) -> Deleted:
    c.client.delete(a.id)
    return Deleted(deleted=a.id)


def _bundle(c: Caller, a: BundleIn) -> Packed:
    done = c.client.bundle(
        c.scope(a.scope), a.message, max_tokens=a.max_tokens, user_id=c.user(a.user_id)
    )
    return Packed(text=done.text, ids=done.ids)


def _forget(c: Caller, a: ForgetIn) -> Forgotten:
    user = c.user(a.user_id)
    if user is None:
        message = 'no default user: pass user_id, or start mnemos mcp with --user'
        detail = {'loc': ['user_id'], 'msg': message, 'type': 'missing'}
        raise InvalidRequest(422, 'invalid_request', f'user_id: {message}', [detail])
    body = {'scope': c.scope(a.scope), 'user_id': user}
    report = c.client.request('POST', '/v1/admin/forget', json=body).json()
    return Forgotten.model_validate(report)


def compact(schema: Any, *, optional_null: bool, in_properties: bool = False) -> Any:
    """A JSON schema without what a model does not need: the titles pydantic derives from the
    names, and (inputs) the `null` branch and `default: null` of optional arguments, which are
    left out rather than sent as null. Outputs keep their null branches: answers carry nulls."""
    if isinstance(schema, list):
        return [compact(s, optional_null=optional_null) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if in_properties:
        return {k: compact(v, optional_null=optional_null) for k, v in schema.items()}
    if isinstance(schema.get('$defs'), dict):
        # an enum in $defs carries its class docstring; the field using it has its own
        defs = {
            name: {k: v for k, v in d.items() if not ('enum' in d and k == 'description')}
            for name, d in schema['$defs'].items()
        }
        schema = {**schema, '$defs': defs}
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == 'title' and isinstance(value, str):
            continue
        out[key] = compact(
            value, optional_null=optional_null, in_properties=key in ('properties', '$defs')
        )
    if not optional_null:
        branches = out.get('anyOf')
        if isinstance(branches, list) and {'type': 'null'} in branches and 'default' in out:
            rest = [b for b in branches if b != {'type': 'null'}]
            if len(rest) == 1 and out['default'] is None:
                del out['anyOf'], out['default']
                out = {**rest[0], **out}
    return out


@dataclass(frozen=True)
class MnemosTool:
    """An MCP tool: its input and output models and the client call that answers it."""

    name: str
    description: str
    model: type[BaseModel]
    output: type[BaseModel]
    call: Callable[[Caller, Any], BaseModel]
    read_only: bool = True
    destructive: bool = False

    def input_schema(self) -> dict[str, Any]:
        """The input model's JSON schema, compacted (see `compact`)."""
        return compact(self.model.model_json_schema(), optional_null=False)

    def output_schema(self) -> dict[str, Any]:
        """The output model's JSON schema, without titles."""
        return compact(self.output.model_json_schema(mode='serialization'), optional_null=True)

    def spec(self) -> types.Tool:
        """The tool as `tools/list` shows it."""
        return types.Tool(
            name=self.name,
            description=self.description,
            input_schema=self.input_schema(),
            output_schema=self.output_schema(),
            annotations=types.ToolAnnotations(
                read_only_hint=self.read_only, destructive_hint=self.destructive
            ),
        )


def _tool(
    name: str,
    description: str,
    model: type[BaseModel],
    output: type[BaseModel],
    call: Callable[[Caller, Any], BaseModel],
    *,
    writes: bool = False,
    destroys: bool = False,
) -> MnemosTool:
    return MnemosTool(name, description, model, output, call, not writes, destroys)


TOOLS: tuple[MnemosTool, ...] = (
    _tool(
        'memory_search',
        'Search long-term memory; best hits first. Search before answering.',
        SearchIn,
        Hits,
        _search,
    ),
    _tool(
        'knowledge_graph_search',
        'Facts about people, places and things, with when each was true.',
        GraphIn,
        Graph,
        _graph,
    ),
    _tool(
        'memory_add',
        'Offer a conversation turn: lasting facts, preferences and decisions in it are stored '
        '(deduplicated); small talk is skipped.',
        AddIn,
        Added,
        _add,
        writes=True,
    ),
    _tool(
        'memory_remember', 'Store one memory verbatim.', RememberIn, Written, _remember, writes=True
    ),
    _tool(
        'memory_get',
        'Read one memory.',
        MemoryRef,
        Memory,
        lambda c, a: _memory(c.client.get(a.id)),
    ),
    _tool(
        'memory_update',
        'Correct a memory (text, tags, importance); the old version is kept in its history.',
        UpdateIn,
        Memory,
        _update,
        writes=True,
    ),
    _tool('memory_list', "List a scope's memories, a page at a time.", ListIn, Page, _list),
    _tool(
        'memory_pin',
        'Pin a memory: always kept, never demoted.',
        MemoryRef,
        Pinned,
        lambda c, a: Pinned.model_validate(c.client.pin(a.id).model_dump(mode='json')),
        writes=True,
    ),
    _tool(
        'memory_unpin',
        'Unpin a memory: it ages like the others again.',
        MemoryRef,
        Pinned,
        lambda c, a: Pinned.model_validate(c.client.unpin(a.id).model_dump(mode='json')),
        writes=True,
    ),
    _tool(
        'memory_delete',
        'Delete one memory.',
        MemoryRef,
        Deleted,
        _delete,
        writes=True,
        destroys=True,
    ),
    _tool(
        'recall_bundle',
        'Memories relevant to a message, packed as one text block for the prompt of this turn.',
        BundleIn,
        Packed,
        _bundle,
    ),
    _tool(
        'forget_my_data',
        'Erase everything stored about the user in the scope (memories, conversations, graph '
        'facts). Irreversible: only when the user asks to be forgotten.',
        ForgetIn,
        Forgotten,
        _forget,
        writes=True,
        destroys=True,
    ),
)
