#!/usr/bin/env node
// The `numbers-api` bin: one launcher for both places the command runs. Installed (the package
// under node_modules), it runs the build, dist/bin/numbers-api.js. In a clone of the repository,
// where `npm ci` links this workspace package into node_modules/.bin and there is no build (or a
// stale one), it runs the sources, bin/numbers-api.ts, through tsx, as `npm start` does.
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const packageRoot = path.dirname(path.dirname(realpathSync(fileURLToPath(import.meta.url))));
const source = path.resolve(packageRoot, '../../bin/numbers-api.ts');
const inClone = path.basename(path.dirname(packageRoot)) === 'packages' && existsSync(source);
const entry = inClone ? source : path.join(packageRoot, 'dist/bin/numbers-api.js');

// tsx is the repository's devDependency, not this package's: found as the repository's bin finds it.
if (inClone) await import(pathToFileURL(createRequire(source).resolve('tsx')).href);
// The command runs itself when it is the process's main module, as it is under `npm start`.
process.argv[1] = entry;
await import(pathToFileURL(entry).href);
