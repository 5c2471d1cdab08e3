// Mnemos memory inspector: plain JS over the JSON API; no build step, no dependencies.
// The token lives in sessionStorage (gone when the tab closes); every text is set with
// textContent, never as HTML, because memories are user data.
'use strict';

const TOKEN_KEY = 'mnemos-token';
const SCOPE_KEY = 'mnemos-scope';
const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

const state = { scope: '', nextOffset: null, memories: [] };

// ---- plumbing ------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function api(method, path, body) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new ApiError(401, { message: 'no token' });
  const init = { method, headers: { Authorization: `Bearer ${token}` } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

function say(text, kind = 'error') {
  const box = $('message');
  box.textContent = text;
  box.className = kind;
  box.hidden = !text;
}

function explain(err) {
  if (err.status === 401) {
    say('401 Unauthorized: the token is missing or not known to this service. ' +
        'Enter an admin or agent token above and press "Use token".');
  } else if (err.status === 403) {
    say(`403 Forbidden: this token may not read that: ${err.message}`);
  } else {
    const details = err.body && err.body.details ? ` ${JSON.stringify(err.body.details)}` : '';
    say(`${err.status || ''} ${err.message}${details}`);
  }
}

async function guarded(fn) {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) explain(err);
    else say(String(err));
    return undefined;
  }
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'text') node.textContent = value;
    else if (key === 'on') for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

const short = (id) => (id ? id.slice(0, 8) : '');
const day = (iso) => (iso ? iso.slice(0, 10) : '…');
const query = (params) => new URLSearchParams(
  Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== '')).toString();

// ---- token and scope ---------------------------------------------------------------------

async function useToken(event) {
  event.preventDefault();
  const token = $('token').value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  $('token').value = '';
  $('token').placeholder = 'token set for this browser session';
  say('');
  await loadScopes();
  if (state.scope) await openScope();
}

function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  $('token').placeholder = 'admin or agent bearer token';
  say('Token forgotten.', 'info');
}

async function loadScopes() {
  // only the admin may read stats across scopes; an agent token just types its scope
  try {
    const stats = await api('GET', '/v1/memory/stats');
    const list = $('scopes');
    list.replaceChildren(...Object.keys(stats.by_scope).sort().map((s) => el('option', { value: s })));
  } catch (err) {
    if (err.status === 401) explain(err);
  }
}

async function openScope(event) {
  if (event) event.preventDefault();
  const scope = $('scope').value.trim();
  if (!scope) return;
  state.scope = scope;
  sessionStorage.setItem(SCOPE_KEY, scope);
  say('');
  $('entity-card').hidden = true;
  await guarded(async () => {
    $('memory-card').hidden = true;
    await Promise.all([loadStats(), loadMemories(), loadEntities(), loadEpisodes(), loadJobs()]);
  });
}

// ---- stats -----------------------------------------------------------------------------

function bars(title, counts) {
  const total = Object.values(counts).reduce((a, b) => a + b, 0) || 1;
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([name, n]) => {
    const bar = el('span', { class: 'bar' });
    bar.style.width = `${Math.max(2, (100 * n) / total)}%`;
    return el('tr', {}, el('td', { text: name }), el('td', { class: 'num', text: String(n) }),
      el('td', { class: 'barcell' }, bar));
  });
  return el('table', { class: 'bars' }, el('caption', { text: title }), ...rows);
}

async function loadStats() {
  const stats = await api('GET', `/v1/memory/stats?${query({ scope: state.scope })}`);
  $('stats').className = '';
  $('stats').replaceChildren(
    el('p', { id: 'stats-total', text: `${stats.total} memories, ${stats.pinned} pinned, ` +
      `${stats.superseded} superseded` }),
    el('div', { class: 'two' }, bars('by tier', stats.by_tier), bars('by kind', stats.by_kind)),
  );
}

// ---- memories --------------------------------------------------------------------------

async function loadMemories(more = false) {
  const params = { scope: state.scope, limit: 25, offset: more ? state.nextOffset : null };
  const page = await api('GET', `/v1/memories?${query(params)}`);
  state.memories = more ? state.memories.concat(page.items) : page.items;
  state.nextOffset = page.next;
  $('memories-more').hidden = !page.next;
  renderMemories();
}

