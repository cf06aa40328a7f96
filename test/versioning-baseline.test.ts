// `npm run baseline` (scripts/diff/record-baseline.ts): records generated/ as the released
// baseline, refusing a version mismatch or a breaking release without a major bump.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordBaseline } from '../scripts/diff/record-baseline.js';
import { repoRoot } from './helpers/contract.js';

const fixtures = path.join(repoRoot, 'test/fixtures/diff');
let root: string | undefined;

/** A throw-away package root with package.json at `version` and generated/ from a fixture release. */
function project(version: string, release: string, baseline?: string): string {
  root = mkdtempSync(path.join(os.tmpdir(), 'contract-baseline-'));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'x', version }));
  mkdirSync(path.join(root, 'generated'));
  cpSync(path.join(fixtures, release), path.join(root, 'generated'), { recursive: true });
  if (baseline) cpSync(path.join(fixtures, baseline), path.join(root, 'generated/baseline'), { recursive: true });
  return root;
}

const baselineVersion = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'generated/baseline/openapi.json'), 'utf8')).info.version;

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe('recording the release baseline', () => {
  it('records both bundles when there is no baseline yet', () => {
    const dir = project('1.0.0', '1.0.0');
    expect(recordBaseline(dir)).toMatchObject({ recorded: true, problems: [] });
    expect(baselineVersion(dir)).toBe('1.0.0');
    expect(existsSync(path.join(dir, 'generated/baseline/asyncapi.json'))).toBe(true);
  });

  it('records a compatible minor release over the previous baseline', () => {
    const dir = project('1.1.0', '1.1.0-compatible', '1.0.0');
    const outcome = recordBaseline(dir);
    expect(outcome.recorded).toBe(true);
    expect(outcome.lines[0]).toMatch(/^Changes since the recorded baseline 1\.0\.0: 0 breaking, 4 non-breaking/);
    expect(baselineVersion(dir)).toBe('1.1.0');
  });

  it('refuses a breaking release without a major bump, naming the changes, unless forced', () => {
    const dir = project('2.0.0', '2.0.0-breaking', '1.0.0');
    // package.json says 1.1.0 while the bundles say 2.0.0: both problems are named.
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'x', version: '1.1.0' }));
    const refused = recordBaseline(dir);
    expect(refused.recorded).toBe(false);
    expect(refused.problems.join('\n')).toContain('generated/openapi.json info.version is 2.0.0, package.json says 1.1.0');
    expect(refused.problems.join('\n')).toContain('2 breaking change(s) since release 1.0.0 need a major version bump');
    expect(baselineVersion(dir)).toBe('1.0.0');
    expect(recordBaseline(dir, { force: true }).recorded).toBe(true);
    expect(baselineVersion(dir)).toBe('2.0.0');
  });

  it('records a breaking release with a major bump', () => {
    const dir = project('2.0.0', '2.0.0-breaking', '1.0.0');
    expect(recordBaseline(dir)).toMatchObject({ recorded: true, problems: [] });
  });
});
