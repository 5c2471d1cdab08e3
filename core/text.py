"""Shared word lists and patterns: the English stop-word list, month names, the email pattern.

Each user states how it departs from the base list (BM25 keeps negations, which carry meaning in
memories; consolidation's topic finder also drops chat fillers), so the lists cannot drift apart.
"""

from __future__ import annotations


def words(text: str) -> frozenset[str]:
    """The whitespace-separated words of `text`."""
    return frozenset(text.split())


# Snowball's English stopword list (the one bm25s and Lucene use)
ENGLISH_STOP_WORDS = words(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your yours
    yourself yourselves
    """
)
NEGATIONS = frozenset({'no', 'nor', 'not'})
# what a word tokenizer leaves of contractions: don't -> don t, I'll -> i ll
CONTRACTION_PARTS = frozenset({'s', 't', 'd', 'll', 'm', 'o', 're', 've', 'y'})

MONTHS: dict[str, int] = {
    name: i
    for i, names in enumerate(
        [
            ('january', 'jan'),
            ('february', 'feb'),
            ('march', 'mar'),
            ('april', 'apr'),
            ('may',),
            ('june', 'jun'),
            ('july', 'jul'),
            ('august', 'aug'),
            ('september', 'sep', 'sept'),
            ('october', 'oct'),
            ('november', 'nov'),
            ('december', 'dec'),
        ],
        start=1,
    )
    for name in names
}

# an email address (ASCII local part and domain, a TLD of two letters or more); capture anchors it
# at a token start, redaction replaces any occurrence
EMAIL_PATTERN = r'[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}'
