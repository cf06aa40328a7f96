// Issue 39: snapshots that keep each key's secrets. On a loopback mock without a token, a snapshot
// key B saved of its own account was read by any key or none (`GET /__mock/snapshots/bsnap`) with
// B's full key in it, brought back by another key (rolling B's account back) and overwritten, and
// the list was readable from another origin. Here: one account's snapshot is touched only with
// its key (or the control token), every account's only with the token or a program of this
// machine (never a page), the list shows each asker its own, and no full key is in a snapshot,
// answered, on disk or in Redis, while the key still opens its account from it.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisForTests } from './helpers/cluster.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const names = (answer: { body: { snapshots: Array<{ name: string }> } }) => answer.body.snapshots.map((s) => s.name);
const cap = async (call: ReturnType<typeof client>) => (await call('GET', '/api/v1/account')).body.maxCallDurationSeconds;

describe('whose a snapshot is (loopback, no control token)', () => {
  let mock: StatefulMock;
  beforeAll(async () => {
    mock = await startStatefulMock();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it("B's snapshot is B's: another key, no key and a page are refused; B reads it with no key in it", async () => {
    const [a, b] = [newKey('owner_a'), newKey('owner_b')];
    const callA = client(mock.url, a);
    const callB = client(mock.url, b);
    const program = client(mock.url, null);
    const page = (call: ReturnType<typeof client>) => (method: string, pathname: string, body?: unknown) =>
      call(method, pathname, body, { Origin: new URL(mock.url).origin, 'Sec-Fetch-Site': 'same-origin' });
    await callB('PATCH', '/api/v1/account', { maxCallDurationSeconds: 600 });
    expect((await callB('POST', '/__mock/snapshots/bsnap', {})).status).toBe(201);
    await callB('PATCH', '/api/v1/account', { maxCallDurationSeconds: 900 });

    const refusals = [
      await callA('GET', '/__mock/snapshots/bsnap'),
      await program('GET', '/__mock/snapshots/bsnap'),
      await callA('POST', '/__mock/snapshots/bsnap/restore', {}),
      await program('POST', '/__mock/snapshots/bsnap/restore', {}),
      await callA('POST', '/__mock/snapshots/bsnap', {}),
      await program('POST', '/__mock/snapshots/bsnap', {}),
      await callA('DELETE', '/__mock/snapshots/bsnap', undefined, JSON_TYPE),
      await page(callA)('GET', '/__mock/snapshots/bsnap'),
    ];
    expect(refusals.map((answer) => answer.status)).toEqual(refusals.map(() => 403));
    expect(refusals[0]!.body.error).toMatch(/only that account's key .* or the control token/);
    // Nothing of B's moved: not rolled back, not replaced.
    expect(await cap(callB)).toBe(900);

    // The list: each its own; a page without a key sees none.
    expect(names(await callA('GET', '/__mock/snapshots'))).not.toContain('bsnap');
    expect(names(await callB('GET', '/__mock/snapshots'))).toContain('bsnap');
    expect(names(await program('GET', '/__mock/snapshots'))).not.toContain('bsnap');
    expect(names(await page(program)('GET', '/__mock/snapshots'))).toEqual([]);

    // B's own: the file holds no key of B's, only its digest and the last four characters.
    const file = await callB('GET', '/__mock/snapshots/bsnap');
    expect(file.status).toBe(200);
    expect(JSON.stringify(file.body)).not.toContain(b);
    expect(Object.keys(file.body.state.keys)).toEqual([expect.stringMatching(new RegExp(`^sha256:[A-Za-z0-9_-]{43}:${b.slice(-4)}$`))]);
    expect((await callB('POST', '/__mock/snapshots/bsnap/restore', {})).status).toBe(200);
    expect(await cap(callB)).toBe(600);
    // The preview still shows the key's last four (part 5.3).
    expect((await callB('GET', '/api/v1/account')).body.apiKeys).toEqual([{ preview: `sk_live_…${b.slice(-4)}` }]);
    expect((await callB('DELETE', '/__mock/snapshots/bsnap', undefined, JSON_TYPE)).status).toBe(200);
  });

  it("every account's snapshot: a program of this machine, never a page", async () => {
    const key = newKey('every');
    const call = client(mock.url, key);
    await call('PATCH', '/api/v1/account', { maxCallDurationSeconds: 700 });
    const program = client(mock.url, null);
    const pageHeaders = { Origin: new URL(mock.url).origin, 'Sec-Fetch-Site': 'same-origin' };
    expect((await program('POST', '/__mock/snapshots/page-made', {}, pageHeaders)).status).toBe(403);
    expect((await program('POST', '/__mock/snapshots/everyone', {})).status).toBe(201);
    const refused = await program('GET', '/__mock/snapshots/everyone', undefined, pageHeaders);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/of every account/);
    expect((await program('POST', '/__mock/snapshots/everyone/restore', {}, pageHeaders)).status).toBe(403);
    // A key does not make a page a program of this machine.
    expect((await client(mock.url, newKey('other'))('GET', '/__mock/snapshots/everyone', undefined, pageHeaders)).status).toBe(403);
    const whole = await program('GET', '/__mock/snapshots/everyone');
    expect(whole.status).toBe(200);
    expect(JSON.stringify(whole.body)).not.toContain(key);
    expect(JSON.stringify(whole.body)).not.toMatch(/"sk_live_[^"]*"/);
    // Brought back whole, the key opens its account again from the digest.
    await call('PATCH', '/api/v1/account', { maxCallDurationSeconds: 800 });
    expect((await program('POST', '/__mock/snapshots/everyone/restore', {})).status).toBe(200);
    expect(await cap(call)).toBe(700);
    expect((await program('DELETE', '/__mock/snapshots/everyone', undefined, JSON_TYPE)).status).toBe(200);
  });
});

describe('with a control token', () => {
  it('the token reaches every snapshot; a key only its own', async () => {
    const mock = await startStatefulMock({ controlToken: 'snapshot-secrets-token' });
    try {
      const token = { 'X-Mock-Control-Token': 'snapshot-secrets-token' };
      const [a, b] = [newKey('tok_a'), newKey('tok_b')];
      expect((await client(mock.url, b)('POST', '/__mock/snapshots/b-own', {}, token)).status).toBe(201);
      expect((await client(mock.url, a)('GET', '/__mock/snapshots/b-own', undefined, token)).status).toBe(200);
      // Without the token, a program of this machine is nobody in particular here.
      expect(names(await client(mock.url, null)('GET', '/__mock/snapshots'))).toEqual([]);
      expect(names(await client(mock.url, null)('GET', '/__mock/snapshots', undefined, token))).toEqual(['b-own']);
      expect(names(await client(mock.url, a)('GET', '/__mock/snapshots'))).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});

describe('no full key where snapshots are kept', () => {
  const redis = redisForTests();

  it('on disk beside --state, and in Redis; the key reopens its account from either', async () => {
    const statePath = path.join(mkdtempSync(path.join(tmpdir(), 'mock-snapsecret-')), 'state.json');
    for (const options of [{ statePath, warn: () => undefined }, { storeUrl: redis().url, warn: () => undefined }]) {
      const key = newKey('kept');
      let mock = await startStatefulMock(options);
      try {
        await client(mock.url, key)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1200 });
        expect((await client(mock.url, key)('POST', '/__mock/snapshots/mine', {})).status).toBe(201);
        expect((await client(mock.url, null)('POST', '/__mock/snapshots/all', {})).status).toBe(201);
      } finally {
        await mock.close();
      }
      const kept: string[] = [];
      if ('statePath' in options) {
        for (const name of readdirSync(`${statePath}.snapshots`)) kept.push(readFileSync(path.join(`${statePath}.snapshots`, name), 'utf8'));
      } else {
        const connection = new Redis(redis().url, { lazyConnect: true, maxRetriesPerRequest: 1 });
        await connection.connect();
        for (const name of await connection.keys('*snap*')) kept.push((await connection.type(name)) === 'string' ? ((await connection.get(name)) ?? '') : JSON.stringify(await connection.hgetall(name)));
        connection.disconnect();
      }
      expect(kept.length).toBeGreaterThanOrEqual(2);
      for (const text of kept) expect(text).not.toContain(key);
      mock = await startStatefulMock(options);
      try {
        await client(mock.url, key)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1800 });
        expect((await client(mock.url, key)('POST', '/__mock/snapshots/mine/restore', {})).status).toBe(200);
        expect(await cap(client(mock.url, key))).toBe(1200);
        // Another key cannot bring it back on a new process either.
        expect((await client(mock.url, newKey('thief'))('POST', '/__mock/snapshots/mine/restore', {})).status).toBe(403);
      } finally {
        await mock.close();
      }
    }
  });
});
