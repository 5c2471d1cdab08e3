"""The one secret scanner: every stored or exported field of every write path passes it.

Credentials, national ids and payment numbers never become memory: a recalled memory is pasted
into prompts and exports, so a stored key would leak again and again. Only the secret *span* is
masked (`[redacted:<kind>]`); the rest of the text is kept.

The rules are detect-secrets' plugins ported to spans (AWS, basic auth, GitHub, GitLab, Slack,
Stripe, OpenAI, SendGrid, Twilio, npm, PyPI, Discord, Telegram, Azure, JWT, private keys, the
keyword detector and high-entropy strings), plus phrases people type in conversation ("my
password is …", "the PIN for the door is …"), Luhn-checked card numbers and python-stdnum's
validators for IBANs and national ids.
"""

from __future__ import annotations

import importlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from core.lazy_re import lazy_compile


def _stdnum(module: str) -> Callable[[str], bool]:
    """python-stdnum's `<module>.is_valid`, imported at its first call: importing stdnum (pydoc
    among its imports) cost every start ~15 ms, and only a write holding a candidate number
    calls a validator. The patterns below compile on first use too (core/lazy_re.py)."""

    def is_valid(value: str) -> bool:
        return bool(importlib.import_module(f'stdnum.{module}').is_valid(value))

    return is_valid


PLACEHOLDER = lazy_compile(r'\[redacted:[a-z_]+\]')
# the fields of a memory that are stored or exported as free text
TEXT_FIELDS = ('text', 'abstract', 'source_ref', 'entity_key', 'tags', 'metadata')
# a memory's history (earlier versions, merged writes): the free text of each entry
HISTORY_FIELDS = ('versions', 'merges')
# (`reason`: an edit's reason is the client's text, and an import brings its own history)
HISTORY_TEXT = ('text', 'tags', 'metadata', 'reason')

Span = tuple[str, int, int]

# ---- rules: (kind, pattern, flags, group) — `group` is the part masked (0: the whole match) ----

