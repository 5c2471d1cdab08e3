// The TypeScript client against a served Mnemos: MNEMOS_URL and MNEMOS_API_KEY name it (.ci/run
// starts one). Run with `npm test`.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';

import { Mnemos, MnemosError, pathId } from '../dist/index.js';
import { load, render } from '../scripts/schema.mjs';

const url = process.env.MNEMOS_URL;
const token = process.env.MNEMOS_API_KEY;
if (!url || !token) throw new Error('set MNEMOS_URL and MNEMOS_API_KEY to a running service');
const scope = () => `agent:ts${randomUUID().slice(0, 8)}`;

test('the committed types are those of the service\'s /openapi.json', async () => {
  const committed = await readFile(new URL('../src/schema.d.ts', import.meta.url), 'utf8');
  const fresh = await render(await load(`${url}/openapi.json`));
  assert.ok(committed === fresh, 'src/schema.d.ts is stale: run `npm run generate` in clients/typescript');
});

test('remember, search, get, pin, update, history and delete round trip', async () => {
  const mnemos = new Mnemos({ url, token });
  const s = scope();
  const written = await mnemos.remember({ scope: s, text: 'Alice prefers green tea', kind: 'preference' });
  assert.equal(written.status, 'created');
  const id = written.id;
  assert.ok(id);
  const found = await mnemos.search({ query: 'green tea', scope: s, mode: 'bm25', top_k: 3 });
  assert.deepEqual(found.hits.map((h) => h.text), ['Alice prefers green tea']);
  assert.ok('bm25' in found.receipt.channels);
  assert.equal((await mnemos.get(id)).kind, 'preference');
  assert.equal((await mnemos.pin(id)).pinned, true);
  assert.equal((await mnemos.update(id, { text: 'Alice prefers oolong' })).text, 'Alice prefers oolong');
  const history = await mnemos.history(id);
  assert.deepEqual(history.versions.map((v) => v.text), ['Alice prefers green tea']);
  const batch = await mnemos.rememberBatch([{ scope: s, text: 'Bob plays chess' }]);
  assert.deepEqual(batch.results.map((r) => r.status), ['created']);
  assert.equal((await mnemos.stats(s)).total, 2);
  assert.equal((await mnemos.list({ scope: s, limit: 10 })).items.length, 2);
  await mnemos.delete(id);
  await assert.rejects(mnemos.get(id), (err) => err instanceof MnemosError && err.status === 404 && err.error === 'not_found');
});

test('errors carry the service\'s JSON error and the field at fault', async () => {
  const mnemos = new Mnemos({ url, token });
  await assert.rejects(mnemos.search({ query: 'x', scope: 'nope' }), (err) => {
    assert.ok(err instanceof MnemosError);
    assert.equal(err.status, 422);
    assert.ok(JSON.stringify(err.details).includes('scope'));
    return true;
  });
  const stranger = new Mnemos({ url, token: 'not-a-token-0123456789' });
  await assert.rejects(stranger.stats('agent:x'), (err) => err instanceof MnemosError && err.status === 401);
});

test('ids are checked and encoded before they reach a path', async () => {
  const mnemos = new Mnemos({ url, token });
  for (const bad of ['../teams/core', 'a/b', '..', '']) {
    await assert.rejects(mnemos.delete(bad), (err) => err instanceof MnemosError && err.details[0].loc[0] === 'memory_id');
  }
  assert.equal(pathId('session_key', 'chat:1'), 'chat%3A1');
});

test('an unreachable service is a MnemosError with status 0 after the retries', async () => {
  const mnemos = new Mnemos({ url: 'http://127.0.0.1:9', token, retries: 1, backoffMs: 1 });
  await assert.rejects(mnemos.health(), (err) => err instanceof MnemosError && err.status === 0);
});

test('the address and token come from the environment', async () => {
  const mnemos = new Mnemos();
  assert.equal(mnemos.url, url.replace(/\/$/, ''));
  assert.equal((await mnemos.health()).status, 'ok');
  assert.ok((await mnemos.whoami()).admin);
});
