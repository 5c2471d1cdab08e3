"""Extraction of entities and relations from text (spaCy)."""