_PASSWORD_WORD = (
    r'(?:password|passwd|passwort|passphrase|passcode|pass\s?word|pwd|pw|login code'
    r'|wi-?fi (?:key|code)|network key|mot de passe|contraseña|senha)'
)
# "the password for the wifi is", "my gmail password was": a short object between word and verb
_FOR_WHAT = (
    r'(?:\s+(?:for|to|of|on|at)\s+(?:the\s+|my\s+|our\s+|your\s+|his\s+|her\s+)?'
    r"[\w' -]{1,30}?)?"
)
_VERB = r'(?:\s+(?:is|was|are|=|:)(?:\s+(?:now|still|just|set to|changed to))?|\s*[:=：])'
_VALUE = r'\s*["\'“‘]?([^\s"\'”’]{3,})'
_PIN_WORD = (
    r'(?:pin(?:\s*(?:code|number|no\.?))?|(?:door|gate|alarm|safe|lock|garage|security|access|'
    r'entry|keypad|building)\s*code|combination)'
)
# `needs`: lower-case words one of which every ASCII text a rule matches holds (its pattern's
# literals), so an ASCII text without any skips the rule. A text with other characters runs
# every rule: IGNORECASE matches some of them to ASCII letters ('ſ' is an 's', 'K' a 'k')
_RULES: tuple[tuple[str, re.Pattern[str], int, tuple[str, ...]], ...] = tuple(
    (kind, lazy_compile(pattern, flags), group, needs)
    for kind, pattern, flags, group, needs in (
        (
            'private_key',
            # the whole block when it ends, else everything after its header
            r'-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----'
            r'(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*)',
            re.DOTALL,
            0,
            ('-----begin',),
        ),
        ('mnemos_token', r'\bmnm_[A-Za-z0-9_-]{16,}', 0, 0, ('mnm_',)),
        (
            'api_key',
            r'\b(?:sk|pk|rk)[-_](?:(?:live|test|proj|ant|svcacct)[-_])?[A-Za-z0-9_-]{16,}',
            0,
            0,
            ('sk-', 'sk_', 'pk-', 'pk_', 'rk-', 'rk_'),
        ),
        (
            'aws_access_key',
            r'\b(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA)[0-9A-Z]{16}\b',
            0,
            0,
            ('a3t', 'abia', 'acca', 'akia', 'asia'),
        ),
        (
            'github_token',
            r'\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})',
            0,
            0,
            ('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'),
        ),
        (
            'gitlab_token',
            r'\b(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glptt)-[\w-]{20,}',
            0,
            0,
            ('gl',),
        ),
        ('slack_token', r'\bxox[abposr]-[A-Za-z0-9-]{10,}', 0, 0, ('xox',)),
        (
            'slack_webhook',
            r'https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}',
            0,
            0,
            ('hooks.slack.com',),
        ),
        ('google_api_key', r'\bAIza[0-9A-Za-z_-]{35}\b', 0, 0, ('aiza',)),
        ('sendgrid_key', r'\bSG\.[\w-]{22}\.[\w-]{43}\b', 0, 0, ('sg.',)),
        ('twilio_key', r'\b(?:AC|SK)[a-f0-9]{32}\b', 0, 0, ('ac', 'sk')),
        ('npm_token', r'\bnpm_[A-Za-z0-9]{36}\b', 0, 0, ('npm_',)),
        ('pypi_token', r'\bpypi-AgE[A-Za-z0-9_-]{70,}', 0, 0, ('pypi-age',)),
        ('discord_token', r'\b[MNO][\w-]{23,25}\.[\w-]{6}\.[\w-]{27,}', 0, 0, ('.',)),
        ('telegram_token', r'\b\d{8,10}:[0-9A-Za-z_-]{35}\b', 0, 0, (':',)),
        ('azure_key', r'AccountKey=([A-Za-z0-9+/=]{40,})', 0, 1, ('accountkey=',)),
        ('jwt', r'\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}', 0, 0, ('eyj',)),
        ('bearer_token', r'\bbearer\s+([A-Za-z0-9._~+/-]{16,}=*)', re.IGNORECASE, 1, ('bearer',)),
        # postgres://user:pw@host, https://user:pw@host: the password part only
        (
            'url_password',
            r'\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]+:([^\s@/]+)@',
            re.IGNORECASE,
            1,
            ('://',),
        ),
        (
            'password',
            rf'\b{_PASSWORD_WORD}\b{_FOR_WHAT}{_VERB}{_VALUE}',
            re.IGNORECASE,
            1,
            # pass (password, passcode, pass word, mot de passe), pw (pwd), wi-fi key or code
            ('pass', 'pw', 'login code', 'fi key', 'fi code', 'network key', 'senha'),
        ),
        (
            'password',
            r'(?:密码|口令|登录密码|支付密码|wifi密码|WiFi密码)\s*(?:是|为|:|：|=)\s*([^\s，。,]{3,})',
            re.IGNORECASE,
            1,
            ('密码', '口令'),
        ),
        (
            'pin',
            rf'\b{_PIN_WORD}\b{_FOR_WHAT}{_VERB}\s*["\']?(\d(?:[ -]?\d){{2,9}})\b',
            re.I,
            1,
            ('pin', 'code', 'combination'),
        ),
        (
            'credential',
            # detect-secrets' keyword detector: a secret-named key given a value
            r'\b(?:api[_ -]?key|apikey|secret[_ -]?key|client[_ -]?secret|access[_ -]?token|'
            r'auth[_ -]?token|refresh[_ -]?token|private[_ -]?key|access[_ -]?key(?:[_ -]?id)?|'
            r'secret[_ -]?access[_ -]?key|aws[_ -]?secret|session[_ -]?token|token|secret)'
            r'["\']?(?:\s+(?:is|was)|\s*[:=：]|\s*=>)\s*["\']?([^\s"\',;]{8,})',
            re.IGNORECASE,
            1,
            ('key', 'token', 'secret'),
        ),
        (
            'ssn',
            r'(?:\bssn|\bsocial security(?: number| no\.?| #)?|社会安全号)[^\d\n]{0,16}'
            r'(\d{3}[- ]?\d{2}[- ]?\d{4})\b',
            re.IGNORECASE,
            1,
            ('ssn', 'social security', '社会安全号'),
        ),
        (
            'national_id',
            r'(?:\bnational (?:id|identity|insurance)(?: number| no\.?)?|\bid (?:number|no\.?)|'
            r'\bpersonnummer|\bfødselsnummer|\bhenkilötunnus|\bbsn|\baadhaar(?: number)?|\bnir\b|'
            r'\bdni|\bnie\b|\bcodice fiscale|\btax (?:id|number)|\bsteuer-?id|\bpassport '
            r'(?:number|no\.?)|\bdriver\'?s licen[cs]e (?:number|no\.?)|'
            r'身份证(?:号码|号)?|护照号(?:码)?)'
            r'[^\w\n]{0,12}(?:is\s+|was\s+)?([A-Z0-9](?:[A-Z0-9 .-]{4,22})[A-Z0-9])(?![\w-])',
            re.IGNORECASE,
            1,
            # each label's ASCII part: "id number", "id no", "tax id", "steuer-id", ...
            (
                'national ',
                'id n',
                'personnummer',
                'bsn',
                'aadhaar',
                'nir',
                'dni',
                'nie',
                'codice fiscale',
                'tax ',
                'steuer',
                'passport ',
                'driver',
            ),
        ),
    )
)
_NOT_A_PASSWORD = frozenset(
    {
        'the', 'a', 'an', 'my', 'your', 'our', 'his', 'her', 'their', 'this', 'that', 'it', 'too',
        'not', 'very', 'so', 'still', 'weak', 'strong', 'secure', 'safe', 'required', 'wrong',
        'incorrect', 'correct', 'changed', 'expired', 'same', 'different', 'easy', 'hard', 'long',
        'short', 'simple', 'complicated', 'case', 'being', 'written', 'saved', 'stored', 'reset',
        'protected', 'needed', 'missing', 'forgotten', 'lost', 'set', 'on', 'in', 'at', 'of',
        'for', 'to', 'and', 'or', 'but', 'what', 'which', 'where', 'here', 'there', 'visible',
        'hidden', 'shared', 'known', 'unknown', 'private', 'personal', 'important', 'something',
        'nothing', 'anything', 'everything', 'ready', 'updated', 'complex', 'tricky', 'fine', 'ok',
        'okay', 'good', 'bad', 'new', 'old', 'mine', 'yours', 'ours', 'yes', 'no',
    }
)  # fmt: skip
_NOT_A_CREDENTIAL = frozenset({'required', 'missing', 'expired', 'invalid', 'revoked', 'rotated'})

