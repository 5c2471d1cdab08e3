"""A data dir keeps the BM25 weighting its vectors were written with: a new one gets the current
version, one written before the marker existed keeps version 1, so old and new memories of one
store are weighed alike. Real app (Qdrant Edge), hash embedder."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings
from vectors.bm25 import MARKER, SPARSE_VERSION, Bm25Encoder, term_id

TOKEN = 'sparse-version-token-0123456789ab'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
SCOPE = 'agent:sparse-version'
TEXT = '我喜欢狗，不喜欢猫。'


def _app(data_dir: Path) -> Any:
    from api.app import create_app

    return create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))


def _bm25_score(app: Any) -> float:
    """Write TEXT as the only memory and return BM25's raw score of it for the query '狗'."""
    client = app.test_client()
    body = {'scope': SCOPE, 'text': TEXT}
    assert client.post('/v1/memories', json=body, headers=AUTH).status_code == 201
    search = {'scope': SCOPE, 'query': '狗', 'mode': 'bm25', 'explain': True, 'touch': False}
    answer = client.post('/v1/memory_search', json=search, headers=AUTH).get_json()
    [(_, score)] = answer['receipt']['candidates']['bm25']
    return float(score)


def _expected(version: int) -> float:
    vector = Bm25Encoder(version).encode_document(TEXT)
    weight = dict(zip(vector.indices, vector.values, strict=True))[term_id('狗')]
    return math.log(1 + 0.5 / 1.5) * weight  # Qdrant's IDF of a term in the only point


def _close(app: Any) -> None:
    app.extensions['mnemos'].close()


def test_a_new_data_dir_weighs_with_the_current_version(tmp_path: Path) -> None:
    app = _app(tmp_path / 'data')
    try:
        assert _bm25_score(app) == pytest.approx(_expected(SPARSE_VERSION), rel=1e-3)
    finally:
        _close(app)
    assert json.loads((tmp_path / 'data' / MARKER).read_text()) == {'version': SPARSE_VERSION}


def test_a_data_dir_from_before_the_marker_keeps_weighing_with_version_1(tmp_path: Path) -> None:
    data_dir = tmp_path / 'data'
    _close(_app(data_dir))
    # what an earlier release leaves: the embedder's marker, no sparse one
    (data_dir / MARKER).unlink()
    app = _app(data_dir)
    try:
        assert _expected(1) != pytest.approx(_expected(SPARSE_VERSION), rel=1e-3)
        assert _bm25_score(app) == pytest.approx(_expected(1), rel=1e-3)
    finally:
        _close(app)
    assert json.loads((data_dir / MARKER).read_text()) == {'version': 1}
