"""LangChain glue (`pip install 'mnemos-client[langchain]'`): a retriever over Mnemos' hybrid
recall, and tools an agent uses to remember and recall.

    retriever = MnemosRetriever(client=Mnemos(), scope='agent:main', top_k=5)
    docs = retriever.invoke('what does Alice drink?')
    tools = mnemos_tools(Mnemos(), scope='agent:main')   # remember_memory, search_memory
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, ConfigDict, Field

from mnemos_client import models as m
from mnemos_client.client import Mnemos


def hit_document(hit: m.Hit) -> Document:
    """A search hit as a LangChain `Document` (id, score, kind, tier… in its metadata)."""
    metadata = {
        'id': hit.id,
        'score': hit.score,
        'kind': hit.kind,
        'tier': hit.tier,
        'scope': hit.scope,
        'user_id': hit.user_id,
        'created_at': hit.created_at.isoformat(),
        **hit.metadata,
    }
    return Document(page_content=hit.text, metadata=metadata, id=hit.id)


class MnemosRetriever(BaseRetriever):
    """Documents from Mnemos' hybrid recall over one scope.

    `options` are `search` options (`mode`, `filters`, `min_score`, `user_id`…).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    client: Mnemos
    scope: str
    top_k: int = 5
    options: dict[str, Any] = Field(default_factory=dict)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        found = self.client.search(query, self.scope, top_k=self.top_k, **self.options)
        return [hit_document(hit) for hit in found.hits]


class RememberArgs(BaseModel):
    """Arguments of the `remember_memory` tool."""

    text: str = Field(description='one self-contained fact, preference or instruction to keep')
    kind: m.Kind = Field(default='note', description='what sort of memory it is')


class SearchArgs(BaseModel):
    """Arguments of the `search_memory` tool."""

    query: str = Field(description='what to recall, as a question or keywords')
    top_k: int = Field(default=5, ge=1, le=20, description='how many memories to return')


def mnemos_tools(client: Mnemos, scope: str, user_id: str | None = None) -> list[BaseTool]:
    """`remember_memory` and `search_memory` over one scope (and user, if given)."""

    def remember(text: str, kind: m.Kind = 'note') -> str:
        written = client.remember(scope, text, kind=kind, user_id=user_id, source='tool')
        if written.status == 'skipped':
            return f'not stored: {written.reason}'
        return f'{written.status}: {written.id}'

    def search(query: str, top_k: int = 5) -> str:
        hits = client.search(query, scope, top_k=top_k, user_id=user_id).hits
        return '\n'.join(f'- {h.text}' for h in hits) or 'no memory matches'

    return [
        StructuredTool.from_function(
            remember,
            name='remember_memory',
            description='Store a durable memory (a fact, preference or instruction) for later.',
            args_schema=RememberArgs,
        ),
        StructuredTool.from_function(
            search,
            name='search_memory',
            description='Recall stored memories relevant to a question.',
            args_schema=SearchArgs,
        ),
    ]


__all__ = ['MnemosRetriever', 'RememberArgs', 'SearchArgs', 'hit_document', 'mnemos_tools']
