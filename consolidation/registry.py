"""Job handlers by name: plain functions of (services, params). Actors and queues dispatch here."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.bootstrap import Services

log = logging.getLogger(__name__)

Handler = Callable[['Services', dict[str, Any]], Any]
HANDLERS: dict[str, Handler] = {}


def job(name: str) -> Callable[[Handler], Handler]:
    """Register `fn` as the handler of job `name`."""

    def register(fn: Handler) -> Handler:
        HANDLERS[name] = fn
        return fn

    return register


def run(services: Services, name: str, params: dict[str, Any]) -> Any:
    """Run job `name` now, in this thread."""
    try:
        handler = HANDLERS[name]
    except KeyError:
        raise LookupError(f'no handler for job {name!r}') from None
    return handler(services, params)


@job('index_graph')
def index_graph(services: Services, params: dict[str, Any]) -> int:
    """Extract written chunks into the knowledge graph."""
    return services.recall.index_graph(params['ids'])