# 13-19 digits, optionally grouped by single spaces or dashes; not part of a longer number,
# word, path or URL (ids in upload URLs pass Luhn one time in ten), not a phone number written
# with `+`; a Luhn check then drops nine random digit runs in ten
_CARD = lazy_compile(r'(?<![\w+/.])(?<!\+ )[2-6]\d{3}(?:[ -]?\d){9,15}(?![\w/])')
# a digit run the writer labels as a card number is one whether or not it passes Luhn (people
# mistype, and a mistyped card number is still private)
_CARD_LABEL = lazy_compile(
    r'(?:card\s*(?:number|no\.?|#)|credit\s*card|debit\s*card|卡号|银行卡|信用卡|储蓄卡)'
    r'[^\d\n]{0,12}$',
    re.IGNORECASE,
)
_CVV = lazy_compile(r'\b(?:cvv|cvc|cvv2|security code)\b[^\d\n]{0,12}(\d{3,4})\b', re.IGNORECASE)
_IBAN_VALID = _stdnum('iban')
_IBAN = lazy_compile(r'\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b')
# national ids python-stdnum validates without a label: formats rare in prose, with check digits
_UNLABELLED_IDS: tuple[tuple[str, re.Pattern[str], Callable[[str], bool]], ...] = (
    ('ssn', lazy_compile(r'(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])'), _stdnum('us.ssn')),
    ('national_id', lazy_compile(r'(?<![\w-])\d{17}[\dXx](?![\w-])'), _stdnum('cn.ric')),
    (
        'national_id',
        lazy_compile(r'\b[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z]\b'),
        _stdnum('it.codicefiscale'),
    ),
    ('national_id', lazy_compile(r'(?<![\w-])\d{8}-?[A-Z](?![\w-])'), _stdnum('es.dni')),
)
# high-entropy tokens (detect-secrets' HighEntropyString, outside quotes too): long, mixing
# upper case, lower case and digits, and close to random
_TOKEN = lazy_compile(r'(?<![\w+/@%.-])[A-Za-z0-9+/_=-]{20,}(?![\w+/@%-])')
_HEX = lazy_compile(r'(?<![\w-])[0-9a-fA-F]{32,}(?![\w-])')
_HEX_CONTEXT = lazy_compile(r'(?:key|token|secret|password|credential|auth)', re.IGNORECASE)


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def entropy(value: str) -> float:
    """Shannon entropy of `value` in bits per character."""
    counts = Counter(value)
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def _random_token(token: str) -> bool:
    core = token.strip('=')
    if '/' in core and len(core) != 40:
        return False  # a path; AWS secret access keys are 40 characters with `/` allowed
    classes = (
        sum(c.isupper() for c in core) >= 2,
        sum(c.islower() for c in core) >= 2,
        any(c.isdigit() or c in '/+' for c in core),
    )
    if not all(classes):
        return False
    # a random string of n symbols from 64 has close to log2(n) bits per character, and
    # changes character class (upper, lower, digit) at about every other character, where
    # words run together ("ThrowbackThursday2019") change it only between words
    switches = sum(_class(a) != _class(b) for a, b in itertools.pairwise(core)) / (len(core) - 1)
    # (long tokens vary more around that rate, and few words run together that long)
    least = 0.3 if len(core) >= 32 else 0.38
    return switches >= least and entropy(core) >= 0.75 * math.log2(min(len(core), 64))


