"""The secret corpus over every field and every write path: nothing of a secret is stored.

Each sample of `tests/secret_corpus.py` is written as a memory's text (single and batch writes),
in metadata (as a value, as a key, nested), in tags, source_ref and entity_key, through capture,
a document, a hydrate, an import (every field) and a completed session. Then the raw export
(`redact=false`) and the episodes are read back: no secret may appear in any stored field.
The same holds for an edit (tags, metadata, its reason), an imported history (earlier versions
and merged writes, every field), capture's source and channel and a session's summary.
"""

from __future__ import annotations

import json
import re
from typing import Any

from recall.write.scanner import TEXT_FIELDS
from tests.e2e.http_calls import wait_job
from tests.secret_corpus import KEPT_WORDS, SAMPLES

_HEX = re.compile(r'[0-9a-f-]{32,}')
NAMED = [
    ({'password': 'plainword'}, 'plainword'),
    ({'wifi': {'pin': 4821}}, '4821'),
    ({'apiKey': 'nothingspecial'}, 'nothingspecial'),
    ({'login': {'pwd': ['blue', 'skyline']}}, 'skyline'),
]


def _texts(record: dict[str, Any]) -> str:
    """Every stored free-text field of a record as one string (ids and times left out)."""
    return json.dumps({k: record.get(k) for k in TEXT_FIELDS}, ensure_ascii=False)


def _post(client: Any, auth: dict[str, str], path: str, body: Any) -> dict[str, Any]:
    response = client.post(path, json=body, headers=auth)
    assert response.status_code in (200, 201, 202), (path, response.get_json())
    return dict(response.get_json())


def test_no_secret_of_the_corpus_is_stored_through_any_field_or_path(client, auth, scope):
    assert len(SAMPLES) >= 60
    reported = 0
    # explicit single writes: the text
    for text, _ in SAMPLES:
        body = _post(client, auth, '/v1/memories', {'scope': scope, 'text': text})
        reported += bool(body['redacted'] or (body['reason'] or '').startswith('secret:'))
    assert reported == len(SAMPLES)
    # batch writes: metadata values, keys and nested values, tags, source_ref, entity_key
    items = []
    for n, (text, _) in enumerate(SAMPLES):
        items.append(
            {
                'scope': scope,
                'text': f'Field sample {n} in metadata',
                'metadata': {'note': text, text: 'key', 'nested': {'deep': [text]}},
                'tags': [text],
                'source_ref': text,
                'entity_key': f'sample:{text}',
            }
        )
    items += [
        {'scope': scope, 'text': f'Named field sample {n}', 'metadata': meta}
        for n, (meta, _) in enumerate(NAMED)
    ]
    for start in range(0, len(items), 50):
        results = _post(client, auth, '/v1/memories/batch', {'items': items[start : start + 50]})
        assert all(r['redacted'] for r in results['results']), results
    # capture, one turn per sample
    for text, _ in SAMPLES:
        _post(client, auth, '/v1/memories/capture', {'scope': scope, 'text': text})
    # a document and a hydrate of plain Markdown
    markdown = '# Notes\n\n' + '\n\n'.join(text for text, _ in SAMPLES) + '\n'
    _post(client, auth, '/v1/documents', {'scope': scope, 'path': 'notes.md', 'markdown': markdown})
    hydrated = _post(
        client, auth, '/v1/admin/hydrate', {'scope': f'{scope}:hydrated', 'markdown': markdown}
    )
    assert hydrated['written'] and hydrated['redacted'] == hydrated['written']
    # an import with the secret in every field
    lines = [
        json.dumps(
            {
                'scope': scope,
                'text': text,
                'abstract': text,
                'metadata': {'note': text, text: 1},
                'tags': [text],
                'source_ref': text,
                'entity_key': f'import:{n}:{text}',
            }
        )
        for n, (text, _) in enumerate(SAMPLES)
    ]
    response = client.post(
        '/v1/admin/import',
        data='\n'.join(lines) + '\n',
        content_type='application/x-ndjson',
        headers=auth,
    )
    report = response.get_json()
    assert response.status_code == 200 and report['imported'] == len(SAMPLES), report
    assert report['redacted'] == len(SAMPLES)
    # a completed session
    messages = [
        {'role': 'user', 'content': text, 'ts': f'2026-03-02T{9 + n // 60:02d}:{n % 60:02d}:00Z'}
        for n, (text, _) in enumerate(SAMPLES)
    ]
    job = _post(
        client, auth, '/v1/sessions/corpus-1/complete', {'scope': scope, 'messages': messages}
    )
    state = wait_job(client, auth, job['job_id'])
    assert state['state'] == 'done', state

    records = []
    for name in (scope, f'{scope}:hydrated'):
        exported = client.get(f'/v1/admin/export?scope={name}&redact=false', headers=auth)
        records += [json.loads(line) for line in exported.get_data(as_text=True).splitlines()]
    assert len(records) > 2 * len(SAMPLES)
    stored = '\n'.join(_texts(r) for r in records)
    episodes = client.get(f'/v1/episodes?scope={scope}', headers=auth).get_json()['episodes']
    assert episodes
    # episodes' strings, not their ids, times or counts: a 3-digit CVV turns up in those by chance
    stored += '\n'.join(_strings(episodes))
    secrets = [secret for _, secret in SAMPLES] + [secret for _, secret in NAMED]
    leaked = [secret for secret in secrets if secret in stored]
    assert leaked == []
    # the rest of a turn is kept around the secret
    first = SAMPLES[0][0].replace(SAMPLES[0][1], '[redacted:password]')
    assert all(word in first for word in KEPT_WORDS)
    assert first in [r['text'] for r in records]


