// One version for the package and the description (issue 8), and the API version stated apart
// from it (part 9): package.json `version` = `info.version` of spec/openapi.yaml,
// spec/asyncapi.yaml and every bundle; `info.x-api-version` (v1) names the interface version
// that the paths carry (`/api/v1`, part 9.1).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { generatedFiles, repoRoot } from './helpers/contract.js';

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
const readYaml = (file: string) => parseYaml(readFileSync(path.join(repoRoot, file), 'utf8'));
const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

const documents: Array<[string, () => { info: Record<string, unknown>; paths?: Record<string, unknown> }]> = [
  ['spec/openapi.yaml', () => readYaml('spec/openapi.yaml')],
  ['spec/asyncapi.yaml', () => readYaml('spec/asyncapi.yaml')],
  ['generated/openapi.yaml', () => readYaml('generated/openapi.yaml')],
  ['generated/openapi.json', () => readJson(generatedFiles.openapiJson)],
  ['generated/openapi.dereferenced.json', () => readJson(generatedFiles.openapiDereferenced)],
  ['generated/asyncapi.yaml', () => readYaml('generated/asyncapi.yaml')],
  ['generated/asyncapi.json', () => readJson(generatedFiles.asyncapiJson)],
];

describe('package and contract versions', () => {
  it('package.json carries a semver version', () => {
    expect(pkg.version).toMatch(/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/);
  });

  it.each(documents)('%s: info.version equals package.json version', (_name, load) => {
    expect(load().info.version).toBe(pkg.version);
  });

  it.each(documents)('%s: the API version is stated separately, as info.x-api-version v1 (part 9.1)', (_name, load) => {
    const info = load().info;
    expect(info['x-api-version']).toBe('v1');
    expect(info['x-api-version']).not.toBe(info.version);
  });

  it('every operation path carries the API version prefix /api/v1 (part 9.1)', () => {
    const doc = readJson(generatedFiles.openapiJson) as { info: { 'x-api-version': string }; paths: Record<string, unknown> };
    const prefix = `/api/${doc.info['x-api-version']}/`;
    const paths = Object.keys(doc.paths);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => !p.startsWith(prefix))).toEqual([]);
  });

  it('CHANGELOG.md has a section for this version that names the API version', () => {
    const changelog = readFileSync(path.join(repoRoot, 'CHANGELOG.md'), 'utf8');
    const heading = new RegExp(`^## \\[${pkg.version.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm');
    expect(changelog, `CHANGELOG.md needs a "## [${pkg.version}] - YYYY-MM-DD" section`).toMatch(heading);
    const section = changelog.slice(changelog.search(heading)).split(/^## \[/m)[1] ?? '';
    expect(section).toMatch(/API version[^\n]*v1/);
  });
});
