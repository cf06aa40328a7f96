// A store that cannot keep the mock's promise is refused, and one lost while the mock runs is
// said, never papered over (issue 32): an unreachable or misconfigured Valkey/Redis at start is one
// line and exit 2; while it is away every request that needs it answers 503 in the documented
// `Error` shape (nothing invented, nothing changed); once it is back the mock answers again, with
// what the store kept.
import { describe, expect, it } from 'vitest';
import { startRedis, startReplica } from './helpers/cluster.js';
import { freePort, startCli } from './helpers/mock-process.js';
import { client, newKey } from './helpers/stateful-mock.js';

const SEND = { to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'faults' };

async function refusedAtStart(args: string[]): Promise<string> {
  const cli = startCli(['mock', '--port', String(await freePort()), '--quiet', ...args]);
  const { code } = await cli.exited;
  expect(code, cli.stderr()).toBe(2);
  expect(cli.stdout()).not.toMatch(/Mock ready/);
  return cli.stderr();
}

describe('--store at start', () => {
  it('an unreachable store: one line, exit 2', async () => {
    const stderr = await refusedAtStart(['--store', `redis://127.0.0.1:${await freePort()}/0`]);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^numbers-api mock: --store redis:\/\/127\.0\.0\.1:\d+\/0: cannot reach the store \(/);
  });

  it('a store that would lose answered writes (appendonly no): one line, exit 2', async () => {
    const redis = await startRedis({ args: ['--appendonly', 'no'] });
    try {
      const stderr = await refusedAtStart(['--store', redis.url]);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(/appendonly is no .*--appendonly yes/);
    } finally {
      await redis.stop();
    }
  });

  it('a URL that is not a store, and two places for the state: usage, exit 2', async () => {
    expect(await refusedAtStart(['--store', 'http://127.0.0.1:6379'])).toMatch(/--store must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(await refusedAtStart(['--store', 'redis://127.0.0.1:1/0', '--state', '/tmp/x.json'])).toMatch(/--state and --store are two places/);
  });
});

describe('the store lost while the mock runs', () => {
  it('answers 503 in the Error shape while it is away, and what it kept once it is back', async () => {
    let redis = await startRedis();
    const replica = await startReplica(redis.url);
    try {
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
      // The client reconnects on its own: answers come back (bounded wait, no time asserted).
      let again = await call('GET', '/api/v1/messages');
      for (let i = 0; i < 200 && again.status === 503; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await call('GET', '/api/v1/messages');
      }
      expect(again.status).toBe(200);
      expect(again.body.map((message: { id: string }) => message.id)).toContain(kept.body.id);
      expect((await call('POST', '/api/v1/messages', SEND)).status).toBe(201);
    } finally {
      replica.child.kill('SIGTERM');
      await replica.exited;
      await redis.stop();
    }
  }, 60_000);
});
