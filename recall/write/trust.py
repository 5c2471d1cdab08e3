"""How much the writer trusts a write: tool output is never trusted, and a less
trusted write never merges into nor supersedes a more trusted memory."""

from core.errors import Forbidden
from recall.schemas import MemoryIn
from recall.tiers import Source, Trust

# who an agent token may say wrote a memory: its user's words or a tool's output. `operator` and
# `system` claim the service's operator, `import` and `consolidation` the service itself.
AGENT_SOURCES = frozenset({Source.USER, Source.TOOL})


def trust_of(item: MemoryIn) -> Trust:
    """The trust a write is stored with: tool output is untrusted whatever it claims (user text
    is preferred over what a tool returned), quarantined stays quarantined."""
    if item.source == Source.TOOL and item.trust == Trust.TRUSTED:
        return Trust.UNTRUSTED
    return item.trust


def check_agent_labels(item: MemoryIn, loc: tuple[str | int, ...] = ()) -> None:
    """Refuse (403 naming `source`) a write of an agent token that claims a provenance only the
    operator or the service has. Trust needs no refusal: an agent's write is stored with the
    trust its source earns (`trust_of`: tool output never trusted), never more."""
    if item.source not in AGENT_SOURCES:
        allowed = ' or '.join(sorted(AGENT_SOURCES))
        message = f'agent tokens write source {allowed}, not {item.source.value}'
        details = [{'loc': [*loc, 'source'], 'msg': message, 'type': 'forbidden_label'}]
        raise Forbidden(message, details=details)


_TRUST_RANK: dict[str, int] = {Trust.QUARANTINED: 0, Trust.UNTRUSTED: 1, Trust.TRUSTED: 2}


def trust_rank(trust: object) -> int:
    """Order of trust levels (higher is more trusted) for a stored payload's `trust` value."""
    # a stored payload without a trust field predates trust: it was written as trusted
    return _TRUST_RANK.get(str(trust), 2)
