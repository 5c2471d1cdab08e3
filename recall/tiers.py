"""Memory tiers and the vocabularies stored with every chunk."""

from __future__ import annotations

from enum import StrEnum


class Tier(StrEnum):
    """Core never decays below 0.9 and is never demoted when pinned; peripheral fades fast."""

    CORE = 'core'
    WORKING = 'working'
    PERIPHERAL = 'peripheral'


class Kind(StrEnum):
    """What a memory is; drives default tier and importance."""

    ENTITY = 'entity'
    PREFERENCE = 'preference'
    FACT = 'fact'
    PROCEDURE = 'procedure'
    PROJECT_STATE = 'project_state'
    RELATIONSHIP = 'relationship'
    REMEMBER = 'remember'
    SUMMARY = 'summary'
    LESSON = 'lesson'
    FAILURE = 'failure'
    NOTE = 'note'
    DOCUMENT = 'document'
    EPISODIC = 'episodic'
    DREAM = 'dream'


class ImportanceLabel(StrEnum):
    """Importance as a label; recall fails open must+nice, then unknown, then ignore."""

    MUST_REMEMBER = 'must_remember'
    NICE_TO_HAVE = 'nice_to_have'
    IGNORE = 'ignore'
    UNKNOWN = 'unknown'


class Trust(StrEnum):
    """Provenance trust; quarantined memories are never recalled by default."""

    TRUSTED = 'trusted'
    UNTRUSTED = 'untrusted'
    QUARANTINED = 'quarantined'


class Source(StrEnum):
    """Who wrote a memory."""

    USER = 'user'
    OPERATOR = 'operator'
    TOOL = 'tool'
    IMPORT = 'import'
    SYSTEM = 'system'
    CONSOLIDATION = 'consolidation'


# Tier and importance a memory of each kind starts with: identity and explicit
# "remember" requests are core; claims about the world are working; raw records start mid-way.
KIND_DEFAULTS: dict[Kind, tuple[Tier, float]] = {
    Kind.ENTITY: (Tier.CORE, 0.85),
    Kind.PREFERENCE: (Tier.WORKING, 0.75),
    Kind.FACT: (Tier.WORKING, 0.7),
    Kind.RELATIONSHIP: (Tier.WORKING, 0.7),
    Kind.PROJECT_STATE: (Tier.WORKING, 0.6),
    Kind.PROCEDURE: (Tier.WORKING, 0.6),
    Kind.REMEMBER: (Tier.CORE, 0.9),
    Kind.LESSON: (Tier.CORE, 0.8),
    Kind.FAILURE: (Tier.WORKING, 0.5),
    Kind.SUMMARY: (Tier.WORKING, 0.6),
    Kind.DREAM: (Tier.WORKING, 0.7),
    Kind.NOTE: (Tier.PERIPHERAL, 0.2),  # the compatibility bucket: low signal, 0.1-0.3
    Kind.DOCUMENT: (Tier.WORKING, 0.5),
    Kind.EPISODIC: (Tier.WORKING, 0.5),
}
