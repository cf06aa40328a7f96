// The README's conformance example against `npm start`, as a user runs it: the mock started by
// npm in its own process group (on a free port instead of 4010, the only change to what the
// README says), then the README's own line, read from README.md, run by the shell. It must pass:
// the mock announces that it accepts any key (GET /__mock/about), so part 5.1's unknown-key checks
// are reported as not applicable, in one line, and nothing fails.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/contract.js';
import { freePort } from './helpers/mock-process.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
const EXAMPLE = /^NUMBERS_API_BASE_URL=http:\/\/127\.0\.0\.1:4010 NUMBERS_API_KEY=\S+ npm run conformance$/m;

/** The environment of a command a user types: none of this test runner's own variables. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1', ...extra };
  for (const key of Object.keys(env)) if (key.startsWith('VITEST') || key.startsWith('CONFORMANCE_') || key.startsWith('NUMBERS_API_') || key === 'TEST' || key === 'NODE_ENV') delete env[key];
  return env;
}

// npm's own configuration warnings (this machine's npmrc) are npm's, not the suite's.
const withoutNpmNotices = (text: string) => text.split('\n').filter((line) => line && !/^npm (warn|notice)/.test(line));

let port: number;
let mock: ReturnType<typeof spawn>;
let work: string;
beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'conformance-readme-'));
  port = await freePort();
  mock = spawn('npm', ['start'], { cwd: repoRoot, env: userEnv({ PORT: String(port) }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  mock.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not get ready:\n${out}`)), 60_000);
    mock.stdout!.on('data', () => {
      if (out.includes('Mock ready on')) {
        clearTimeout(timer);
        resolve();
      }
    });
    mock.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${out}`)));
  });
}, 90_000);
afterAll(async () => {
  if (mock?.pid && mock.exitCode === null) {
    const exited = new Promise((resolve) => mock.once('exit', resolve));
    process.kill(-mock.pid, 'SIGTERM');
    await exited;
  }
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the README's conformance example against npm start", () => {
  it('passes as written, with part 5.1\'s unknown-key checks reported as not applicable in one line', async () => {
    const line = EXAMPLE.exec(readme)?.[0];
    expect(line, 'README.md gives the example against the mock').toBeDefined();
    const command = `${line!.replace('127.0.0.1:4010', `127.0.0.1:${port}`)} -- --report-dir ${path.join(work, 'reports')}`;
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile('sh', ['-c', command], { cwd: repoRoot, env: userEnv({}), maxBuffer: 32 * 1024 * 1024, timeout: 240_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(withoutNpmNotices(run.stderr)).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/^\s*FAIL/m);
    const notApplicable = run.stdout.split('\n').filter((l) => /not applicable|Not applicable/.test(l) && !/^Scenarios:/.test(l));
    expect(notApplicable).toEqual([expect.stringMatching(/^Not applicable \(\d+ scenarios\): .* \(GET \/__mock\/about\), so the unknown-key 401 checks of part 5\.1 do not apply to it; start the mock with --strict-keys to run them\.$/)]);
    expect(run.stdout).toMatch(/^Scenarios: \d+ passed, 0 failed, \d+ advisory, 0 skipped, \d+ not applicable$/m);
  }, 240_000);
});
