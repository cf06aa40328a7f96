// The recipe of docs/guides/hosting.md, run as written (issues 32 and 39): its shell block, with
// free ports and a directory of its own, starts Redis, three mocks on it and nginx in front;
// requests through the balancer read their writes whichever mock answers, the store runs as the
// recipe says (append-only, every write flushed), each mock's start line names its store, the
// balancer carries every body a mock reads (a 10DLC submission with a 2 MB opt-in image) and
// answers what it refuses itself in the `Error` shape, and a mock killed (SIGKILL, by its pid)
// during a burst of sends loses nothing acknowledged: every answer is a 201 or a JSON `Error`, and
// a call with an Idempotency-Key goes on to the next mock. The process group is stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../src/serve/request-body.js';
import { listening } from './helpers/cluster.js';
import { repoRoot } from './helpers/contract.js';
import { descendantsOf, freePort, isAlive, waitUntil } from './helpers/mock-process.js';
import { client, newKey, type JsonAnswer } from './helpers/stateful-mock.js';

const guide = readFileSync(path.join(repoRoot, 'docs/guides/hosting.md'), 'utf8');
const recipe = /<!-- team-mock-recipe -->\n```bash\n([\s\S]*?)\n```/.exec(guide)?.[1];

const SEND = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'recipe' };
const CALL = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', outboundInstruction: 'Confirm the delivery window.' };
const SOLE = { kind: 'sole_proprietor', brand: { vertical: 'HEALTHCARE' }, campaign: { messageFlow: 'Patients text START.' } };

/** `<n>m` of an nginx size directive in the recipe, in bytes. */
function megabytes(directive: string): number {
  const value = new RegExp(`\\n\\s*${directive} (\\d+)m;`).exec(recipe ?? '')?.[1];
  return Number(value) * 1024 * 1024;
}

/** An answer in the API's one `Error` shape (part 7), said so by its type. */
function expectErrorShape(answer: JsonAnswer, what: string): void {
  expect(answer.headers.get('content-type'), `${what}: ${answer.status} ${String(answer.body).slice(0, 200)}`).toMatch(/^application\/json/);
  expect(answer.body, what).toEqual(expect.objectContaining({ error: expect.any(String) }));
}

/**
 * A stand-in for a mock that dies while it runs a request, on a port of the recipe's upstream list:
 * a request marked `X-Die: 1` is read whole and its connection dropped (what nginx sees of a mock
 * killed mid-request); every other request is passed to the mock at `target()`.
 */
async function dyingMock(target: () => number): Promise<{ port: number; drops: () => number; close: () => void }> {
  let drops = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.headers['x-die'] === '1') {
        drops++;
        req.socket.destroy();
        return;
      }
      const upstream = http.request({ host: '127.0.0.1', port: target(), method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => req.socket.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, drops: () => drops, close: () => server.close() };
}

