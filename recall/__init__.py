"""Chunk memory: the recall service, its write and read paths, documents and admin."""
