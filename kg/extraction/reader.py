"""Reading one parsed spaCy Doc: dependency-pattern relations over its entities
(`kg.extraction.doc_entities`), and the token arrays the extractor shares with NER gating."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from core.names import is_organisation
from kg.dates import resolve_date
from kg.extraction.doc_entities import DocEntities, TypeMemory, string_ids
from kg.extraction.lexicon import (
    FACT_CHARS,
    HOUSEHOLD_NOUNS,
    HOUSEHOLD_PREDICATES,
    JOB_NOUNS,
    JOB_VERBS,
    KNOWN_PREDICATES,
    LIGHT_VERBS,
    NON_NAMES,
    REL_NOUNS,
    SKIP_NOUNS,
    SPEAKER_PRONOUNS,
    VERB_OBJ,
    VERB_PREP,
    WORKPLACES,
    clean_name,
)
from kg.models import (
    NAMED,
    EntityType,
    Extraction,
    RelationMention,
    SourceText,
)


def sentence_bounds(doc: Any) -> list[tuple[int, int]]:
    """(start, end) token offsets of the parse's sentences, read from the SENT_START array."""
    from spacy.attrs import SENT_START

    starts = [i for i, flag in enumerate(doc.to_array(SENT_START).tolist()) if flag == 1]
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return list(zip(starts, [*starts[1:], len(doc)], strict=True))


def proper_runs(doc: Any) -> Iterable[tuple[str, int, int]]:
    """Maximal runs of proper-noun tokens as (name, start, end)."""
    # attribute arrays: a Token object per token costs more than the whole test
    from spacy.attrs import IS_ALPHA, LOWER, TAG

    proper_tags = string_ids(doc.vocab.strings, 'proper')
    non_names = string_ids(doc.vocab.strings, 'non_names')
    start = None
    for i, (tag, lower, alpha) in enumerate(doc.to_array([TAG, LOWER, IS_ALPHA]).tolist()):
        proper = tag in proper_tags and lower not in non_names and alpha
        if proper and start is None:
            start = i
        elif not proper and start is not None:
            yield clean_name(doc[start:i].text), start, i
            start = None
    if start is not None:
        yield clean_name(doc[start:].text), start, len(doc)


