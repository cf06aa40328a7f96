// The packages this repository publishes, as users get them: packed with `npm pack` (which runs
// each package's `prepack` build) and installed with npm into an empty project; and the clone's
// own install (`npm ci` of its manifest and lockfile). Shared by test/packaging*.test.ts (what the
// tarballs hold and what an install brings) and scripts/bench/install.mjs (how long an install
// takes and how much it weighs).

import { execFile, spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * The environment for an npm of our own: without the `npm_*` variables an enclosing `npm test`
 * or `npm run` sets (a `npm_config_local_prefix` pointing at this repository would make the inner
 * npm work here instead of in the empty project), but with the same cache, so an install can be
 * served from what `npm ci` already downloaded.
 */
export function npmEnv() {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  if (process.env.npm_config_cache) env.npm_config_cache = process.env.npm_config_cache;
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/**
 * `npm pack` of numbers-api-contract (the repository root) and of every workspace, into
 * `destination`. Resolves with one entry per package: its name, version, tarball path and the
 * paths of the files it holds.
 */
export async function packPackages(destination) {
  mkdirSync(destination, { recursive: true });
  const { stdout } = await run(npm, ['pack', '--workspaces', '--include-workspace-root', '--json', '--pack-destination', destination], {
    cwd: repoRoot,
    env: npmEnv(),
    maxBuffer: 64 * 1024 * 1024,
  });
  // The prepack builds print before the JSON report.
  const report = JSON.parse(stdout.slice(stdout.indexOf('[\n')));
  return report.map((entry) => ({
    name: entry.name,
    version: entry.version,
    tarball: path.join(destination, entry.filename),
    files: entry.files.map((file) => file.path),
  }));
}

/** An empty project (a package.json and nothing else) at `directory`. */
export function createEmptyProject(directory) {
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'package.json'), JSON.stringify({ name: 'consumer', version: '0.0.0', private: true, type: 'module' }));
  return directory;
}

/**
 * `npm install <tarballs>` in `project`, dependencies from the local cache when it has them
 * (`--prefer-offline`), from the registry otherwise. Resolves with the wall time in ms.
 */
export async function installTarballs(project, tarballs, { preferOffline = true } = {}) {
  const args = ['install', '--no-audit', '--no-fund', '--loglevel=error', ...(preferOffline ? ['--prefer-offline'] : []), ...tarballs];
  const started = performance.now();
  await run(npm, args, { cwd: project, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 });
  return performance.now() - started;
}

function sizeOf(target, skipNodeModules) {
  const stat = lstatSync(target);
  if (!stat.isDirectory()) return stat.size;
  let total = 0;
  for (const entry of readdirSync(target)) {
    if (skipNodeModules && entry === 'node_modules') continue;
    total += sizeOf(path.join(target, entry), false);
  }
  return total;
}

/**
 * Every package installed under `project`/node_modules, nested ones included, each with its
 * own size in bytes (files as stored, its nested node_modules counted as their own packages).
 */
export function listInstalled(project) {
  const found = [];
  const visit = (nodeModules) => {
    let entries;
    try {
      entries = readdirSync(nodeModules);
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      const dirs = entry.startsWith('@') ? readdirSync(path.join(nodeModules, entry)).map((name) => `${entry}/${name}`) : [entry];
      for (const name of dirs) {
        const dir = path.join(nodeModules, name);
        if (lstatSync(dir).isSymbolicLink()) continue;
        found.push({ name, path: dir, bytes: sizeOf(dir, true) });
        visit(path.join(dir, 'node_modules'));
      }
    }
  };
  visit(path.join(project, 'node_modules'));
  return found;
}

/** Size of everything under `dir`: file bytes, and bytes of the blocks they take on disk. */
export function diskUsage(dir) {
  let bytes = 0;
  let onDisk = 0;
  const visit = (target) => {
    const stat = lstatSync(target);
    bytes += stat.isDirectory() ? 0 : stat.size;
    onDisk += stat.blocks * 512;
    if (stat.isDirectory()) for (const entry of readdirSync(target)) visit(path.join(target, entry));
  };
  if (existsSync(dir)) visit(dir);
  return { bytes, onDisk };
}

/** The lines of npm's output that are warnings (`npm warn ...`, `npm WARN ...` of older npms). */
export const warningLines = (output) => output.split('\n').filter((line) => /^npm warn/i.test(line));

/**
 * `npm ci` in `project` with `binDir`'s node first on PATH (npm itself runs on that node; by
 * default this process's own).
 * Resolves with the wall time in ms and npm's output (stdout and stderr, interleaved).
 */
export function npmCi(project, binDir = path.dirname(process.execPath)) {
  const env = { ...npmEnv(), PATH: `${binDir}${path.delimiter}${process.env.PATH}` };
  // As a user runs it: audit and fund as configured, warnings shown.
  delete env.npm_config_audit;
  delete env.npm_config_fund;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(npm, ['ci', '--prefer-offline'], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - started, output }) : reject(new Error(`npm ci in ${project} exited ${code}:\n${output}`))));
  });
}

/** The files that decide an install of `dir` (a folder with a package.json): manifest, lockfile, .npmrc, workspace manifests. */
export function installInputs(dir = repoRoot) {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const workspaces = (manifest.workspaces ?? []).map((w) => path.join(w, 'package.json'));
  return ['package.json', 'package-lock.json', '.npmrc', ...workspaces].filter((file) => existsSync(path.join(dir, file)));
}
