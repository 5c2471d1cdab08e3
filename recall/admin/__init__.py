"""Admin operations on chunk memory: JSONL export/import (`transfer.py`, `records.py`), Core
snapshot to Markdown and back (`hydrate.py`, `snapshot.py`)."""
