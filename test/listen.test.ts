// The local listening agent (`numbers-api listen`, part 6 fan-out rules, part 5.9) against the
// real stateful mock and real loopback targets: every event's raw JSON to every target, signed
// and with a bearer token; one retry then dropped; the per-attempt timeout; targets added and
// removed while it runs; 429 waited out; a lost connection resumed; bad usage exits 2; a base URL
// where nothing answers exits 2 at once, in one line; the base URL read from NUMBERS_API_BASE_URL
// as the key is from NUMBERS_API_KEY; the control port printed; SIGTERM stops it with a summary.
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startListenAgent, type ListenAgent, type ListenOptions } from '../src/listen/agent.js';
import { main } from '../bin/numbers-api.js';
import { runListenCli } from '../src/listen/cli.js';
import { startControlServer } from '../src/listen/control.js';
import type { JsonObject } from '../src/simulator/types.js';
import { captureIo, startTarget, type Target } from './helpers/event-source-target.js';
import { freePort } from './helpers/mock-process.js';
import { newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

let mock: StatefulMock;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  mock = await startStatefulMock();
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await mock?.close();
});

async function target(...args: Parameters<typeof startTarget>): Promise<Target> {
  const started = await startTarget(...args);
  cleanups.push(() => started.close());
  return started;
}

/**
 * Emits a message.received as a real inbound message would (its data from the contract's example,
 * so the strict check of composed answers passes), with its own messageId. The agents of these
 * tests wait with `filters: {type: 'message.received'}`, so a seeded call's progress does not count.
 */
