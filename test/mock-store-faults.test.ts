// A store that cannot keep the mock's promise is refused, and one lost while the mock runs is
// said, never papered over (issue 32): an unreachable or misconfigured Valkey/Redis at start is one
// line and exit 2 (append-only file off, keys evicted when full), a store that keeps the promise
// only in part starts with a warning (appendfsync everysec); while it is away every request that
// needs it answers 503 in the documented `Error` shape (nothing invented, nothing changed); once it
// is back the mock answers again, with what the store kept; a full disk under the store (appendfsync
// always) loses no answered write and keeps no refused one. One redis-server for the file, its
// settings changed with CONFIG SET between the cases (the full disk's has a tmpfs of its own).
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startRedis, startReplica, type RedisServer } from './helpers/cluster.js';
import { freePort, startCli } from './helpers/mock-process.js';
import { canMount, CANNOT_MOUNT, smallDisk } from './helpers/small-disk.js';
import { client, newKey } from './helpers/stateful-mock.js';

const SEND = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'faults' };

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
}, 30_000);
afterAll(async () => {
  await redis?.stop();
});

/** GET /api/v1/messages once the store answers again: the client reconnects on its own (bounded wait, no time asserted). */
async function onceBack(call: ReturnType<typeof client>): ReturnType<ReturnType<typeof client>> {
  let listed = await call('GET', '/api/v1/messages');
  for (let i = 0; i < 200 && listed.status === 503; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    listed = await call('GET', '/api/v1/messages');
  }
  return listed;
}

