// Issue 39: snapshots were capped in number (50) but not in bytes, and kept as objects on V8's
// heap: on a 256 MB heap, 50 snapshots made the heap guard lower the live-account cap five times
// "for good", evicting about 1,900 accounts in use while the snapshots stayed. Here: all snapshots
// together are bounded in bytes (`--max-snapshot-bytes`), one past it is refused 409 in the `Error`
// shape naming the asker's own to delete, and snapshots are counted against their own bound, not
// the heap the live accounts are capped by.
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { guardHeap, oldGenerationLimit } from '../src/mock/heap-guard.js';
import { startRedis } from './helpers/cluster.js';
import { freePort, runCli, startCli } from './helpers/mock-process.js';
import { client, newKey, startStatefulMock } from './helpers/stateful-mock.js';
import type { MockOptions } from '../src/mock/start-mock.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };

/** Saves the key's account under new names until the mock refuses; the answers. */
async function fillUntilRefused(url: string, key: string, limit = 200) {
  const call = client(url, key);
  const saved: Array<{ name: string; bytes: number }> = [];
  for (let i = 0; i < limit; i++) {
    const answer = await call('POST', `/__mock/snapshots/fill-${i}`, {});
    if (answer.status !== 201) return { saved, refusal: answer };
    saved.push(answer.body);
  }
  throw new Error(`no refusal after ${limit} snapshots`);
}

async function expectBounded(options: MockOptions): Promise<void> {
  const mock = await startStatefulMock({ ...options, maxSnapshotBytes: 64 * 1024 });
  try {
    const [owner, other] = [newKey('bound_a'), newKey('bound_b')];
    const { saved, refusal } = await fillUntilRefused(mock.url, owner);
    expect(saved.length).toBeGreaterThan(1);
    expect(saved.reduce((sum, info) => sum + info.bytes, 0)).toBeLessThanOrEqual(64 * 1024);
    expect(refusal.status).toBe(409);
    expect(Object.keys(refusal.body)).toEqual(['error']);
    expect(refusal.body.error).toMatch(/^Snapshots keep at most 0\.06 MiB in all \(--max-snapshot-bytes\); .* delete some first\. Yours, largest first: DELETE \/__mock\/snapshots\/fill-\d+ /);
    // Another key is told none of them is its own, and no name of the owner's.
    const theirs = await client(mock.url, other)('POST', '/__mock/snapshots/theirs', {});
    expect(theirs.status).toBe(409);
    expect(theirs.body.error).toMatch(/None of them is yours/);
    expect(theirs.body.error).not.toMatch(/fill-/);
    // Deleting one makes room again.
    expect((await client(mock.url, owner)('DELETE', `/__mock/snapshots/${saved[0]!.name}`, undefined, JSON_TYPE)).status).toBe(200);
    expect((await client(mock.url, owner)('POST', '/__mock/snapshots/again', {})).status).toBe(201);
  } finally {
    await mock.close();
  }
}

describe('snapshots bounded in bytes', () => {
  it('on the memory store: refused 409 past the bound, naming what to delete', async () => {
    await expectBounded({});
  });

  it('on Redis, the same bound', async () => {
    const redis = await startRedis();
    try {
      await expectBounded({ storeUrl: redis.url, warn: () => undefined });
    } finally {
      await redis.stop();
    }
  });

  it('--max-snapshot-bytes sets the bound; a bad value is one line and exit 2', async () => {
    const port = await freePort();
    const cli = startCli(['mock', '--port', String(port), '--quiet', '--max-snapshot-bytes', '2048']);
    try {
      await cli.waitForOutput(/Mock ready on/);
      const refused = await client(`http://127.0.0.1:${port}`, newKey('cli_bound'))('POST', '/__mock/snapshots/too-big', {});
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatch(/at most 0\.00 MiB in all/);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
    for (const args of [['--max-snapshot-bytes', '12'], ['--max-snapshot-bytes', 'lots'], ['--stateless', '--max-snapshot-bytes', '2048']]) {
      const run = await runCli(['mock', '--port', '0', ...args]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--max-snapshot-bytes/);
    }
  });
});

describe('the heap guard and snapshots', () => {
  it('never lowers the live-account cap for what snapshots hold', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // Accounts of about 1 MB each (400 messages of 2,500 characters), four of them live.
    const message = { id: 'msg_0', phoneNumberId: 'pn_8f3kq2m9x7', groupId: null, channel: 'sms', from: '+13125550187', to: '+14155550123', body: '', media: [], replyToId: null, reaction: null, source: 'external' };
    const messages = Array.from({ length: 400 }, (_, i) => ({ ...message, id: `msg_${String(i).padStart(4, '0')}`, body: `${i} ${'x'.repeat(2500)}` }));
    const mock = await startStatefulMock({ seed: { default: { messages } } as never, warn: () => undefined });
    const warnings: string[] = [];
    try {
      for (let i = 0; i < 4; i++) expect((await client(mock.url, newKey(`heap_${i}`))('GET', '/api/v1/account')).status).toBe(200);
      const live = mock.simulator.liveAccounts();
      // The guard's line: 24 MB above what is in use now.
      gc();
      const used = v8.getHeapSpaceStatistics().reduce((sum, space) => sum + (space.space_name === 'new_space' ? 0 : space.space_used_size), 0);
      const line = oldGenerationLimit(v8.getHeapStatistics().heap_size_limit);
      const guard = guardHeap(mock.simulator, (text) => warnings.push(text), (used + 24 * 1024 * 1024) / line);
      try {
        // About 48 MB of snapshots, twice the room left under the line.
        const program = client(mock.url, null);
        let bytes = 0;
        for (let i = 0; bytes < 48 * 1024 * 1024; i++) {
          const saved = await program('POST', `/__mock/snapshots/heap-${i}`, {});
          expect(saved.status).toBe(201);
          bytes += saved.body.bytes;
        }
        gc();
        guard.check();
        expect(warnings).toEqual([]);
        expect(mock.simulator.liveAccounts()).toBe(live);
      } finally {
        guard.stop();
      }
    } finally {
      await mock.close();
    }
  });
});