function emit(key: string, messageId: string) {
  const example = mock.simulator.contract.example('waitForEvent', 200, 'messageReceivedSms') as JsonObject;
  return mock.simulator.withContext((ctx) =>
    ctx.emit(mock.simulator.accountForKey(key)!, 'message.received', { ...example.data, messageId }, { id: messageId, type: 'message', url: null }),
  );
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until the agent's first long poll is held by the mock (later events are then never missed). */
async function untilWaiting(key: string): Promise<void> {
  while (mock.simulator.heldWaits(mock.simulator.accountForKey(key)) === 0) await pause(5);
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await pause(5);
}

function agent(key: string, options: Partial<ListenOptions> = {}): ListenAgent {
  const lines: string[] = [];
  const started = startListenAgent({ baseUrl: new URL(mock.url), apiKey: key, waitSeconds: 30, filters: { type: 'message.received' }, log: (line) => lines.push(line), ...options });
  cleanups.push(() => started.stop());
  return started;
}

describe('numbers-api listen: forwarding (part 6 fan-out rules)', () => {
  it('POSTs each event\'s raw JSON to every target, signed (X-Service-Signature) and with the bearer token', async () => {
    const key = newKey('listen');
    const one = await target([]);
    const two = await target([]);
    const running = agent(key, { targets: [new URL(one.url), new URL(two.url)], delivery: { secret: 's3cret', bearer: 'tok_1' } });
    await untilWaiting(key);
    const first = emit(key, 'msg_1');
    const second = emit(key, 'msg_1b');
    await until(() => one.received.length === 2 && two.received.length === 2);
    await running.idle();
    for (const received of [one.received, two.received]) {
      expect(received.map((request) => JSON.parse(request.rawBody.toString()).id).sort()).toEqual([first.id, second.id].sort());
      for (const request of received) {
        expect(request.headers['content-type']).toBe('application/json');
        expect(request.headers['x-service-signature']).toBe(createHmac('sha256', 's3cret').update(request.rawBody).digest('hex'));
        expect(request.headers.authorization).toBe('Bearer tok_1');
      }
    }
    expect(running.summary()).toMatchObject({ events: 2, delivered: 4, dropped: 0 });
  });

  it('a target that answers 500, then 200, gets the event once more on the retry: delivered', async () => {
    const key = newKey('listen');
    const flaky = await target([500, 200]);
    const running = agent(key, { targets: [new URL(flaky.url)] });
    await untilWaiting(key);
    const event = emit(key, 'msg_2');
    await until(() => running.summary().delivered === 1);
    expect(flaky.received.map((request) => JSON.parse(request.rawBody.toString()).id)).toEqual([event.id, event.id]);
    expect(running.summary().dropped).toBe(0);
  });

  it('a target that always answers 500 is dropped after two attempts; nothing is queued', async () => {
    const key = newKey('listen');
    const broken = await target([], 500);
    const running = agent(key, { targets: [new URL(broken.url)] });
    await untilWaiting(key);
    emit(key, 'msg_3');
    await until(() => running.summary().dropped === 1);
    await pause(50);
    expect(broken.received).toHaveLength(2);
  });

  it('a target that never answers: each attempt ends at --timeout, then the event is dropped', async () => {
    const key = newKey('listen');
    const silent = await target([], 'hang');
    const lines: string[] = [];
    const running = agent(key, { targets: [new URL(silent.url)], delivery: { timeoutSeconds: 0.2 }, log: (line) => lines.push(line) });
    await untilWaiting(key);
    emit(key, 'msg_4');
    await until(() => running.summary().dropped === 1);
    expect(silent.received).toHaveLength(2);
    expect(lines.join('\n')).toMatch(/dropped after 2 attempts .*no answer within 0.2 s/);
  });

  it('requests to one target are not serialized: a second event is delivered while the first still hangs', async () => {
    const key = newKey('listen');
    const slow = await target([{ status: 200, afterMs: 60_000 }], 200);
    const running = agent(key, { targets: [new URL(slow.url)], delivery: { timeoutSeconds: 2 } });
    await untilWaiting(key);
    emit(key, 'msg_slow');
    await until(() => slow.received.length === 1);
    emit(key, 'msg_fast');
    await until(() => running.summary().delivered === 1);
    expect(slow.received).toHaveLength(2);
  });

  it('a target added while it runs (control port) receives the next event; a removed one receives nothing more', async () => {
    const key = newKey('listen');
    const first = await target([]);
    const added = await target([]);
    const running = agent(key, { targets: [new URL(first.url)] });
    const control = await startControlServer(running);
    cleanups.push(() => control.close());
    await untilWaiting(key);

    const auth = { Authorization: `Bearer ${control.token}`, 'Content-Type': 'application/json' };
    const post = await fetch(`${control.url}/targets`, { method: 'POST', headers: auth, body: JSON.stringify({ url: added.url }) });
    expect(post.status).toBe(201);
    expect(((await post.json()) as { targets: string[] }).targets).toEqual([first.url, added.url]);
    emit(key, 'msg_5');
    await until(() => running.summary().delivered === 2);
    expect(added.received).toHaveLength(1);

    const removed = await fetch(`${control.url}/targets`, { method: 'DELETE', headers: auth, body: JSON.stringify({ url: first.url }) });
    expect(removed.status).toBe(200);
    expect(((await (await fetch(`${control.url}/targets`, { headers: auth })).json()) as { targets: string[] }).targets).toEqual([added.url]);
    emit(key, 'msg_6');
    await until(() => running.summary().delivered === 3);
    expect(first.received).toHaveLength(1);
    expect(added.received).toHaveLength(2);

    // Rule 1 holds for added targets too, look-alikes included.
    const refused = await fetch(`${control.url}/targets`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'http://127.0.0.1.example.com/hooks' }) });
    expect(refused.status).toBe(400);
    expect(running.targets()).toEqual([added.url]);
  });
});

describe('numbers-api listen: end to end', () => {
  it('send a message: its message.status_changed reaches the target through listen', async () => {
    const key = newKey('listen');
    const hooks = await target([]);
    const running = agent(key, { targets: [new URL(hooks.url)], filters: { type: 'message.status_changed' } });
    await untilWaiting(key);
    // The demo seed's PAYG SMS line (the contract's twoNumbers example).
    const sent = await fetch(new URL('/api/v1/messages', mock.url), {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ to: '+14155550999', fromNumberId: 'pn_8f3kq2m9x7', body: 'Your table is ready.' }),
    });
    expect(sent.status).toBe(201);
    const message = (await sent.json()) as JsonObject;
    const forThisMessage = () => hooks.received.filter((request) => JSON.parse(request.rawBody.toString()).data?.messageId === message.id);
    await until(() => forThisMessage().length > 0);
    expect(JSON.parse(forThisMessage()[0]!.rawBody.toString())).toMatchObject({ type: 'message.status_changed', relatedObject: { id: message.id } });
    await running.idle();
  });
});

