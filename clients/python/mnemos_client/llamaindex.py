"""LlamaIndex glue (`pip install 'mnemos-client[llamaindex]'`): a retriever over Mnemos' hybrid
recall, and function tools an agent uses to remember and recall.

    retriever = MnemosRetriever(Mnemos(), scope='agent:main', top_k=5)
    nodes = retriever.retrieve('what does Alice drink?')
    tools = mnemos_tools(Mnemos(), scope='agent:main')   # remember_memory, search_memory
"""

from __future__ import annotations

from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.core.tools import FunctionTool

from mnemos_client import models as m
from mnemos_client.client import Mnemos


def hit_node(hit: m.Hit) -> NodeWithScore:
    """A search hit as a scored LlamaIndex `TextNode` (kind, tier, scope… in its metadata)."""
    metadata = {
        'kind': hit.kind,
        'tier': hit.tier,
        'scope': hit.scope,
        'user_id': hit.user_id,
        'created_at': hit.created_at.isoformat(),
        **hit.metadata,
    }
    return NodeWithScore(
        node=TextNode(id_=hit.id, text=hit.text, metadata=metadata), score=hit.score
    )


class MnemosRetriever(BaseRetriever):
    """Nodes from Mnemos' hybrid recall over one scope; `options` are `search` options."""

    def __init__(self, client: Mnemos, scope: str, top_k: int = 5, **options: Any) -> None:
        super().__init__()
        self.client = client
        self.scope = scope
        self.top_k = top_k
        self.options = options

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        found = self.client.search(
            query_bundle.query_str, self.scope, top_k=self.top_k, **self.options
        )
        return [hit_node(hit) for hit in found.hits]


def mnemos_tools(client: Mnemos, scope: str, user_id: str | None = None) -> list[FunctionTool]:
    """`remember_memory` and `search_memory` over one scope (and user, if given)."""

    def remember_memory(text: str, kind: str = 'note') -> str:
        """Store a durable memory (a fact, preference or instruction) for later."""
        written = client.remember(scope, text, kind=kind, user_id=user_id, source='tool')  # type: ignore[arg-type]
        if written.status == 'skipped':
            return f'not stored: {written.reason}'
        return f'{written.status}: {written.id}'

    def search_memory(query: str, top_k: int = 5) -> str:
        """Recall stored memories relevant to a question."""
        hits = client.search(query, scope, top_k=top_k, user_id=user_id).hits
        return '\n'.join(f'- {h.text}' for h in hits) or 'no memory matches'

    return [FunctionTool.from_defaults(remember_memory), FunctionTool.from_defaults(search_memory)]


__all__ = ['MnemosRetriever', 'hit_node', 'mnemos_tools']
