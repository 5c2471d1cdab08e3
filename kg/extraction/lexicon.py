"""The extractor's vocabulary: NER labels, word lists, verb and preposition predicates, and
the attribute patterns (email, phone, ids) captured from entity text. Data and pure helpers."""

from __future__ import annotations

import re

from core.lazy_re import lazy_compile
from kg.dates import MONTHS
from kg.models import EntityType

NER_LABELS = {
    'PERSON': EntityType.PERSON,
    'ORG': EntityType.ORG,
    'GPE': EntityType.PLACE,
    'LOC': EntityType.PLACE,
    'FAC': EntityType.PLACE,
    'PRODUCT': EntityType.PRODUCT,
    'EVENT': EntityType.EVENT,
    'WORK_OF_ART': EntityType.PRODUCT,
    'LANGUAGE': EntityType.CONCEPT,
}
NOT_ENTITIES = {'DATE', 'TIME', 'PERCENT', 'MONEY', 'QUANTITY', 'ORDINAL', 'CARDINAL'}
# A name is trusted once NER has labelled it this often; later texts naming only trusted
# names skip NER. The votes also outvote a single wrong label ("Alice" tagged ORG once).
TRUSTED_VOTES = 2
MAX_CACHED_NAMES = 50_000
# below this many texts a round trip to a worker process costs more than it saves
POOL_MIN_TEXTS = 64
POOL_PART = 64  # texts per task sent to a worker
READ_AHEAD = 4  # parts parsed ahead of the caller

SPEAKER_PRONOUNS = {'i', 'me', 'my', 'mine', 'myself'}
# "we" and "our family" include the speaker: the household's home is theirs. What "we" do
# elsewhere may be a team's ("we use Jira", "we hired Bob"), so only these predicates count.
HOUSEHOLD_PREDICATES = frozenset({'lives_in'})
HOUSEHOLD_NOUNS = frozenset({'family', 'household'})
# where one is posted, not a tool one switches to ("I switched to the Paris office")
WORKPLACES = frozenset({'office', 'branch', 'team', 'department', 'site', 'campus', 'store'})
# software one uses, whatever the small NER model calls it (Neovim GPE, Emacs ORG, Jira PERSON,
# Jenkins GPE): "I moved to Neovim", "we moved from Jenkins to GitHub Actions" change a tool,
# not a home (names, casefolded)
KNOWN_TOOLS = frozenset(
    {
        'vim', 'neovim', 'nvim', 'emacs', 'vs code', 'vscode', 'visual studio code',
        'visual studio', 'sublime text', 'intellij', 'pycharm', 'webstorm', 'xcode',
        'android studio', 'notepad++', 'linux', 'ubuntu', 'debian', 'fedora', 'arch linux',
        'macos', 'windows', 'slack', 'jira', 'notion', 'obsidian', 'figma', 'trello', 'asana',
        'dropbox', 'spotify', 'github', 'gitlab', 'docker', 'kubernetes', 'postgres',
        'postgresql', 'mysql', 'excel', 'photoshop', 'chrome', 'firefox', 'kotlin',
        'typescript', 'javascript', 'python', 'jenkins', 'github actions', 'gitlab ci',
        'circleci', 'travis ci', 'aws', 'gcp', 'google cloud', 'azure', 'heroku', 'vercel',
        'netlify', 'terraform', 'bitbucket', 'confluence', 'microsoft teams', 'zoom',
    }
)  # fmt: skip
SKIP_NOUNS = {
    'thing',
    'things',
    'lot',
    'time',
    'way',
    'bit',
    'kind',
    'sort',
    'something',
    'anything',
    'everything',
    'nothing',
    'one',
    'ones',
    'stuff',
    'day',
    'days',
    'week',
    'month',
    'year',
    'years',
    'today',
    'yesterday',
    'tomorrow',
    'moment',
    'while',
    'fun',
    'idea',
    'chance',
    'part',
    'lots',
    'kinds',
    'all',
    'some',
    'much',
    'more',
    'most',
    'other',
    'others',
    'same',
}
NON_NAMES = {
    'hey',
    'hi',
    'hello',
    'thanks',
    'thank',
    'wow',
    'yeah',
    'yes',
    'no',
    'ok',
    'okay',
    'oh',
    'omg',
    'lol',
    'bye',
    'cool',
    'great',
    'awesome',
    'sure',
    'haha',
    'congrats',
    'dear',
    'mr',
    'mrs',
    'ms',
    'dr',
    'monday',
    'tuesday',
    'wednesday',
    'thursday',
    'friday',
    'saturday',
    'sunday',
    'i',
    'god',
    'good',
    'nice',
    'glad',
    'sorry',
    'well',
    'so',
    'wait',
    'anyway',
    'sounds',
    'love',
    'happy',
    'id',
    'btw',
    'please',
    'definitely',
    'totally',
} | set(MONTHS)
HEAD_TYPES = {
    **dict.fromkeys(('project', 'initiative', 'program', 'campaign'), EntityType.PROJECT),
    **dict.fromkeys(
        ('tool', 'app', 'library', 'framework', 'editor', 'software', 'language'),
        EntityType.TOOL,
    ),
    **dict.fromkeys(
        (
            'company',
            'inc',
            'corp',
            'university',
            'school',
            'club',
            'team',
            'group',
            'bank',
            'agency',
            'foundation',
            'center',
            'centre',
            'college',
            'lab',
        ),
        EntityType.ORG,
    ),
    **dict.fromkeys(('city', 'street', 'park', 'lake', 'river', 'island'), EntityType.PLACE),
}

