"""Property test of the write path: random sequences of writes, batches, captures, paraphrases,
supersessions, deletes, searches and export/import over the real app (one per module, temp data
dir), checking after every step that

- no acknowledged memory disappears unless it was deleted (superseded ones stay, marked), and a
  memory is only ever superseded by an at-least-as-trusted write;
- merges never lower importance, the pin or access_count;
- export -> import into a fresh scope round-trips: the normalised records are identical, and
  a supersession record names the same memory in the copy as in the source;
- nothing answers 5xx.

Bounded for CI: 40 sequences of up to 20 steps, 6-45 s on a slow two-core machine.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

from api.app import create_app
from runtime.bootstrap import build
from tests.conftest import ADMIN_TOKEN, make_settings

pytestmark = pytest.mark.slow

AUTH = {'Authorization': f'Bearer {ADMIN_TOKEN}'}
TRUST_RANK = {'quarantined': 0, 'untrusted': 1, 'trusted': 2}
# texts, their paraphrases and contradictions: enough overlap that every dedup layer and the
# conflict check fire, in English and Chinese
TEXTS = [
    ('Lucky number is 88.', 'The lucky number is 88', 'Lucky number is no longer 88.'),
    ('Alice likes coffee in the morning', 'alice likes coffee in the morning!', None),
    ('Bob prefers tea', 'Bob prefers tea.', 'Bob no longer prefers tea'),
    ('我喜欢喝绿茶', '我喜欢喝绿茶。', '我不喜欢喝绿茶'),
    ('我叫东升', '我叫东升!', None),
    ('The deploy window is Friday at 16:00.', 'Deploy window: Friday 16:00', None),
]
KINDS = ['fact', 'preference', 'note', 'entity']
# export fields that name the store rather than the memory: ids derive from the scope
PLACE_FIELDS = ('id', 'scope', 'prev_id', 'superseded_by')
TOUCHED = ('access_count', 'accessed_at', 'tier')


@pytest.fixture(scope='module')
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    services = build(
        make_settings(tmp_path_factory.mktemp('props'), graph_enabled=False), inline_jobs=True
    )
    yield create_app(services=services)
    services.close()


def normalised(records: list[dict[str, Any]], skip: tuple[str, ...] = ()) -> list[str]:
    """Export records without the fields that name their place, as sorted JSON lines; a
    memory named by a supersession record is named by its user and text, '?' when the export
    does not hold it."""
    named = {r['id']: f'{r.get("user_id")}: {r["text"]}' for r in records}

    def by(ident: Any) -> Any:
        return None if ident is None else named.get(ident, '?')

    out = []
    for record in records:
        kept = {k: v for k, v in record.items() if k not in PLACE_FIELDS + skip}
        kept['superseded_by'] = by(record.get('superseded_by'))
        kept['stale'] = [{**s, 'by': by(s.get('by'))} for s in record.get('stale') or []]
        if record.get('supersession'):
            kept['supersession'] = {
                **record['supersession'],
                'by': by(record['supersession'].get('by')),
            }
        out.append(json.dumps(kept, sort_keys=True, ensure_ascii=False))
    return sorted(out)


def diff(after: list[str], before: list[str]) -> tuple[set[str], set[str]]:
    """Records only after, records only before."""
    return set(after) - set(before), set(before) - set(after)


class WritePath(RuleBasedStateMachine):
    """One fresh scope per example; the model holds what the service acknowledged."""

    client: Any = None
    memories = Bundle('memories')

    def __init__(self) -> None:
        super().__init__()
        self.scope = f'agent:p{uuid.uuid4().hex[:12]}'
        # id -> (importance, pinned, access_count, trust) as last observed
        self.seen: dict[str, tuple[float, bool, int, str]] = {}
        self.deleted: set[str] = set()
        self.acknowledged: set[str] = set()

    # ---- plumbing ----------------------------------------------------------------------------

    def call(self, method: str, url: str, **kwargs: Any) -> Any:
        response = getattr(self.client, method)(url, headers=AUTH, **kwargs)
        assert response.status_code < 500, (method, url, response.get_data(as_text=True))
        return response

    def acknowledge(self, result: dict[str, Any]) -> str | None:
        ident = result.get('id')
        if ident is None or result.get('status') == 'skipped':
            return None
        self.deleted.discard(ident)  # writing a deleted text again brings it back
        self.acknowledged.add(str(ident))
        return str(ident)

    def item(self, data: st.DataObject) -> dict[str, Any]:
        text = data.draw(st.sampled_from([t for row in TEXTS for t in row if t]))
        item: dict[str, Any] = {
            'scope': self.scope,
            'text': text,
            'kind': data.draw(st.sampled_from(KINDS)),
            'importance': data.draw(st.sampled_from([0.1, 0.3, 0.5, 0.9])),
            'pinned': data.draw(st.booleans()),
            'source': data.draw(st.sampled_from(['user', 'user', 'tool'])),
            'metadata': data.draw(st.sampled_from([{}, {'k': 'a'}, {'k': 'b', 'n': 1}])),
            'tags': data.draw(st.sampled_from([[], ['x'], ['x', 'y']])),
        }
        if data.draw(st.booleans()):
            item['user_id'] = data.draw(st.sampled_from(['ann', 'joe']))
        return item

    # ---- rules -------------------------------------------------------------------------------

    @rule(target=memories, data=st.data())
    def write(self, data: st.DataObject) -> str:
        response = self.call('post', '/v1/memories', json=self.item(data))
        assert response.status_code in (200, 201)
        return self.acknowledge(response.get_json()) or ''

    @rule(data=st.data())
    def batch(self, data: st.DataObject) -> None:
        items = [self.item(data) for _ in range(data.draw(st.integers(1, 4)))]
        response = self.call('post', '/v1/memories/batch', json={'items': items})
        assert response.status_code == 200
        for result in response.get_json()['results']:
            assert result['status'] != 'error', result
            self.acknowledge(result)

    @rule(data=st.data())
    def capture(self, data: st.DataObject) -> None:
        text = data.draw(st.sampled_from([r[0] for r in TEXTS] + ['My name is Dana Scully.']))
        body = {'scope': self.scope, 'text': text}
        response = self.call('post', '/v1/memories/capture', json=body)
        assert response.status_code == 200
        for stored in response.get_json()['stored']:
            self.acknowledge(stored)

    @rule(data=st.data())
    def paraphrase_or_contradict(self, data: st.DataObject) -> None:
        row = data.draw(st.sampled_from(TEXTS))
        text = data.draw(st.sampled_from([t for t in row[1:] if t]))
        kind = data.draw(st.sampled_from(['fact', 'preference']))
        for body in ({'text': row[0]}, {'text': text}):
            response = self.call(
                'post', '/v1/memories', json={'scope': self.scope, 'kind': kind, **body}
            )
            self.acknowledge(response.get_json())

    @rule(ident=memories)
    def delete(self, ident: str) -> None:
        if not ident or ident in self.deleted:
            return
        response = self.call('delete', f'/v1/memories/{ident}')
        assert response.status_code in (200, 404)
        self.deleted.add(ident)
        self.seen.pop(ident, None)

    @rule(data=st.data())
    def search(self, data: st.DataObject) -> None:
        query = data.draw(st.sampled_from([r[0] for r in TEXTS]))
        body = {'scope': self.scope, 'query': query, 'touch': data.draw(st.booleans())}
        assert self.call('post', '/v1/memory_search', json=body).status_code == 200

    @rule()
    def export_import_round_trips(self) -> None:
        records = self.export(self.scope)
        if not records:
            return
        copy = f'{self.scope}-c{uuid.uuid4().hex[:6]}'
        body = ''.join(json.dumps({**r, 'scope': copy}) + '\n' for r in records)
        response = self.call('post', '/v1/admin/import?dedupe=none', data=body)
        assert response.status_code == 200
        assert response.get_json()['imported'] == len(records)
        copied = normalised(self.export(copy))
        assert copied == normalised(records), diff(copied, normalised(records))
        # the source stays as it was, but for a search's access bookkeeping (recorded
        # asynchronously, it may land meanwhile)
        source = normalised(self.export(self.scope), TOUCHED)
        assert source == normalised(records, TOUCHED), diff(source, normalised(records, TOUCHED))

    def export(self, scope: str) -> list[dict[str, Any]]:
        response = self.call('get', f'/v1/admin/export?scope={scope}')
        return [json.loads(line) for line in response.get_data(as_text=True).splitlines()]

    # ---- invariants --------------------------------------------------------------------------

    @invariant()
    def nothing_acknowledged_is_lost_or_lowered(self) -> None:
        stored = {r['id']: r for r in self.export(self.scope)}
        lost = self.acknowledged - self.deleted - stored.keys()
        assert not lost, f'acknowledged memories disappeared: {lost}'
        for ident, (importance, pinned, access, trust) in self.seen.items():
            assert ident in stored, f'acknowledged memory {ident} disappeared'
            now = stored[ident]
            assert now['importance'] >= importance - 1e-9, (ident, importance, now)
            assert now['pinned'] or not pinned, (ident, now)
            assert now['access_count'] >= access, (ident, access, now)
            assert TRUST_RANK[now['trust']] >= TRUST_RANK[trust]
        for ident, record in stored.items():
            by = record.get('superseded_by')
            if by is not None and by in stored:
                assert TRUST_RANK[stored[by]['trust']] >= TRUST_RANK[record['trust']], record
            self.seen[ident] = (
                record['importance'],
                record['pinned'],
                record['access_count'],
                record['trust'],
            )


class Replay:
    """Stands in for Hypothesis' `data` in a rule: hands out recorded draws in order."""

    def __init__(self, *draws: Any) -> None:
        self._draws = iter(draws)

    def draw(self, strategy: Any, label: Any = None) -> Any:
        return next(self._draws)


