// The TypeScript types of an OpenAPI document, as src/schema.d.ts holds them. One function for
// `npm run generate` and for the test that checks the committed file against a live service.
import openapiTS, { astToString } from 'openapi-typescript';

export const HEADER =
  '// Generated from the Mnemos service\'s /openapi.json by `npm run generate`: do not edit.\n';

// Prose the types do not need: without it the committed file changes only when the API's shape
// does, not when a route's or a field's wording is edited
const PROSE = new Set(['description', 'title', 'summary', 'examples', 'example']);

/** `node` without its prose keys (a `properties` map's keys are field names: all kept). */
export function shape(node, inProperties = false) {
  if (Array.isArray(node)) return node.map((item) => shape(item));
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (!inProperties && PROSE.has(key) && typeof value !== 'object') continue;
    if (!inProperties && (key === 'examples' || key === 'example')) continue;
    out[key] = shape(value, !inProperties && key === 'properties');
  }
  return out;
}

/** The types of `document` (a parsed OpenAPI object). */
export async function render(document) {
  // fields with a default stay optional in request bodies: the service fills them in
  const ast = await openapiTS(shape(document), { defaultNonNullable: false, alphabetize: true });
  return HEADER + astToString(ast);
}

/** The OpenAPI document at `source`: a URL, or a path to a JSON file. */
export async function load(source) {
  if (/^https?:/.test(source)) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`${source}: ${response.status}`);
    return response.json();
  }
  const { readFile } = await import('node:fs/promises');
  return JSON.parse(await readFile(source, 'utf8'));
}