# (verb lemma, preposition) -> predicate; the small vocabulary that the temporal rules know
VERB_PREP = {
    ('work', 'at'): 'works_at',
    ('work', 'for'): 'works_at',
    ('work', 'in'): 'works_in',
    ('work', 'on'): 'works_on',
    ('work', 'with'): 'works_with',
    # "I work as a designer" states a role, as "I am a designer" does: a new one ends it
    ('work', 'as'): 'role',
    ('serve', 'as'): 'role',
    ('intern', 'at'): 'works_at',
    ('live', 'in'): 'lives_in',
    ('live', 'at'): 'lives_in',
    ('move', 'to'): 'lives_in',
    ('relocate', 'to'): 'lives_in',
    ('settle', 'in'): 'lives_in',
    ('move', 'into'): 'lives_in',
    ('study', 'at'): 'studies_at',
    ('study', 'in'): 'studies_at',
    ('enroll', 'in'): 'studies_at',
    ('bear', 'in'): 'born_in',
    ('grow', 'in'): 'grew_up_in',
    ('grow_up', 'in'): 'grew_up_in',
    ('marry', 'to'): 'married_to',
    ('married', 'to'): 'married_to',
    ('engage', 'to'): 'engaged_to',
    ('engaged', 'to'): 'engaged_to',
    ('report', 'to'): 'reports_to',
    ('come', 'from'): 'from',
    ('be', 'from'): 'from',
    ('originate', 'from'): 'from',
    ('volunteer', 'at'): 'volunteers_at',
    ('volunteer', 'for'): 'volunteers_at',
    ('travel', 'to'): 'visited',
    ('go', 'to'): 'went_to',
    ('graduate', 'from'): 'graduated_from',
    ('hire', 'by'): 'works_at',
    ('employ', 'by'): 'works_at',
    # synonyms of the functional predicates: a new employer or home must end the old one
    ('start', 'at'): 'works_at',
    ('begin', 'at'): 'works_at',
    ('join', 'at'): 'works_at',
    ('base', 'in'): 'lives_in',
    ('move', 'back'): 'lives_in',
    ('settle', 'down'): 'lives_in',
    ('switch', 'to'): 'uses',
    ('migrate', 'to'): 'uses',
    ('marry', 'with'): 'married_to',
}
VERB_OBJ = {
    'marry': 'married_to',
    'become': 'role',  # "became a nurse": a new role ends the old one
    'prefer': 'prefers',
    'like': 'likes',
    'love': 'likes',
    'enjoy': 'likes',
    'adore': 'likes',
    'hate': 'dislikes',
    'dislike': 'dislikes',
    'use': 'uses',
    'own': 'owns',
    'visit': 'visited',
    'lead': 'leads',
    'manage': 'manages',
    'found': 'founded',
    'date': 'dating',
    'meet': 'met',
    'adopt': 'adopted',
    'study': 'studies',
    'teach': 'teaches',
    'play': 'plays',
    'attend': 'attends',
    'drive': 'owns',
    'buy': 'owns',
    'purchase': 'owns',
}
REL_NOUNS = {
    **dict.fromkeys(('sister', 'brother', 'sibling', 'sis', 'bro'), 'sibling_of'),
    **dict.fromkeys(('wife', 'husband', 'spouse'), 'married_to'),
    **dict.fromkeys(('partner',), 'partner_of'),
    **dict.fromkeys(('girlfriend', 'boyfriend', 'fiance', 'fiancee'), 'dating'),
    **dict.fromkeys(('mother', 'father', 'mom', 'dad', 'parent', 'mum'), 'parent_of'),
    **dict.fromkeys(('son', 'daughter', 'child', 'kid'), 'child_of'),
    **dict.fromkeys(('friend', 'buddy', 'bestie', 'pal'), 'friend_of'),
    **dict.fromkeys(('boss', 'manager', 'supervisor'), 'manages'),
    **dict.fromkeys(('colleague', 'coworker', 'co-worker', 'teammate'), 'colleague_of'),
    **dict.fromkeys(('cousin', 'aunt', 'uncle', 'niece', 'nephew'), 'relative_of'),
    **dict.fromkeys(('grandmother', 'grandfather', 'grandma', 'grandpa'), 'grandparent_of'),
    **dict.fromkeys(('mentor',), 'mentor_of'),
    **dict.fromkeys(('neighbor', 'neighbour'), 'neighbor_of'),
}
# The predicate vocabulary (English and Chinese extraction share it): a verb or verb+preposition
# outside it ("join_in", "start_at") is never stored, so no junk fact reaches the graph.
KNOWN_PREDICATES = frozenset(
    {*VERB_PREP.values(), *VERB_OBJ.values(), *REL_NOUNS.values()}
    | {'role', 'member_of', 'works_at', 'reports_to', 'engaged_to'}
)
# "started a new job at Hooli", "took a position with Initech": works_at through the noun
JOB_NOUNS = frozenset({'job', 'position', 'role', 'gig', 'internship', 'post', 'career', 'offer'})
JOB_VERBS = frozenset({'start', 'begin', 'get', 'land', 'take', 'accept', 'have', 'find'})
# verbs that say next to nothing without their object's meaning: never an open predicate
LIGHT_VERBS = frozenset(
    {'be', 'have', 'get', 'do', 'make', 'take', 'go', 'come', 'give', 'put', 'keep', 'let',
     'say', 'tell', 'see', 'want', 'need', 'try', 'think', 'know', 'feel', 'look', 'seem'}
)  # fmt: skip
# predicates say what their ends are: stronger evidence than one NER label
PREDICATE_TYPES: dict[str, tuple[EntityType | None, EntityType | None]] = {
    'works_at': (EntityType.PERSON, EntityType.ORG),
    'studies_at': (EntityType.PERSON, EntityType.ORG),
    'lives_in': (None, EntityType.PLACE),
    'born_in': (EntityType.PERSON, EntityType.PLACE),
    'grew_up_in': (EntityType.PERSON, EntityType.PLACE),
    'works_on': (None, EntityType.PROJECT),
    'uses': (None, EntityType.TOOL),
    **{
        p: (EntityType.PERSON, EntityType.PERSON)
        for p in set(REL_NOUNS.values()) | {'married_to', 'engaged_to', 'reports_to'}
    },
}