def _class(char: str) -> int:
    return 0 if char.isupper() else 1 if char.islower() else 2 if char.isdigit() else 3


def _holds_any(lowered: str, words: tuple[str, ...]) -> bool:
    # a loop, not any() over a generator: asked of ~25 rules per scanned text, the generator's
    # frames were half of applying the rules to a LoCoMo turn
    for word in words:  # noqa: SIM110
        if word in lowered:
            return True
    return False


def _rule_spans(text: str, many_digits: bool) -> Iterable[Span]:
    lowered = text.lower() if text.isascii() else None
    for kind, rx, group, needs in _RULES:
        if lowered is not None and needs and not _holds_any(lowered, needs):
            continue  # none of the words the rule's pattern needs
        if kind == 'telegram_token' and not many_digits:
            continue  # its 8-10 digits (its word, ':', is in every 'speaker: text' turn)
        for match in rx.finditer(text):
            start, end = match.span(group)
            value = match.group(group).rstrip('.,;:)]}>"\'”’')
            if value.startswith('[redacted:'):
                continue  # masked already
            if kind == 'password' and value.lower() in _NOT_A_PASSWORD:
                continue
            if kind == 'credential' and (
                value.lower() in _NOT_A_CREDENTIAL
                or not re.search(r'[\d_\-+/=]', value)  # a word ("the token is everything")
            ):
                continue
            if kind == 'national_id' and sum(c.isdigit() for c in value) < 4:
                continue
            yield kind, start, start + len(value)


