// npm run generate [-- <url or openapi.json>]: rewrite src/schema.d.ts from a running service
// (default $MNEMOS_URL/openapi.json, else http://127.0.0.1:8765/openapi.json).
import { writeFile } from 'node:fs/promises';
import { load, render } from './schema.mjs';

const base = (process.env.MNEMOS_URL || 'http://127.0.0.1:8765').replace(/\/$/, '');
const source = process.argv[2] || `${base}/openapi.json`;
const target = new URL('../src/schema.d.ts', import.meta.url);
await writeFile(target, await render(await load(source)));
console.log(`wrote src/schema.d.ts from ${source}`);
