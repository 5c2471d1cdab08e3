"""Process roles: which process owns the knowledge graph.

Kuzu admits one read-write process per database, so exactly one process (the embedded service,
or the API process in server mode) opens the graph: the owner. Worker processes are clients: the
graph work they cause (indexing written chunks, forgetting deleted ones) goes to the owner
through the graph queue.
"""

from __future__ import annotations

from enum import StrEnum


class GraphRole(StrEnum):
    """This process's relation to the knowledge graph."""

    OFF = 'off'  # no graph at all (KG_GRAPH_ENABLED=false)
    OWNER = 'owner'  # opens the graph: reads it, indexes and forgets chunks in it
    CLIENT = 'client'  # another process owns it: graph writes are queued to that process