/** Runs CONFIG SET on the store; the append-only file turned on is waited for (its rewrite done). */
async function configure(settings: Record<string, string>): Promise<void> {
  const admin = new Redis(redis.url);
  try {
    for (const [name, value] of Object.entries(settings)) await admin.config('SET', name, value);
    for (;;) {
      const info = await admin.info('persistence');
      if (/aof_rewrite_in_progress:0/.test(info) && /aof_rewrite_scheduled:0/.test(info)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    admin.disconnect();
  }
}

async function setting(name: string): Promise<string | undefined> {
  const admin = new Redis(redis.url);
  try {
    return ((await admin.config('GET', name)) as string[])[1];
  } finally {
    admin.disconnect();
  }
}

async function refusedAtStart(args: string[]): Promise<string> {
  const cli = startCli(['mock', '--port', String(await freePort()), '--quiet', ...args]);
  // A mock that starts when it should have refused is stopped, pass or fail.
  onTestFinished(() => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL');
  });
  const { code } = await cli.exited;
  expect(code, cli.stderr()).toBe(2);
  expect(cli.stdout()).not.toMatch(/Mock ready/);
  // One line, then where to read more (the command kit's shape for what it refuses).
  expect(cli.stderr().split('\n').slice(1)).toEqual(['Run numbers-api mock --help for the options.', '']);
  return cli.stderr();
}

describe('--store at start', () => {
  it('an unreachable store: one line, exit 2', async () => {
    const stderr = await refusedAtStart(['--store', `redis://127.0.0.1:${await freePort()}/0`]);
    expect(stderr).toMatch(/^numbers-api mock: --store redis:\/\/127\.0\.0\.1:\d+\/0: cannot reach the store \(/);
  });

  it('a store that would lose answered writes (appendonly no): one line, exit 2', async () => {
    await configure({ appendonly: 'no' });
    try {
      const stderr = await refusedAtStart(['--store', redis.url]);
        expect(stderr).toMatch(/appendonly is no .*--appendonly yes/);
    } finally {
      await configure({ appendonly: 'yes' });
    }
  });

  it('a store that evicts keys when full (maxmemory-policy allkeys-*): one line, exit 2', async () => {
    await configure({ maxmemory: '64mb', 'maxmemory-policy': 'allkeys-lru' });
    try {
      const stderr = await refusedAtStart(['--store', redis.url]);
        expect(stderr).toMatch(/maxmemory-policy is allkeys-lru .*use noeviction/);
    } finally {
      await configure({ maxmemory: '0', 'maxmemory-policy': 'noeviction' });
    }
  });

  it('a store with a password: the start line names the store, never its password (issue 39)', async () => {
    await configure({ requirepass: 'start-line-secret' });
    const url = redis.url.replace('redis://', 'redis://:start-line-secret@');
    try {
      const replica = await startReplica(url);
      replica.child.kill('SIGTERM');
      await replica.exited;
      expect(replica.stdout()).toMatch(new RegExp(`^Mock ready on ${replica.url.replace(/\./g, '\\.')} in [\\d.]+ s \\(\\d+ operations, stateful, store redis://\\*\\*\\*@127\\.0\\.0\\.1:${redis.port}/0\\)\\.$`, 'm'));
      expect(replica.stdout() + replica.stderr()).not.toContain('start-line-secret');
    } finally {
      const admin = new Redis(url);
      await admin.config('SET', 'requirepass', '');
      admin.disconnect();
    }
  });

  it('a URL that is not a store, and two places for the state: usage, exit 2', async () => {
    expect(await refusedAtStart(['--store', 'http://127.0.0.1:6379'])).toMatch(/--store must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(await refusedAtStart(['--store', 'redis://127.0.0.1:1/0', '--state', '/tmp/x.json'])).toMatch(/--state and --store are two places/);
  });
});

describe('the store lost while the mock runs', () => {
  it('answers 503 in the Error shape while it is away, and what it kept once it is back', async () => {
    // appendfsync everysec (Redis's default): the mock starts, and says what it may lose.
    expect(await setting('appendfsync')).toBe('everysec');
    const replica = await startReplica(redis.url);
    try {
      // Said before it listens, on stderr (which may arrive after stdout's "ready").
      const warned = /--store redis:\/\/127\.0\.0\.1:\d+\/0: appendfsync is everysec: .*may lose the last second/;
      for (let i = 0; i < 400 && !warned.test(replica.stderr()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(replica.stderr()).toMatch(warned);
      const call = client(replica.url, newKey('faults'));
      const kept = await call('POST', '/api/v1/messages', SEND);
      expect(kept.status).toBe(201);
      await redis.stop();

      for (const [method, path, body] of [['POST', '/api/v1/messages', SEND], ['GET', '/api/v1/messages', undefined]] as const) {
        const answer = await call(method, path, body);
        expect(answer.status, `${method} ${path}`).toBe(503);
        expect(answer.body).toEqual({ error: expect.stringMatching(/^The mock's store \(redis:\/\/127\.0\.0\.1:\d+\/0\) cannot be reached: .*Nothing was changed by this request/) });
      }
      expect((await client(replica.url, null)('POST', '/__mock/clock/advance', { seconds: 1 })).status).toBe(503);

      redis = await redis.restart();
      const again = await onceBack(call);
      expect(again.status).toBe(200);
      expect(again.body.map((message: { id: string }) => message.id)).toContain(kept.body.id);
      expect((await call('POST', '/api/v1/messages', SEND)).status).toBe(201);
    } finally {
      replica.child.kill('SIGTERM');
      await replica.exited;
    }
  }, 60_000);

  it.skipIf(!canMount)('a full disk under the store: the write it cannot keep answers 503 and is not there after; what was answered is', async () => {
    // The recipe's store (appendfsync always), its directory on a small tmpfs of its own: Redis
    // stops rather than answer a write its append-only file could not take.
    const disk = smallDisk(4096);
    let full = await startRedis({ dir: disk.dir, args: ['--appendfsync', 'always', '--maxmemory-policy', 'noeviction'] });
    const replica = await startReplica(full.url);
    try {
      const call = client(replica.url, newKey('fulldisk'));
      const kept = [await call('POST', '/api/v1/messages', SEND)];
      expect(kept[0]!.status).toBe(201);
      disk.fill();
      // A write may still fit in the last page the file holds: send until one finds no room.
      let refused = await call('POST', '/api/v1/messages', { ...SEND, body: 'no room' });
      for (let i = 0; i < 100 && refused.status === 201; i++) {
        kept.push(refused);
        refused = await call('POST', '/api/v1/messages', { ...SEND, body: 'no room' });
      }
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ error: expect.stringMatching(/^The mock's store \(redis:\/\/127\.0\.0\.1:\d+\/0\) .*Nothing was changed by this request/) });

      disk.free();
      await full.stop();
      full = await full.restart();
      const listed = await onceBack(call);
      expect(listed.status).toBe(200);
      // Every answered write is there; the refused one is not (one more than those answered).
      const ids = (listed.body as Array<{ id: string; body?: string }>).map((message) => message.id);
      for (const answer of kept) expect(ids).toContain(answer.body.id);
      const tried = (listed.body as Array<{ body?: string }>).filter((message) => message.body === 'no room');
      expect(tried).toHaveLength(kept.length - 1);
    } finally {
      replica.child.kill('SIGTERM');
      await replica.exited;
      await full.stop();
    }
  }, 60_000);
});
