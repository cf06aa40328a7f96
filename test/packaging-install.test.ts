// A clone's own install (issue 26): `npm ci && npm start` installs only what the mock, the core
// tests and the packaging need, prints no warning line, and weighs what the installing guide
// (docs/guides/installing.md) states; the
// generator and renderer matrices, the docs build's libraries and the bench's load generator are
// folders with their own install (scripts/tools-install.mjs) that their commands, and `npm test`
// through vitest's globalSetup, install on demand. CI runs this file on every supported Node line
// (.ci/run), so "no warning line" holds on each.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diskUsage, installInputs, listInstalled, npmCi, warningLines } from '../scripts/packages.mjs';
import { TEST_TOOLS, TOOL_FOLDERS, ensureTools, isInstalled } from '../scripts/tools-install.mjs';
import { repoRoot } from './helpers/contract.js';

type Manifest = { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; allowScripts?: Record<string, boolean> };
type Lockfile = { packages: Record<string, { hasInstallScript?: boolean; version?: string; link?: boolean }> };

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const installing = readFileSync(path.join(repoRoot, 'docs/guides/installing.md'), 'utf8');
const folders = Object.entries(TOOL_FOLDERS as Record<string, { dir: string; holds: string }>);
const rootManifest = readJson<Manifest>(path.join(repoRoot, 'package.json'));
const declared = (manifest: Manifest) => Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });

let work: string;
let clone: string;
let output = '';

/** Copies the install inputs of `dir` (manifest, lockfile, .npmrc, workspace manifests) into `into`. */
function stageInputs(dir: string, into: string): string {
  for (const file of installInputs(dir) as string[]) {
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    copyFileSync(path.join(dir, file), path.join(into, file));
  }
  return into;
}

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'numbers-api-clone-install-'));
  clone = stageInputs(repoRoot, path.join(work, 'clone'));
  ({ output } = (await npmCi(clone)) as { output: string });
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("a clone's npm ci", () => {
  it(`prints no warning line on Node ${process.versions.node} (no EBADENGINE, no ERESOLVE, every install script reviewed)`, () => {
    expect(warningLines(output)).toEqual([]);
  });

  it('installs none of the packages the folders with their own install hold', () => {
    const installed = new Set(listInstalled(clone).map((p: { name: string }) => p.name));
    const main = new Set(declared(rootManifest));
    for (const [name, { dir }] of folders) {
      const own = declared(readJson<Manifest>(path.join(repoRoot, dir, 'package.json'))).filter((pkg) => !main.has(pkg));
      expect(own.length, `${dir} holds packages of its own`).toBeGreaterThan(0);
      expect(own.filter((pkg) => installed.has(pkg)), `${name} (${dir})`).toEqual([]);
    }
  });

  it("weighs what the installing guide's table states (packages within 10%, size on disk within 20%)", () => {
    const row = /<!-- clone-install:start -->[\s\S]*?\n(\| `npm ci && npm start`[^\n]*)/.exec(installing)?.[1];
    expect(row, 'docs/guides/installing.md states it in the clone-install table').toBeDefined();
    const [, packages, megabytes] = /^\|[^|]*\|\s*([\d,]+)\s*\|\s*([\d.]+) MB\s*\|/.exec(row!) ?? [];
    const actual = { packages: listInstalled(clone).length, megabytes: diskUsage(path.join(clone, 'node_modules')).onDisk / 1e6 };
    expect(Math.abs(actual.packages - Number(packages!.replace(/,/g, ''))) / Number(packages!.replace(/,/g, '')), `${actual.packages} packages installed`).toBeLessThanOrEqual(0.1);
    expect(Math.abs(actual.megabytes - Number(megabytes)) / Number(megabytes), `${actual.megabytes.toFixed(0)} MB on disk`).toBeLessThanOrEqual(0.2);
  });
});

