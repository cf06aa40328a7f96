// `npm run diff -- <previous>`: the command line, run as users run it (tsx scripts/diff.ts), on the
// fixture releases in test/fixtures/diff/ and on a git ref of a throw-away repository.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDiffCli } from '../scripts/diff/cli.js';
import { repoRoot } from './helpers/contract.js';

const run = promisify(execFile);
const tsx = path.join(repoRoot, 'node_modules/.bin/tsx');
const cli = path.join(repoRoot, 'scripts/diff.ts');
const fixtures = path.join(repoRoot, 'test/fixtures/diff');

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command line in this process (fast); `spawnDiff` runs it as users do, for the exit code. */
async function diff(args: string[], cwd = repoRoot): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const code = runDiffCli(args, { cwd, out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

async function spawnDiff(args: string[], cwd = repoRoot): Promise<Result> {
  try {
    const { stdout, stderr } = await run(tsx, [cli, ...args], { cwd, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

const release = (name: string) => path.join(fixtures, name);

describe('npm run diff', () => {
  it('exits 0 and lists non-breaking and documentation-only changes for a compatible release', async () => {
    const r = await diff([release('1.0.0'), '--current', release('1.1.0-compatible')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/^BREAKING \(/m);
    expect(r.stdout).toContain('NON-BREAKING (4)');
    expect(r.stdout).toContain('DOCUMENTATION-ONLY (');
    expect(r.stdout).toContain("documented value 'large' added to an open value list");
    expect(r.stdout).toContain('at openapi#/components/schemas/Thing/properties/createdAt');
    expect(r.stdout).toMatch(/0 breaking, 4 non-breaking, \d+ documentation-only\. Smallest release for these changes: minor\./);
  });

  it('exits 1 and names each breaking change with its pointer and the operations or events it affects', async () => {
    const r = await spawnDiff([release('1.0.0'), '--current', release('2.0.0-breaking')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('BREAKING (2)');
    expect(r.stdout).toContain('field `[].name` removed from the response');
    expect(r.stdout).toContain('at openapi#/components/schemas/Thing/properties/name (previous release)');
    expect(r.stdout).toContain('affects: GET /api/v1/things · response 200 (application/json); POST /api/v1/things · response 201 (application/json)');
    expect(r.stdout).toContain('field `data.name` removed from the event');
    expect(r.stdout).toContain('affects: operation sendThingChanged · message thingChanged payload');
  });

  it('prints JSON with --json', async () => {
    const r = await diff([release('1.0.0'), '--current', release('2.0.0-breaking'), '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.previous).toEqual({ source: release('1.0.0'), version: '1.0.0' });
    expect(out.summary).toMatchObject({ breaking: 2, nonBreaking: 0, requiredBump: 'major' });
    expect(out.changes.filter((c: { classification: string }) => c.classification === 'breaking').map((c: { document: string; pointer: string }) => `${c.document}#${c.pointer}`).sort()).toEqual([
      'asyncapi#/components/messages/thingChanged/payload/properties/data/properties/name',
      'openapi#/components/schemas/Thing/properties/name',
    ]);
  });

  it('drafts a CHANGELOG.md section with --changelog: what changed, who is affected, what to do', async () => {
    const r = await diff([release('1.0.0'), '--current', release('2.0.0-breaking'), '--changelog']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^## \[2\.0\.0\] - \d{4}-\d{2}-\d{2}\n\n### Removed\n/);
    expect(r.stdout).toContain(
      '- **Breaking.** Field `data.name` removed from the event: consumers that read it break (`operation sendThingChanged`). ' +
        '**Who is affected:** consumers of the events of `operation sendThingChanged`. **What to do:** stop relying on the field',
    );
    const compatible = await diff([release('1.0.0'), '--current', release('1.1.0-compatible'), '--changelog']);
    expect(compatible.stdout).toContain('### Added');
    expect(compatible.stdout).not.toContain('Breaking');
  });

  it('compares single bundled files', async () => {
    const r = await diff([path.join(release('1.0.0'), 'asyncapi.json'), '--current', path.join(release('2.0.0-breaking'), 'asyncapi.json'), '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.changes.every((c: { document: string }) => c.document === 'asyncapi')).toBe(true);
    expect(out.summary.breaking).toBe(1);
  });

  it('compares the committed bundles with themselves without a change', async () => {
    const r = await diff(['generated', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).changes).toEqual([]);
  });

  describe('usage errors exit 2 with a clear message', () => {
    it('no previous release', async () => {
      const r = await diff([]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('diff: missing the previous release to compare with.\nRun npm run diff -- --help for the options.\n');
    });

    it('an unknown flag', async () => {
      const r = await diff(['generated', '--frobnicate']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Unknown option '--frobnicate'");
    });

    it('--json with --changelog', async () => {
      const r = await diff(['generated', '--json', '--changelog']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--json and --changelog cannot be combined');
    });

    it('something that is neither a file, a directory nor a git ref', async () => {
      const r = await spawnDiff(['no-such-release-1.2.3']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("'no-such-release-1.2.3' is neither a file, a directory nor a git ref");
    });

    it('a JSON file that is not an API description', async () => {
      const r = await diff([path.join(repoRoot, 'package.json')]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('is neither an OpenAPI nor an AsyncAPI document');
    });
  });

  describe('a git ref', () => {
    let repo: string;
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd: repo, stdio: 'pipe' });

    beforeAll(() => {
      repo = mkdtempSync(path.join(os.tmpdir(), 'contract-diff-git-'));
      git('init', '-q');
      mkdirSync(path.join(repo, 'generated'));
      cpSync(release('1.0.0'), path.join(repo, 'generated'), { recursive: true });
      git('add', 'generated');
      git('commit', '-q', '-m', 'release 1.0.0');
      git('tag', 'v1.0.0');
      cpSync(release('2.0.0-breaking'), path.join(repo, 'generated'), { recursive: true });
    });

    afterAll(() => rmSync(repo, { recursive: true, force: true }));

    it('reads generated/ at that ref with git show and compares the working generated/ with it', async () => {
      const r = await diff(['v1.0.0'], repo);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('Contract diff: git:v1.0.0 (1.0.0) -> generated (2.0.0)');
      expect(r.stdout).toContain('BREAKING (2)');
    });

    it('a ref without generated/ is a usage error', async () => {
      const emptyTree = execFileSync('git', ['hash-object', '-w', '-t', 'tree', '--stdin'], { cwd: repo, input: '' }).toString().trim();
      const commit = git('commit-tree', emptyTree, '-m', 'nothing').toString().trim();
      git('tag', 'empty', commit);
      const r = await diff(['empty'], repo);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('git ref empty has no generated/openapi.json or generated/asyncapi.json');
    });
  });
});
