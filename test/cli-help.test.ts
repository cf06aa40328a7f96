// `numbers-api --help` says what each command is today (issue 26): the mock is the stateful mock
// (Prism only behind --stateless), and proxy forwards to a deployment and checks what passes (it
// does not run the conformance suite). Every command the dispatcher knows is listed, and only those.
// And the command runs where the guides give it (issue 40): `npx numbers-api` in a clone after
// `npm ci`, through the launcher the workspace install links (packages/numbers-api/bin).
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { COMMANDS, USAGE, main } from '../bin/numbers-api.js';
import { repoRoot } from './helpers/contract.js';

/** Each command's description in the top-level help, continuation lines joined. */
function described(): Map<string, string> {
  const lines = USAGE.slice(USAGE.indexOf('Commands:\n') + 'Commands:\n'.length, USAGE.indexOf('\n\n', USAGE.indexOf('Commands:'))).split('\n');
  const out = new Map<string, string>();
  let last = '';
  for (const line of lines) {
    const m = /^ {2}(\S+(?: \S+)?)\s{2,}(.*)$/.exec(line);
    if (m) out.set((last = m[1]!), m[2]!);
    else out.set(last, `${out.get(last)} ${line.trim()}`);
  }
  return out;
}

describe('numbers-api --help', () => {
  it('lists every command the dispatcher runs, and no other', () => {
    expect([...described().keys()]).toEqual(Object.keys(COMMANDS.commands));
  });

  it('calls the mock what it is: the stateful mock, the examples only behind --stateless', () => {
    const mock = described().get('mock')!;
    expect(mock).toMatch(/stateful mock/);
    expect(mock).toMatch(/--stateless/);
    expect(mock).not.toMatch(/Prism/);
  });

  it('calls proxy what it is: it forwards to a deployment and checks what passes against the contract', () => {
    const proxy = described().get('proxy')!;
    expect(proxy).toMatch(/forward/);
    expect(proxy).toMatch(/against\s+the contract/);
    expect(proxy).not.toMatch(/conformance checks/);
  });

  it('prints it and exits 0', async () => {
    let out = '';
    expect(await main(['--help'], { stdout: (text: string) => (out += text), stderr: () => {} } as never)).toBe(0);
    expect(out).toBe(USAGE);
  });
});

describe('numbers-api in a clone (issue 40: `sh: 1: numbers-api: not found`)', () => {
  const run = promisify(execFile);
  const launcher = path.join(repoRoot, 'packages/numbers-api/bin/numbers-api.js');

  it("npm ci links it (the workspace package's bin), and npx numbers-api runs in the clone", async () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'packages/numbers-api/package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ 'numbers-api': 'bin/numbers-api.js' });
    expect(manifest.files).toContain('bin');
    const { stdout } = await run('npx', ['--no-install', 'numbers-api', '--help'], { cwd: repoRoot });
    expect(stdout).toBe(USAGE);
    const listed = await run('npx', ['--no-install', 'numbers-api', 'events', 'list'], { cwd: repoRoot });
    expect(listed.stdout).toMatch(/^messageReceivedSms\s/m);
  }, 60_000);

  it('says which form to use where', () => {
    expect(USAGE).toMatch(/npx numbers-api <command> in a clone of the repository after npm ci/);
    expect(USAGE).toMatch(/a project that installed the numbers-api package/);
  });

  // The launcher in both places, with stand-ins it tells apart: sources beside it in a clone
  // (TypeScript, so only tsx runs them), the build under node_modules.
  it.each([
    ['a clone: the sources, through tsx, even beside a build', 'packages/numbers-api', 'sources'],
    ['installed: the build', 'node_modules/numbers-api', 'build'],
  ])('%s', async (_name, packageDir, expected) => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'numbers-api-launcher-'));
    try {
      const pkg = path.join(root, packageDir);
      mkdirSync(path.join(pkg, 'bin'), { recursive: true });
      mkdirSync(path.join(pkg, 'dist/bin'), { recursive: true });
      mkdirSync(path.join(root, 'bin'));
      copyFileSync(launcher, path.join(pkg, 'bin/numbers-api.js'));
      writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'numbers-api', type: 'module' }));
      writeFileSync(path.join(pkg, 'dist/bin/numbers-api.js'), "console.log('build', process.argv.slice(2).join(' '));\n");
      writeFileSync(path.join(root, 'bin/numbers-api.ts'), "const ran: string = 'sources';\nconsole.log(ran, process.argv.slice(2).join(' '));\n");
      writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'root', type: 'module' }));
      // tsx, as a clone's npm ci installs it.
      if (packageDir.startsWith('packages')) symlinkSync(path.join(repoRoot, 'node_modules'), path.join(root, 'node_modules'), 'dir');
      const { stdout } = await run(process.execPath, [path.join(pkg, 'bin/numbers-api.js'), 'mock', '--help'], { cwd: root });
      expect(stdout.trim()).toBe(`${expected} mock --help`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 60_000);
});
