"""Recall policies: which importance labels and trust levels a search admits.

Importance labels fail open: a search first admits `must_remember` + `nice_to_have`, widens to
`unknown` when that finds nothing, then to `ignore`. Trust gates the same way: trusted first, then
untrusted; quarantined memories are never recalled unless a caller asks for them explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict

from recall.tiers import ImportanceLabel, Trust

MUST, NICE = ImportanceLabel.MUST_REMEMBER, ImportanceLabel.NICE_TO_HAVE
UNKNOWN, IGNORE = ImportanceLabel.UNKNOWN, ImportanceLabel.IGNORE


class PolicyTier(BaseModel):
    """One step of the fail-open order: its receipt name and the labels it admits."""

    model_config = ConfigDict(frozen=True)

    name: str
    labels: frozenset[ImportanceLabel]


_ORDER = (
    PolicyTier(name='must+nice', labels=frozenset({MUST, NICE})),
    PolicyTier(name='must+nice+unknown', labels=frozenset({MUST, NICE, UNKNOWN})),
    PolicyTier(name='must+nice+unknown+ignore', labels=frozenset({MUST, NICE, UNKNOWN, IGNORE})),
)


def policy_tier_order() -> list[PolicyTier]:
    """The fail-open order: must+nice, then +unknown, then +ignore."""
    return list(_ORDER)


def policy_tier(name: str) -> PolicyTier:
    """The policy tier called `name` (as in receipts); ValueError for an unknown name."""
    for tier in _ORDER:
        if tier.name == name:
            return tier
    raise ValueError(f'unknown policy tier {name!r}; one of {[t.name for t in _ORDER]}')


def admitted_labels(tier: str | int) -> frozenset[ImportanceLabel]:
    """Labels a search at policy tier `tier` (its name, or 0-based step) admits."""
    if isinstance(tier, int):
        if not 0 <= tier < len(_ORDER):
            raise ValueError(f'policy tier step must be 0..{len(_ORDER) - 1}')
        return _ORDER[tier].labels
    return policy_tier(tier).labels


def admits(tier: str | int, label: ImportanceLabel | str) -> bool:
    """True when a search at `tier` may return a memory labelled `label`."""
    return ImportanceLabel(label) in admitted_labels(tier)


def select_policy_tier(labels: Iterable[ImportanceLabel | str], wanted: int = 1) -> PolicyTier:
    """First tier whose admitted candidates number at least `wanted`; else the widest tier.

    `labels` are the labels of the candidates a search found before the policy filter, so the
    service can pick the tier from one over-fetched candidate list instead of re-querying.
    """
    found = [ImportanceLabel(label) for label in labels]
    for tier in _ORDER:
        if sum(1 for label in found if label in tier.labels) >= max(wanted, 1):
            return tier
    return _ORDER[-1]


class Ranked(Protocol):
    """What the policy reads of a ranked hit."""

    @property
    def id(self) -> str: ...

    @property
    def score(self) -> float: ...


R = TypeVar('R', bound=Ranked)


def apply_policy(
    ranked: list[R], payloads: dict[str, dict[str, Any]], top_k: int
) -> tuple[list[R], str]:
    """Widen the admitted labels tier by tier (fail-open) until top_k hits
    are found; one store query serves all tiers."""
    chosen: list[R] = []
    for tier in policy_tier_order():
        chosen = [
            h
            for h in ranked
            if payloads[h.id].get('importance_label', ImportanceLabel.UNKNOWN) in tier.labels
        ]
        if len(chosen) >= top_k:
            break
    chosen.sort(key=lambda h: (-h.score, h.id))
    return chosen[:top_k], tier.name


# ---- trust -----------------------------------------------------------------------------------


class TrustTier(BaseModel):
    """One step of the trust fail-open order."""

    model_config = ConfigDict(frozen=True)

    name: str
    trust: frozenset[Trust]


_TRUST_ORDER = (
    TrustTier(name='trusted', trust=frozenset({Trust.TRUSTED})),
    TrustTier(name='trusted+untrusted', trust=frozenset({Trust.TRUSTED, Trust.UNTRUSTED})),
)


def trust_tier_order(include_quarantined: bool = False) -> list[TrustTier]:
    """Trusted first, then untrusted; quarantined only as a last step when explicitly asked."""
    order = list(_TRUST_ORDER)
    if include_quarantined:
        order.append(TrustTier(name='trusted+untrusted+quarantined', trust=frozenset(Trust)))
    return order


def recallable_trust(include_quarantined: bool = False) -> frozenset[Trust]:
    """Trust values a default search may return: never quarantined unless asked."""
    return trust_tier_order(include_quarantined)[-1].trust


def trust_admits(trust: Trust | str, include_quarantined: bool = False) -> bool:
    """True when a memory of `trust` may be recalled."""
    return Trust(trust) in recallable_trust(include_quarantined)