describe('numbers-api listen: the connection to the deployment', () => {
  /** A fake deployment answering events/wait by a plan; afterwards it holds every wait. */
  async function deployment(plan: Array<(res: import('node:http').ServerResponse) => void>): Promise<{ url: string; waits: number; server: Server }> {
    const state = { url: '', waits: 0, server: undefined as unknown as Server };
    state.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const step = plan[state.waits++];
        if (step) step(res);
        // else: held until the agent stops
      });
    });
    await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
    state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`;
    cleanups.push(() => new Promise<void>((resolve) => {
      state.server.closeAllConnections();
      state.server.close(() => resolve());
    }));
    return state;
  }

  const eventBody = JSON.stringify({ id: 'evt_fake_1', object: 'event', type: 'message.received', version: 1, createdAt: '2026-11-23T12:00:00.000Z', relatedObject: null, data: {} });

  it('waits out a 429 as Retry-After says, resumes after a lost connection with backoff, then delivers', async () => {
    const fake = await deployment([
      (res) => res.writeHead(429, { 'Retry-After': '0', 'Content-Type': 'application/json' }).end('{"error":"slow down"}'),
      (res) => res.socket?.destroy(),
      (res) => res.writeHead(408, { 'Content-Type': 'application/json' }).end('{"error":"No event arrived within 30 seconds"}'),
      (res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(eventBody),
    ]);
    const hooks = await target([]);
    const lines: string[] = [];
    const running = agent('sk_live_fake', { baseUrl: new URL(fake.url), targets: [new URL(hooks.url)], backoffMs: { initial: 10, max: 40 }, log: (line) => lines.push(line) });
    await until(() => hooks.received.length === 1);
    expect(hooks.received[0]!.rawBody.toString()).toBe(eventBody);
    expect(fake.waits).toBeGreaterThanOrEqual(5);
    const log = lines.join('\n');
    expect(log).toMatch(/429.*Retry-After/);
    expect(log).toMatch(/connection to .* lost .*retrying in 0.01 s/);
    await running.stop();
  });

  it('a base URL that refuses the first connection stops the agent (unreachable), not a retry loop that says "lost"', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const running = agent('sk_live_fake', { baseUrl: new URL(`http://127.0.0.1:${port}`), backoffMs: { initial: 10, max: 40 }, log: (line) => lines.push(line) });
    expect(await running.done).toEqual({ reason: 'unreachable', message: expect.stringMatching(/ECONNREFUSED/) });
    expect(lines.join('\n')).not.toMatch(/lost/);
  });

  it('a 401 stops the agent: the CLI exits 1 saying the key was refused', async () => {
    const fake = await deployment([(res) => res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"Invalid API key"}')]);
    const io = captureIo();
    const code = await runListenCli(['--base-url', fake.url], io, { env: { NUMBERS_API_KEY: 'sk_live_wrong' } });
    expect(code).toBe(1);
    expect(io.err()).toMatch(/refused the key in NUMBERS_API_KEY \(401\)/);
  });
});

describe('numbers-api listen: usage', () => {
  const env = { NUMBERS_API_KEY: 'sk_live_usage' };
  it.each([
    [['--forward-to', 'http://example.com/hooks'], /not a loopback URL/],
    [['--forward-to', 'http://127.0.0.1.example.com/hooks'], /not a loopback URL/],
    [['--forward-to', 'http://localhost.evil:3000/hooks'], /not a loopback URL/],
    [['--forward-to', 'http://127.0.0.1@evil.com/hooks'], /not a loopback URL/],
    [['--forward-to', 'ftp://127.0.0.1/hooks'], /scheme/],
    [['--forward-to', 'localhost:3000/hooks'], /no http/],
    [['--base-url', 'not a url'], /--base-url/],
    [['--signature-header', 'X-Sig'], /needs --secret/],
    [['--timeout', '0'], /--timeout/],
    [['--wait', '61'], /--wait/],
    [['--bogus'], /Unknown option/],
  ])('%j exits 2 with a message', async (argv, message) => {
    const io = captureIo();
    expect(await runListenCli(argv as string[], io, { env })).toBe(2);
    expect(io.err()).toMatch(message);
  });

  it('numbers-api names listen in its help and routes to it', async () => {
    const io = captureIo();
    expect(await main(['--help'], io)).toBe(0);
    expect(io.out()).toMatch(/^\s+listen\s/m);
    const listenHelp = captureIo();
    expect(await main(['listen', '--help'], listenHelp)).toBe(0);
    expect(listenHelp.out()).toContain('--forward-to');
  });

  it('no key in NUMBERS_API_KEY exits 2', async () => {
    const io = captureIo();
    expect(await runListenCli(['--forward-to', 'http://127.0.0.1:3000/hooks'], io, { env: {} })).toBe(2);
    expect(io.err()).toMatch(/NUMBERS_API_KEY/);
  });
});

