"""The importance heuristic: a grade and a label for a memory at write time."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from recall.normalize import normalize_text
from recall.tiers import ImportanceLabel, Kind

MUST, NICE = ImportanceLabel.MUST_REMEMBER, ImportanceLabel.NICE_TO_HAVE
UNKNOWN, IGNORE = ImportanceLabel.UNKNOWN, ImportanceLabel.IGNORE


# Base importance per kind: the middle of each kind's band (entity 0.85-1.0, explicit remember
# 0.75-0.95, extracted kinds 0.55-0.80, summary 0.50-0.70, note 0.10-0.30).
KIND_IMPORTANCE: dict[Kind, float] = {
    Kind.ENTITY: 0.9,
    Kind.REMEMBER: 0.85,
    Kind.LESSON: 0.8,
    Kind.PREFERENCE: 0.7,
    Kind.FACT: 0.65,
    Kind.PROCEDURE: 0.7,
    Kind.RELATIONSHIP: 0.7,
    Kind.PROJECT_STATE: 0.65,
    Kind.SUMMARY: 0.6,
    Kind.DREAM: 0.6,
    Kind.EPISODIC: 0.5,
    Kind.FAILURE: 0.5,
    Kind.DOCUMENT: 0.4,
    Kind.NOTE: 0.2,
}
KEYWORD_BOOST = 0.1
MAX_KEYWORD_BOOST = 0.2
MUST_REMEMBER_AT = 0.8
NICE_TO_HAVE_AT = 0.5
IGNORE_BELOW = 0.2

# words that mark a durable decision or rule, with Chinese equivalents; each hit adds 0.1, at
# most 0.2
_SIGNAL_EN = re.compile(
    r'\b(decision|decided|always|never|important|critical|must|requirement|required|policy|'
    r'rule|principle)\b',
    re.IGNORECASE,
)
_SIGNAL_ZH = re.compile(r'重要|关键|必须|务必|一定要|千万|永远|总是|决定|规则|原则|要求')


class ImportanceGrade(BaseModel):
    """Heuristic importance, its label and the keyword hits that raised it."""

    model_config = ConfigDict(frozen=True)

    importance: float = Field(ge=0.0, le=1.0)
    label: ImportanceLabel
    keywords: list[str] = Field(default_factory=list)


def label_for(importance: float) -> ImportanceLabel:
    """must_remember >= 0.8, nice_to_have >= 0.5, ignore < 0.2, otherwise unknown."""
    if importance >= MUST_REMEMBER_AT:
        return MUST
    if importance >= NICE_TO_HAVE_AT:
        return NICE
    if importance < IGNORE_BELOW:
        return IGNORE
    # between the bands we have no evidence either way: unknown keeps it fail-open
    return UNKNOWN


def grade(text: str, kind: Kind | str = Kind.NOTE) -> ImportanceGrade:
    """Importance from the kind's base plus keyword boosts, and its label."""
    if not normalize_text(text):
        return ImportanceGrade(importance=0.0, label=IGNORE)
    keywords = [m.group(0).lower() for m in _SIGNAL_EN.finditer(text)]
    keywords += [m.group(0) for m in _SIGNAL_ZH.finditer(text)]
    keywords = sorted(set(keywords))
    boost = min(KEYWORD_BOOST * len(keywords), MAX_KEYWORD_BOOST)
    importance = round(min(1.0, KIND_IMPORTANCE.get(Kind(kind), 0.2) + boost), 4)
    return ImportanceGrade(importance=importance, label=label_for(importance), keywords=keywords)


def importance_heuristic(text: str, kind: Kind | str = Kind.NOTE) -> tuple[float, ImportanceLabel]:
    """(importance, label) for `text` of `kind` without an LLM (the kind's base, keyword boosts)."""
    graded = grade(text, kind)
    return graded.importance, graded.label


# the band of notes: whatever the keywords say, a note stays a low-signal bucket
NOTE_BAND = (0.1, 0.3)


def write_grade(text: str, kind: Kind | str) -> ImportanceGrade:
    """Importance and label of a direct write that gave neither: the kind's base plus keyword
    boosts, a note kept inside its 0.1-0.3 band."""
    graded = grade(text, kind)
    if Kind(kind) != Kind.NOTE:
        return graded
    low, high = NOTE_BAND
    importance = round(min(high, max(low, graded.importance)), 4)
    return ImportanceGrade(
        importance=importance, label=label_for(importance), keywords=graded.keywords
    )
