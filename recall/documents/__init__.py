"""Markdown documents as memory: the chunker and the incremental document index."""
