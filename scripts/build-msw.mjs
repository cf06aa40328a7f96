#!/usr/bin/env node
// The `numbers-api-contract/msw` entry as one self-contained ES module: the simulator, ajv (the
// in-process contract gate) and the bundled descriptions inlined by esbuild, `msw` left to the
// consumer (an optional peer). So a project that imports the types, the client and the event
// helpers installs no ajv, and one that uses the handlers needs only msw (issue 15: the lean
// install). tsc has already written dist/src/msw/*.d.ts; this replaces its index.js.
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist/src/msw/index.js');

const result = await build({
  entryPoints: [path.join(root, 'src/msw/index.ts')],
  outfile,
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  external: ['msw', 'msw/*'],
  minifySyntax: true,
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);

// tsc also wrote a .js for every module the bundle inlined (its declarations stay: the entry's
// types refer to them). Those .js files would import ajv unbundled, so the ones no other entry
// point (the root, client, events) loads are removed from the package.
const otherEntries = ['src/index.ts', 'src/client/index.ts', 'src/events/index.ts'];
const others = await build({
  entryPoints: otherEntries.map((entry) => path.join(root, entry)),
  bundle: true,
  write: false,
  outdir: path.join(root, 'dist-unused'),
  format: 'esm',
  platform: 'neutral',
  packages: 'external',
  metafile: true,
  logLevel: 'silent',
});
const keep = new Set(Object.keys(others.metafile.inputs));
let removed = 0;
for (const input of Object.keys(result.metafile.inputs)) {
  if (!input.startsWith('src/') || keep.has(input) || input === 'src/msw/index.ts') continue;
  const compiled = path.join(root, 'dist', input.replace(/\.ts$/, '.js'));
  if (existsSync(compiled)) {
    rmSync(compiled);
    removed++;
  }
}
console.log(`msw entry: ${path.relative(root, outfile)} (${Math.round(bytes / 1024)} KiB, msw external; ${removed} inlined modules' .js removed)`);
