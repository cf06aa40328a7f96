// Records the current bundles as the last released contract (generated/baseline/), the
// reference of the breaking-change gate (test/versioning-gate.test.ts). See ./baseline.ts.

import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gateViolation } from './gate.js';
import { breakingChanges, diffContracts } from './index.js';
import { loadRelease } from './load.js';

export interface BaselineOutcome {
  recorded: boolean;
  /** What was done or found, one line each (the reasons when not recorded). */
  lines: string[];
  problems: string[];
}

/**
 * Copies `<root>/generated/{openapi,asyncapi}.json` (and the workflows with the mock control surface
 * they name) to `<root>/generated/baseline/`, unless the
 * versions disagree with package.json or the release breaks the recorded baseline without a
 * major bump (`force` records anyway).
 */
export function recordBaseline(root: string, { force = false } = {}): BaselineOutcome {
  const generated = path.join(root, 'generated');
  const baselineDir = path.join(generated, 'baseline');
  const version: string = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
  const current = loadRelease(generated, root);
  const lines: string[] = [];
  const problems: string[] = [];
  for (const kind of ['openapi', 'asyncapi'] as const) {
    const doc = current[kind];
    if (!doc) problems.push(`generated/${kind}.json is missing: run \`npm run bundle\``);
    else if (doc.info?.version !== version) problems.push(`generated/${kind}.json info.version is ${doc.info?.version}, package.json says ${version}`);
  }
  if (existsSync(path.join(baselineDir, 'openapi.json')) || existsSync(path.join(baselineDir, 'asyncapi.json'))) {
    const previous = loadRelease(baselineDir, root);
    const result = diffContracts(previous, current);
    lines.push(`Changes since the recorded baseline ${previous.version}: ${result.summary.breaking} breaking, ${result.summary.nonBreaking} non-breaking, ${result.summary.documentation} documentation-only.`);
    const violation = gateViolation(version, previous.version, breakingChanges(result));
    if (violation) problems.push(violation);
  }
  if (problems.length && !force) return { recorded: false, lines, problems };
  mkdirSync(baselineDir, { recursive: true });
  for (const kind of ['openapi', 'asyncapi'] as const) {
    if (current[kind]) copyFileSync(path.join(generated, `${kind}.json`), path.join(baselineDir, `${kind}.json`));
  }
  // The workflows as released (and the control surface they name): the diff reports a later
  // change that breaks one of their steps.
  for (const name of ['workflows.arazzo.json', 'mock-control.json']) {
    if (existsSync(path.join(generated, name))) copyFileSync(path.join(generated, name), path.join(baselineDir, name));
  }
  lines.push(`Recorded generated/baseline/ as release ${version}${problems.length ? ' (forced)' : ''}.`);
  return { recorded: true, lines, problems };
}