function renderMemories() {
  const rows = state.memories.map((m) => {
    const pin = el('button', {
      type: 'button', class: 'pin', 'data-id': m.id, text: m.pinned ? 'Unpin' : 'Pin',
      on: { click: () => setPinned(m, !m.pinned) },
    });
    const del = el('button', {
      type: 'button', class: 'delete danger', 'data-id': m.id, text: 'Delete',
      on: { click: () => remove(m) },
    });
    const text = el('td', { class: 'text', text: m.text, title: `${m.id}\n${m.created_at}` });
    text.prepend(el('a', { href: '#', class: 'open', 'data-id': m.id, text: 'details',
      on: { click: (ev) => { ev.preventDefault(); openMemory(m.id); } } }));
    if (m.pinned) text.prepend(el('span', { class: 'badge', text: 'pinned' }));
    // a superseded memory keeps its tier, but it is no longer current: say that instead
    const tier = m.superseded_by ? el('td', { class: 'superseded', text: 'superseded' })
      : el('td', { text: m.tier });
    return el('tr', { 'data-id': m.id, class: m.superseded_by ? 'superseded' : '' }, text,
      el('td', { text: m.kind }), tier, el('td', { class: 'actions' }, pin, del));
  });
  if (!rows.length) rows.push(el('tr', {}, el('td', { colspan: '4', class: 'muted', text: 'No memories.' })));
  $('memories').tBodies[0].replaceChildren(...rows);
}

async function setPinned(memory, pinned) {
  await guarded(async () => {
    const updated = await api('POST', `/v1/memories/${memory.id}/${pinned ? 'pin' : 'unpin'}`);
    state.memories = state.memories.map((m) => (m.id === updated.id ? updated : m));
    renderMemories();
    say(`${pinned ? 'Pinned' : 'Unpinned'} ${short(memory.id)}.`, 'info');
    await loadStats();
  });
}

async function remove(memory) {
  if (!window.confirm(`Delete this memory?\n\n${memory.text.slice(0, 200)}`)) return;
  await guarded(async () => {
    await api('DELETE', `/v1/memories/${memory.id}`);
    state.memories = state.memories.filter((m) => m.id !== memory.id);
    renderMemories();
    for (const hit of document.querySelectorAll('#hits li.hit')) {
      if (hit.dataset.id === memory.id) hit.remove();
    }
    say(`Deleted ${short(memory.id)}.`, 'info');
    await loadStats();
  });
}

// ---- one memory: its fields, its history, whether it is still current ---------------------

const FIELDS = ['id', 'scope', 'user_id', 'kind', 'tier', 'importance', 'importance_label',
  'pinned', 'trust', 'source', 'tags', 'created_at', 'updated_at', 'accessed_at', 'access_count',
  'expires_at', 'doc_path', 'entity_ids', 'metadata'];

const shown = (v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));

