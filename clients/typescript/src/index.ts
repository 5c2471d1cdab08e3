// A small fetch client of the Mnemos HTTP API, typed by the generated src/schema.d.ts.
import type { components, paths } from './schema.js';

export type { components, paths };
export type Schemas = components['schemas'];
export type Memory = Schemas['ChunkOut'];
export type MemoryIn = Schemas['MemoryIn'];
export type MemoryPatch = Schemas['MemoryPatch'];
export type WriteResult = Schemas['MemoryWritten'];
export type SearchRequest = Schemas['SearchRequest'];
export type SearchResponse = Schemas['SearchResponse'];
export type Hit = Schemas['Hit'];
export type ErrorBody = Schemas['ErrorBody'];

/** The JSON body a route takes, and the JSON answer of its success status, from `paths`. */
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type RequestBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: infer R;
}
  ? Json<NonNullable<R>>
  : never;
export type Answer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: infer A }
    ? Json<A>
    : R extends { 201: infer A }
      ? Json<A>
      : R extends { 202: infer A }
        ? Json<A>
        : never
  : never;

/** Every failure of a call: an error answer (`status` > 0), no answer (0), or a refused id. */
export class MnemosError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly details: Array<Record<string, unknown>> = [],
    readonly body: unknown = undefined,
  ) {
    super(status ? `${status} ${error}: ${message}` : message);
    this.name = 'MnemosError';
  }
}

export interface MnemosOptions {
  /** default MNEMOS_URL, else http://127.0.0.1:8765 */
  url?: string;
  /** default MNEMOS_API_KEY, MNEMOS_TOKEN or KG_API_TOKEN */
  token?: string;
  /** tries after the first on a refused connection, 429 or 503 (default 3) */
  retries?: number;
  /** first backoff in ms, doubled each try (default 250) */
  backoffMs?: number;
  fetch?: typeof fetch;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
// the shape of each id the service takes in a path: checked, then percent-encoded, so an id
// cannot walk a request to another route (`../teams/core`)
const PATH_IDS: Record<string, RegExp> = {
  memory_id: UUID,
  entity_id: UUID,
  job_id: UUID,
  session_key: /^[A-Za-z0-9_.:-]{1,200}$/,
};
const RETRY_STATUSES = new Set([429, 503]);

function env(name: string): string | undefined {
  const proc = (globalThis as { process?: { env: Record<string, string | undefined> } }).process;
  return proc?.env[name] || undefined;
}

/** `value` as one path segment, after checking it has the shape of a `name` id. */
export function pathId(name: keyof typeof PATH_IDS, value: string): string {
  if (typeof value !== 'string' || value === '.' || value === '..' || !PATH_IDS[name].test(value)) {
    const detail = { loc: [name], msg: `must match ${PATH_IDS[name].source}`, type: 'value_error' };
    throw new MnemosError(422, 'invalid_request', `${name}: not a valid id`, [detail]);
  }
  return encodeURIComponent(value);
}

type Query = Record<string, string | number | boolean | null | undefined>;

export class Mnemos {
  readonly url: string;
  private readonly token?: string;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly fetcher: typeof fetch;

  constructor(options: MnemosOptions = {}) {
    this.url = (options.url ?? env('MNEMOS_URL') ?? 'http://127.0.0.1:8765').replace(/\/$/, '');
    this.token =
      options.token ?? env('MNEMOS_API_KEY') ?? env('MNEMOS_TOKEN') ?? env('KG_API_TOKEN');
    this.retries = options.retries ?? 3;
    this.backoffMs = options.backoffMs ?? 250;
    this.fetcher = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** One request; a non-2xx answer throws `MnemosError` with the service's JSON error. */
  async request<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
    const url = new URL(this.url + path);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetcher(url, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (cause) {
        // fetch rejects when nothing answered; a write may have arrived only for idempotent
        // methods, which are safe to repeat, and a refused connection sent nothing at all
        if (attempt < this.retries && isRefused(cause, method)) {
          await this.pause(attempt);
          continue;
        }
        throw new MnemosError(0, 'connection_failed', `${this.url}: ${String(cause)}`);
      }
      if (RETRY_STATUSES.has(response.status) && attempt < this.retries) {
        const after = Number(response.headers.get('Retry-After'));
        await this.pause(attempt, Number.isFinite(after) && after > 0 ? after * 1000 : undefined);
        continue;
      }
      const text = await response.text();
      const data: unknown = text ? safeJson(text) : undefined;
      if (!response.ok) throw errorOf(response, data, text);
      return data as T;
    }
  }

  private pause(attempt: number, ms?: number): Promise<void> {
    const wait = ms ?? this.backoffMs * 2 ** attempt * (0.5 + Math.random() / 2);
    return new Promise((resolve) => setTimeout(resolve, Math.min(wait, 8000)));
  }

