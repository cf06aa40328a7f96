// Idempotency survives a store crash (issue 39): a call acknowledged before its store went down
// replays (part 7.2: the same `Idempotency-Key`) with 200 and the same call as soon as the store is
// back, never 409 "still running". On Valkey/Redis the lease of the key ends in the commit's own
// script (redis-scripts.ts), so no kill between the commit and a release can leave it held:
// redis-server (append-only file, fsync always, as an acknowledged write must survive kill -9) is
// killed right after the commit of a call, before the mock could say anything more to it (a proxy
// holds what it sends next), and in the middle of a burst of calls; it comes back on the same data
// directory and every acknowledged call replays. The file store's equivalent: the stored answer is
// in the same journal record as the call, so `kill -9` of the mock under `--state` loses neither.
import { Redis } from 'ioredis';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, startReplica, startStoreProxy, type RedisServer, type StoreProxy } from './helpers/cluster.js';
import { freePort, startCli, startCliGroup, type CliProcess } from './helpers/mock-process.js';
import { client, newKey, type JsonAnswer } from './helpers/stateful-mock.js';

const CALL = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', outboundInstruction: 'Confirm the delivery window.' };
const place = (base: string, key: string, idempotencyKey: string): Promise<JsonAnswer> => client(base, key)('POST', '/api/v1/calls', CALL, { 'Idempotency-Key': idempotencyKey });

/** Resolves once `base` answers a read again (the store back, the mock reconnected). */
async function answering(base: string, key: string): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 20_000; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if ((await client(base, key)('GET', '/api/v1/calls').catch(() => undefined))?.status === 200) return;
  }
  throw new Error(`${base} did not answer within 20 s of the store coming back`);
}

describe('Valkey/Redis: kill -9 of redis-server right after acknowledged calls', () => {
  let redis: RedisServer;
  let proxy: StoreProxy;
  let replica: CliProcess & { url: string };
  beforeAll(async () => {
    redis = await startRedis({ args: ['--appendfsync', 'always'] });
    // The replica reaches the store through a proxy that can hold what it sends after a command.
    proxy = await startStoreProxy(redis.port);
    replica = await startReplica(proxy.url);
  }, 60_000);
  afterAll(async () => {
    replica?.child.kill('SIGTERM');
    await replica?.exited;
    await proxy?.close();
    await redis?.stop();
  });

  /** Kills redis-server with SIGKILL and starts it again on its port and data directory. */
  async function crashAndRestart(): Promise<void> {
    await redis.stop('SIGKILL');
    redis = await redis.restart();
  }

  it('a call whose commit was the last thing the store heard replays with 200 and the same call', async () => {
    const key = newKey('crash');
    await answering(replica.url, key);
    // The commit carries the call's Idempotency-Key in its changes (`"crash-commit"`): what the
    // mock sends after it is held, so the store dies with the commit and nothing after it.
    const holding = proxy.holdAfter('"crash-commit"');
    const original = place(replica.url, key, 'crash-commit');
    await holding;
    const admin = new Redis(redis.url);
    try {
      // The commit applied (and, fsync always, on disk) before the kill.
      const committed = async (): Promise<boolean> => {
        for (const name of await admin.keys('numbers-api:g*:[al]:*')) {
          const values = (await admin.type(name)) === 'list' ? await admin.lrange(name, 0, -1) : [(await admin.hget(name, 'b')) ?? ''];
          if (values.some((value) => value.includes('"crash-commit"'))) return true;
        }
        return false;
      };
      while (!(await committed())) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      admin.disconnect();
    }
    await crashAndRestart();
    proxy.release();
    const first = await original;
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    await answering(replica.url, key);
    const replay = await place(replica.url, key, 'crash-commit');
    expect([replay.status, replay.body.id]).toEqual([200, first.body.id]);
    expect((await client(replica.url, key)('GET', '/api/v1/calls')).body.filter((c: { id: string }) => c.id === first.body.id)).toHaveLength(1);
  }, 60_000);

  it('mid-burst: every call acknowledged before the kill replays with 200 and its call, none 409', async () => {
    const keys = Array.from({ length: 6 }, (_, i) => newKey(`burst${i}`));
    for (const key of keys) await answering(replica.url, key);
    const acknowledged: Array<{ key: string; idempotencyKey: string; id: string }> = [];
    let stop = false;
    let n = 0;
    const sender = async (): Promise<void> => {
      while (!stop && n < 400) {
        const i = n++;
        const [key, idempotencyKey] = [keys[i % keys.length]!, `burst-${i}`];
        const answer = await place(replica.url, key, idempotencyKey).catch(() => undefined);
        if (answer?.status === 201) acknowledged.push({ key, idempotencyKey, id: answer.body.id });
      }
    };
    const senders = Array.from({ length: 8 }, sender);
    while (acknowledged.length < 40 && n < 400) await new Promise((resolve) => setTimeout(resolve, 2));
    await redis.stop('SIGKILL');
    stop = true;
    await Promise.all(senders);
    redis = await redis.restart();
    await answering(replica.url, keys[0]!);
    const replays = await Promise.all(acknowledged.map(async ({ key, idempotencyKey, id }) => ({ id, answer: await place(replica.url, key, idempotencyKey) })));
    const counts = { acknowledged: acknowledged.length, replayed200: replays.filter((r) => r.answer.status === 200 && r.answer.body.id === r.id).length, answered409: replays.filter((r) => r.answer.status === 409).length };
    console.log(`kill -9 of redis-server mid-burst: ${JSON.stringify(counts)}`);
    expect(replays.filter((r) => r.answer.status !== 200 || r.answer.body.id !== r.id).map((r) => `${r.answer.status} ${JSON.stringify(r.answer.body)}`)).toEqual([]);
  }, 90_000);
});

describe('--state: kill -9 of the mock right after acknowledged calls', () => {
  it('every acknowledged call replays with 200 and its call after a restart on the same file', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'idem-crash-')), 'state.json');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const cli = startCliGroup(['mock', '--port', String(port), '--quiet', '--state', stateFile]);
    await cli.waitForOutput(/Mock ready on/);
    const keys = [newKey('file_a'), newKey('file_b')];
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => place(base, keys[i % 2]!, `file-${i}`).then((answer) => ({ key: keys[i % 2]!, idempotencyKey: `file-${i}`, answer }))));
    process.kill(-cli.child.pid!, 'SIGKILL');
    await cli.exited;
    const acknowledged = answers.filter((a) => a.answer.status === 201);
    expect(acknowledged).toHaveLength(24);
    const port2 = await freePort();
    const again = startCli(['mock', '--port', String(port2), '--quiet', '--state', stateFile]);
    try {
      await again.waitForOutput(/Mock ready on/);
      const replays = await Promise.all(acknowledged.map(async ({ key, idempotencyKey, answer }) => ({ id: answer.body.id, replay: await place(`http://127.0.0.1:${port2}`, key, idempotencyKey) })));
      expect(replays.filter((r) => r.replay.status !== 200 || r.replay.body.id !== r.id).map((r) => `${r.replay.status} ${JSON.stringify(r.replay.body)}`)).toEqual([]);
    } finally {
      again.child.kill('SIGKILL');
      await again.exited;
    }
  }, 60_000);
});
