"""Composition root and process entrypoints: the only place adapters are built."""
