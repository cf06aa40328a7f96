#!/usr/bin/env node
// Bench of what installing costs (issues 15 and 26), run by scripts/bench.mjs
// (`npm run bench -- install`). In one run:
//
//   1. a clone's `npm ci` (what `npm ci && npm start` installs), on every Node line the README
//      supports (scripts/node-versions.mjs: the machine's Node, the others from the registry's
//      `node` package): wall time, packages, size (file bytes, and blocks on disk as `du` counts
//      them) and the warning lines npm prints (the goal is none);
//   2. each folder with its own install (scripts/tools-install.mjs), the same way;
//   3. with BENCH_INSTALL_BASELINE=<git ref>, the clone's `npm ci` of that commit too, for a
//      before/after in one run (e.g. the commit before issue 26 split the install);
//   4. the published packages, each into its own empty project (machine's Node): numbers-api-contract
//      alone, numbers-api beside it, and openapi-fetch alone (the floor: the client is built on it).
//
// Each install starts from its manifest and lockfile alone, copied into an empty folder, with
// npm's cache as `npm ci` left it (warm: no download), so times compare with each other within a
// run; they measure, and are not asserted by tests. BENCH_NODE=20,24 limits the Node lines.
// Prints `BENCH {json}` lines (see scripts/bench.mjs) and progress on stderr.

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmptyProject, diskUsage, installInputs, installTarballs, listInstalled, npmCi, packPackages, repoRoot, warningLines } from '../packages.mjs';
import { NODE_VERSIONS, nodeBinDir } from '../node-versions.mjs';
import { TOOL_FOLDERS } from '../tools-install.mjs';

const report = (row) => console.log(`BENCH ${JSON.stringify({ bench: 'install', ...row })}`);
const progress = (text) => process.stderr.write(`  install: ${text}\n`);
const MB = 1e6;

// The goal for an import-only install (issue 15), besides the package itself.
const LEAN_MAX_PACKAGES = 3;
const LEAN_MAX_MB = 2;
// The goal for a clone's install (issue 26): at most a fifth of the single install's size and time.
const CLONE_MAX_RATIO = 0.2;

