"""The entity table of one parsed spaCy Doc: which names it mentions, what each token stands
for, and each entity's type and captured attributes.

Names come from NER (where it ran), proper-noun runs and the speaker's pronouns; common nouns
become entities on demand when a fact needs one (`arg`), and stay "soft": kept only if a fact
uses them. Types are guessed from the name (the extractor's votes across texts) and overridden
by a type a stated fact implies (`apply_type_cues`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Protocol

from core.names import is_organisation
from kg.extraction.lexicon import (
    HEAD_TYPES,
    KNOWN_TOOLS,
    NER_LABELS,
    NON_NAMES,
    NOT_ENTITIES,
    PREDICATE_TYPES,
    SKIP_NOUNS,
    SPEAKER_PRONOUNS,
    capture_attributes,
    clean_name,
)
from kg.models import EntityMention, EntityType, RelationMention

# a fact's type cue, and the other types that satisfy it ("uses GitHub": a product is used too)
_CUE_ALSO = {EntityType.TOOL: frozenset({EntityType.PRODUCT})}

_WORD_GROUPS: dict[str, Iterable[str]] = {
    'proper': ('NNP', 'NNPS'),
    'non_names': NON_NAMES,
    'speaker': SPEAKER_PRONOUNS,
    'subject': ('nsubj', 'nsubjpass'),
    'borrow': ('xcomp', 'conj'),
    'appos': ('appos',),
}


@functools.lru_cache(maxsize=64)
def string_ids(strings: Any, group: str) -> frozenset[int]:
    """The ids that token attribute arrays hold for a word group (symbol ids or hashes, as
    spaCy has them), once per string store."""
    return frozenset(strings.add(w) for w in _WORD_GROUPS[group])


class TypeMemory(Protocol):
    """What a reader needs of its extractor: entity-type votes across texts, cached lemmas."""

    def vote(self, name: str, etype: EntityType, weight: int = 2) -> None: ...

    def type_of(self, name: str) -> EntityType: ...

    def lemma(self, token: Any) -> str: ...


class DocEntities:
    """The entities one doc mentions, by name, and the entity each token stands for."""

    def __init__(self, owner: TypeMemory, doc: Any, speaker: str | None) -> None:
        self.owner = owner
        self.doc = doc
        self.speaker = speaker
        self.entities: dict[str, EntityMention] = {}
        self.tok_ent: dict[int, str] = {}
        self.soft: set[str] = set()  # common-noun entities: kept only if a fact uses them

    def add(self, name: str, etype: EntityType, tokens: Iterable[int] = ()) -> str:
        """Record a mention of `name` (a vaguer type gives way to a sharper one) on `tokens`."""
        mention = self.entities.get(name)
        if mention is None:
            mention = EntityMention(name=name, type=etype, speaker=name == self.speaker)
            self.entities[name] = mention
        elif mention.type in (EntityType.OTHER, EntityType.CONCEPT) and etype not in (
            EntityType.OTHER,
            EntityType.CONCEPT,
        ):
            mention.type = etype
        for i in tokens:
            self.tok_ent.setdefault(i, name)
        return name

    def read_names(self, ner_ran: bool, proper_runs: list[tuple[str, int, int]]) -> None:
        """The named entities: NER's (when it ran), then proper-noun runs it did not cover or
        block, then the speaker wherever a first-person pronoun stands for them."""
        blocked: set[int] = set()
        if ner_ran:
            for ent in self.doc.ents:
                if ent.label_ in NOT_ENTITIES:
                    blocked.update(range(ent.start, ent.end))
                elif ent.label_ in NER_LABELS:
                    name = clean_name(ent.text)
                    if (
                        name
                        and name.lower() not in NON_NAMES
                        and ent.text.isascii()
                        and not any(c.isdigit() for c in name)
                    ):
                        self._add_span(name, ent.start, ent.end)
        for name, start, end in proper_runs:
            if name and not any(i in blocked or i in self.tok_ent for i in range(start, end)):
                self._add_span(name, start, end)
        if self.speaker:
            from spacy.attrs import LOWER

            pronouns = string_ids(self.doc.vocab.strings, 'speaker')
            lowers = self.doc.to_array(LOWER).tolist()
            mine = [i for i, low in enumerate(lowers) if low in pronouns]
            if mine:
                self.add(self.speaker, EntityType.PERSON, mine)

    def _add_span(self, name: str, start: int, end: int) -> None:
        head = self.doc[end - 1].head
        head_type = HEAD_TYPES.get(head.lower_) if head.i == end else None
        if head_type is not None and head.tag_.startswith('NN'):
            # "the Apollo project", "Hillside school": the head noun says what it is
            self.add(f'{name} {head.text}', head_type, range(start, end + 1))
        else:
            known_tool = name.casefold() in KNOWN_TOOLS
            etype = EntityType.TOOL if known_tool else self.owner.type_of(name)
            if not known_tool and is_organisation(name):
                etype = EntityType.ORG  # "I moved to Google": NER may call it a place
            self.add(name, etype, range(start, end))

    def arg(self, tok: Any) -> str | None:
        """The entity a subject/object token stands for, making noun-chunk entities on demand."""
        if tok.i in self.tok_ent:
            return self.tok_ent[tok.i]
        for child in tok.children:  # "Alice Smith" heads on Smith; compounds carry the name
            # ...of a proper noun only: "the Paris office" is an office, not Paris
            if child.dep_ == 'compound' and child.i in self.tok_ent and tok.tag_ == 'NNP':
                return self.tok_ent[child.i]
        if not tok.tag_.startswith('NN') or tok.lower_ in SKIP_NOUNS or not tok.is_alpha:
            return None
        parts = [c for c in tok.lefts if c.dep_ in ('compound', 'amod') and c.is_alpha]
        words = [c.lower_ for c in parts if c.dep_ == 'compound'] + [tok.lower_]
        name = ' '.join(words)
        if name not in self.entities:
            self.soft.add(name)
        return self.add(name, HEAD_TYPES.get(tok.lower_, EntityType.CONCEPT), [tok.i])

    def apply_type_cues(self, relations: list[RelationMention]) -> None:
        """The type each fact implies of its ends (an employer is an org), voted for across
        texts; the speaker is a person."""
        for rel in relations:
            subj_type, obj_type = PREDICATE_TYPES.get(rel.predicate, (None, None))
            for name, cue in ((rel.subject, subj_type), (rel.object, obj_type)):
                mention = self.entities.get(name)
                if cue is not None and mention is not None and not mention.speaker:
                    if mention.type not in _CUE_ALSO.get(cue, ()):
                        mention.type = cue
                    mention.certain = True
                    self.owner.vote(name, mention.type)
        for mention in self.entities.values():
            if mention.speaker:
                mention.type = EntityType.PERSON

    def attach_attributes(self, text: str) -> None:
        """Phones, emails and ids each sentence states, given to the person it is about: the
        speaker when it speaks of itself, else the first named non-concept entity."""
        if not capture_attributes(text):  # most texts name no phone, email or id
            return
        for sent in self.doc.sents:
            found = capture_attributes(sent.text)
            if not found:
                continue
            owner = None
            if self.speaker and any(t.lower_ in SPEAKER_PRONOUNS for t in sent):
                owner = self.speaker
            else:
                named = [self.tok_ent[t.i] for t in sent if t.i in self.tok_ent]
                named = [n for n in named if self.entities[n].type != EntityType.CONCEPT]
                owner = named[0] if named else self.speaker
            if owner is None:
                continue
            if owner not in self.entities:
                self.add(owner, EntityType.PERSON)
            attrs = self.entities[owner].attributes
            for key, values in found.items():
                attrs[key] = list(dict.fromkeys([*attrs.get(key, []), *values]))

    def kept(self, relations: list[RelationMention]) -> list[EntityMention]:
        """The mentions worth storing: every named one, and soft ones a fact or attribute uses."""
        used = {r.subject for r in relations} | {r.object for r in relations}
        return [
            m for n, m in self.entities.items() if n not in self.soft or n in used or m.attributes
        ]
