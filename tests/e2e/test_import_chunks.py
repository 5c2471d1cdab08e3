"""Backups larger than a request: `mnemos import` and `mnemos reindex` send bounded chunks, say
where to resume, and a record the store cannot keep is a line error, not a lost import."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.cli import main
from mnemos_client import Mnemos
from tests.live import TOKEN, live_service

pytestmark = pytest.mark.slow

# the service refuses request bodies over this (KG_MAX_BODY_BYTES); the export below is ~8x
BODY_LIMIT = 64 * 1024
RECORDS = 600


@pytest.fixture(scope='module')
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp('chunks-data')
    with live_service(data, graph_enabled=False, max_body_bytes=BODY_LIMIT) as base:
        yield base


def _records(scope: str) -> list[dict[str, object]]:
    filler = 'the backup keeps every line of this note intact ' * 16
    return [
        {
            'id': str(uuid.uuid5(uuid.NAMESPACE_URL, f'{scope}/{n}')),
            'scope': scope,
            'text': f'Note {n}: {filler}',
            'tags': [f'n{n}'],
        }
        for n in range(RECORDS)
    ]


def test_a_chunked_import_of_an_export_larger_than_a_request_round_trips(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scope = f'agent:c{uuid.uuid4().hex[:10]}'
    source = tmp_path / 'backup.jsonl'
    records = _records(scope)
    source.write_text(''.join(json.dumps(r) + '\n' for r in records), encoding='utf-8')
    assert source.stat().st_size > 8 * BODY_LIMIT
    common = ['--url', url, '--token', TOKEN]

    # the default chunk is larger than this service's limit: it is halved until it passes
    assert main(['import', str(source), *common]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report['read'], report['imported'], report['invalid']) == (RECORDS, RECORDS, 0)

    exported = tmp_path / 'export.jsonl'
    assert main(['export', '--scope', scope, '-o', str(exported), *common]) == 0
    back = [json.loads(line) for line in exported.read_text(encoding='utf-8').splitlines()]
    assert sorted((r['id'], r['text'], r['tags']) for r in back) == sorted(
        (r['id'], r['text'], r['tags']) for r in records
    )

    # a resumed import reads from its line on; what is stored already is skipped by id
    assert main(['import', str(source), '--resume-from', '401', *common]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert (resumed['read'], resumed['skipped_duplicate'], resumed['imported']) == (200, 200, 0)

    capsys.readouterr()
    assert main(['reindex', '--scope', scope, '--chunk-bytes', str(BODY_LIMIT // 2), *common]) == 0
    assert f'reindexed {RECORDS} of {RECORDS} records' in capsys.readouterr().err
    with Mnemos(url, TOKEN) as client:
        assert client.stats(scope).total == RECORDS


def test_a_stopped_import_says_the_line_to_resume_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / 'backup.jsonl'
    source.write_text(''.join(json.dumps(r) + '\n' for r in _records('agent:x')), encoding='utf-8')
    # nothing listens on this port: the first chunk fails
    with pytest.raises(SystemExit) as stopped:
        main(['import', str(source), '--url', 'http://127.0.0.1:9', '--token', TOKEN])
    assert 'stopped at line 1' in str(stopped.value.code)
    assert 'rerun with --resume-from 1' in str(stopped.value.code)


def test_a_lone_surrogate_fails_its_record_only_naming_the_field(url: str) -> None:
    scope = f'agent:s{uuid.uuid4().hex[:10]}'
    lines = [json.dumps({'scope': scope, 'text': 'first valid record'})]
    # json.dumps writes a lone surrogate as its escape, as a client in another language may
    lines.append(json.dumps({'scope': scope, 'text': 'bad metadata', 'metadata': {'k': '\ud800'}}))
    lines.append(json.dumps({'scope': scope, 'text': 'bad tag', 'tags': ['ok', '\udfff']}))
    lines.append(json.dumps({'scope': scope, 'text': 'bad key', 'metadata': {'\ud83d': 1}}))
    lines += [json.dumps({'scope': scope, 'text': f'valid record {n}'}) for n in range(44)]
    with Mnemos(url, TOKEN) as client:
        report = client.import_records(lines)
        assert (report.read, report.imported, report.invalid) == (48, 45, 3)
        assert [(e.line, e.details[0]['loc']) for e in report.errors] == [
            (2, ['metadata', 'k']),
            (3, ['tags', 1]),
            (4, ['metadata', '\\ud83d']),
        ]
        assert client.stats(scope).total == 45
