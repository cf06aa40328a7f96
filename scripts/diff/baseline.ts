// npm run baseline: records the current bundles as the last released contract
// (generated/baseline/openapi.json and asyncapi.json), which the breaking-change gate
// (test/versioning-gate.test.ts) compares against. Run it when a release is cut, after
// `npm run bundle`, once package.json, spec/openapi.yaml and spec/asyncapi.yaml carry the new
// version and CHANGELOG.md has its section.
//
// It refuses (exit 1) when the versions disagree, or when the new release breaks the recorded
// baseline without a major version bump; `--force` records anyway (for a first baseline of an
// unreleased contract that is still being written).

import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { breakingChanges, diffContracts } from './index.js';
import { loadRelease } from './load.js';
import { gateViolation } from './gate.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const generated = path.join(repoRoot, 'generated');
export const baselineDir = path.join(generated, 'baseline');

function main(argv: string[]): number {
  let force = false;
  try {
    force = Boolean(parseArgs({ args: argv, options: { force: { type: 'boolean' } }, strict: true }).values.force);
  } catch (error) {
    process.stderr.write(`baseline: ${(error as Error).message}\nUsage: npm run baseline [-- --force]\n`);
    return 2;
  }
  const pkgVersion: string = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version;
  const current = loadRelease(generated, repoRoot);
  const problems: string[] = [];
  for (const kind of ['openapi', 'asyncapi'] as const) {
    const doc = current[kind];
    if (!doc) problems.push(`generated/${kind}.json is missing: run \`npm run bundle\``);
    else if (doc.info?.version !== pkgVersion) problems.push(`generated/${kind}.json info.version is ${doc.info?.version}, package.json says ${pkgVersion}`);
  }
  if (existsSync(baselineDir)) {
    const previous = loadRelease(baselineDir, repoRoot);
    const result = diffContracts(previous, current);
    const violation = gateViolation(pkgVersion, previous.version, breakingChanges(result));
    if (violation) problems.push(violation);
    process.stdout.write(`Changes since the recorded baseline ${previous.version}: ${result.summary.breaking} breaking, ${result.summary.nonBreaking} non-breaking, ${result.summary.documentation} documentation-only.\n`);
  }
  if (problems.length && !force) {
    process.stderr.write(`baseline: not recorded:\n${problems.map((p) => `  - ${p}`).join('\n')}\n(\`npm run baseline -- --force\` records anyway.)\n`);
    return 1;
  }
  mkdirSync(baselineDir, { recursive: true });
  for (const kind of ['openapi', 'asyncapi'] as const) {
    if (current[kind]) copyFileSync(path.join(generated, `${kind}.json`), path.join(baselineDir, `${kind}.json`));
  }
  process.stdout.write(`Recorded generated/baseline/ as release ${pkgVersion}${problems.length ? ' (forced)' : ''}.\n`);
  return 0;
}

process.exitCode = main(process.argv.slice(2));