async function openMemory(id) {
  await guarded(async () => {
    const [memory, story] = await Promise.all([
      api('GET', `/v1/memories/${encodeURIComponent(id)}`),
      api('GET', `/v1/memories/${encodeURIComponent(id)}/history`),
    ]);
    $('memory-text').textContent = memory.text;
    $('memory-state').textContent = story.superseded ? 'superseded' : `current · v${story.version}`;
    $('memory-state').className = story.superseded ? 'badge superseded' : 'badge';
    const by = story.superseded_by;
    $('memory-superseded').hidden = !by;
    if (by) {
      const reason = by.reason ? ` because ${by.reason}` : '';
      $('memory-superseded').textContent = `Superseded on ${day(by.at)}${reason} by ` +
        `${short(by.id)}: ${by.text === null ? '(deleted)' : by.text}`;
    }
    $('memory-fields').replaceChildren(...FIELDS.map((name) => el('tr', {},
      el('th', { text: name }), el('td', { 'data-field': name, text: shown(memory[name]) }))));
    const versions = story.versions.map((v) => el('li', { class: 'version' },
      el('span', { class: 'muted', text: `v${v.version} · ${day(v.since)} → ${day(v.replaced_at)} · ` +
        `changed ${v.changed.join(', ')}${v.reason ? ` · ${v.reason}` : ''} ` }),
      el('span', { text: v.text })));
    versions.push(el('li', { class: 'version current' },
      el('span', { class: 'muted', text: `v${story.version} · since ${day(story.current.since)} · current ` }),
      el('span', { text: story.current.text })));
    for (const old of story.supersedes) {
      versions.push(el('li', { class: 'version replaced' },
        el('span', { class: 'muted', text: `superseded ${short(old.id)} on ${day(old.at)} ` }),
        el('span', { text: old.text })));
    }
    $('memory-history').replaceChildren(...versions);
    const merges = story.merges.map((g) => el('li', { class: 'merge' },
      el('span', { class: 'muted', text: `${day(g.at)} · ${g.reason} · ${g.source} ` }),
      el('span', { text: g.text })));
    if (story.merge_count > merges.length) {
      merges.push(el('li', { class: 'muted', text: `and ${story.merge_count - merges.length} older` }));
    }
    if (!merges.length) merges.push(el('li', { class: 'muted', text: 'Nothing merged into it.' }));
    $('memory-merges').replaceChildren(...merges);
    $('memory-card').hidden = false;
    $('memory-card').scrollIntoView({ block: 'nearest' });
  });
}

// ---- search and its receipt --------------------------------------------------------------

async function runSearch(event) {
  event.preventDefault();
  const text = $('query').value.trim();
  if (!text || !state.scope) return;
  await guarded(async () => {
    // touch: false, looking at memories must not count as recalling them
    const body = { query: text, scope: state.scope, top_k: 10, mode: $('mode').value, touch: false };
    const result = await api('POST', '/v1/memory_search', body);
    renderHits(result.hits);
    renderReceipt(result.receipt);
  });
}

function renderHits(hits) {
  const items = hits.map((h) => el('li', { class: 'hit', 'data-id': h.id,
    on: { click: () => openMemory(h.id) } },
    el('span', { class: 'score', text: h.score.toFixed(4) }),
    el('span', { class: 'kind', text: `${h.kind}/${h.tier}` }),
    el('span', { text: h.text })));
  if (!items.length) items.push(el('li', { class: 'muted', text: 'No hits.' }));
  $('hits').replaceChildren(...items);
}

function renderReceipt(receipt) {
  const header = el('tr', {}, el('th', { text: 'channel' }), el('th', { text: 'top ids, best first' }));
  const rows = Object.entries(receipt.channels).map(([channel, ids]) => el('tr',
    { class: 'channel', 'data-channel': channel },
    el('th', { text: channel }),
    el('td', { class: 'ids', text: ids.map(short).join('  ') || '(none)' })));
  rows.push(el('tr', { class: 'channel', 'data-channel': 'fused' }, el('th', { text: 'fused' }),
    el('td', { class: 'ids', text: receipt.fused.map(short).join('  ') || '(none)' })));
  const latency = Object.entries(receipt.latency_ms).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(', ');
  const extra = [`scopes: ${receipt.scopes.join(', ')}`];
  if (receipt.fallback) extra.push(`fallback: ${receipt.fallback}`);
  $('receipt').replaceChildren(
    el('h3', { text: 'Receipt' }),
    el('table', { class: 'receipt' }, header, ...rows),
    el('p', { class: 'muted', text: `${extra.join(' · ')} · ${latency}` }),
  );
}

// ---- entities ----------------------------------------------------------------------------

async function loadEntities(event) {
  if (event) event.preventDefault();
  const params = { scope: state.scope, q: $('entity-q').value.trim(), limit: 100 };
  const result = await guarded(() => api('GET', `/v1/kg/entities?${query(params)}`));
  if (!result) return;
  const items = result.items.map((e) => el('li', {},
    el('a', { href: '#', class: 'entity', 'data-id': e.id, text: e.name,
      on: { click: (ev) => { ev.preventDefault(); openEntity(e.id); } } }),
    el('span', { class: 'muted', text: ` ${e.type} · ${e.mention_count} mentions` })));
  if (!items.length) items.push(el('li', { class: 'muted', text: 'No entities (yet).' }));
  $('entities').replaceChildren(...items);
}

