// Named snapshots (issue 32), on the memory and file stores (the Redis store's run in
// test/mock-cluster.test.ts): saved whole or for one key, listed, given as a file, brought back
// (whole: the state replaced; one account: only that account), forgotten; kept beside a `--state`
// file across restarts; loaded from a committed file at start (`--snapshot`); guarded as changes
// are (the control token under --strict-keys).
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, startCli } from './helpers/mock-process.js';
import { client, newKey, startStatefulMock } from './helpers/stateful-mock.js';

const JSON_TYPE = { 'Content-Type': 'application/json' };
const cap = async (call: ReturnType<typeof client>) => (await call('GET', '/api/v1/account')).body.maxCallDurationSeconds;

describe('named snapshots on the memory store', () => {
  it('saves all or one key, lists, gives the file, brings back, forgets', async () => {
    const mock = await startStatefulMock();
    try {
      const [a, b] = [newKey('snap_a'), newKey('snap_b')];
      const callA = client(mock.url, a);
      const callB = client(mock.url, b);
      const control = client(mock.url, null);
      await callA('PATCH', '/api/v1/account', { maxCallDurationSeconds: 600 });
      await callB('PATCH', '/api/v1/account', { maxCallDurationSeconds: 700 });

      const whole = await control('POST', '/__mock/snapshots/everyone', {});
      expect(whole.status).toBe(201);
      expect(whole.body).toMatchObject({ name: 'everyone', scope: 'all', accounts: 2 });
      const one = await callA('POST', '/__mock/snapshots/just-a', {});
      expect(one.body).toMatchObject({ name: 'just-a', scope: 'account', accounts: 1 });
      // Each sees its own: a program of this machine every account's, a key its account's.
      expect((await control('GET', '/__mock/snapshots')).body.snapshots.map((s: { name: string }) => s.name)).toEqual(['everyone']);
      expect((await callA('GET', '/__mock/snapshots')).body.snapshots.map((s: { name: string }) => s.name)).toEqual(['everyone', 'just-a']);

      // One account's snapshot brings back that account only.
      await callA('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1200 });
      await callB('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1300 });
      expect((await callA('POST', '/__mock/snapshots/just-a/restore', {})).status).toBe(200);
      expect([await cap(callA), await cap(callB)]).toEqual([600, 1300]);

      // A whole snapshot replaces the state: a key made since is gone (a fresh account from the seed).
      const c = client(mock.url, newKey('snap_c'));
      await c('PATCH', '/api/v1/account', { maxCallDurationSeconds: 900 });
      expect((await control('POST', '/__mock/snapshots/everyone/restore', {})).status).toBe(200);
      expect([await cap(callA), await cap(callB)]).toEqual([600, 700]);
      expect(await cap(c)).not.toBe(900);

      const file = await callA('GET', '/__mock/snapshots/just-a');
      expect(file.body).toMatchObject({ snapshot: 'just-a', scope: 'account', state: { version: 1 } });
      expect(Object.values(file.body.state.keys)).toHaveLength(1);

      expect((await callA('DELETE', '/__mock/snapshots/just-a', undefined, JSON_TYPE)).status).toBe(200);
      expect((await callA('POST', '/__mock/snapshots/just-a/restore', {})).status).toBe(404);
      expect((await control('GET', '/__mock/snapshots/nope')).body).toEqual({ error: 'No snapshot named nope.' });
      expect((await control('POST', '/__mock/snapshots/bad name', {})).status).toBe(400);
    } finally {
      await mock.close();
    }
  });

  it('under --strict-keys a snapshot is saved and read only with the control token', async () => {
    const mock = await startStatefulMock({ strictKeys: true, controlToken: 'snapshot-token-1' });
    try {
      const control = client(mock.url, null);
      expect((await control('POST', '/__mock/snapshots/guarded', {})).status).toBe(403);
      expect((await control('POST', '/__mock/snapshots/guarded', {}, { 'X-Mock-Control-Token': 'snapshot-token-1' })).status).toBe(201);
      expect((await control('GET', '/__mock/snapshots/guarded')).status).toBe(403);
      expect((await control('GET', '/__mock/snapshots/guarded', undefined, { 'X-Mock-Control-Token': 'snapshot-token-1' })).status).toBe(200);
    } finally {
      await mock.close();
    }
  });
});

describe('snapshots on the file store, and a committed snapshot file at start', () => {
  it('keeps snapshots beside the state file across restarts (mode 600)', async () => {
    const stateFile = path.join(mkdtempSync(path.join(tmpdir(), 'mock-snapfile-')), 'state.json');
    const key = newKey('snapfile');
    let mock = await startStatefulMock({ statePath: stateFile });
    await client(mock.url, key)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 610 });
    expect((await client(mock.url, key)('POST', '/__mock/snapshots/kept', {})).status).toBe(201);
    await client(mock.url, key)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 620 });
    await mock.close();
    expect(readdirSync(`${stateFile}.snapshots`)).toEqual(['kept.json']);
    expect(statSync(`${stateFile}.snapshots/kept.json`).mode & 0o777).toBe(0o600);

    mock = await startStatefulMock({ statePath: stateFile });
    try {
      expect(await cap(client(mock.url, key))).toBe(620);
      expect((await client(mock.url, key)('POST', '/__mock/snapshots/kept/restore', {})).status).toBe(200);
      expect(await cap(client(mock.url, key))).toBe(610);
    } finally {
      await mock.close();
    }
  });

  it('--snapshot <file> brings a committed snapshot back at start; a file that is not one is exit 2', async () => {
    const source = await startStatefulMock();
    const key = newKey('committed');
    let file: unknown;
    try {
      await client(source.url, key)('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1800 });
      await client(source.url, key)('POST', '/__mock/snapshots/team-demo', {});
      file = (await client(source.url, key)('GET', '/__mock/snapshots/team-demo')).body;
    } finally {
      await source.close();
    }
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-committed-'));
    writeFileSync(path.join(dir, 'team-demo.json'), JSON.stringify(file));
    const port = await freePort();
    const cli = startCli(['mock', '--port', String(port), '--quiet', '--strict-keys', '--snapshot', path.join(dir, 'team-demo.json')]);
    try {
      await cli.waitForOutput(/Mock ready on/);
      // Under --strict-keys the snapshot's key is one the mock knows.
      expect(await cap(client(`http://127.0.0.1:${port}`, key))).toBe(1800);
      expect((await client(`http://127.0.0.1:${port}`, key)('GET', '/__mock/snapshots')).body.snapshots[0].name).toBe('team-demo');
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
    writeFileSync(path.join(dir, 'bad.json'), '{"snapshot": "x", "scope": "all", "state": {"version": 2}}');
    const bad = startCli(['mock', '--port', String(await freePort()), '--snapshot', path.join(dir, 'bad.json')]);
    expect((await bad.exited).code).toBe(2);
    expect(bad.stderr()).toMatch(/--snapshot .*bad\.json is not a snapshot of this mock: "state" is not a state of this mock/);
  });
});