describe('the folders with their own install', () => {
  it.each(folders)('%s: a package.json and lockfile of its own, in its own folder', (_name, { dir }) => {
    const lock = readJson<Lockfile & { packages: { '': Manifest } }>(path.join(repoRoot, dir, 'package-lock.json'));
    const manifest = readJson<Manifest>(path.join(repoRoot, dir, 'package.json'));
    expect(lock.packages[''].devDependencies).toEqual(manifest.devDependencies);
    expect(lock.packages[''].dependencies).toEqual(manifest.dependencies);
  });

  // npm 11 runs no dependency's install script that allowScripts does not name, and lists each
  // one it skipped as a warning: every one is reviewed (approved or denied) in its manifest.
  it.each([['the clone', { dir: '.' }], ...folders])('%s: every install script in its lockfile is reviewed in allowScripts', (_name, { dir }) => {
    const manifest = readJson<Manifest>(path.join(repoRoot, dir, 'package.json'));
    const lock = readJson<Lockfile>(path.join(repoRoot, dir, 'package-lock.json'));
    const withScripts = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript && !entry.link)
      .map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length))
      .filter((name) => name !== '');
    const reviewed = Object.keys(manifest.allowScripts ?? {}).map((key) => key.replace(/(.)@[^@]*$/, '$1'));
    expect([...new Set(withScripts)].filter((name) => !reviewed.includes(name))).toEqual([]);
  });

  it('npm test installs every folder a test file imports from (vitest globalSetup), the renderer matrix its own', () => {
    // The files the tests reach by relative imports, transitively.
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file) || !existsSync(file) || file.includes(`${path.sep}node_modules${path.sep}`)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = path.resolve(path.dirname(file), m[1]!);
        visit(existsSync(target) ? target : target.replace(/\.js$/, '.ts'));
      }
    };
    const tests = (readdirSync(path.join(repoRoot, 'test'), { recursive: true }) as string[]).filter((f) => f.endsWith('.test.ts') && !f.includes('rendered-docs'));
    for (const file of tests) visit(path.join(repoRoot, 'test', file));
    const needed = folders.filter(([, { dir }]) => [...seen].some((file) => file.startsWith(path.join(repoRoot, dir) + path.sep))).map(([name]) => name);
    expect(needed.sort()).toEqual([...TEST_TOOLS].sort());
    const setup = readFileSync(path.join(repoRoot, 'vitest.config.ts'), 'utf8');
    expect(setup).toMatch(/globalSetup: \['test\/helpers\/tools-setup\.ts'\]/);
    expect(readFileSync(path.join(repoRoot, 'test/helpers/tools-setup.ts'), 'utf8')).toMatch(/RENDERED_DOCS === '1' \? \['renderers'\]/);
  });

  it('a folder is installed when its node_modules is missing or stale, and only then', () => {
    const root = path.join(work, 'tools-root');
    const { dir } = TOOL_FOLDERS.docs;
    stageInputs(path.join(repoRoot, dir), path.join(root, dir));
    const logged: string[] = [];
    const log = (line: string) => {
      logged.push(line);
    };
    expect(isInstalled('docs', root)).toBe(false);
    ensureTools(['docs'], { root, log });
    expect(logged).toHaveLength(1);
    expect(isInstalled('docs', root)).toBe(true);
    const manifest = readJson<Manifest>(path.join(root, dir, 'package.json'));
    for (const pkg of declared(manifest)) expect(existsSync(path.join(root, dir, 'node_modules', pkg, 'package.json')), pkg).toBe(true);
    ensureTools(['docs'], { root, log });
    expect(logged).toHaveLength(1);
    // A changed lockfile (a dependency added or bumped) makes the install stale.
    writeFileSync(path.join(root, dir, 'package-lock.json'), `${readFileSync(path.join(root, dir, 'package-lock.json'), 'utf8')}\n`);
    expect(isInstalled('docs', root)).toBe(false);
    ensureTools(['docs'], { root, log });
    expect(logged).toHaveLength(2);
    expect(() => ensureTools(['nope'], { root, log })).toThrow(/no folder named nope/);
  }, 120_000);
});
