"""Chunk memory: vectors in Qdrant, hybrid recall, ranking and memory management."""
