// The `numbers-api` command as a user runs it: `mock` prints its URL, a line per request, and
// stops cleanly on Ctrl-C or SIGTERM, in one process; `mock --stateless` stops with its Prism
// processes (and Prism never outlives it); bad input gets a clear message and exit 2;
// `mock --list-examples` is generated from the description.
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { listExampleNames } from '../src/mock/example-names.js';
import { main } from '../bin/numbers-api.js';
import { loadOpenApi } from './helpers/contract.js';
import { captureIo } from './helpers/event-source-target.js';
import { defaultPrismWorkers } from '../src/mock/start-mock.js';
import { cliEntry, descendantsOf, freePort, isAlive, prismProcessesOf, runCli, startCli, startCliGroup, waitUntil } from './helpers/mock-process.js';
import { VALID_KEY } from './helpers/mock-server.js';
import { canMount, smallDisk } from './helpers/small-disk.js';

// Many tests here start Prism and then wait on it themselves: the start (up to 60 s), its workers
// (30 s), their ends (10 s). On a loaded machine the start alone took most of the suite's 60 s per
// test, and "never leaves Prism behind" timed out while Prism did as it should; the time a test
// may take is what its own waits add up to (a hang still fails).
vi.setConfig({ testTimeout: 120_000 });

/** `numbers-api <args>` in this process, with its output captured and `env` set meanwhile. */
async function inProcess(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    const code = await main(args, io);
    return { code, out: io.out(), err: io.err() };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

function portRefuses(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('numbers-api mock', () => {
  it('serves on PORT/HOST in one process, logs one line per request, refuses a taken port, and stops on SIGTERM', async () => {
    const port = await freePort();
    const cli = startCli(['mock'], { env: { PORT: String(port), HOST: '127.0.0.1' } });
    try {
      await cli.waitForOutput(new RegExp(`Mock ready on http://127\\.0\\.0\\.1:${port} in [\\d.]+ s \\(\\d+ operations, stateful, in memory\\)`));
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/account`, { headers: { Authorization: VALID_KEY } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      await cli.waitForOutput(/\d\d:\d\d:\d\d GET \/api\/v1\/account 200 [\d.]+ ms\n/);
      // Exactly one line for that request (Prism's own logging is off).
      expect(cli.stdout().match(/GET \/api\/v1\/account/g)).toHaveLength(1);

      // A second mock on the same port says why it cannot start.
      const second = await runCli(['mock', '--port', String(port)]);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`127.0.0.1:${port} is already in use`);

      // The stateful mock is one process: no Prism behind it (tsx's own esbuild may run beside it).
      expect(prismProcessesOf(cli.child.pid!)).toEqual([]);
      cli.child.kill('SIGTERM');
      const { code } = await cli.exited;
      expect(code).toBe(0);
      expect(cli.stdout()).toContain('SIGTERM: stopping the mock.');
      expect(await portRefuses(port)).toBe(true);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('--stateless: serves through Prism, one line per request, and stops with every Prism on SIGTERM', async () => {
    const port = await freePort();
    const cli = startCli(['mock', '--stateless'], { env: { PORT: String(port), HOST: '127.0.0.1' } });
    try {
      await cli.waitForOutput(new RegExp(`Mock listening on http://127\\.0\\.0\\.1:${port}`));
      const prismVersion = createRequire(import.meta.url)('@stoplight/prism-cli/package.json').version.replace(/\./g, '\\.');
      await cli.waitForOutput(new RegExp(`Mock ready on http://127\\.0\\.0\\.1:${port} in [\\d.]+ s \\(Prism ${prismVersion}, \\d+ operations, stateless: examples only\\)`));
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/account`, { headers: { Authorization: VALID_KEY } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      await cli.waitForOutput(/\d\d:\d\d:\d\d GET \/api\/v1\/account 200 [\d.]+ ms\n/);
      // Exactly one line for that request (Prism's own logging is off).
      expect(cli.stdout().match(/GET \/api\/v1\/account/g)).toHaveLength(1);
      // Every Prism process (the second starts once the first has answered).
      expect(await waitUntil(() => prismProcessesOf(cli.child.pid!).length === defaultPrismWorkers(), 30_000)).toBe(true);
      const prism = descendantsOf(cli.child.pid!);
      cli.child.kill('SIGTERM');
      const { code } = await cli.exited;
      expect(code).toBe(0);
      expect(await waitUntil(() => prism.every((pid) => !isAlive(pid)))).toBe(true);
      expect(await portRefuses(port)).toBe(true);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('stops on Ctrl-C (SIGINT to the whole process group, as a terminal sends it)', async () => {
    const port = await freePort();
    // Two Prism processes: the second may still be loading Prism when the group's SIGINT comes.
    const cli = startCliGroup(['mock', '--stateless', '--port', String(port), '--quiet', '--prism-workers', '2']);
    await cli.waitForOutput(/Mock ready on/);
    expect(await waitUntil(() => prismProcessesOf(cli.child.pid!).length === 2, 30_000)).toBe(true);
    const prism = descendantsOf(cli.child.pid!);
    process.kill(-cli.child.pid!, 'SIGINT');
    const { code } = await cli.exited;
    expect(code).toBe(0);
    expect(cli.stdout()).toContain('SIGINT: stopping the mock and Prism.');
    expect(await waitUntil(() => prism.every((pid) => !isAlive(pid)))).toBe(true);
  });

  it('stops cleanly on Ctrl-C while Prism is still loading (SIGINT kills a Prism not yet listening)', async () => {
    const port = await freePort();
    const cli = startCliGroup(['mock', '--stateless', '--port', String(port), '--quiet', '--prism-workers', '1']);
    await cli.waitForOutput(/Mock listening on .*starting Prism/);
    expect(await waitUntil(() => prismProcessesOf(cli.child.pid!).length === 1, 30_000)).toBe(true);
    process.kill(-cli.child.pid!, 'SIGINT');
    const { code } = await cli.exited;
    expect(cli.stderr()).not.toMatch(/unexpectedly/);
    expect(code).toBe(0);
    expect(cli.stdout()).toContain('SIGINT: stopping the mock and Prism.');
  });

  it('--stateless: a Prism that dies is replaced and said once; the mock keeps answering (issue 27, item 3)', async () => {
    const port = await freePort();
    const cli = startCliGroup(['mock', '--stateless', '--port', String(port), '--quiet', '--prism-workers', '1']);
    await cli.waitForOutput(/Mock ready on/);
    const [prism] = prismProcessesOf(cli.child.pid!);
    expect(prism).toBeDefined();
    process.kill(prism!, 'SIGKILL');
    expect(await waitUntil(() => cli.stderr().includes('numbers-api mock: A Prism process stopped (SIGKILL); starting another.'), 30_000)).toBe(true);
    // A request sent while the replacement starts waits for it (one in flight at the death: test/mock-protocol-edges.test.ts).
    const answer = await fetch(`http://127.0.0.1:${port}/api/v1/account`, { headers: { Authorization: VALID_KEY } });
    expect(answer.status, await answer.clone().text()).toBe(200);
    expect(await waitUntil(() => prismProcessesOf(cli.child.pid!).some((pid) => pid !== prism), 30_000)).toBe(true);
    expect(cli.child.exitCode).toBeNull();
    process.kill(-cli.child.pid!, 'SIGTERM');
    expect((await cli.exited).code).toBe(0);
    expect(await portRefuses(port)).toBe(true);
  });

  it('stops with Prism when the wrapper that started it is killed without passing the signal on (npx)', async () => {
    const port = await freePort();
    // `npx numbers-api mock & kill -TERM $!` kills npx, not the mock; a shell that runs the mock
    // as its child (not exec) stands in for that wrapper here.
    const cli = startCliGroup([], {
      command: ['sh', '-c', `"${process.execPath}" --import tsx "${cliEntry}" mock --stateless --port ${port} --quiet; true`],
    });
    await cli.waitForOutput(/Mock ready on/);
    const mockPid = descendantsOf(cli.child.pid!).find((pid) => !prismProcessesOf(cli.child.pid!).includes(pid));
    expect(mockPid).toBeDefined();
    const left = [mockPid!, ...prismProcessesOf(mockPid!)];
    cli.child.kill('SIGTERM');
    await cli.exited;
    expect(await waitUntil(() => left.every((pid) => !isAlive(pid)), 15_000)).toBe(true);
    expect(await portRefuses(port)).toBe(true);
  });

  it('never leaves Prism behind, even when the mock is killed outright', async () => {
    const port = await freePort();
    const cli = startCli(['mock', '--stateless', '--port', String(port), '--quiet']);
    await cli.waitForOutput(/Mock ready on/);
    expect(await waitUntil(() => prismProcessesOf(cli.child.pid!).length === defaultPrismWorkers(), 30_000)).toBe(true);
    const prism = descendantsOf(cli.child.pid!);
    cli.child.kill('SIGKILL');
    await cli.exited;
    expect(await waitUntil(() => prism.every((pid) => !isAlive(pid)))).toBe(true);
  });

  it.each([
    [['mock', '--port', 'eighty'], {}, '--port must be a port number'],
    [['mock'], { PORT: '99999' }, 'PORT must be a port number'],
    [['mock', '--verbose'], {}, "Unknown option '--verbose'"],
    [['mock', '--prism-log', 'loud'], {}, '--prism-log must be one of'],
    [['mock', '--json'], {}, '--markdown and --json go with --list-examples'],
    [['mock', '--prism-workers', '0'], {}, '--prism-workers must be a whole number from 1 to 16'],
    [['mock', '--prism-workers', '2'], {}, '--document, --prism-log and --prism-workers go with --stateless'],
    [['mock', '--gate', 'zod'], {}, '--gate must be one of ajv, prism'],
    [['mock', '--stateless', '--gate', 'prism'], {}, '--gate goes with the stateful mock'],
  ] as const)('refuses %j %j with a clear message and exit 2', async (args, env, message) => {
    const result = await inProcess([...args], env);
    expect(result.code).toBe(2);
    // One line, then where to read more: never the whole help.
    expect(result.err.split('\n')).toEqual([expect.stringContaining(message), 'Run numbers-api mock --help for the options.', '']);
  });

  it('refuses, before it starts, a place it cannot write and a file it cannot use: one line, exit 2 (issue 39)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-start-'));
    const file = path.join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const notState = path.join(dir, 'not-state.json');
    writeFileSync(notState, '{"version":1,"accounts":5}');
    const cases: Array<[string[], string]> = [
      // Before: the mock started, and answered every change 503 until stopped.
      [['--state', path.join(dir, 'missing', 'state.json')], `--state: cannot write in ${path.join(dir, 'missing')}: the directory does not exist (ENOENT).`],
      [['--state', path.join(file, 'state.json')], `--state: ${file} is not a directory.`],
      // Before: exit 1, the file's problems on lines of their own.
      [['--state', notState], `--state: ${notState} is not a state file of this mock (version 1); move it away or choose another --state.`],
      // Before: a bare "EEXIST: file already exists, mkdir ...", exit 1.
      [['--record', file], `--record: ${file} is not a directory (a file stands in its path).`],
      [['--seed', path.join(dir, 'no-seed.json')], `--seed ${path.join(dir, 'no-seed.json')} does not exist.`],
    ];
    if (process.getuid?.() !== 0) {
      const locked = path.join(dir, 'locked');
      mkdirSync(locked);
      chmodSync(locked, 0o500);
      cases.push([['--state', path.join(locked, 'state.json')], `--state: cannot write in ${locked}: permission denied (EACCES).`]);
    } else if (canMount) {
      const disk = smallDisk(64);
      disk.readOnly(true);
      cases.push([['--state', path.join(disk.dir, 'state.json')], `--state: cannot write in ${disk.dir}: the file system is read-only (EROFS).`]);
    }
    const results = await Promise.all(cases.map(([args]) => runCli(['mock', '--port', '0', ...args])));
    results.forEach((result, i) => {
      expect(result.code, cases[i]![1]).toBe(2);
      expect(result.stderr.split('\n')).toEqual([`numbers-api mock: ${cases[i]![1]}`, 'Run numbers-api mock --help for the options.', '']);
    });
  });

  it('says in its start line where it keeps the state', async () => {
    const state = path.join(mkdtempSync(path.join(tmpdir(), 'mock-start-line-')), 'state.json');
    const port = await freePort();
    const cli = startCli(['mock', '--port', String(port), '--quiet', '--state', state]);
    try {
      await cli.waitForOutput(new RegExp(`Mock ready on http://127\\.0\\.0\\.1:${port} in [\\d.]+ s \\(\\d+ operations, stateful, state file ${state.replace(/[.]/g, '\\.')}\\)\\.\n`));
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it('--list-test-values prints every documented test value of the contract, and --help its sign-up code', async () => {
    const listed = await inProcess(['mock', '--list-test-values']);
    expect(listed.code).toBe(0);
    const values = (loadOpenApi()['x-test-values'] ?? []) as Array<{ value: string; field: string }>;
    expect(values.length).toBeGreaterThan(0);
    for (const entry of values) expect(listed.out).toContain(`${entry.value}  ${entry.field}`);
    const signup = values.find((entry) => (entry as { name?: string }).name === 'signupCode')!;
    expect((await inProcess(['mock', '--help'])).out).toContain(`${signup.value} for the email and SMS codes`);
  });

  it('--list-examples --json is the example list generated from the description', async () => {
    const result = await inProcess(['mock', '--list-examples', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual(listExampleNames(loadOpenApi()));
  });

  it('--list-examples prints every operation with its example names per status; --markdown a table each', async () => {
    const text = await inProcess(['mock', '--list-examples']);
    const markdown = await inProcess(['mock', '--list-examples', '--markdown']);
    expect(text.code).toBe(0);
    expect(markdown.code).toBe(0);
    for (const operation of listExampleNames(loadOpenApi())) {
      expect(text.out).toContain(`${operation.method} ${operation.path}`);
      expect(markdown.out).toContain(`\`${operation.method} ${operation.path}\``);
      for (const response of operation.responses) expect(text.out).toContain(response.names.join(', '));
    }
    // An error example is selected with its status: `Prefer: code=<status>, example=<name>`.
    const error = listExampleNames(loadOpenApi()).flatMap((op) => op.responses.filter((r) => r.status !== op.defaultStatus))[0]!;
    expect(markdown.out).toContain(`| ${error.status} | \`${error.names[0]}\``);
    expect(markdown.out).toContain(`\`Prefer: code=${error.status}, example=${error.names[0]}\``);
  });
});

describe('numbers-api dispatcher', () => {
  it('an unknown command exits 2 with one line and where to read more', async () => {
    const result = await inProcess(['serve']);
    expect(result.code).toBe(2);
    expect(result.err).toBe('numbers-api: unknown command "serve" (mock, events, listen, conformance, proxy, recordings, mcp).\nRun numbers-api --help for the commands.\n');
  });

  it('no command exits 2; --help exits 0 and names every command', async () => {
    expect((await inProcess([])).code).toBe(2);
    const help = await inProcess(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['mock', 'events send', 'conformance', 'proxy']) expect(help.out).toContain(command);
  });

  it('as a process, the exit code is the command’s: events send refusing a look-alike URL exits 2', async () => {
    const result = await runCli(['events', 'send', 'http://127.0.0.1.example.com/hooks', 'messageReceivedSms']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not a loopback URL');
  });
});

describe('npm start', () => {
  it('runs the mock, and SIGTERM to its process group stops everything', async () => {
    const port = await freePort();
    const cli = startCliGroup([], { env: { PORT: String(port) }, command: ['npm', 'start', '--silent'] });
    await cli.waitForOutput(new RegExp(`Mock ready on http://127\\.0\\.0\\.1:${port}`), 90_000);
    const tree = [cli.child.pid!, ...descendantsOf(cli.child.pid!)];
    process.kill(-cli.child.pid!, 'SIGTERM');
    await cli.exited;
    expect(await waitUntil(() => tree.every((pid) => !isAlive(pid)))).toBe(true);
    expect(await portRefuses(port)).toBe(true);
  });
});
