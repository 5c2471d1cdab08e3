"""Job handlers by name: plain functions of (services, params). Actors and queues dispatch here."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runtime.bootstrap import Services

log = logging.getLogger(__name__)

Handler = Callable[['Services', dict[str, Any]], Any]
HANDLERS: dict[str, Handler] = {}


def job(name: str) -> Callable[[Handler], Handler]:
    """Register `fn` as the handler of job `name`."""

    def register(fn: Handler) -> Handler:
        HANDLERS[name] = fn
        return fn

    return register


# Modules whose handlers register themselves on import; loaded before the first lookup.
HANDLER_MODULES = (
    'consolidation.episodic',
    'consolidation.semantic',
    'consolidation.dedup',
    'consolidation.dreaming',
    'consolidation.expiry',
)
_loaded = False


def load() -> None:
    """Import every handler module once (idempotent)."""
    global _loaded
    if _loaded:
        return
    import importlib

    for module in HANDLER_MODULES:
        importlib.import_module(module)
    _loaded = True


def names() -> list[str]:
    """Every registered job name."""
    load()
    return sorted(HANDLERS)


def run(services: Services, name: str, params: dict[str, Any]) -> Any:
    """Run job `name` now, in this thread."""
    load()
    try:
        handler = HANDLERS[name]
    except KeyError:
        raise LookupError(f'no handler for job {name!r}') from None
    return handler(services, params)


@job('index_graph')
def index_graph(services: Services, params: dict[str, Any]) -> int:
    """Extract written chunks into the knowledge graph."""
    return services.recall.index_graph(params['ids'])