  async health(): Promise<Answer<'/healthz', 'get'>> {
    return this.request('GET', '/healthz');
  }

  async whoami(): Promise<Answer<'/v1/whoami', 'get'>> {
    return this.request('GET', '/v1/whoami');
  }

  async remember(memory: RequestBody<'/v1/memories', 'post'>): Promise<WriteResult> {
    return this.request('POST', '/v1/memories', memory);
  }

  async rememberBatch(items: MemoryIn[]): Promise<Answer<'/v1/memories/batch', 'post'>> {
    return this.request('POST', '/v1/memories/batch', { items });
  }

  async search(request: RequestBody<'/v1/memory_search', 'post'>): Promise<SearchResponse> {
    return this.request('POST', '/v1/memory_search', request);
  }

  async get(id: string): Promise<Memory> {
    return this.request('GET', `/v1/memories/${pathId('memory_id', id)}`);
  }

  async update(id: string, patch: MemoryPatch): Promise<Memory> {
    return this.request('PATCH', `/v1/memories/${pathId('memory_id', id)}`, patch);
  }

  async history(id: string): Promise<Answer<'/v1/memories/{ident}/history', 'get'>> {
    return this.request('GET', `/v1/memories/${pathId('memory_id', id)}/history`);
  }

  async delete(id: string): Promise<Answer<'/v1/memories/{ident}', 'delete'>> {
    return this.request('DELETE', `/v1/memories/${pathId('memory_id', id)}`);
  }

  async pin(id: string): Promise<Memory> {
    return this.request('POST', `/v1/memories/${pathId('memory_id', id)}/pin`);
  }

  async unpin(id: string): Promise<Memory> {
    return this.request('POST', `/v1/memories/${pathId('memory_id', id)}/unpin`);
  }

  async list(query: Schemas['ListArgs'] = {}): Promise<Answer<'/v1/memories', 'get'>> {
    return this.request('GET', '/v1/memories', undefined, query);
  }

  async stats(scope?: string): Promise<Answer<'/v1/memory/stats', 'get'>> {
    return this.request('GET', '/v1/memory/stats', undefined, { scope });
  }

  async capture(turn: RequestBody<'/v1/memories/capture', 'post'>): Promise<
    Answer<'/v1/memories/capture', 'post'>
  > {
    return this.request('POST', '/v1/memories/capture', turn);
  }

  async bundle(request: RequestBody<'/v1/recall/bundle', 'post'>): Promise<
    Answer<'/v1/recall/bundle', 'post'>
  > {
    return this.request('POST', '/v1/recall/bundle', request);
  }

  async kgSearch(request: RequestBody<'/v1/knowledge_graph_search', 'post'>): Promise<
    Answer<'/v1/knowledge_graph_search', 'post'>
  > {
    return this.request('POST', '/v1/knowledge_graph_search', request);
  }

  async entity(id: string, scope: string): Promise<Answer<'/v1/kg/entities/{entity_id}', 'get'>> {
    return this.request('GET', `/v1/kg/entities/${pathId('entity_id', id)}`, undefined, { scope });
  }

  async entities(query: Schemas['EntitiesArgs']): Promise<Answer<'/v1/kg/entities', 'get'>> {
    return this.request('GET', '/v1/kg/entities', undefined, query);
  }

  async completeSession(
    sessionKey: string,
    session: RequestBody<'/v1/sessions/{session_key}/complete', 'post'>,
  ): Promise<Answer<'/v1/sessions/{session_key}/complete', 'post'>> {
    const path = `/v1/sessions/${pathId('session_key', sessionKey)}/complete`;
    return this.request('POST', path, session);
  }

  async job(id: string): Promise<Answer<'/v1/jobs/{job_id}', 'get'>> {
    return this.request('GET', `/v1/jobs/${pathId('job_id', id)}`);
  }

  async episodes(query: Schemas['EpisodesQuery']): Promise<Answer<'/v1/episodes', 'get'>> {
    return this.request('GET', '/v1/episodes', undefined, query);
  }
}

function isRefused(cause: unknown, method: string): boolean {
  const code = (cause as { cause?: { code?: string } })?.cause?.code;
  return code === 'ECONNREFUSED' || ['GET', 'HEAD', 'PUT', 'DELETE'].includes(method);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorOf(response: Response, data: unknown, text: string): MnemosError {
  const body = data as Partial<ErrorBody> | undefined;
  if (body && typeof body === 'object' && typeof body.error === 'string') {
    const details = Array.isArray(body.details)
      ? (body.details as Array<Record<string, unknown>>)
      : [];
    return new MnemosError(response.status, body.error, body.message ?? body.error, details, data);
  }
  const code = response.statusText.toLowerCase().replace(/ /g, '_') || 'error';
  return new MnemosError(response.status, code, text.slice(0, 500) || code, [], data);
}