async function openEntity(id) {
  await guarded(async () => {
    const detail = await api('GET', `/v1/kg/entities/${id}?${query({ scope: state.scope })}`);
    const e = detail.entity;
    $('entity-name').textContent = e.name;
    const aliases = e.aliases.length ? ` · aka ${e.aliases.join(', ')}` : '';
    $('entity-meta').textContent = `${e.type} · ${e.mention_count} mentions${aliases} · ` +
      `${detail.current.length} current of ${detail.history.length} facts`;
    $('timeline').replaceChildren(timeline(detail.history));
    $('neighbours').replaceChildren(neighbourGraph(e, detail.history));
    $('entity-card').hidden = false;
    $('entity-card').scrollIntoView({ block: 'nearest' });
  });
}

function timeline(facts) {
  // one bar per fact from valid_from to valid_to (open-ended: to today); unknown start: recorded_at
  if (!facts.length) return el('p', { class: 'muted', text: 'No facts.' });
  const now = Date.now();
  const spans = facts.map((f) => {
    const start = Date.parse(f.valid_from || f.recorded_at);
    const end = f.valid_to ? Date.parse(f.valid_to) : now;
    return { f, start, end: Math.max(end, start) };
  });
  const lo = Math.min(...spans.map((s) => s.start));
  const hi = Math.max(now, ...spans.map((s) => s.end));
  const width = 640; const left = 230; const row = 26; const top = 24;
  const x = (t) => left + ((width - left - 10) * (t - lo)) / Math.max(1, hi - lo);
  const height = top + row * spans.length + 6;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, class: 'timeline', role: 'img' });
  root.append(svg('text', { x: left, y: 14, class: 'axis' }, day(new Date(lo).toISOString())));
  root.append(svg('text', { x: width - 10, y: 14, class: 'axis end' }, day(new Date(hi).toISOString())));
  spans.forEach(({ f, start, end }, i) => {
    const y = top + i * row;
    const g = svg('g', { class: `fact ${f.valid_to ? 'closed' : 'open'}`, 'data-id': f.id });
    g.append(svg('title', {}, `${f.fact || ''}\nvalid ${day(f.valid_from)} → ${f.valid_to ? day(f.valid_to) : 'now'}\nrecorded ${day(f.recorded_at)}`));
    g.append(svg('text', { x: 4, y: y + 14, class: 'label' }, `${f.subject} ${f.predicate} ${f.object}`));
    g.append(svg('rect', { x: x(start), y: y + 3, width: Math.max(4, x(end) - x(start)), height: 14, rx: 3 }));
    // dates inside the bar when it is wide enough, else beside it where there is room
    const wide = x(end) - x(start) > 150;
    const after = x(end) + 140 < width;
    const attrs = wide ? { x: x(start) + 4, class: 'dates' }
      : after ? { x: x(end) + 4, class: 'dates outside' }
        : { x: x(start) - 4, class: 'dates outside before' };
    g.append(svg('text', { ...attrs, y: y + 14 },
      `${day(f.valid_from)} → ${f.valid_to ? day(f.valid_to) : 'now'}`));
    root.append(g);
  });
  return root;
}

