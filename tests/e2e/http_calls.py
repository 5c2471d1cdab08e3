"""The HTTP calls the e2e tests make of the memory and graph API, each asserting its status.

One place for them, so that the supersession, capture, correction and graph-typing tests all
speak to the API the same way: `client` is the Flask test client, `auth` the headers, and
`**fields` go into the request body as they are (`user_id`, `kind`, `pinned`, ...). The Redis
chain test uses the job calls too.
"""

from __future__ import annotations

import json
from typing import Any

from tests.waiting import wait_until

# a job chain (episode, graph, dreaming) on a busy 2-core machine; only a failure waits it out
JOB_DEADLINE_S = 300.0


def write(
    client: Any, auth: dict[str, str], scope: str, text: str, **fields: Any
) -> dict[str, Any]:
    """POST /v1/memories; the written memory with its receipt (superseded, supersessions)."""
    body = {'scope': scope, 'text': text, **fields}
    response = client.post('/v1/memories', json=body, headers=auth)
    assert response.status_code in (200, 201), response.get_json()
    return dict(response.get_json())


def capture(
    client: Any, auth: dict[str, str], scope: str, text: str, **fields: Any
) -> dict[str, Any]:
    """POST /v1/memories/capture; the answer (`stored`, `skipped`)."""
    body = {'scope': scope, 'text': text, **fields}
    response = client.post('/v1/memories/capture', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def said(
    client: Any, auth: dict[str, str], scope: str, text: str, via: str, **fields: Any
) -> list[dict[str, Any]]:
    """The memories a turn stored `via` capture (any number) or a plain write (one); each has
    an `id`."""
    if via == 'capture':
        return list(capture(client, auth, scope, text, **fields)['stored'])
    assert via == 'write', via
    return [write(client, auth, scope, text, **fields)]


def read(client: Any, auth: dict[str, str], ident: str) -> dict[str, Any]:
    """GET /v1/memories/<ident>."""
    response = client.get(f'/v1/memories/{ident}', headers=auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def search(
    client: Any, auth: dict[str, str], scope: str, query: str, **fields: Any
) -> list[dict[str, Any]]:
    """POST /v1/memory_search with no score floor; the hits."""
    body = {'query': query, 'scope': scope, 'min_score': 0.0, **fields}
    response = client.post('/v1/memory_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return list(response.get_json()['hits'])


def top_id(client: Any, auth: dict[str, str], scope: str, query: str, **fields: Any) -> str:
    """The id of `search`'s first hit (there must be one)."""
    hits = search(client, auth, scope, query, **fields)
    assert hits, (scope, query)
    return str(hits[0]['id'])


def exported(client: Any, auth: dict[str, str], scope: str) -> dict[str, dict[str, Any]]:
    """Every stored memory of `scope` as GET /v1/admin/export gives it (superseded ones
    included), by id."""
    response = client.get(f'/v1/admin/export?scope={scope}', headers=auth)
    assert response.status_code == 200, response.get_json()
    records = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    return {r['id']: r for r in records}


def one_id(result: dict[str, Any]) -> str:
    """The id of the one memory a capture stored."""
    [stored] = result['stored']
    return str(stored['id'])


def graph_facts(
    client: Any, auth: dict[str, str], scope: str, query: str, **fields: Any
) -> set[tuple[str, str, bool]]:
    """The graph's facts for `query`, past ones too, as (predicate, object, current)."""
    body = {'query': query, 'scope': scope, 'include_history': True, **fields}
    response = client.post('/v1/knowledge_graph_search', json=body, headers=auth)
    assert response.status_code == 200, response.get_json()
    return {(f['predicate'], f['object'], f['current']) for f in response.get_json()['facts']}


def entity_type(client: Any, auth: dict[str, str], scope: str, name: str) -> str | None:
    """The type of the graph entity called `name` in `scope`, None when there is none."""
    response = client.get(f'/v1/kg/entities?scope={scope}&q={name}', headers=auth)
    assert response.status_code == 200, response.get_json()
    items = response.get_json()['items']
    return next((e['type'] for e in items if e['name'] == name), None)


def job_info(client: Any, auth: dict[str, str], job_id: str) -> dict[str, Any]:
    """GET /v1/jobs/<job_id>."""
    response = client.get(f'/v1/jobs/{job_id}', headers=auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def wait_job(
    client: Any, auth: dict[str, str], job_id: str, timeout: float = JOB_DEADLINE_S
) -> dict[str, Any]:
    """The job once it has ended (done or failed)."""

    def ended() -> dict[str, Any] | None:
        info = job_info(client, auth, job_id)
        return info if info['state'] in ('done', 'failed') else None

    return wait_until(ended, lambda: f'job {job_id}: {job_info(client, auth, job_id)}', timeout)
