// The listening agent trusts nothing it is sent (issue 27, items 7 and 8).
//
// Its control port: no token, no `Host` check and no content-type check let a web page add a
// target (`POST /targets?url=…` with `Origin: https://evil.example`, `Content-Type: text/plain`), a
// body of `null` answered 500, bodies were read whole. Now every request needs the printed token,
// a Host of 127.0.0.1 or localhost, no Origin and a JSON body of at most 16 KB; bad ones are 400.
//
// Its upstream (a deployment that misbehaves, played here by a small server): a 401's body was
// printed as it came (a full key appeared), any 200 was forwarded and signed (non-JSON, a body of
// any size read whole), event ids and types were printed raw (terminal escapes, fake log lines),
// redirects were followed and then polled with no delay, and a target that never answers got a
// socket per event without bound. Now: a redacted summary, only JSON events with the envelope, at
// most 1 MB read, control characters taken out, redirects not followed and backed off, and at most
// 32 deliveries in progress per target.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_IN_FLIGHT_PER_TARGET, startListenAgent, type ListenOptions } from '../src/listen/agent.js';
import { startControlServer } from '../src/listen/control.js';
import { runListenCli } from '../src/listen/cli.js';
import { captureIo, startTarget } from './helpers/event-source-target.js';
import { endlessAnswer, rawRequest } from './helpers/raw-http.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await pause(5);
  }
}

const FULL_KEY = 'sk_live_0123456789abcdefWHOLEKEY';

function event(id: string, type = 'message.received'): string {
  return JSON.stringify({ id, object: 'event', type, version: 1, createdAt: '2026-11-23T12:00:00.000Z', relatedObject: null, data: {} });
}

/** A deployment answering each wait by `plan` in turn (the last step repeats); counts the waits. */
async function upstream(plan: Array<(res: ServerResponse) => void>) {
  const state = { waits: 0, url: '', sockets: new Set<Socket>() };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => plan[Math.min(state.waits++, plan.length - 1)]!(res));
  });
  server.on('connection', (socket) => state.sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return state;
}

function agent(baseUrl: string, options: Partial<ListenOptions> = {}) {
  const lines: string[] = [];
  const running = startListenAgent({ baseUrl: new URL(baseUrl), apiKey: FULL_KEY, waitSeconds: 1, log: (line) => lines.push(line), backoffMs: { initial: 10, max: 80 }, ...options });
  cleanups.push(() => running.stop());
  return { running, lines };
}

const json = (status: number, body: string) => (res: ServerResponse) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(body);

