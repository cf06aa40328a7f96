// Both linters on the bundled description (generated/openapi.yaml), with the package's own
// configuration: Redocly (redocly.yaml, recommended + strict rules) and Spectral (.spectral.yaml,
// spectral:oas + house rules). The contract is clean: zero errors, zero warnings. Each linter runs
// once; every finding is printed when the test fails.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { generatedFiles, repoRoot } from './helpers/contract.js';
import { formatFinding, runRedoclyLint, runSpectral, type Finding, type RedoclyLintResult } from './helpers/lint.js';

describe('lint of generated/openapi.yaml', () => {
  let redocly: RedoclyLintResult;
  let spectral: Finding[];

  beforeAll(async () => {
    [redocly, spectral] = await Promise.all([runRedoclyLint(generatedFiles.openapiYaml), runSpectral(generatedFiles.openapiYaml)]);
  });

  test('redocly lint (redocly.yaml): zero errors and zero warnings', () => {
    expect(redocly.findings.map(formatFinding)).toEqual([]);
  });

  test('redocly lint hides nothing: no problem is silenced by a lint-ignore file', () => {
    // Deviations belong in redocly.yaml, with their reason, not in an ignore file.
    expect(redocly.ignored).toBe(0);
  });

  test('spectral lint (.spectral.yaml): zero errors and zero warnings', () => {
    const failing = spectral.filter((f) => f.severity === 'error' || f.severity === 'warning');
    expect(failing.map(formatFinding)).toEqual([]);
  });
});

// The source of truth as a contributor's editor lints it (Redocly's extension, or
// `npx redocly lint spec/openapi.yaml`: the repository's redocly.yaml, its `source` API), and
// `npm run lint`, which lints it as well as the bundle (issue 26).
describe('lint of spec/openapi.yaml, the source', () => {
  test('redocly lint spec/openapi.yaml (redocly.yaml): zero errors and zero warnings, nothing ignored', async () => {
    const { findings, ignored } = await runRedoclyLint(path.join(repoRoot, 'spec/openapi.yaml'));
    expect(findings.map(formatFinding)).toEqual([]);
    expect(ignored).toBe(0);
  });

  test('npm run lint lints both: `redocly lint` of every API of redocly.yaml, the source and the bundle', () => {
    const script = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).scripts.lint as string;
    expect(script).toMatch(/^redocly lint &&/);
    const apis = parseYaml(readFileSync(path.join(repoRoot, 'redocly.yaml'), 'utf8')).apis as Record<string, { root: string }>;
    expect(Object.values(apis).map((api) => api.root).sort()).toEqual(['generated/openapi.yaml', 'spec/openapi.yaml']);
  });
});