# seven digits, anywhere: a card number (13), an SSN (9), a Chinese (18), Italian (7) or Spanish
# (8) id and a Telegram token (8) hold at least as many; most texts with a digit hold fewer (a
# date, a time, a count)
_SEVEN_DIGITS = lazy_compile(r'\d(?:\D*\d){6}')
# every word, lower-cased, an ASCII match of _CVV holds
_CVV_WORDS = ('cvv', 'cvc', 'security code')


def _number_spans(text: str, many_digits: bool) -> Iterable[Span]:
    lowered = text.lower()
    cvv = not text.isascii() or any(word in lowered for word in _CVV_WORDS)
    # (each pattern below opens on a lookbehind or a word boundary: a search tries every position)
    if many_digits:
        yield from _card_spans(text)
    if cvv:
        for match in _CVV.finditer(text):
            yield 'card_number', *match.span(1)
    for match in _IBAN.finditer(text):
        if _IBAN_VALID(match.group()):
            yield 'iban', *match.span()
    for kind, rx, valid in _UNLABELLED_IDS if many_digits else ():
        for match in rx.finditer(text):
            if valid(match.group()):
                yield kind, *match.span()


def _card_spans(text: str) -> Iterable[Span]:
    for match in _CARD.finditer(text):
        digits = re.sub(r'\D', '', match.group())
        if not (13 <= len(digits) <= 19 and len(set(digits)) > 1):
            continue
        labelled = _CARD_LABEL.search(text[max(0, match.start() - 40) : match.start()])
        if labelled or _luhn(digits):
            yield 'card_number', *match.span()


def _entropy_spans(text: str) -> Iterable[Span]:
    for match in _TOKEN.finditer(text):
        if _random_token(match.group()):
            yield 'high_entropy', *match.span()
    for match in _HEX.finditer(text):
        context = text[max(0, match.start() - 30) : match.start()]
        if _HEX_CONTEXT.search(context) and entropy(match.group()) >= 3.0:
            yield 'high_entropy', *match.span()


# every rule needs one of these (a digit, a keyword, a URL, a long token): most strings have
# none and skip the rules
_MAYBE = lazy_compile(
    r'\d|://|-----BEGIN|[A-Za-z0-9+/_=.-]{16,}|pass|pw|pwd|login|wi-?fi|network key|'
    r'secret|token|key|bearer|mot de passe|contraseña|senha|密码|口令',
    re.IGNORECASE,
)


# `_MAYBE`'s first alternative alone: asked first, a text with a digit (most writes: dates,
# counts, times) is not scanned a second time by the whole of `_MAYBE` (~20 µs a LoCoMo turn)
_DIGIT = lazy_compile(r'\d')


# the fewest characters a match of any pattern `secret_spans` applies spans ("pw:abc",
# "密码:abc"; tests/unit/test_write_prefilters.py works it out from the patterns): a
# shorter string, such as most metadata values ("D1:3"), holds no secret
_SHORTEST = 6


def secret_spans(text: str) -> list[Span]:
    """(kind, start, end) of every secret-looking span in `text`, in order."""
    if len(text) < _SHORTEST or (_DIGIT.search(text) is None and _MAYBE.search(text) is None):
        return []
    many_digits = _SEVEN_DIGITS.search(text) is not None
    found = [*_rule_spans(text, many_digits), *_number_spans(text, many_digits)]
    found += _entropy_spans(text)
    return sorted(found, key=lambda f: (f[1], -f[2]))


def redact(text: str) -> tuple[str, list[str]]:
    """`text` with each secret span replaced by `[redacted:<kind>]`, and the kinds masked."""
    spans = secret_spans(text)
    if not spans:
        return text, []
    out: list[str] = []
    kinds: list[str] = []
    at = 0
    for kind, start, end in spans:
        if start < at:
            continue  # overlaps a span already masked
        out.append(text[at:start])
        out.append(f'[redacted:{kind}]')
        kinds.append(kind)
        at = end
    out.append(text[at:])
    return ''.join(out), kinds