describe('the agent against an upstream that misbehaves', () => {
  it('prints a 401 as its status and a redacted summary, never the body with a full key', async () => {
    const fake = await upstream([json(401, JSON.stringify({ error: `Invalid API key ${FULL_KEY}`, echo: FULL_KEY }))]);
    const io = captureIo();
    expect(await runListenCli(['--base-url', fake.url], io, { env: { NUMBERS_API_KEY: FULL_KEY } })).toBe(1);
    expect(io.err()).toMatch(/refused the key in NUMBERS_API_KEY \(401\): Invalid API key sk_live_…EKEY\./);
    expect(`${io.out()}${io.err()}`).not.toContain(FULL_KEY);
  });

  it('forwards only JSON events with the envelope; anything else is not forwarded and backed off', async () => {
    const hooks = await startTarget([]);
    cleanups.push(() => hooks.close());
    const fake = await upstream([
      json(200, 'not json at all'),
      json(200, '{"id": "evt_x", "note": "no envelope"}'),
      json(200, 'null'),
      json(200, event('evt_good')),
      (res) => setTimeout(() => json(408, '{"error":"timed out"}')(res), 50),
    ]);
    const { lines } = agent(fake.url, { targets: [new URL(hooks.url)] });
    await until(() => hooks.received.length === 1);
    expect(JSON.parse(hooks.received[0]!.rawBody.toString()).id).toBe('evt_good');
    const refusals = lines.filter((line) => /answered 200 with a body that is not an event .*not forwarded; retrying in/.test(line));
    expect(refusals.map((line) => /retrying in ([\d.]+) s/.exec(line)![1])).toEqual(['0.01', '0.02', '0.04']);
  });

  it('reads at most 1 MB of an answer: an endless 200 is cut off, not read into memory', async () => {
    let sent = () => 0;
    const fake = await upstream([
      (res) => {
        sent = endlessAnswer(res);
      },
      (res) => setTimeout(() => json(408, '{}')(res), 1000),
    ]);
    const { lines } = agent(fake.url);
    await until(() => lines.some((line) => /answered 200 with more than 1048576 bytes; not forwarded/.test(line)));
    expect(sent()).toBeLessThan(16 * 1024 * 1024);
  });

  it('prints event ids and types without control characters (no terminal escapes, no fake log lines)', async () => {
    const hooks = await startTarget([]);
    cleanups.push(() => hooks.close());
    const fake = await upstream([json(200, event('evt_\u001b[2J\nfake line: delivered', 'message.received\u001b]0;title\u0007')), (res) => setTimeout(() => json(408, '{}')(res), 1000)]);
    const { lines } = agent(fake.url, { targets: [new URL(hooks.url)] });
    await until(() => lines.some((line) => line.includes('delivered (')));
    const printed = lines.join('\n');
    // eslint-disable-next-line no-control-regex
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(lines.every((line) => !line.startsWith('fake line'))).toBe(true);
  });

  it('does not follow a redirect (the key goes nowhere else) and backs off', async () => {
    const elsewhere = await upstream([json(200, event('evt_elsewhere'))]);
    const fake = await upstream([(res) => res.writeHead(302, { Location: `${elsewhere.url}/api/v1/events/wait` }).end()]);
    const { lines } = agent(fake.url);
    await until(() => lines.filter((line) => /answered 302, a redirect .*not followed; retrying in/.test(line)).length >= 4);
    expect(elsewhere.waits).toBe(0);
    const delays = lines.filter((line) => /302/.test(line)).map((line) => Number(/retrying in ([\d.]+) s/.exec(line)![1]));
    expect(delays.slice(0, 4)).toEqual([0.01, 0.02, 0.04, 0.08]);
  });

  it('opens at most 32 deliveries at a time to a target that never answers; the rest are dropped and said', async () => {
    const silent = await startTarget([], 'hang');
    cleanups.push(() => silent.close());
    let served = 0;
    const fake = await upstream([(res) => json(200, event(`evt_${served++}`))(res)]);
    const { running, lines } = agent(fake.url, { targets: [new URL(silent.url)], delivery: { timeoutSeconds: 30 } });
    await until(() => lines.filter((line) => /deliveries to it are still in progress; nothing is queued/.test(line)).length >= 20);
    expect(silent.received.length).toBe(MAX_IN_FLIGHT_PER_TARGET);
    expect(running.summary().dropped).toBeGreaterThanOrEqual(20);
    // The held deliveries end when the target goes, so the agent stops at once.
    await silent.close();
    await running.stop();
  });
});

describe('the control port', () => {
  async function control() {
    const hooks = await startTarget([]);
    cleanups.push(() => hooks.close());
    const fake = await upstream([(res) => setTimeout(() => json(408, '{}')(res), 1000)]);
    const { running } = agent(fake.url);
    const server = await startControlServer(running);
    cleanups.push(() => server.close());
    return { server, running, hook: hooks.url };
  }

  it('refuses a page: the request of issue 27 (Origin evil.example, text/plain, ?url=) adds nothing', async () => {
    const { server, running, hook } = await control();
    const answer = await fetch(`${server.url}/targets?url=${encodeURIComponent(hook)}`, { method: 'POST', headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain' } });
    expect(answer.status).toBe(403);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    expect(running.targets()).toEqual([]);
  });

  it.each([
    ['no token', {}, undefined, 401],
    ['a wrong token', { Authorization: 'Bearer nope' }, undefined, 401],
    ['a Host rebound to this machine', { Host: 'rebound.example' }, '{"url":"TARGET"}', 403],
    ['text/plain', { 'Content-Type': 'text/plain' }, '{"url":"TARGET"}', 400],
    ['a body of null', { 'Content-Type': 'application/json' }, 'null', 400],
    ['a url that is not a string', { 'Content-Type': 'application/json' }, '{"url": 5}', 400],
    ['a body over 16 KB', { 'Content-Type': 'application/json' }, `{"url":"${'a'.repeat(20_000)}"}`, 400],
    ['a target under the mock’s control surface', { 'Content-Type': 'application/json' }, '{"url":"http://127.0.0.1:4010/__mock/reset"}', 400],
  ] as const)('%s is refused (%#)', async (_what, headers, body, status) => {
    const { server, running, hook } = await control();
    const withToken = 'Authorization' in headers || _what === 'no token' ? headers : { Authorization: `Bearer ${server.token}`, ...headers };
    const answer = await rawRequest(server.url, 'POST', '/targets', withToken, body?.replace('TARGET', hook));
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body)).toEqual({ error: expect.any(String) });
    expect(running.targets()).toEqual([]);
  });

  it('with the token, a JSON body adds the target', async () => {
    const { server, running, hook } = await control();
    const answer = await rawRequest(server.url, 'POST', '/targets', { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json' }, JSON.stringify({ url: hook }));
    expect(answer.status).toBe(201);
    expect(running.targets()).toEqual([hook]);
  });
});
