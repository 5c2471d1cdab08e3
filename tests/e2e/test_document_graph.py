"""A document version reaches the graph only once it is shown: chunks stored staged by an index
that stops before the payload write that shows them leave no entity or fact in the graph, and
the next index of the path, which shows them, extracts them. A graph rebuild skips staged chunks
too. Real app, graph on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.settings import Settings

pytestmark = pytest.mark.slow

TOKEN = 'document-graph-token-0123456789ab'
AUTH = {'Authorization': f'Bearer {TOKEN}'}
OLD = '## Team\n\nThe handbook has no names yet.'
NEW = '\n\n'.join(
    [
        '## Lead\n\nZebulon Quartermaine works at Marlowe Industries in Trondheim.',
        '## Deputy\n\nPriscilla Vandersloot works at Marlowe Industries in Trondheim.',
        '## Office\n\nThe Trondheim office of Marlowe Industries opened in 2019.',
        '## Travel\n\nZebulon Quartermaine flies to Reykjavik every March.',
    ]
)


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from api.app import create_app

    data_dir: Path = tmp_path_factory.mktemp('document-graph')
    application = create_app(Settings.load({}, data_dir=data_dir, api_token=TOKEN, embedder='hash'))
    yield application
    application.extensions['mnemos'].close()


def _names(app: Any, scope: str) -> list[str]:
    assert app.extensions['mnemos'].jobs.wait_idle(timeout=300)
    client = app.test_client()
    body = client.get(f'/v1/kg/entities?scope={scope}&limit=100', headers=AUTH).get_json()
    return sorted(e['name'] for e in body['items'])


def test_a_document_index_stopped_after_staging_leaves_nothing_of_the_new_version_in_the_graph(
    app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall.documents import index as doc_index

    scope, path = 'agent:doc-graph', 'team.md'
    documents = app.extensions['mnemos'].documents
    documents.index(scope, path, OLD)
    before = _names(app, scope)
    writer = app.extensions['mnemos'].writer
    real_store = writer.store
    steps: list[int] = []

    def stopped_after_one_step(chunks: Any, *args: Any, **kwargs: Any) -> None:
        if steps:
            raise RuntimeError('the process stopped here')
        steps.append(len(chunks))
        real_store(chunks, *args, **kwargs)

    monkeypatch.setattr(doc_index, 'STEP_CHUNKS', 2)
    monkeypatch.setattr(writer, 'store', stopped_after_one_step)
    with pytest.raises(RuntimeError):
        documents.index(scope, path, NEW)
    assert steps == [2]  # two chunks of the new version were stored, staged
    staged = _names(app, scope)
    assert not any('Quartermaine' in n or 'Vandersloot' in n for n in staged), staged
    assert staged == before
    # nor does a rebuild of the graph from everything stored read the staged chunks
    from consolidation.rebuild import queue_graph_rebuild

    assert queue_graph_rebuild(app.extensions['mnemos'].consolidation) == 1  # OLD's one chunk
    assert _names(app, scope) == before

    monkeypatch.setattr(writer, 'store', real_store)
    documents.index(scope, path, NEW)  # shows the version: now it reaches the graph
    shown = _names(app, scope)
    assert any('Quartermaine' in n for n in shown), shown
    assert any('Vandersloot' in n for n in shown), shown