def only_secrets(text: str) -> bool:
    """True when nothing but masked spans, spaces and punctuation remain of `text`."""
    return not re.search(r'\w', PLACEHOLDER.sub('', text))


# ---- structured values ---------------------------------------------------------------------

_KEY_WORDS = frozenset(
    {
        'password', 'passwd', 'passphrase', 'passcode', 'pwd', 'secret', 'token', 'apikey',
        'credential', 'credentials', 'pin', 'ssn', 'cvv', 'cvc', 'iban', 'privatekey',
        'accesskey', 'secretkey', 'authtoken', 'bearer', 'otp', 'mfa',
    }
)  # fmt: skip
_KEY_PAIRS = frozenset(
    {('api', 'key'), ('access', 'key'), ('private', 'key'), ('secret', 'key'), ('card', 'number')}
)
# a secret-named key that names something about the secret, not the secret itself
_KEY_META = frozenset(
    {
        'count', 'type', 'kind', 'length', 'len', 'limit', 'max', 'min', 'expires', 'expiry',
        'expired', 'id', 'name', 'hint', 'policy', 'url', 'tokens', 'used', 'ttl', 'at', 'set',
        'changed', 'enabled', 'required', 'strength', 'reset', 'label', 'source', 'ref',
    }
)  # fmt: skip


def secret_key(key: str) -> bool:
    """Whether a metadata key names a secret (`password`, `wifi_pin`, `apiKey`, `aws.secret`)."""
    spaced = re.sub(r'([a-z0-9])([A-Z])', r'\1 \2', key)
    words = [w for w in re.split(r'[^a-z0-9]+', spaced.lower()) if w]
    if not words or any(w in _KEY_META for w in words):
        return False
    if any(w in _KEY_WORDS for w in words) or ''.join(words) in _KEY_WORDS:
        return True
    return any(pair in _KEY_PAIRS for pair in zip(words, words[1:], strict=False))


def redact_value(value: Any, where: str, found: list[str], *, named: bool = False) -> Any:
    """`value` (nested lists and dicts, keys included) with secrets masked; each masked span is
    added to `found` as `<field path>:<kind>`. `named`: a secret-named key holds the value, so
    any scalar in it is masked whole."""
    if isinstance(value, str):
        if named and value and not PLACEHOLDER.fullmatch(value):
            found.append(f'{where}:secret_field')
            return '[redacted:secret_field]'
        clean, kinds = redact(value)
        found.extend(f'{where}:{kind}' for kind in kinds)
        return clean
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int | float):
        if named:
            found.append(f'{where}:secret_field')
            return '[redacted:secret_field]'
        return value
    if isinstance(value, list | tuple):
        return [redact_value(v, f'{where}.{i}', found, named=named) for i, v in enumerate(value)]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, inner in value.items():
            clean_key, kinds = redact(str(key))
            found.extend(f'{where}.{clean_key}:{kind}' for kind in kinds)
            while clean_key in out:  # two masked keys must not overwrite each other
                clean_key += '_'
            path = f'{where}.{clean_key}'
            out[clean_key] = redact_value(inner, path, found, named=named or secret_key(str(key)))
        return out
    return value


def redact_fields(record: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """A memory record (chunk, payload or export line) with every free-text field masked, and
    what was masked (`metadata.wifi:secret_field`, `text:password`, ...)."""
    found: list[str] = []
    out = dict(record)
    for name in TEXT_FIELDS:
        if out.get(name) is not None:
            out[name] = redact_value(out[name], name, found)
    for name in HISTORY_FIELDS:
        if isinstance(out.get(name), list):
            out[name] = [
                {
                    k: redact_value(v, f'{name}.{n}.{k}', found) if k in HISTORY_TEXT else v
                    for k, v in entry.items()
                }
                if isinstance(entry, dict)
                else entry
                for n, entry in enumerate(out[name])
            ]
    return out, found
