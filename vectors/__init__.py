"""The shared vector layer: ports, point models, Qdrant adapters, embedders, BM25."""
