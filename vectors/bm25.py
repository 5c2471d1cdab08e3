"""BM25 sparse vectors: tokenizer (English stemming + stopwords, CJK n-grams) and term weights.

The store applies IDF (Qdrant `Modifier.IDF`); we supply saturated term frequencies for
documents and unit weights for queries, so the dot product is the BM25 score.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from functools import lru_cache

import Stemmer

from core.text import CONTRACTION_PARTS, ENGLISH_STOP_WORDS, NEGATIONS
from vectors.models import SparseVector

K1 = 1.2
B = 0.75
# memories are short (one turn, one fact): a document-set average is not known up front and
# would change with every write, so a fixed typical length keeps stored weights stable
AVG_LEN = 12.0

# the shared English list minus negations, which carry meaning for memories ("does not like"),
# plus what the tokenizer leaves of contractions
STOPWORDS = (ENGLISH_STOP_WORDS - NEGATIONS) | CONTRACTION_PARTS

CJK_CHARS = (
    r'\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af'  # kana, han, hangul
)
_TOKEN = re.compile(rf'[{CJK_CHARS}]+|[^\W_]+', re.UNICODE)
_CJK_RUN = re.compile(rf'^[{CJK_CHARS}]+$')
_stemmer = Stemmer.Stemmer('english')


# Distinct words of real text stay well under 50k; the long tail beyond that is numbers, ids and
# typos seen once. After a 100k-memory load the two caches held ~104k entries each (~45 MB,
# bench/README.md, RSS after the load), almost all of them numbers: those skip the stemmer.
TERM_CACHE_SIZE = 50_000


@lru_cache(maxsize=TERM_CACHE_SIZE)
def _stem(word: str) -> str:
    return _stemmer.stemWord(word)


def tokenize(text: str) -> list[str]:
    """Index terms: stemmed English words without stopwords; CJK runs as unigrams + bigrams."""
    folded = unicodedata.normalize('NFKC', text).casefold()
    terms: list[str] = []
    for token in _TOKEN.findall(folded):
        if _CJK_RUN.match(token):
            # no word segmenter: unigrams let "狗" find "我喜欢狗", bigrams reward word order
            terms.extend(token)
            terms.extend(token[i : i + 2] for i in range(len(token) - 1))
        elif token.isascii() and token.isdigit():
            terms.append(token)  # the stemmer returns digits as they are
        elif token not in STOPWORDS:
            terms.append(_stem(token))
    return terms


@lru_cache(maxsize=TERM_CACHE_SIZE)
def term_id(term: str) -> int:
    """Stable 32-bit id of a term (same in every process and version)."""
    return int.from_bytes(hashlib.blake2b(term.encode('utf-8'), digest_size=4).digest(), 'little')


def _vector(weights: dict[int, float]) -> SparseVector:
    indices = sorted(weights)
    return SparseVector(indices=indices, values=[weights[i] for i in indices])


class Bm25Encoder:
    """SparseEncoder with BM25 term-frequency saturation (k1=1.2, b=0.75)."""

    def encode_document(self, text: str) -> SparseVector:
        """Saturated term frequencies of a stored text."""
        terms = tokenize(text)
        if not terms:
            return SparseVector()
        norm = K1 * (1 - B + B * len(terms) / AVG_LEN)
        weights: dict[int, float] = {}
        for term, tf in Counter(terms).items():
            ident = term_id(term)
            # two terms hashing to one id simply add up: rare and harmless for ranking
            weights[ident] = weights.get(ident, 0.0) + tf * (K1 + 1) / (tf + norm)
        return _vector(weights)

    def encode_query(self, text: str) -> SparseVector:
        """Unit weight per distinct query term."""
        return _vector({term_id(t): 1.0 for t in set(tokenize(text))})