class DocReader:
    """Reads one parsed doc into an Extraction: its entities (`DocEntities`), then the facts
    its clauses state, each dated by the sentence (or the conjoined clause) that says it."""

    def __init__(
        self,
        owner: TypeMemory,
        doc: Any,
        item: SourceText,
        ner_ran: bool,
        proper_runs: list[tuple[str, int, int]],
        sentences: list[tuple[int, int]],
    ) -> None:
        self.owner = owner
        self.doc = doc
        self.item = item
        self.speaker = clean_name(item.speaker) if item.speaker else None
        self.names = DocEntities(owner, doc, self.speaker)
        self.relations: list[RelationMention] = []
        self.seen: set[tuple[str, str, str]] = set()
        # the predicates the subject being read may state (None: any); see `_household`
        self.only: frozenset[str] | None = None
        self.ner_ran = ner_ran
        self.proper_runs = proper_runs
        self.sentences = sentences
        self.text = doc.text  # Doc.text joins every token on each call

    def read(self) -> Extraction:
        self.names.read_names(self.ner_ran, self.proper_runs)
        heads = sorted(self._fact_heads())
        for start, end in self.sentences:
            mine = [h for h in heads if start <= h < end]
            if mine:  # a sentence with no fact head yields nothing: skip its date and text
                self._sentence(start, end, mine)
        self._self_introduction()
        self.names.apply_type_cues(self.relations)
        self.names.attach_attributes(self.text)
        return Extraction(entities=self.names.kept(self.relations), relations=self.relations)

    # ---- relations -----------------------------------------------------------------------

    def _sentence(self, start: int, end: int, heads: list[int]) -> None:
        doc = self.doc
        last = doc[end - 1]
        text = self.text[doc[start].idx : last.idx + len(last.text)]  # what Span.text gives
        sentence_when = resolve_date(text, self.item.at) or self.item.at
        fact = text.strip()[:FACT_CHARS]
        for i in heads:
            tok = doc[i]
            when = self._clause_date(tok, sentence_when)
            if tok.dep_ == 'appos':
                self._kinship_pair(tok.head, tok, when, fact)
            subjects = self._subjects(tok)
            if not subjects or any(c.dep_ == 'neg' for c in tok.children):
                continue
            lemma = self.owner.lemma(tok)
            for subj_tok in subjects:
                household = self.speaker is not None and _household(subj_tok)
                if household and tok.dep_ == 'xcomp':
                    continue  # "we plan to move to Oslo" is a plan, not the household's home
                subj = self.speaker if household else self._subject_entity(subj_tok, when, fact)
                if subj is None:
                    continue
                self.only = HOUSEHOLD_PREDICATES if household else None
                if (
                    lemma == 'be'
                    or tok.lemma_ == 'be'
                    or tok.lower_ in ('is', 'am', 'are', 'was', 'were', "'s", "'m", "'re")
                ):
                    self._copula(tok, subj_tok, subj, when, fact)
                else:
                    self._verb(tok, lemma, subj, when, fact)
                self.only = None

    def _clause_date(self, tok: Any, sentence_when: datetime) -> datetime:
        """When the fact of the clause `tok` heads starts: the sentence's date, unless the
        clause is a conjoined verb whose own words name one."""
        if tok.dep_ != 'conj':
            return sentence_when
        # a conjoined verb's own words come first: "…and left in 2022" ends in 2022
        own = tok.doc[tok.i : tok.right_edge.i + 1].text
        return resolve_date(own, self.item.at) or sentence_when

    def _fact_heads(self) -> set[int]:
        """Tokens that can start a fact: those with a subject, their xcomp/conj dependents (which
        borrow it), and appositions; every other token yields nothing."""
        from spacy.attrs import DEP, HEAD

        strings = self.doc.vocab.strings
        subject = string_ids(strings, 'subject')
        borrow = string_ids(strings, 'borrow')
        [appos] = string_ids(strings, 'appos')
        deps = self.doc.to_array(DEP).tolist()
        # HEAD is a signed offset from the token, stored as uint64
        offsets = self.doc.to_array(HEAD).astype('int64').tolist()
        rows = list(zip(deps, offsets, strict=True))
        with_subject = {i + off for i, (dep, off) in enumerate(rows) if dep in subject}
        return with_subject | {
            i
            for i, (dep, off) in enumerate(rows)
            if dep == appos or (dep in borrow and off and i + off in with_subject)
        }

    def _subjects(self, tok: Any) -> list[Any]:
        found = [c for c in tok.children if c.dep_ in ('nsubj', 'nsubjpass')]
        if not found and tok.dep_ in ('xcomp', 'conj') and tok.head.i != tok.i:
            found = [c for c in tok.head.children if c.dep_ in ('nsubj', 'nsubjpass')]
        return [s for f in found for s in (f, *_conjuncts(f))]

    def _subject_entity(self, tok: Any, when: datetime, fact: str) -> str | None:
        # "my sister Carol lives in Berlin": the subject is Carol, and she is my sister
        for child in tok.children:
            if child.dep_ == 'appos' and self.names.arg(child):
                self._kinship_pair(tok, child, when, fact)
                return self.names.arg(child)
        return self.names.arg(tok)

    def _emit(
        self,
        subj: str | None,
        predicate: str,
        obj: str | None,
        when: datetime,
        fact: str,
        confidence: float = 0.9,
    ) -> None:
        if not subj or not obj or subj == obj or (subj, predicate, obj) in self.seen:
            return
        if obj.lower() in NON_NAMES:
            return  # "Alice join_in march": a date read as a name
        if predicate not in KNOWN_PREDICATES and predicate.split('_', 1)[0] in LIGHT_VERBS:
            return  # "I have dog", "I do work": a light verb says nothing by itself
        if self.only is not None and (predicate not in self.only or obj in self.names.soft):
            return  # "we moved to the new office": a household's home is a named place
        if subj == self.speaker and subj not in self.names.entities:
            self.names.add(subj, EntityType.PERSON)  # "we" stood for them
        self.seen.add((subj, predicate, obj))
        self.relations.append(
            RelationMention(
                subject=subj,
                predicate=predicate,
                object=obj,
                fact=fact,
                valid_from=when,
                confidence=confidence,
            )
        )

    def _kinship(self, noun: Any) -> tuple[str, str] | None:
        """(predicate, possessor entity) of "Bob's sister", "my sister", "the sister of Bob"."""
        predicate = REL_NOUNS.get(noun.lower_)
        if predicate is None:
            return None
        for child in noun.children:
            if child.dep_ == 'poss':
                mine = child.lower_ in SPEAKER_PRONOUNS
                owner = self.speaker if mine else self.names.arg(child)
                if owner:
                    return predicate, owner
            if child.dep_ == 'prep' and child.lower_ == 'of':
                for pobj in child.children:
                    if pobj.dep_ == 'pobj' and self.names.arg(pobj):
                        return predicate, self.names.arg(pobj)  # type: ignore[return-value]
        return None

    def _kinship_pair(self, noun: Any, name_tok: Any, when: datetime, fact: str) -> None:
        for rel_noun, person in ((noun, name_tok), (name_tok, noun)):
            kin = self._kinship(rel_noun)
            if kin is not None:
                self._emit(self.names.arg(person), kin[0], kin[1], when, fact)
                return

    def _copula(self, tok: Any, subj_tok: Any, subj: str, when: datetime, fact: str) -> None:
        for child in tok.children:
            if child.dep_ == 'attr':
                if self._kinship(child) is not None:  # "Alice is Bob's sister"
                    pred, owner = self._kinship(child)  # type: ignore[misc]
                    self._emit(subj, pred, owner, when, fact)
                elif self._kinship(subj_tok) is not None and _names_someone(child, subj_tok):
                    # "my sister is Alice" (not "my wife Anna is a nurse")
                    pred, owner = self._kinship(subj_tok)  # type: ignore[misc]
                    self._emit(self.names.arg(child), pred, owner, when, fact)
                elif child.tag_.startswith('NN') and child.lower_ not in SKIP_NOUNS:
                    self._role(child, subj, when, fact)
            elif child.dep_ == 'prep' and _my_home(subj_tok) and child.lower_ in ('in', 'at'):
                for pobj in _pobjs(child):  # "my home is in Edinburgh"
                    self._emit(self.speaker, 'lives_in', self.names.arg(pobj), when, fact)
            elif child.dep_ in ('acomp', 'prep'):
                word = child.lower_ if child.dep_ == 'acomp' else 'be'
                preps = (
                    [child]
                    if child.dep_ == 'prep'
                    else [c for c in child.children if c.dep_ == 'prep']
                )
                for prep in preps:
                    predicate = VERB_PREP.get((word, prep.lower_))
                    for pobj in _pobjs(prep):
                        obj = self.names.arg(pobj)
                        if predicate:
                            self._emit(subj, predicate, obj, when, fact)

    def _role(self, noun: Any, subj: str, when: datetime, fact: str) -> None:
        named = self.names.tok_ent.get(noun.i)
        if named is not None and self.names.entities[named].type in (
            EntityType.PERSON,
            EntityType.PLACE,
        ):
            return  # "this is Alice": an identity, not a role
        if not noun.is_alpha or noun.lower_ in NON_NAMES:
            return
        words = [c.lower_ for c in noun.lefts if c.dep_ in ('compound', 'amod') and c.is_alpha]
        role = ' '.join([*words, noun.text if noun.tag_.startswith('NNP') else noun.lower_])
        role_entity = self.names.add(role, EntityType.CONCEPT)
        if self.names.entities[role_entity].type == EntityType.OTHER:
            self.names.entities[role_entity].type = EntityType.CONCEPT
        self._emit(subj, 'role', role_entity, when, fact, 0.8)
        for prep in (c for c in noun.children if c.dep_ == 'prep' and c.lower_ in ('of', 'at')):
            for pobj in _pobjs(prep):
                org = self.names.arg(pobj)
                if org and self.names.entities[org].type != EntityType.CONCEPT:
                    self._emit(subj, 'works_at', org, when, fact)

    def _verb(self, tok: Any, lemma: str, subj: str, when: datetime, fact: str) -> None:
        particle = next((c.lower_ for c in tok.children if c.dep_ == 'prt'), None)
        verb = f'{lemma}_{particle}' if particle else lemma
        for child in tok.children:
            if child.dep_ == 'dobj' and child.lower_ in JOB_NOUNS and lemma in JOB_VERBS:
                # "started a new job at Hooli": the employer hangs off the noun
                for prep in (c for c in child.children if c.dep_ == 'prep'):
                    # "accepted an offer from Globex": an offer comes from the employer
                    if prep.lower_ in ('at', 'with') or (prep.lower_, child.lower_) == (
                        'from',
                        'offer',
                    ):
                        for pobj in _pobjs(prep):
                            self._emit(subj, 'works_at', self.names.arg(pobj), when, fact)
                continue
            if child.dep_ in ('dobj', 'attr'):
                for obj_tok in (child, *_conjuncts(child)):
                    obj = self.names.arg(obj_tok)
                    if obj is None:
                        continue
                    predicate = VERB_OBJ.get(verb, verb)
                    if verb == 'join':
                        proper = self.names.entities[obj].type not in (
                            EntityType.CONCEPT,
                            EntityType.OTHER,
                        ) or obj_tok.tag_.startswith('NNP')
                        predicate = 'works_at' if proper else 'member_of'
                    known = verb in VERB_OBJ or verb == 'join'
                    self._emit(subj, predicate, obj, when, fact, 0.9 if known else 0.6)
            elif child.dep_ in ('prep', 'agent'):
                self._prep_facts(verb, lemma, child, subj, when, fact)
            elif child.dep_ == 'advmod' and child.lower_ == 'back':
                # "moved back to Leeds": the parser hangs "to Leeds" under "back"
                for prep in (c for c in child.children if c.dep_ == 'prep' and c.lower_ == 'to'):
                    self._prep_facts(verb, lemma, prep, subj, when, fact)

    def _prep_facts(
        self, verb: str, lemma: str, prep_tok: Any, subj: str, when: datetime, fact: str
    ) -> None:
        """Facts of a verb's preposition ("moved to York"). The parser may hang "to Emacs" of
        "moved from Vim to Emacs" under "from" or Vim: a "from X to Y" chain is two preps of
        the verb."""
        if self.only is not None and any(c.dep_ == 'dobj' for c in prep_tok.head.children):
            return  # "we moved our servers to Frankfurt" moves the servers
        preps = [prep_tok]
        if prep_tok.lower_ == 'from':
            preps += [
                p
                for head in (prep_tok, *_pobjs(prep_tok))
                for p in head.children
                if p.dep_ == 'prep' and p.lower_ in ('to', 'into')
            ]
        for tok in preps:
            known = VERB_PREP.get((verb, tok.lower_)) or VERB_PREP.get((lemma, tok.lower_))
            for pobj in _pobjs(tok):
                obj = self.names.arg(pobj)
                if obj is None:
                    continue
                predicate = known
                if known in ('lives_in', 'uses') and lemma in _CHANGE_VERBS:
                    predicate = _changed(known, self.names.entities[obj].type, pobj, obj)
                    if predicate is None:
                        continue
                confidence = 0.9 if predicate else 0.6
                self._emit(subj, predicate or f'{verb}_{tok.lower_}', obj, when, fact, confidence)

    def _self_introduction(self) -> None:
        # "I'm Maya Patel" / "my name is Maya Patel": the speaker is that person
        if not self.speaker:
            return
        for match in _SELF_NAMED.finditer(self.text):
            name = clean_name(match.group(1))
            mention = self.names.entities.get(name)
            said = match.group(0).lower().startswith(('my name', 'call me'))
            if name != self.speaker and (said or (mention and mention.type == EntityType.PERSON)):
                self.names.add(name, EntityType.PERSON)
                self.names.entities[name].type = EntityType.PERSON
                self._emit(self.speaker, NAMED, name, self.item.at, self.text[:FACT_CHARS])


