// The breaking-change gate (issue 8): the current bundles are compared with the last released
// ones in generated/baseline/, and a breaking change needs a major version bump of package.json
// relative to the baseline's version. Record a new baseline at release time: `npm run baseline`.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { breakingChanges, diffContracts } from '../scripts/diff/index.js';
import { gateViolation, majorOf } from '../scripts/diff/gate.js';
import { loadRelease } from '../scripts/diff/load.js';
import { generatedDir, repoRoot } from './helpers/contract.js';

const pkgVersion: string = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version;
const baselineDir = path.join(generatedDir, 'baseline');

describe('breaking-change gate against generated/baseline/', () => {
  it('the baseline holds both released bundles, of one version', () => {
    for (const file of ['openapi.json', 'asyncapi.json']) {
      expect(existsSync(path.join(baselineDir, file)), `generated/baseline/${file} is missing: run \`npm run baseline\``).toBe(true);
    }
    const baseline = loadRelease(baselineDir, repoRoot);
    expect(baseline.asyncapi.info.version).toBe(baseline.openapi.info.version);
  });

  it('package.json is not older than the baseline', () => {
    const baseline = loadRelease(baselineDir, repoRoot);
    const parts = (v: string) => v.split(/[.-]/).slice(0, 3).map(Number);
    const [a, b] = [parts(pkgVersion), parts(baseline.version!)];
    const cmp = a[0]! - b[0]! || a[1]! - b[1]! || a[2]! - b[2]!;
    expect(cmp, `package.json ${pkgVersion} is older than the baseline ${baseline.version}`).toBeGreaterThanOrEqual(0);
  });

  it('has no breaking change since the baseline unless the major version was bumped', () => {
    const baseline = loadRelease(baselineDir, repoRoot);
    const current = loadRelease(generatedDir, repoRoot);
    const result = diffContracts(baseline, current);
    const violation = gateViolation(pkgVersion, baseline.version, breakingChanges(result));
    // The message names every breaking change, its pointer and what it affects, and what to do.
    const help =
      `${violation}\n\nEither make the change compatible, or release it as a new major version ` +
      '(package.json, spec/openapi.yaml and spec/asyncapi.yaml, and a CHANGELOG.md section), then `npm run baseline`. ' +
      'While the baseline is not a published release yet, `npm run baseline -- --force` re-records it.';
    if (violation) expect.fail(help);
  });
});

describe('the gate rule', () => {
  const fixtures = path.join(repoRoot, 'test/fixtures/diff');
  const breaking = breakingChanges(diffContracts(loadRelease(path.join(fixtures, '1.0.0')), loadRelease(path.join(fixtures, '2.0.0-breaking'))));

  it('fails a breaking release without a major bump, naming each breaking change', () => {
    expect(breaking).toHaveLength(2);
    const message = gateViolation('1.1.0', '1.0.0', breaking);
    expect(message).toContain('2 breaking change(s) since release 1.0.0 need a major version bump (package.json is 1.1.0; release 2.0.0');
    expect(message).toContain('openapi#/components/schemas/Thing/properties/name');
    expect(message).toContain('asyncapi#/components/messages/thingChanged/payload/properties/data/properties/name');
    expect(message).toContain('affects GET /api/v1/things · response 200 (application/json)');
  });

  it('passes the same changes with a major bump, and a release without breaking changes', () => {
    expect(gateViolation('2.0.0', '1.0.0', breaking)).toBeUndefined();
    expect(gateViolation('1.0.1', '1.0.0', [])).toBeUndefined();
  });

  it('refuses a version that is not semver', () => {
    expect(() => majorOf('v1')).toThrow("'v1' is not a semver version");
  });
});
