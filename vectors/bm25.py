"""BM25 sparse vectors: tokenizer (English stemming + stopwords, CJK n-grams) and term weights.

The store applies IDF (Qdrant `Modifier.IDF`); we supply saturated term frequencies for
documents and unit weights for queries, so the dot product is the BM25 score.

Stored vectors depend on the weighting, so a data dir records the version it was written with
(`sparse.json`, `encoder_for`) and keeps it: a data dir from before the marker reads and writes
version 1, and moving its memories to a new data dir (export, then import) re-encodes them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from collections import Counter
from functools import lru_cache
from pathlib import Path

import Stemmer

from core.errors import StoreUnavailable
from core.text import CONTRACTION_PARTS, ENGLISH_STOP_WORDS, NEGATIONS
from vectors.models import SparseVector

K1 = 1.2
B = 0.75
# memories are short (one turn, one fact): a document-set average is not known up front and
# would change with every write, so a fixed typical length keeps stored weights stable
AVG_LEN = 12.0

# 1: a text's length counts every term, so a CJK run of n characters (n unigrams + n-1 pairs)
# weighs about twice as long as n English words. 2: a CJK pair re-reads two characters already
# counted, so only unigrams count towards the length (bench/README.md, kinds). 3: a Latin word
# or a number touching CJK ("用Python写代码", "每90天") is a token of its own; before, it took the
# CJK characters after it into one token ("python写代码"), which no query term matched
SPARSE_VERSION = 3
SPARSE_VERSIONS = (1, 2, 3)
MARKER = 'sparse.json'
# a data dir that already holds the embedder's marker was written before this one existed
EARLIER_MARKER = 'embedder.json'

# the shared English list minus negations, which carry meaning for memories ("does not like"),
# plus what the tokenizer leaves of contractions
STOPWORDS = (ENGLISH_STOP_WORDS - NEGATIONS) | CONTRACTION_PARTS

CJK_CHARS = (
    r'\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af'  # kana, han, hangul
)
_TOKEN = re.compile(rf'[{CJK_CHARS}]+|[^\W_{CJK_CHARS}]+', re.UNICODE)
# versions 1 and 2: a word character run after a Latin letter or digit swallowed CJK after it
_TOKEN_BEFORE_3 = re.compile(rf'[{CJK_CHARS}]+|[^\W_]+', re.UNICODE)
_CJK_RUN = re.compile(rf'^[{CJK_CHARS}]+$')
_stemmer = Stemmer.Stemmer('english')


# Distinct words of real text stay well under 50k; the long tail beyond that is numbers, ids and
# typos seen once, which skip the stemmer, so the caches stay bounded (~20 MB each when full).
TERM_CACHE_SIZE = 50_000


@lru_cache(maxsize=TERM_CACHE_SIZE)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def tokenize(text: str, version: int = SPARSE_VERSION) -> list[str]:
    """Index terms: stemmed English words without stopwords; CJK runs as unigrams + bigrams;
    `version`: as that sparse encoder version cut them (SPARSE_VERSION)."""
    return _terms(text, version)[0]


def _terms(text: str, version: int = SPARSE_VERSION) -> tuple[list[str], int]:
    """The index terms and how many of them are CJK pairs."""
    folded = unicodedata.normalize('NFKC', text).casefold()
    terms: list[str] = []
    pairs = 0
    pattern = _TOKEN if version >= 3 else _TOKEN_BEFORE_3
    for token in pattern.findall(folded):
        if _CJK_RUN.match(token):
            # no word segmenter: unigrams let "狗" find "我喜欢狗", bigrams reward word order
            terms.extend(token)
            terms.extend(token[i : i + 2] for i in range(len(token) - 1))
            pairs += len(token) - 1
        elif token.isascii() and token.isdigit():
            terms.append(token)  # the stemmer returns digits as they are
        elif token not in STOPWORDS:
            terms.append(_stem(token))
    return terms, pairs


@lru_cache(maxsize=TERM_CACHE_SIZE)
def term_id(term: str) -> int:
    """Stable 32-bit id of a term (same in every process and version)."""
    return int.from_bytes(hashlib.blake2b(term.encode('utf-8'), digest_size=4).digest(), 'little')


def _vector(weights: dict[int, float]) -> SparseVector:
    indices = sorted(weights)
    return SparseVector(indices=indices, values=[weights[i] for i in indices])


class Bm25Encoder:
    """SparseEncoder with BM25 term-frequency saturation (k1=1.2, b=0.75).

    `version` is the weighting of the data dir's stored vectors (see SPARSE_VERSION).
    """

    def __init__(self, version: int = SPARSE_VERSION) -> None:
        """Encode documents and queries as `version` did."""
        if version not in SPARSE_VERSIONS:
            raise ValueError(f'unknown sparse encoder version {version!r}')
        self.version = version

    def encode_document(self, text: str) -> SparseVector:
        """Saturated term frequencies of a stored text."""
        terms, pairs = _terms(text, self.version)
        if not terms:
            return SparseVector()
        length = len(terms) - pairs if self.version >= 2 else len(terms)
        norm = K1 * (1 - B + B * length / AVG_LEN)
        weights: dict[int, float] = {}
        for term, tf in Counter(terms).items():
            ident = term_id(term)
            # two terms hashing to one id simply add up: rare and harmless for ranking
            weights[ident] = weights.get(ident, 0.0) + tf * (K1 + 1) / (tf + norm)
        return _vector(weights)

    def encode_query(self, text: str) -> SparseVector:
        """Unit weight per distinct query term, cut as the stored texts were."""
        return _vector({term_id(t): 1.0 for t in set(tokenize(text, self.version))})


def encoder_for(data_dir: Path) -> Bm25Encoder:
    """The encoder of the vectors `data_dir` holds, recorded in `data_dir/sparse.json`.

    Call it before anything else writes its marker: a data dir without this marker that holds
    the embedder's marker was written by version 1 (vectors of two weightings in one store would
    rank old memories below new ones), and keeps it; a new data dir gets the current version.
    """
    path = data_dir / MARKER
    if path.exists():
        try:
            version = json.loads(path.read_text(encoding='utf-8'))['version']
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise StoreUnavailable(
                f'cannot read {path}: {exc}', details={'path': str(path)}
            ) from exc
        if version not in SPARSE_VERSIONS:
            raise StoreUnavailable(
                f'data dir {data_dir} holds sparse vectors of version {version!r}, which this '
                f'release cannot read (it knows {", ".join(map(str, SPARSE_VERSIONS))})',
                details={'path': str(path), 'version': version},
            )
        return Bm25Encoder(version)
    version = 1 if (data_dir / EARLIER_MARKER).exists() else SPARSE_VERSION
    data_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f'{MARKER}.{os.getpid()}.tmp')  # two processes may start at once
    tmp.write_text(json.dumps({'version': version}) + '\n', encoding='utf-8')
    os.replace(tmp, path)
    return Bm25Encoder(version)
