// The compiler, not the runtime, is what stops a wrong body: this test type-checks the fixtures in
// test/types/ with tsc. In each fixture, a line under `// @ts-expect-error [TSnnnn] why` must fail
// to compile (with that code when one is named), and every other line must compile. To see each
// error itself (a bare @ts-expect-error is satisfied by any error at all), the fixtures are
// checked with the directives removed and the diagnostics matched line by line.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';
import { consumerCompilerOptions } from '../scripts/consumer-tsconfig.mjs';

const fixturesDir = path.join(repoRoot, 'test/types');
const DIRECTIVE = /^\s*\/\/ @ts-expect-error(?:\s+(TS\d+))?(.*)$/;

interface Expectation {
  line: number;
  code: string | undefined;
  why: string;
}
interface Diagnostic {
  line: number;
  code: string;
  message: string;
}

let workDir: string;
const expectations = new Map<string, Expectation[]>();
const diagnostics = new Map<string, Diagnostic[]>();

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'numbers-api-types-'));
  const files: string[] = [];
  for (const name of readdirSync(fixturesDir).filter((f) => f.endsWith('.ts')).sort()) {
    const lines = readFileSync(path.join(fixturesDir, name), 'utf8').split('\n');
    const expected: Expectation[] = [];
    const stripped = lines.map((text, index) => {
      const match = DIRECTIVE.exec(text);
      if (!match) return text.replaceAll("'../../src/", `'${repoRoot}/src/`);
      // The line stays (as an empty comment) so line numbers match the fixture.
      expected.push({ line: index + 2, code: match[1], why: (match[2] ?? '').trim() });
      return '//';
    });
    expectations.set(name, expected);
    diagnostics.set(name, []);
    writeFileSync(path.join(workDir, name), stripped.join('\n'));
    files.push(name);
  }
  // The repository's strictness, in a project of its own so only the fixtures are checked.
  writeFileSync(
    path.join(workDir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: consumerCompilerOptions(repoRoot, { noUncheckedIndexedAccess: true }),
      files,
    }),
  );
  const tsc = path.join(repoRoot, 'node_modules/typescript/bin/tsc');
  const output = await promisify(execFile)(process.execPath, [tsc, '-p', path.join(workDir, 'tsconfig.json'), '--pretty', 'false']).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string }) => error.stdout ?? '',
  );
  for (const match of output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)) {
    const file = path.basename(match[1] ?? '');
    const list = diagnostics.get(file);
    if (!list) throw new Error(`tsc reported an error outside the fixtures:\n${match[0]}`);
    list.push({ line: Number(match[2]), code: match[3] ?? '', message: match[4] ?? '' });
  }
}, 120_000);

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** Unexpected errors (on lines that must compile) and expectations no error met. */
function check(fixture: string): { unexpected: string[]; unmet: string[] } {
  const expected = expectations.get(fixture) ?? [];
  const found = diagnostics.get(fixture) ?? [];
  const unexpected = found
    .filter((d) => !expected.some((e) => e.line === d.line))
    .map((d) => `line ${d.line}: ${d.code} ${d.message}`);
  const unmet = expected
    .filter((e) => !found.some((d) => d.line === e.line && (e.code === undefined || d.code === e.code)))
    .map((e) => {
      const got = found.filter((d) => d.line === e.line).map((d) => `${d.code} ${d.message}`);
      return `line ${e.line} (${e.why}): expected ${e.code ?? 'an error'}, got ${got.length ? got.join('; ') : 'none'}`;
    });
  return { unexpected, unmet };
}

describe('type fixtures (tsc)', () => {
  it('request-bodies.ts: documented shapes compile; wrong types, missing fields, misspelt fields and unknown paths do not', () => {
    expect(expectations.get('request-bodies.ts')?.length).toBeGreaterThanOrEqual(8);
    expect(check('request-bodies.ts')).toEqual({ unexpected: [], unmet: [] });
  });

  // Part 4.5 "exactly one of `to` or `groupId`", and on a `to` send exactly one sender. The
  // schema's branches name their field and set the excluded one to `false`, which openapi-typescript
  // turns into `?: never`; with `required`/`not` alone they came out as `unknown` and all three compiled.
  it('send-message-exclusive.ts: neither or both of to/groupId, and a `to` send without exactly one sender, are rejected', () => {
    expect(expectations.get('send-message-exclusive.ts')?.length).toBe(4);
    expect(check('send-message-exclusive.ts')).toEqual({ unexpected: [], unmet: [] });
  });

  // Part 4.1: the verify outcome narrows by `registrationId`; with the sign-in outcome open and
  // silent about that field, `registrationId` read `unknown` and the key `string | undefined`.
  it('sign-up-outcomes.ts: verify narrows by registrationId, and the provisioned number is a fromNumber', () => {
    expect(expectations.get('sign-up-outcomes.ts')?.length).toBe(2);
    expect(check('sign-up-outcomes.ts')).toEqual({ unexpected: [], unmet: [] });
  });
});
