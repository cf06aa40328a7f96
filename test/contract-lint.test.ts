// Both linters on the bundled description (generated/openapi.yaml), with the package's own
// configuration: Redocly (redocly.yaml, recommended + strict rules) and Spectral (.spectral.yaml,
// spectral:oas + house rules). The contract is clean: zero errors, zero warnings. Each linter runs
// once; every finding is printed when the test fails.
import { beforeAll, describe, expect, test } from 'vitest';
import { generatedFiles } from './helpers/contract.js';
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
