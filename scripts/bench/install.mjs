#!/usr/bin/env node
// Bench of what installing each published package costs a user (issue 15), run by
// scripts/bench.mjs: `npm pack` of both packages, then, in one run and each into its own empty
// project, `npm install` of
//   1. numbers-api-contract alone (types, client, event helpers),
//   2. numbers-api (the command), given beside the contract's tarball as its dependency,
//   3. openapi-fetch alone, at the version the contract depends on: the floor, since the
//      contract's client is built on it.
// Each reports the wall time of the install, the packages installed and their size on disk
// (file bytes). npm's cache is the one `npm ci` filled and is used as is (`--prefer-offline`), so
// the times are of a warm cache, alike for the three; they measure, and are not asserted by tests.
// Prints `BENCH {json}` lines (see scripts/bench.mjs) and progress on stderr.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmptyProject, installTarballs, listInstalled, packPackages, repoRoot } from '../packages.mjs';

const report = (row) => console.log(`BENCH ${JSON.stringify({ bench: 'install', ...row })}`);
const progress = (text) => process.stderr.write(`  install: ${text}\n`);
const MB = 1e6;

// The goal for an import-only install (issue 15), besides the package itself.
const LEAN_MAX_PACKAGES = 3;
const LEAN_MAX_MB = 2;

const work = mkdtempSync(path.join(tmpdir(), 'numbers-api-bench-install-'));
try {
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