# the sequence a random draw found (seed 287916292385566242580818166512570070128): a user's
# '我不喜欢喝绿茶' (memories_3) is superseded by '我喜欢喝绿茶' (memories_4), which is deleted;
# a tool's write of the same text (memories_9) got its id back and, with the old record left
# naming that id, appeared to supersede the user's memory. Each write: text, kind, importance,
# pinned, source, metadata, tags, whether a user_id is given (and which)
DRAWN: list[tuple[str, Any]] = [
    ('write', ('Lucky number is 88.', 'fact', 0.1, False, 'user', {}, [], False)),
    ('write', ('Lucky number is 88.', 'fact', 0.1, False, 'user', {}, [], False)),
    ('delete', 1),
    ('delete', 0),
    ('write', ('我不喜欢喝绿茶', 'note', 0.9, True, 'user', {}, ['x'], True, 'ann')),
    ('delete', 0),
    ('delete', 2),
    ('delete', 1),
    ('delete', 0),
    ('write', ('我不喜欢喝绿茶', 'entity', 0.9, False, 'user', {}, ['x'], False)),
    ('write', ('我喜欢喝绿茶', 'note', 0.9, True, 'user', {}, [], False)),
    ('delete', 4),
    ('write', ('Bob no longer prefers tea', 'preference', 0.9, False, 'user', {}, ['x'], False)),
    ('write', ('我叫东升!', 'entity', 0.9, True, 'tool', {'k': 'a'}, [], True, 'ann')),
    ('write', ('我不喜欢喝绿茶', 'preference', 0.1, True, 'tool', {'k': 'a'}, ['x', 'y'], False)),
    ('write', ('我喜欢喝绿茶。', 'entity', 0.9, False, 'user', {'k': 'a'}, ['x'], True, 'joe')),
    ('write', ('我喜欢喝绿茶', 'preference', 0.9, False, 'tool', {'k': 'a'}, [], False)),
]


def test_the_sequence_a_random_draw_found_keeps_every_invariant(app: Any) -> None:
    # Hypothesis' stateful tests take no @example: the found sequence is replayed rule by rule
    WritePath.client = app.test_client()
    machine = WritePath()
    made: list[str] = []
    machine.nothing_acknowledged_is_lost_or_lowered()
    for rule_name, args in DRAWN:
        if rule_name == 'write':
            made.append(machine.write(Replay(*args)))  # type: ignore[arg-type]
        else:
            machine.delete(made[args])
        machine.nothing_acknowledged_is_lost_or_lowered()
    machine.teardown()


def test_random_write_sequences_keep_every_invariant(app: Any) -> None:
    WritePath.client = app.test_client()
    WritePath.TestCase.settings = settings(
        max_examples=40,
        stateful_step_count=20,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        database=None,
        # new draws every run (a failure prints its seed, for --hypothesis-seed); a sequence
        # a draw once found is kept as a replay above
    )
    WritePath.TestCase().runTest()