describe('numbers-api listen: the command', () => {
  /** `numbers-api listen <argv>` as a process, to its end. */
  function listen(argv: string[], env: Record<string, string>): Promise<{ code: number | null; out: string; err: string; ms: number }> {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/numbers-api.ts', 'listen', ...argv], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out, err, ms: Date.now() - started })));
  }

  it('a base URL where nothing listens: exit 2 at once, one line naming it and where it came from (NUMBERS_API_BASE_URL)', async () => {
    const port = await freePort();
    const run = await listen(['--forward-to', 'http://127.0.0.1:3000/hooks'], { NUMBERS_API_KEY: newKey('listen'), NUMBERS_API_BASE_URL: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(2);
    expect(run.err).toBe(
      `numbers-api listen: nothing answers at http://127.0.0.1:${port} (ECONNREFUSED), the base URL from NUMBERS_API_BASE_URL. ` +
        'Start the mock (npx numbers-api mock, or npm start in the repository) or give the deployment with --base-url or NUMBERS_API_BASE_URL.\n',
    );
    expect(run.out).toBe('');
    expect(run.ms).toBeLessThan(15_000);
  }, 30_000);

  it('--base-url wins over NUMBERS_API_BASE_URL, and a bad NUMBERS_API_BASE_URL is a usage error that names it', async () => {
    const port = await freePort();
    const io = captureIo();
    const stop = new AbortController();
    const code = runListenCli(['--base-url', mock.url], io, { env: { NUMBERS_API_KEY: newKey('listen'), NUMBERS_API_BASE_URL: `http://127.0.0.1:${port}` }, stop: stop.signal, onReady: () => stop.abort() });
    expect(await code).toBe(0);
    expect(io.out()).toContain(`events of ${new URL(mock.url).origin}`);
    const bad = captureIo();
    expect(await runListenCli([], bad, { env: { NUMBERS_API_KEY: 'sk_live_x', NUMBERS_API_BASE_URL: 'localhost:4010' } })).toBe(2);
    expect(bad.err()).toMatch(/^numbers-api listen: NUMBERS_API_BASE_URL "localhost:4010" must use http:\/\/ or https:\/\//);
  });

  it('runs as a process (base URL from NUMBERS_API_BASE_URL): prints its control port, one line per delivery, targets changed with `listen targets`, SIGTERM stops it with a summary (exit 0)', async () => {
    const key = newKey('listen');
    const hooks = await target([]);
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/numbers-api.ts', 'listen', '--forward-to', hooks.url, '--wait', '5'], {
      env: { ...process.env, NUMBERS_API_KEY: key, NUMBERS_API_BASE_URL: mock.url },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await until(() => /--targets-port (\d+) --targets-token (\w+)/.test(out));
    const port = /^Targets port: (\d+)\. /m.exec(out)![1]!;
    const token = /--targets-token ([0-9a-f]{32})/.exec(out)![1]!;
    expect(out).toContain(`events of ${new URL(mock.url).origin}`);
    expect(out).toContain(`--targets-port ${port} --targets-token ${token}`);
    await untilWaiting(key);

    const event = emit(key, 'msg_cli');
    await until(() => out.includes(`${event.id} -> ${hooks.url}: delivered`));

    const io = captureIo();
    expect(await runListenCli(['targets', 'list', '--targets-port', port], io, { env: {} })).toBe(2);
    expect(io.err()).toMatch(/--targets-token <token> is needed/);
    // The old names still work for a release (--control, --token).
    expect(await runListenCli(['targets', 'list', '--control', port, '--token', token], io)).toBe(0);
    expect(await runListenCli(['targets', 'remove', hooks.url, '--targets-port', port, '--targets-token', token], io)).toBe(0);
    expect(await runListenCli(['targets', 'list', '--targets-port', port], io, { env: { NUMBERS_API_LISTEN_TOKEN: token } })).toBe(0);
    expect(io.out()).toContain('no targets');

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toMatch(/Stopped\. \d+ event\(s\) received; \d+ delivery\(ies\) made, 0 dropped\./);
  }, 60_000);
});
