"""The memory inspector: static HTML/JS/CSS at `/ui`, talking to the same JSON API.

The page itself is public (it holds no data); every call it makes carries the bearer token the
user typed, kept in the browser's sessionStorage.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, send_from_directory

from api.documented import Raw, documented

ASSETS = Path(__file__).with_name('ui')

bp = Blueprint('ui', __name__)

# endpoints api/app.py lets through without a token
PUBLIC = frozenset({'ui.page', 'ui.asset'})

FRAME_ANCESTORS = "frame-ancestors 'none'"


def refuse_framing(response: Response) -> Response:
    """No other page may frame this one (clickjacking: a framed page whose token is entered
    could be clicked through by the page around it): `X-Frame-Options` for old browsers and
    the CSP `frame-ancestors` directive for current ones."""
    response.headers['X-Frame-Options'] = 'DENY'
    policy = response.headers.get('Content-Security-Policy')
    if not policy:
        response.headers['Content-Security-Policy'] = FRAME_ANCESTORS
    elif 'frame-ancestors' not in policy:
        response.headers['Content-Security-Policy'] = f'{policy}; {FRAME_ANCESTORS}'
    return response


@bp.after_request
def _no_framing(response: Response) -> Response:
    return refuse_framing(response)


@bp.get('/ui')
@documented(
    'The memory inspector page',
    responses={200: Raw('text/html', 'the inspector; it asks for a token')},
    auth=False,
    tag='service',
)
def page() -> Response:
    """The inspector page."""
    response = send_from_directory(ASSETS, 'index.html', max_age=0)
    response.headers['Content-Security-Policy'] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'"
    )
    return response


@bp.get('/ui/<path:name>')
@documented(
    'A script or stylesheet of the inspector',
    responses={200: Raw('*/*', 'JavaScript or CSS')},
    path_params={'name': "file name of the page's assets"},
    auth=False,
    tag='service',
)
def asset(name: str) -> Response:
    """A script or stylesheet of the page."""
    return send_from_directory(ASSETS, name, max_age=0)
