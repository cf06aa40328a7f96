#!/usr/bin/env node
// The installs kept out of the main one (issue 26). `npm ci && npm start` installs what the mock,
// the core tests and the packaging need; the renderer and generator matrices, the docs build's own
// libraries and the bench's load generator each live in a folder with its own package.json and
// package-lock.json, next to the code that imports them (Node resolves a bare import from the
// importing file's folder upwards, so that code finds them with no loader). Their commands install
// them on demand: `npm test` (vitest's globalSetup), `npm run docs`, `npm run guides`,
// `npm run test:renderers`, `npm run bench`, or by hand:
//
//   node scripts/tools-install.mjs compat docs     # these folders
//   node scripts/tools-install.mjs --all           # every folder
//   node scripts/tools-install.mjs --list          # the folders and what they hold
//
// A folder is installed with `npm ci` when its node_modules is missing or older than its manifest
// and lockfile (a stamp in node_modules records their hash), so a second call costs a hash.
// Adding a dependency to a folder: `cd <folder> && npm install --save-exact <package>@<version>`,
// then commit its package.json and package-lock.json.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each folder with its own install: where it is and who needs it. */
export const TOOL_FOLDERS = {
  compat: { dir: 'scripts/compat', holds: 'the code generators, validators and converters of test/generators.test.ts and test/validators.test.ts' },
  docs: { dir: 'docs/build', holds: 'the libraries of the docs build (npm run docs, npm run guides, the docs tests)' },
  renderers: { dir: 'scripts/renderers', holds: 'Scalar and Stoplight Elements, for npm run test:renderers' },
  bench: { dir: 'scripts/bench', holds: 'the load generator of npm run bench' },
};

/** The folders `npm test` needs (vitest's globalSetup installs them); the renderer matrix adds its own. */
export const TEST_TOOLS = ['compat', 'docs'];

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const STAMP = '.tools-install-stamp';

/** A hash of what decides a folder's install: its manifest, lockfile and .npmrc. */
function fingerprint(dir) {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json', '.npmrc']) {
    const full = path.join(dir, file);
    hash.update(`${file}\0${existsSync(full) ? readFileSync(full) : ''}\0`);
  }
  return hash.digest('hex');
}

/** True when `name`'s node_modules was installed from its current manifest and lockfile. */
export function isInstalled(name, root = repoRoot) {
  const dir = path.join(root, TOOL_FOLDERS[name].dir);
  const stamp = path.join(dir, 'node_modules', STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === fingerprint(dir);
}

/**
 * The environment for the folder's npm: without the `npm_*` variables an enclosing `npm test` or
 * `npm run` sets (its `npm_config_local_prefix` would make the inner npm install the repository
 * root instead of the folder).
 */
function npmEnv() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
  return env;
}

/**
 * Holds `dir`'s install lock (a directory: creating it is atomic) while `run` runs, so two
 * commands started together (two vitest runs, `npm run docs` beside `npm test`) install a folder
 * once. A lock whose holder died is taken over.
 */
function withLock(dir, run) {
  const lock = path.join(dir, '.tools-install.lock');
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      let holder = NaN;
      try {
        holder = Number(readFileSync(path.join(lock, 'pid'), 'utf8'));
      } catch {
        // the holder has not written its pid yet
      }
      let alive = true;
      if (Number.isInteger(holder) && holder > 0) {
        try {
          process.kill(holder, 0);
        } catch {
          alive = false;
        }
      }
      if (!alive) rmSync(lock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    return run();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * `npm ci` in each named folder (under `root`, the repository's by default) whose node_modules is
 * missing or stale. `log` gets one line per folder installed; npm's own output goes to stderr.
 * Throws, naming the folder, when npm fails.
 */
export function ensureTools(names, { root = repoRoot, log = (line) => process.stderr.write(`${line}\n`) } = {}) {
  for (const name of names) {
    const folder = TOOL_FOLDERS[name];
    if (!folder) throw new Error(`tools-install: no folder named ${name} (known: ${Object.keys(TOOL_FOLDERS).join(', ')})`);
    if (isInstalled(name, root)) continue;
    const dir = path.join(root, folder.dir);
    withLock(dir, () => {
      if (isInstalled(name, root)) return;
      log(`tools-install: npm ci in ${folder.dir}, ${folder.holds}`);
      const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: dir, env: npmEnv(), stdio: ['ignore', 'inherit', 'inherit'] });
      if (result.status !== 0) throw new Error(`tools-install: \`npm ci\` in ${folder.dir} failed (${result.error?.message ?? `exit ${result.status}`}); run it there by hand to see why`);
      writeFileSync(path.join(dir, 'node_modules', STAMP), fingerprint(dir));
    });
  }
}

function main(args) {
  if (args.includes('--list') || args.length === 0) {
    for (const [name, { dir, holds }] of Object.entries(TOOL_FOLDERS)) console.log(`${name.padEnd(10)} ${dir.padEnd(18)} ${isInstalled(name) ? 'installed' : 'not installed'}: ${holds}`);
    if (args.length === 0) console.log('\nUsage: node scripts/tools-install.mjs <name ...> | --all | --list');
    return 0;
  }
  const names = args.includes('--all') ? Object.keys(TOOL_FOLDERS) : args;
  const unknown = names.filter((name) => !TOOL_FOLDERS[name]);
  if (unknown.length > 0) {
    console.error(`tools-install: unknown folder ${unknown.join(', ')} (known: ${Object.keys(TOOL_FOLDERS).join(', ')})`);
    return 2;
  }
  try {
    ensureTools(names);
    return 0;
  } catch (error) {
    console.error(error.message);
    return 1;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = main(process.argv.slice(2));
