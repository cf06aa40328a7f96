#!/usr/bin/env node
// The `numbers-api-contract/msw` entry as one self-contained ES module: the simulator, ajv (the
// in-process contract gate) and the bundled descriptions inlined by esbuild, `msw` left to the
// consumer (an optional peer). So a project that imports the types, the client and the event
// helpers installs no ajv, and one that uses the handlers needs only msw (issue 15: the lean
// install). tsc has already written dist/src/msw/*.d.ts; this replaces its index.js.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outfile = path.join(root, 'dist/src/msw/index.js');

/** The entry as one module in either format: everything inlined but msw. */
const entryBuild = {
  entryPoints: [path.join(root, 'src/msw/index.ts')],
  bundle: true,
  platform: 'neutral',
  mainFields: ['module', 'main'],
  target: 'es2022',
  external: ['msw', 'msw/*'],
  minifySyntax: true,
  legalComments: 'eof',
  logLevel: 'warning',
};
const result = await build({ ...entryBuild, outfile, format: 'esm', metafile: true });
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
// The same entry for CommonJS projects (issue 26): `require('numbers-api-contract/msw')` gets a
// CommonJS build that requires msw's CommonJS build, the copy the project's own
// `require('msw/node')` loads, and declarations (.d.cts) whose `import ... from 'msw'` TypeScript
// resolves as a require, to msw's CommonJS declarations. With only the ES module's declarations, a
// CommonJS project under `nodenext` met msw's ESM types in `api.handlers` and its CJS types in
// `setupServer`: "Property 'resolver' is protected" (two declarations of msw's classes).
const cjsOutfile = outfile.replace(/\.js$/, '.cjs');
await build({ ...entryBuild, outfile: cjsOutfile, format: 'cjs' });
// Every declaration of the entry's own folder gets its .d.cts twin, relative imports between them
// pointing at the twins; those of other folders (the simulator's types) stay shared, and must not
// name msw, or a CommonJS project would meet msw's ESM declarations again.
const mswDir = path.dirname(outfile);
const own = readdirSync(mswDir).filter((file) => file.endsWith('.d.ts'));
for (const file of own) {
  const text = readFileSync(path.join(mswDir, file), 'utf8').replace(/(from\s+'\.\/)([\w-]+)\.js'/g, (whole, head, name) => (own.includes(`${name}.d.ts`) ? `${head}${name}.cjs'` : whole));
  writeFileSync(path.join(mswDir, file.replace(/\.d\.ts$/, '.d.cts')), text);
}
const shared = new Set();
const visit = (file) => {
  for (const [, spec] of readFileSync(file, 'utf8').matchAll(/from\s+'([^']+)'/g)) {
    if (!spec.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), spec.replace(/\.c?js$/, (ext) => (ext === '.cjs' ? '.d.cts' : '.d.ts')));
    if (path.dirname(target) === mswDir || shared.has(target)) continue;
    shared.add(target);
    visit(target);
  }
};
visit(path.join(mswDir, 'index.d.cts'));
const naming = [...shared].filter((file) => /from\s+'msw(\/[^']*)?'/.test(readFileSync(file, 'utf8')));
if (naming.length > 0) throw new Error(`build-msw: declarations outside src/msw/ name msw, so CommonJS projects would meet its ESM types: ${naming.map((f) => path.relative(root, f)).join(', ')}`);

console.log(`msw entry: ${path.relative(root, outfile)} and ${path.relative(root, cjsOutfile)} (${Math.round(bytes / 1024)} KiB each, msw external; ${removed} inlined modules' .js removed; ${own.length} declarations twinned as .d.cts)`);
