// The TypeScript types of an OpenAPI document, as src/schema.d.ts holds them. One function for
// `npm run generate` and for the test that checks the committed file against a live service.
import openapiTS, { astToString } from 'openapi-typescript';

export const HEADER =
  '// Generated from the Mnemos service\'s /openapi.json by `npm run generate`: do not edit.\n';

/** The types of `document` (a parsed OpenAPI object). */
export async function render(document) {
  // fields with a default stay optional in request bodies: the service fills them in
  const ast = await openapiTS(document, { defaultNonNullable: false, alphabetize: true });
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
