"""Admin operations on chunk memory: export/import, snapshot/hydrate."""