describe("the hosting guide's recipe for a mock a team hosts", () => {
  it('is there, and its balancer lets through every body a mock reads, holding it in memory', () => {
    expect(recipe).toMatch(/redis-server .*--appendonly yes/);
    expect(recipe).toMatch(/npx numbers-api mock --port/);
    expect(recipe).toMatch(/nginx -p/);
    // The mock's own bound (issue 39: nginx's default 1 MB refused a documented 10DLC submission).
    expect(megabytes('client_max_body_size')).toBe(MAX_BODY_BYTES);
    expect(megabytes('client_body_buffer_size')).toBe(MAX_BODY_BYTES);
  });

  describe('run as written', () => {
    let child: ChildProcess;
    let exited: Promise<unknown>;
    let output = '';
    let ports: { redis: number; mocks: number[]; lb: number };
    let lb: string;
    let dying: Awaited<ReturnType<typeof dyingMock>>;

    /** The pid of the mock on `port`, while it runs (the recipe's shell started it; its command line names the port). */
    const mockPid = (port: number): number | undefined =>
      descendantsOf(child.pid!).find((candidate) => {
        try {
          return readFileSync(`/proc/${candidate}/cmdline`, 'utf8').split('\0').join(' ').includes(` mock --port ${port} `);
        } catch {
          return false;
        }
      });

    beforeAll(async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'team-mock-'));
      // `npx numbers-api` is the clone's command here (as in test/docs-commands.test.ts).
      const shims = path.join(dir, 'bin');
      mkdirSync(shims);
      const tsx = pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;
      writeFileSync(path.join(shims, 'numbers-api'), `#!/bin/sh\nexec "${process.execPath}" --import "${tsx}" "${path.join(repoRoot, 'bin/numbers-api.ts')}" "$@"\n`, { mode: 0o755 });
      writeFileSync(path.join(dir, 'recipe.sh'), recipe!.replaceAll('npx numbers-api', 'numbers-api'));
      ports = { redis: await freePort(), mocks: [await freePort(), await freePort(), await freePort()], lb: await freePort() };
      // A fourth port in the list the recipe reads: the stand-in holds it, so the recipe's own
      // mock there cannot start (it says so), and the balancer reaches the stand-in.
      dying = await dyingMock(() => ports.mocks[0]!);
      child = spawn('bash', [path.join(dir, 'recipe.sh')], {
        cwd: dir,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, PATH: `${shims}:${process.env.PATH}`, DIR: path.join(dir, 'state'), REDIS_PORT: String(ports.redis), MOCK_PORTS: [...ports.mocks, dying.port].join(' '), LB_PORT: String(ports.lb) },
      });
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
      exited = new Promise((resolve) => child.once('exit', resolve));
      for (const port of [...ports.mocks, ports.lb]) await listening(port, 60_000);
      lb = `http://127.0.0.1:${ports.lb}`;
      // Every mock answers before the balancer's round-robin is relied on.
      for (const port of ports.mocks) for (let i = 0; i < 100 && (await fetch(`http://127.0.0.1:${port}/__mock/about`).catch(() => undefined))?.status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
    }, 120_000);

    afterAll(async () => {
      dying?.close();
      if (!child) return;
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    });

    it('starts Redis, three mocks and nginx; writes through the balancer are read back from every mock; each mock names its store', async () => {
      const call = client(lb, newKey('recipe'));
      const sent = await call('POST', '/api/v1/messages', SEND);
      expect(sent.status, output).toBe(201);
      for (let i = 0; i < 6; i++) expect((await call('GET', '/api/v1/messages')).body[0].id).toBe(sent.body.id);
      for (const port of ports.mocks) expect((await client(`http://127.0.0.1:${port}`, null)('GET', '/__mock/clock')).status).toBe(200);
      const store = new Redis(`redis://127.0.0.1:${ports.redis}/0`);
      try {
        expect(await store.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
        expect(await store.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']);
        expect(await store.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
      } finally {
        store.disconnect();
      }
      // A store set up as the recipe says keeps the whole promise: no mock warns about it.
      expect(output).not.toMatch(/numbers-api mock: --store/);
      // Which store a replica is on is in its start line (issue 39: it said only "stateful").
      for (const port of ports.mocks) {
        expect(output).toMatch(new RegExp(`Mock ready on http://127\\.0\\.0\\.1:${port} in [\\d.]+ s \\(\\d+ operations, stateful, store redis://127\\.0\\.0\\.1:${ports.redis}/0\\)\\.`));
      }
    });

    it('carries a 10DLC submission with a 2 MB opt-in image (part 8); a body past what a mock reads gets the mock’s own 400', async () => {
      const key = newKey('recipe_upload');
      const call = client(lb, key);
      const number = await call('POST', '/api/v1/numbers', {});
      expect(number.status).toBe(201);
      // The largest image part 8 allows, as a PNG (issue 39: nginx's 413 page at 1.5 MB).
      const image = new Uint8Array(2 * 1024 * 1024);
      image.set([137, 80, 78, 71, 13, 10, 26, 10]);
      const form = new FormData();
      form.set('data', JSON.stringify(SOLE));
      form.set('optInImage', new Blob([image], { type: 'image/png' }), 'opt-in.png');
      const submitted = await fetch(`${lb}/api/v1/numbers/${number.body.id}/10dlc`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: form });
      const body = (await submitted.json()) as { status: string; optInImageUrl: string };
      expect(submitted.status, JSON.stringify(body)).toBe(200);
      expect(body.status).toBe('in_review');
      expect(body.optInImageUrl).toMatch(/opt-in\.png$/);

      // One byte past the bound, straight to a mock and through the balancer: the same answer.
      const over = `"${'x'.repeat(MAX_BODY_BYTES - 1)}"`;
      const direct = await client(`http://127.0.0.1:${ports.mocks[0]}`, key)('POST', '/api/v1/messages', over);
      const balanced = await call('POST', '/api/v1/messages', over);
      expect(direct.status).toBe(400);
      expect({ status: balanced.status, body: balanced.body }).toEqual({ status: direct.status, body: direct.body });
      expectErrorShape(balanced, 'a body past the bound');
      // A path only the balancer has is refused in the Error shape too.
      expectErrorShape(await call('POST', '/__balancer/keyed-call', CALL), 'the balancer’s own path');
    });

    it('a request a mock took and died on: a send is not sent again (a JSON 502), a call with an Idempotency-Key goes on to the next mock', async () => {
      /** Sends `request` (marked to die at the stand-in) until the stand-in took one: that one's answer, and how many the mocks answered before it. */
      const throughDying = async (request: () => Promise<JsonAnswer>): Promise<{ answer: JsonAnswer; before: number }> => {
        // After a drop the balancer leaves the stand-in out for its fail_timeout (10 s).
        let before = 0;
        for (const started = Date.now(); Date.now() - started < 30_000; before++) {
          const drops = dying.drops();
          const answer = await request();
          if (dying.drops() > drops) return { answer, before };
          expect(answer.status).toBe(201);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        throw new Error('the balancer never sent a request to the stand-in');
      };
      const sendKey = newKey('recipe_drop_send');
      const seededMessages = (await client(lb, sendKey)('GET', '/api/v1/messages')).body.length;
      const send = await throughDying(() => client(lb, sendKey)('POST', '/api/v1/messages', SEND, { 'X-Die': '1' }));
      expect(send.answer.status).toBe(502);
      expectErrorShape(send.answer, 'a send a mock died on');
      // Not sent to a second mock: it would have been sent twice had the first one sent it (part 7.4).
      expect((await client(lb, sendKey)('GET', '/api/v1/messages')).body.length).toBe(seededMessages + send.before);

      const callKey = newKey('recipe_drop_call');
      const seededCalls = (await client(lb, callKey)('GET', '/api/v1/calls')).body.length;
      let attempt = 0;
      const call = await throughDying(() => client(lb, callKey)('POST', '/api/v1/calls', CALL, { 'X-Die': '1', 'Idempotency-Key': `drop-${attempt++}` }));
      expect(call.answer.status, JSON.stringify(call.answer.body)).toBe(201);
      expect((await client(lb, callKey)('GET', '/api/v1/calls')).body.length).toBe(seededCalls + call.before + 1);
    }, 60_000);

    it('a mock killed (SIGKILL) during a burst of sends: every answer a 201 or a JSON Error, nothing acknowledged lost; a keyed call goes on to the next mock', async () => {
      const keys = Array.from({ length: 6 }, (_, i) => newKey(`recipe_burst${i}`));
      const acknowledged = new Map<string, string[]>(keys.map((key) => [key, []]));
      const statuses = new Map<number, number>();
      const wrong: string[] = [];
      let sends = 0;
      const answered = (answer: JsonAnswer, what: string, ok: number[]): void => {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (!ok.includes(answer.status) && (!/^application\/json/.test(answer.headers.get('content-type') ?? '') || typeof answer.body?.error !== 'string')) {
          wrong.push(`${what}: ${answer.status} ${answer.headers.get('content-type')} ${String(answer.body).slice(0, 120)}`);
        }
      };
      // One call per key (a free account has two calls in progress at most), each with its Idempotency-Key.
      const callKeys = Array.from({ length: 24 }, (_, i) => newKey(`recipe_call${i}`));
      const callAnswers = new Map<string, JsonAnswer>();
      const sender = async (n: number): Promise<void> => {
        for (let i = 0; i < 40; i++) {
          const key = keys[(n + i) % keys.length]!;
          const answer = await client(lb, key)('POST', '/api/v1/messages', SEND);
          sends++;
          answered(answer, 'send', [201]);
          if (answer.status === 201) acknowledged.get(key)!.push(answer.body.id);
          if (i % 10 === 5) {
            const callKey = callKeys[n * 4 + (i - 5) / 10]!;
            const placed = await client(lb, callKey)('POST', '/api/v1/calls', CALL, { 'Idempotency-Key': `burst-${n}-${i}` });
            callAnswers.set(callKey, placed);
            answered(placed, 'keyed call', [200, 201]);
          }
        }
      };
      const senders = Array.from({ length: 6 }, (_, n) => sender(n));
      while (sends < 60) await new Promise((resolve) => setTimeout(resolve, 5));
      const killed = mockPid(ports.mocks[1]!)!;
      expect(killed).toBeDefined();
      process.kill(killed, 'SIGKILL');
      await Promise.all(senders);
      expect(await waitUntil(() => !isAlive(killed))).toBe(true);

      expect(wrong, 'answers outside 201 and the Error shape').toEqual([]);
      const total = [...acknowledged.values()].flat().length;
      let kept = 0;
      for (const key of keys) {
        const stored = new Set(((await client(lb, key)('GET', '/api/v1/messages')).body as Array<{ id: string }>).map((message) => message.id));
        const lost = acknowledged.get(key)!.filter((id) => !stored.has(id));
        expect(lost, `${key}: acknowledged but not in the store`).toEqual([]);
        kept += acknowledged.get(key)!.length - lost.length;
      }
      // A keyed call passed on replays or waits for its original, never places a second one (part 7.2).
      const seeded = new Set(((await client(lb, newKey('recipe_seeded'))('GET', '/api/v1/calls')).body as Array<{ id: string }>).map((c) => c.id));
      let calls = 0;
      for (const key of callKeys) {
        const placed = ((await client(lb, key)('GET', '/api/v1/calls')).body as Array<{ id: string }>).map((c) => c.id).filter((id) => !seeded.has(id));
        expect(placed.length, key).toBeLessThanOrEqual(1);
        const answer = callAnswers.get(key)!;
        if (answer.status === 200 || answer.status === 201) expect(placed).toEqual([answer.body.id]);
        calls += placed.length;
      }
      expect(total).toBeGreaterThan(120);
      const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([status, count]) => `${count} × ${status}`).join(', ');
      console.log(`recipe, SIGKILL of 1 of 3 mocks mid-burst: ${sends} sends and ${callKeys.length} keyed calls; answers ${byStatus}; ${total} sends acknowledged, ${kept} kept; ${calls} calls in the store`);
    }, 120_000);

    it('with no mock up, the balancer answers in the Error shape', async () => {
      for (const port of ports.mocks) {
        const pid = mockPid(port);
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
      }
      expect(await waitUntil(() => ports.mocks.every((port) => mockPid(port) === undefined))).toBe(true);
      const answer = await client(lb, newKey('recipe_down'))('GET', '/api/v1/account');
      expect(answer.status).toBe(502);
      expectErrorShape(answer, 'no mock up');
    });
  });
});
