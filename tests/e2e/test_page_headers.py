"""The pages a person opens in a browser (/docs, /ui): no other site may frame them, and the
token typed into /docs is not left in the browser's localStorage."""

from __future__ import annotations

import pytest

from tests.e2e.test_docs_page import BROWSER_PATIENCE, offline_browser, url  # noqa: F401  (fixtures)
from tests.live import TOKEN
from tests.waiting import wait_until

PAGES = ('/docs', '/docs/assets/swagger-ui.css', '/ui', '/ui/app.js')


def test_pages_refuse_framing(client) -> None:  # type: ignore[no-untyped-def]
    for path in PAGES:
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers['X-Frame-Options'] == 'DENY', path
        assert "frame-ancestors 'none'" in response.headers['Content-Security-Policy'], path
    # the inspector keeps its own policy, with the framing rule added
    policy = client.get('/ui').headers['Content-Security-Policy']
    assert policy.startswith("default-src 'self'")


def test_docs_page_does_not_persist_the_token() -> None:
    from flask import Flask

    from api.openapi import bp

    app = Flask(__name__)
    app.register_blueprint(bp)
    page = app.test_client().get('/docs').get_data(as_text=True)
    assert 'persistAuthorization: false' in page


@pytest.mark.slow
def test_a_token_entered_in_docs_is_not_stored_in_local_storage(url, offline_browser) -> None:  # noqa: F811
    offline_browser.get(f'{url}/docs')
    # what the Authorize dialog does with the token typed into it, once the page has rendered
    authorize = (
        'var defs = window.ui && window.ui.specSelectors.securityDefinitions();'
        'if (!defs || !document.querySelector(".opblock")) { return "{}"; }'
        'window.ui.authActions.authorizeWithPersistOption('
        '{bearer: {name: "bearer", schema: defs.get("bearer"), value: arguments[0]}});'
        'return JSON.stringify(window.ui.authSelectors.authorized());'
    )
    # the page holds it for its calls
    wait_until(
        lambda: TOKEN in offline_browser.execute_script(authorize, TOKEN),
        'the docs page never took the token',
        BROWSER_PATIENCE,
    )
    stored = offline_browser.execute_script(
        'var out = ""; for (var i = 0; i < localStorage.length; i++) {'
        ' out += localStorage.getItem(localStorage.key(i)); } return out;'
    )
    assert TOKEN not in stored
