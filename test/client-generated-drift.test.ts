// generated/types/ is committed; it must be exactly what `npm run generate` makes from spec/ now.
// The generation runs into a temporary directory (bundle included), never over the working tree.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';

const run = promisify(execFile);
const script = path.join(repoRoot, 'scripts/generate.mjs');
const committedDir = path.join(repoRoot, 'generated/types');
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), 'numbers-api-generate-'));
  await run(process.execPath, [script, '--bundle-out', path.join(workDir, 'bundle'), '--out', path.join(workDir, 'types')], { cwd: repoRoot });
}, 120_000);
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('npm run generate', () => {
  it('regenerating from spec/ gives the committed generated/types byte for byte', () => {
    const fresh = readdirSync(path.join(workDir, 'types')).sort();
    expect(readdirSync(committedDir).sort()).toEqual(fresh);
    expect(fresh).toEqual(['constants.ts', 'openapi.ts']);
    for (const name of fresh) {
      const committed = readFileSync(path.join(committedDir, name), 'utf8');
      const regenerated = readFileSync(path.join(workDir, 'types', name), 'utf8');
      // toBe on the whole text would print two huge strings; compare, then locate the first change.
      if (committed !== regenerated) {
        const a = committed.split('\n');
        const b = regenerated.split('\n');
        const line = a.findIndex((text, i) => text !== b[i]);
        expect.fail(
          `generated/types/${name} is stale (run npm run generate): first difference at line ${line + 1}:\n` +
            `  committed:   ${a[line] ?? '<end of file>'}\n  regenerated: ${b[line] ?? '<end of file>'}`,
        );
      }
    }
  });

  it('is deterministic: a second run into another directory gives the same bytes', async () => {
    const again = path.join(workDir, 'again');
    await run(process.execPath, [script, '--no-bundle', '--bundle-out', path.join(workDir, 'bundle'), '--out', again], { cwd: repoRoot });
    for (const name of ['openapi.ts', 'constants.ts']) {
      expect(readFileSync(path.join(again, name), 'utf8') === readFileSync(path.join(workDir, 'types', name), 'utf8'), name).toBe(true);
    }
  });

  it('covers paths, webhooks, components and operations', () => {
    const text = readFileSync(path.join(workDir, 'types', 'openapi.ts'), 'utf8');
    // openapi-typescript 7 emits `operations` as an interface even with exportType.
    for (const name of ['paths', 'webhooks', 'components', 'operations']) {
      expect(text).toMatch(new RegExp(`^export (type ${name} = |interface ${name} )`, 'm'));
    }
  });

  it('refuses an unknown flag with a message and a non-zero exit', async () => {
    const failure = await run(process.execPath, [script, '--outt', workDir]).then(
      () => null,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/generate: .*--outt/);
    expect(failure?.stderr).toMatch(/Usage: node scripts\/generate\.mjs/);
  });
});