# verbs of a change whose object says what changed: a home (moved to York) or a tool (to Emacs)
_CHANGE_VERBS = frozenset({'move', 'relocate', 'switch', 'migrate'})

_SELF_NAMED = re.compile(
    r"(?i:\b(?:i'm|i am|my name is|my name's|call me))\s+([A-Z][\w'-]*(?: [A-Z][\w'-]*){0,3})"
)


def _household(tok: Any) -> bool:
    """True when a subject is the speaker's household ("we", "our family"): it states the
    speaker's home, and nothing else of the speaker's."""
    if tok.lower_ == 'we':
        return True
    return tok.lower_ in HOUSEHOLD_NOUNS and any(
        c.dep_ == 'poss' and c.lower_ == 'our' for c in tok.children
    )


def _changed(known: str, etype: EntityType, pobj: Any, name: str) -> str | None:
    """What "moved/switched to X" (`name`, of type `etype`) changes, by what X is: a home is a
    place, a tool is software, an employer an organisation; None when X is neither the verb's
    usual sense nor a tool."""
    if known == 'uses' and pobj.lower_ in WORKPLACES:
        return None  # "switched to the Paris office" uses no office
    if etype in (EntityType.TOOL, EntityType.PRODUCT):
        return 'uses'  # "moved from Vim to Emacs": an editor, not a home
    if known == 'uses' and etype == EntityType.PLACE:
        return None  # "switched to Paris" names no tool
    if known == 'lives_in' and is_organisation(name):
        # "I moved to Google": a new employer, not a home. An organisation by its own words
        # only: the small NER model calls cities ORG too ("moved to Bristol")
        return 'works_at'
    return known


def _my_home(tok: Any) -> bool:
    return tok.lower_ in ('home', 'house', 'place') and any(
        c.dep_ == 'poss' and c.lower_ in ('my', 'our') for c in tok.children
    )


def _names_someone(attr: Any, subj_tok: Any) -> bool:
    """True when a copula's attribute names the subject's relative ("my sister is Alice"), not
    a role of an already named subject ("my wife Anna is a nurse")."""
    named = any(c.dep_ == 'appos' for c in subj_tok.children)
    return not named and attr.tag_.startswith('NNP')


def _conjuncts(tok: Any) -> list[Any]:
    return [c for c in tok.children if c.dep_ == 'conj' and c.tag_ != 'CC']


def _pobjs(prep: Any) -> list[Any]:
    found = [c for c in prep.children if c.dep_ == 'pobj']
    return [p for f in found for p in (f, *_conjuncts(f))]
