// The bundle step (scripts/bundle.mjs, `npm run bundle`): bundling spec/ succeeds, is
// deterministic, and equals the committed generated/ files byte for byte (the drift check:
// generated/ is what the mock, docs, types and conformance read, so it must match spec/).
// A component name collision makes the bundle fail instead of renaming.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { generatedDir, repoRoot, resolvePointer, type JsonObject } from './helpers/contract.js';

const run = promisify(execFile);
const bundleScript = path.join(repoRoot, 'scripts/bundle.mjs');
const GENERATED_NAMES = ['openapi.yaml', 'openapi.json', 'openapi.dereferenced.json', 'asyncapi.yaml', 'asyncapi.json', 'workflows.arazzo.yaml', 'workflows.arazzo.json'];

interface BundleRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function runBundle(args: string[]): Promise<BundleRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [bundleScript, ...args], { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  }
}

/** Where two texts first differ, as a line number and both lines, for a readable failure. */
function firstDifference(expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i]) return `line ${i + 1}:\n  committed: ${JSON.stringify(a[i])}\n  fresh:     ${JSON.stringify(b[i])}`;
  }
  return 'same lines, different bytes';
}

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-test-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('npm run bundle on spec/', () => {
  let outDir: string;
  let first: BundleRun;

  beforeAll(async () => {
    outDir = tempDir();
    first = await runBundle(['--out', outDir]);
  });

  test('succeeds', () => {
    expect(first.stderr, first.stderr).not.toMatch(/^bundle:/m);
    expect(first.code).toBe(0);
  });

  test('writes the same set of files as the committed generated/', () => {
    const fresh = readdirSync(outDir).filter((name) => GENERATED_NAMES.includes(name)).sort();
    const committed = existsSync(generatedDir) ? readdirSync(generatedDir).filter((name) => GENERATED_NAMES.includes(name)).sort() : [];
    expect(fresh).toContain('openapi.yaml');
    expect(committed).toEqual(fresh);
  });

  test.each(GENERATED_NAMES)('%s equals the committed file byte for byte (run `npm run bundle` and commit generated/)', (name) => {
    const freshFile = path.join(outDir, name);
    const committedFile = path.join(generatedDir, name);
    if (!existsSync(freshFile) && !existsSync(committedFile)) return; // no AsyncAPI yet: nothing to compare
    expect(existsSync(freshFile), `the bundle did not write ${name}`).toBe(true);
    expect(existsSync(committedFile), `generated/${name} is not committed`).toBe(true);
    const fresh = readFileSync(freshFile, 'utf8');
    const committed = readFileSync(committedFile, 'utf8');
    expect(fresh === committed, `generated/${name} is stale; first difference at ${firstDifference(committed, fresh)}`).toBe(true);
  });

  test('is deterministic: a second bundle is byte-identical to the first', async () => {
    const again = tempDir();
    const second = await runBundle(['--out', again]);
    expect(second.code, second.stderr).toBe(0);
    for (const name of readdirSync(outDir)) {
      expect(readFileSync(path.join(again, name), 'utf8') === readFileSync(path.join(outDir, name), 'utf8'), `${name} differs between two runs`).toBe(true);
    }
  });

  test('every output ends with exactly one newline', () => {
    for (const name of readdirSync(outDir)) {
      const text = readFileSync(path.join(outDir, name), 'utf8');
      expect(text.endsWith('\n') && !text.endsWith('\n\n'), name).toBe(true);
    }
  });

  test('openapi.yaml and openapi.json hold the same document', () => {
    const yaml = parse(readFileSync(path.join(outDir, 'openapi.yaml'), 'utf8'));
    const json = JSON.parse(readFileSync(path.join(outDir, 'openapi.json'), 'utf8'));
    expect(yaml).toEqual(json);
  });

  test('the bundle references nothing outside itself, and component maps are sorted by name', () => {
    const text = readFileSync(path.join(outDir, 'openapi.json'), 'utf8');
    const refs = [...text.matchAll(/"\$ref": "([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.filter((ref) => !ref.startsWith('#/'))).toEqual([]);
    const document = JSON.parse(text) as JsonObject;
    for (const [type, map] of Object.entries(document.components ?? {})) {
      const names = Object.keys(map as JsonObject);
      expect(names, `components.${type}`).toEqual([...names].sort());
    }
  });

  test('openapi.dereferenced.json keeps a $ref only where a schema refers back to itself', () => {
    const bundled = JSON.parse(readFileSync(path.join(outDir, 'openapi.json'), 'utf8')) as JsonObject;
    const dereferenced = readFileSync(path.join(outDir, 'openapi.dereferenced.json'), 'utf8');
    const left = new Set([...dereferenced.matchAll(/"\$ref": "([^"]*)"/g)].map((m) => m[1]!));
    // A target is recursive when following $refs from inside it leads back to it.
    const refsInside = (node: unknown, found = new Set<string>()): Set<string> => {
      if (Array.isArray(node)) node.forEach((item) => refsInside(item, found));
      else if (node && typeof node === 'object') {
        for (const [key, value] of Object.entries(node)) {
          if (key === '$ref' && typeof value === 'string') found.add(value);
          else refsInside(value, found);
        }
      }
      return found;
    };
    const reachesItself = (start: string): boolean => {
      const seen = new Set<string>();
      const queue = [...refsInside(resolvePointer(bundled, start))];
      while (queue.length > 0) {
        const ref = queue.pop()!;
        if (ref === start) return true;
        if (seen.has(ref)) continue;
        seen.add(ref);
        queue.push(...refsInside(resolvePointer(bundled, ref)));
      }
      return false;
    };
    expect([...left].filter((ref) => !reachesItself(ref))).toEqual([]);
  });
});

describe('bundle failures', () => {
  test('two component files with the same basename fail the bundle, naming both files; nothing is written', async () => {
    const outDir = path.join(tempDir(), 'out');
    const result = await runBundle(['--spec', path.join(repoRoot, 'test/fixtures/bundle-collision/openapi.yaml'), '--out', outDir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/collision/i);
    expect(result.stderr).toContain('test/fixtures/bundle-collision/schemas/accounts/Label.yaml');
    expect(result.stderr).toContain('test/fixtures/bundle-collision/schemas/numbers/Label.yaml');
    expect(existsSync(outDir)).toBe(false);
  });

  test('an unknown flag is refused with the usage', async () => {
    const result = await runBundle(['--outt', tempDir()]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Unknown option '--outt'/);
    expect(result.stderr).toMatch(/Usage:/);
  });

  test('a missing root document is named', async () => {
    const result = await runBundle(['--spec', 'no/such/openapi.yaml', '--out', tempDir()]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/not found: .*no\/such\/openapi\.yaml/);
  });
});