def _strings(value: Any) -> list[str]:
    """Every string stored in `value`, keys included, but times and hex ids and hashes: their
    digits may hold a short PIN by chance."""
    if isinstance(value, str):
        return [] if _HEX.fullmatch(value) else [value]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    if isinstance(value, dict):
        timed = ('_at', 'since', 'at')
        return [s for k, v in value.items() if not k.endswith(timed) for s in [k, *_strings(v)]]
    return []


def _history_record(n: int, text: str, scope: str) -> str:
    """An import line whose history (an earlier version, a merged write) holds `text` in every
    free-text field."""
    version = {
        'version': 1,
        'text': text,
        'tags': [text],
        'metadata': {'note': text},
        'since': '2026-01-01T00:00:00Z',
        'replaced_at': '2026-01-02T00:00:00Z',
        'reason': text,
    }
    merge = {'at': '2026-01-01T00:00:00Z', 'text': text, 'reason': text}
    line = {
        'scope': scope,
        'text': f'Imported memory {n}',
        'versions': [version],
        'merges': [merge],
    }
    return json.dumps(line)


def test_no_secret_is_stored_through_an_edit_a_records_history_or_a_turns_labels(
    client, auth, scope
):  # type: ignore[no-untyped-def]
    # the edit's reason is kept with the replaced version, an import brings a history of its
    # own, capture keeps where a turn came from, a session its summary: all are stored text
    for n, (text, _) in enumerate(SAMPLES):
        memory = _post(client, auth, '/v1/memories', {'scope': scope, 'text': f'Garden note {n}'})
        edits = [
            {'tags': [text], 'metadata': {'note': text}, 'reason': text},
            {'text': f'Edited garden note {n}', 'metadata': {'n': text}, 'reason': text},
        ]
        for edit in edits:
            response = client.patch(f'/v1/memories/{memory["id"]}', json=edit, headers=auth)
            assert response.status_code == 200, response.get_json()
        turn = {'scope': scope, 'text': f'I planted tulips, row {n}', 'source': text[:128]}
        _post(client, auth, '/v1/memories/capture', {**turn, 'channel': text[:128]})
    lines = [_history_record(n, text, scope) for n, (text, _) in enumerate(SAMPLES)]
    response = client.post(
        '/v1/admin/import',
        data='\n'.join(lines) + '\n',
        content_type='application/x-ndjson',
        headers=auth,
    )
    assert response.status_code == 200 and response.get_json()['imported'] == len(SAMPLES)
    messages = [{'role': 'user', 'content': 'We talked about tulips', 'ts': '2026-03-02T09:00:00Z'}]
    summary = ' '.join(text for text, _ in SAMPLES)
    body = {'scope': scope, 'messages': messages, 'summary': summary}
    job = _post(client, auth, '/v1/sessions/corpus-2/complete', body)
    state = wait_job(client, auth, job['job_id'])
    assert state['state'] == 'done', state

    exported = client.get(f'/v1/admin/export?scope={scope}&redact=false', headers=auth)
    records = [json.loads(line) for line in exported.get_data(as_text=True).splitlines()]
    assert sum(bool(r.get('versions')) for r in records) == 2 * len(SAMPLES)
    stored = json.dumps([_strings(r) for r in records], ensure_ascii=False)
    episodes = client.get(f'/v1/episodes?scope={scope}', headers=auth).get_json()['episodes']
    assert episodes
    stored += json.dumps(_strings(episodes), ensure_ascii=False)
    leaked = [secret for _, secret in SAMPLES if secret in stored]
    assert leaked == []
