"""The memory inspector: static HTML/JS/CSS at `/ui`, talking to the same JSON API.

The page itself is public (it holds no data); every call it makes carries the bearer token the
user typed, kept in the browser's sessionStorage.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

ASSETS = Path(__file__).with_name('ui')

bp = Blueprint('ui', __name__)

# endpoints api/__init__.py lets through without a token
PUBLIC = frozenset({'ui.page', 'ui.asset'})


@bp.get('/ui')
def page() -> Response:
    """The inspector page."""
    response = send_from_directory(ASSETS, 'index.html', max_age=0)
    response.headers['Content-Security-Policy'] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'"
    )
    return response


@bp.get('/ui/<path:name>')
def asset(name: str) -> Response:
    """A script or stylesheet of the page."""
    return send_from_directory(ASSETS, name, max_age=0)