/** Writes `files` (path -> contents or a source path) into a new empty folder under `parent`. */
function stage(parent, name, files) {
  const dir = path.join(parent, name);
  for (const [file, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    if (typeof source === 'string') copyFileSync(source, path.join(dir, file));
    else writeFileSync(path.join(dir, file), source.text);
  }
  return dir;
}

/** The install inputs of the repository at git `ref`. */
function inputsAt(ref) {
  const show = (file) => execFileSync('git', ['show', `${ref}:${file}`], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
  const manifest = JSON.parse(show('package.json'));
  const files = { 'package.json': { text: show('package.json') }, 'package-lock.json': { text: show('package-lock.json') } };
  for (const w of manifest.workspaces ?? []) files[path.join(w, 'package.json')] = { text: show(path.join(w, 'package.json')) };
  try {
    files['.npmrc'] = { text: show('.npmrc') };
  } catch {
    // no .npmrc at that commit
  }
  return files;
}

/** `npm ci` of a staged folder, measured and reported under `label`; returns the figures. */
async function measureCi(label, dir, binDir, { target } = {}) {
  const { ms, output } = await npmCi(dir, binDir);
  const installed = listInstalled(dir);
  const { bytes, onDisk } = diskUsage(path.join(dir, 'node_modules'));
  const warnings = warningLines(output);
  const figures = { seconds: ms / 1000, packages: installed.length, megabytes: bytes / MB, onDiskMegabytes: onDisk / MB, warnings: warnings.length };
  report({ metric: `${label}: npm ci time (warm npm cache)`, value: figures.seconds, unit: 's', ...(target?.seconds ?? {}) });
  report({ metric: `${label}: packages installed`, value: figures.packages, unit: 'packages' });
  report({ metric: `${label}: size installed (files)`, value: figures.megabytes, unit: 'MB', ...(target?.megabytes ?? {}) });
  report({ metric: `${label}: size on disk`, value: figures.onDiskMegabytes, unit: 'MB' });
  report({ metric: `${label}: warning lines`, value: figures.warnings, unit: 'lines', ...(target?.warnings ?? {}) });
  for (const line of warnings.slice(0, 5)) progress(`${label}: ${line}`);
  rmSync(dir, { recursive: true, force: true });
  return figures;
}

const work = mkdtempSync(path.join(tmpdir(), 'numbers-api-bench-install-'));
try {
  const majors = (process.env.BENCH_NODE ?? NODE_VERSIONS.map((v) => v.major).join(',')).split(',').map(Number);
  const baseline = process.env.BENCH_INSTALL_BASELINE;
  const fromTree = (dir) => Object.fromEntries(installInputs(dir).map((file) => [file, path.join(dir, file)]));
  for (const major of majors) {
    const binDir = nodeBinDir(major);
    const version = execFileSync(path.join(binDir, 'node'), ['--version'], { encoding: 'utf8' }).trim();
    let before;
    if (baseline) {
      progress(`Node ${version}: npm ci of the clone at ${baseline}`);
      before = await measureCi(`Node ${major}, clone at ${baseline}`, stage(work, `baseline-${major}`, inputsAt(baseline)), binDir);
    }
    progress(`Node ${version}: npm ci of the clone`);
    const main = await measureCi(`Node ${major}, clone`, stage(work, `clone-${major}`, fromTree(repoRoot)), binDir, { target: { warnings: { target: '0' } } });
    if (before) {
      for (const [what, key] of [['time', 'seconds'], ['size on disk', 'onDiskMegabytes'], ['packages', 'packages']]) {
        const value = main[key] / before[key];
        report({ metric: `Node ${major}, clone: ${what} vs ${baseline}`, value, unit: 'x', target: `<= ${CLONE_MAX_RATIO}`, pass: value <= CLONE_MAX_RATIO });
      }
    }
    report({ metric: `Node ${major}, clone: no warning lines`, value: main.warnings, unit: 'lines', target: '0', pass: main.warnings === 0 });
    for (const [name, { dir }] of Object.entries(TOOL_FOLDERS)) {
      progress(`Node ${version}: npm ci of ${dir} (node scripts/tools-install.mjs ${name})`);
      await measureCi(`Node ${major}, ${dir}`, stage(work, `${name}-${major}`, fromTree(path.join(repoRoot, dir))), binDir);
    }
  }

  progress('packing both packages');
  const packed = Object.fromEntries((await packPackages(path.join(work, 'pack'))).map((p) => [p.name, p]));
  const contract = packed['numbers-api-contract'];
  const tools = packed['numbers-api'];
  const openapiFetch = `openapi-fetch@${JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).dependencies['openapi-fetch']}`;

  const cases = [
    { label: 'numbers-api-contract', own: 'numbers-api-contract', specs: [contract.tarball] },
    { label: 'numbers-api', own: 'numbers-api', specs: [contract.tarball, tools.tarball] },
    { label: openapiFetch, own: 'openapi-fetch', specs: [openapiFetch] },
  ];
  for (const { label, own, specs } of cases) {
    progress(`installing ${label} into an empty project`);
    const project = createEmptyProject(path.join(work, own));
    const ms = await installTarballs(project, specs);
    const installed = listInstalled(project);
    const others = installed.filter((p) => p.name !== own);
    const bytes = (list) => list.reduce((sum, p) => sum + p.bytes, 0);
    report({ metric: `${label}: install time (warm npm cache)`, value: ms / 1000, unit: 's' });
    report({ metric: `${label}: packages installed`, value: installed.length, unit: 'packages' });
    report({ metric: `${label}: size installed`, value: bytes(installed) / MB, unit: 'MB' });
    if (own === 'numbers-api-contract') {
      report({ metric: `${label}: packages besides itself`, value: others.length, unit: 'packages', target: `<= ${LEAN_MAX_PACKAGES}`, pass: others.length <= LEAN_MAX_PACKAGES });
      report({ metric: `${label}: size besides itself`, value: bytes(others) / MB, unit: 'MB', target: `<= ${LEAN_MAX_MB}`, pass: bytes(others) / MB <= LEAN_MAX_MB });
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