function neighbourGraph(entity, facts) {
  // the entity in the middle, each other end of its facts on a circle; edges named by predicate
  const others = new Map();
  for (const f of facts) {
    const outgoing = f.subject_id === entity.id;
    const id = outgoing ? f.object_id : f.subject_id;
    const name = outgoing ? f.object : f.subject;
    if (id === entity.id) continue;
    const entry = others.get(id) || { id, name, edges: [] };
    entry.edges.push({ predicate: f.predicate, outgoing, current: f.current && !f.valid_to });
    others.set(id, entry);
  }
  const nodes = [...others.values()];
  if (!nodes.length) return el('p', { class: 'muted', text: 'No neighbours.' });
  const w = 640; const h = 300; const cx = w / 2; const cy = h / 2; const r = 115;
  const root = svg('svg', { viewBox: `0 0 ${w} ${h}`, class: 'graph', role: 'img' });
  nodes.forEach((n, i) => {
    const angle = (2 * Math.PI * i) / nodes.length - Math.PI / 2;
    n.x = cx + r * 1.6 * Math.cos(angle);
    n.y = cy + r * Math.sin(angle);
    const current = n.edges.some((e) => e.current);
    root.append(svg('line', { x1: cx, y1: cy, x2: n.x, y2: n.y, class: current ? 'edge' : 'edge past' }));
    const label = n.edges.map((e) => (e.outgoing ? `${e.predicate} →` : `← ${e.predicate}`)).join(', ');
    root.append(svg('text', { x: (cx + n.x) / 2, y: (cy + n.y) / 2 - 4, class: 'edge-label' }, label));
  });
  const node = (x, y, name, cls, id) => {
    const g = svg('g', { class: `node ${cls}` });
    if (id) {
      g.setAttribute('data-id', id);
      g.addEventListener('click', () => openEntity(id));
    }
    g.append(svg('circle', { cx: x, cy: y, r: cls === 'centre' ? 30 : 22 }));
    g.append(svg('text', { x, y: y + 4 }, name.length > 16 ? `${name.slice(0, 15)}…` : name));
    return g;
  };
  nodes.forEach((n) => root.append(node(n.x, n.y, n.name, 'neighbour', n.id)));
  root.append(node(cx, cy, entity.name, 'centre'));
  return root;
}

// ---- episodes and jobs -------------------------------------------------------------------

async function loadEpisodes() {
  const result = await api('GET', `/v1/episodes?${query({ scope: state.scope, limit: 20 })}`);
  const items = result.episodes.map((ep) => el('li', { class: 'episode' },
    el('strong', { text: `${ep.session_key} ` }),
    el('span', { class: 'muted', text: `${day(ep.started_at)} · ${ep.message_count} messages` +
      `${ep.promoted ? ' · promoted' : ''}` }),
    el('div', { text: ep.abstract || ep.summary })));
  if (!items.length) items.push(el('li', { class: 'muted', text: 'No episodes.' }));
  $('episodes').replaceChildren(...items);
}

async function loadJobs() {
  const result = await api('GET', `/v1/jobs?${query({ scope: state.scope, limit: 20 })}`);
  const rows = result.jobs.map((j) => el('tr', { class: `job ${j.state}`, 'data-id': j.id,
    title: j.error || j.id },
  el('td', { text: j.job }), el('td', { class: 'state', text: j.state }),
  el('td', { class: 'num', text: String(j.attempts) }), el('td', { text: j.created_at.slice(0, 19) })));
  if (!rows.length) rows.push(el('tr', {}, el('td', { colspan: '4', class: 'muted', text: 'No jobs.' })));
  $('jobs').tBodies[0].replaceChildren(...rows);
}

async function checkJob(event) {
  event.preventDefault();
  const id = $('job-id').value.trim();
  if (!id) return;
  const info = await guarded(() => api('GET', `/v1/jobs/${encodeURIComponent(id)}`));
  $('job').textContent = info ? JSON.stringify(info, null, 2) : '';
}

// ---- start -------------------------------------------------------------------------------

document.addEventListener('DOMContentLoaded', () => {
  $('token-form').addEventListener('submit', useToken);
  $('token-clear').addEventListener('click', forgetToken);
  $('scope-form').addEventListener('submit', openScope);
  $('search-form').addEventListener('submit', runSearch);
  $('entity-filter').addEventListener('submit', loadEntities);
  $('memories-refresh').addEventListener('click', () => guarded(() => loadMemories()));
  $('memories-more').addEventListener('click', () => guarded(() => loadMemories(true)));
  $('job-form').addEventListener('submit', checkJob);
  $('jobs-refresh').addEventListener('click', () => guarded(() => loadJobs()));
  const scope = sessionStorage.getItem(SCOPE_KEY);
  if (scope) $('scope').value = scope;
  if (sessionStorage.getItem(TOKEN_KEY)) {
    $('token').placeholder = 'token set for this browser session';
    loadScopes().then(() => (scope ? openScope() : undefined));
  } else {
    say('Enter a token to begin (the admin token is in mnemos-data/api_token).', 'info');
  }
});
