"""A Chinese query's BM25 IDF is counted over the scopes it searches; other queries keep the
collection's (recall.read.channels)."""

from __future__ import annotations

from recall.read.channels import ChannelReader
from recall.schemas import SearchMode, SearchRequest
from vectors.bm25 import Bm25Encoder
from vectors.embedders import HashEmbedder
from vectors.memory import InMemoryVectorStore
from vectors.models import SparseVector


def _sparse(query: str) -> SparseVector:
    reader = ChannelReader(InMemoryVectorStore(), HashEmbedder(), Bm25Encoder())
    req = SearchRequest(query=query, scope='agent:a', mode=SearchMode.BM25)
    vector: SparseVector = reader.encode(req, {})['bm25'].get()
    return vector


def test_a_chinese_query_counts_its_idf_over_the_scopes_it_searches():
    assert _sparse('我喜欢什么动物？').scoped_idf is True
    assert _sparse('Mnemos 项目用什么做图存储？').scoped_idf is True


def test_an_english_query_keeps_the_collections_idf():
    assert _sparse('What animal do I like?').scoped_idf is False
    # a Chinese name in an English question leaves the question English
    assert _sparse('What does 李娜 do for a living?').scoped_idf is False