_EMAIL = lazy_compile(r'[\w.+-]+@[\w-]+(?:\.[\w-]+)+')
_PHONE = lazy_compile(
    r'(?<![\w-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?)?\d{2,4}[\s.-]\d{3,4}(?:[\s.-]\d{2,4})?'
    r'(?![\w-])'
)
_ISO_DATE = lazy_compile(r'^\d{4}-\d{2}-\d{2}$')
_ID = lazy_compile(
    r'\b((?:employee|customer|account|order|member|membership|passport|ticket|badge|license|'
    r'licence|user|student|booking|confirmation|tracking)\s+(?:id|number|no\.?|#|code))'
    r'\s*(?:is|:|#|=)?\s*([A-Za-z0-9][A-Za-z0-9-]{2,})',
    re.IGNORECASE,
)
FACT_CHARS = 300


def capture_attributes(text: str) -> dict[str, list[str]]:
    """Phones, emails and ids found by pattern (deterministic, no model)."""
    found: dict[str, list[str]] = {}
    emails = _EMAIL.findall(text)
    if emails:
        found['emails'] = list(dict.fromkeys(emails))
    phones = []
    for m in _PHONE.finditer(_EMAIL.sub(' ', text)):
        value = m.group(0).strip()
        digits = sum(c.isdigit() for c in value)
        if 7 <= digits <= 15 and not _ISO_DATE.match(value):
            phones.append(value)
    if phones:
        found['phones'] = list(dict.fromkeys(phones))
    ids = [f'{label.lower()}: {value}' for label, value in _ID.findall(text)]
    if ids:
        found['ids'] = list(dict.fromkeys(ids))
    return found


def clean_name(text: str) -> str:
    """A surface name without possessive marks, quotes or surrounding punctuation."""
    text = re.sub(r"[’']s$", '', text.strip())
    return text.strip(' \t\n"\'`.,;:!?()[]{}')
