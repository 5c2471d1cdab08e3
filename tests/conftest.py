"""Shared fixtures: settings on a temp data dir, the real app, an authorised client."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings

ADMIN_TOKEN = 'admin-token-for-tests-0123456789'


def make_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Embedded settings on `data_dir` with the test admin token."""
    return Settings.load({}, data_dir=data_dir, api_token=ADMIN_TOKEN, **overrides)


@pytest.fixture
def scope() -> str:
    """A scope no other test writes to."""
    return f'agent:t{uuid.uuid4().hex[:12]}'


@pytest.fixture
def auth() -> dict[str, str]:
    """Admin Authorization header."""
    return {'Authorization': f'Bearer {ADMIN_TOKEN}'}


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    """The real app (Qdrant Edge, real embedder, graph off) on a module-wide data dir."""
    from api.app import create_app

    settings = make_settings(tmp_path_factory.mktemp('data'), graph_enabled=False)
    application = create_app(settings)
    yield application
    application.extensions['mnemos'].close()


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    """Flask test client of the module's app."""
    return app.test_client()
