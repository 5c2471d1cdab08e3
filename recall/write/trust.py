"""How much the writer trusts a write (seed 004): tool output is never trusted, and a less
trusted write never merges into nor supersedes a more trusted memory."""

from recall.schemas import MemoryIn
from recall.tiers import Source, Trust


def trust_of(item: MemoryIn) -> Trust:
    """The trust a write is stored with: tool output is untrusted whatever it claims (seed 004:
    skip tool outputs, prefer user text), quarantined stays quarantined."""
    if item.source == Source.TOOL and item.trust == Trust.TRUSTED:
        return Trust.UNTRUSTED
    return item.trust


_TRUST_RANK: dict[str, int] = {Trust.QUARANTINED: 0, Trust.UNTRUSTED: 1, Trust.TRUSTED: 2}


def trust_rank(trust: object) -> int:
    """Order of trust levels (higher is more trusted) for a stored payload's `trust` value."""
    # a stored payload without a trust field predates trust: it was written as trusted
    return _TRUST_RANK.get(str(trust), 2)
