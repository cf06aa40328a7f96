// The stateful mock over HTTP as a user meets it (`numbers-api mock`): bad input gets the
// documented 400 `Error`, never a bare 422 or problem+json (issue 11); a request naming its answer
// gets exactly that example and touches no state; the control surface drives time and the wallet;
// `--seed` and `--strict-keys` from the command line; `--state` survives kill -9 in a loop of writes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { readStateFile } from '../src/store/state-file.js';
import { freePort, startCli } from './helpers/mock-process.js';
import { client, newKey } from './helpers/stateful-mock.js';
import { useStatefulMock } from './helpers/simulator-harness.js';

const mock = useStatefulMock();

describe('bad input gets the documented 400 Error naming what failed', () => {
  it('malformed JSON', async () => {
    const answer = await client(mock().url, newKey())('PATCH', '/api/v1/account', '{"maxCallDurationSeconds":');
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toBe('application/json');
    // The body as a whole: the error sentence, never a `fieldErrors` key (`body` is a field of a message).
    expect(answer.body.error).toMatch(/^The request body is not valid JSON/);
  });

  it('a value the schema refuses, named by its field (the gate gives Prism’s verdict)', async () => {
    const answer = await client(mock().url, newKey())('PATCH', '/api/v1/account', { maxCallDurationSeconds: 59 });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.error.fieldErrors)).toEqual(['maxCallDurationSeconds']);
  });

  it('an oversized body', async () => {
    const answer = await client(mock().url, newKey())('PATCH', '/api/v1/account', `{"x":"${'a'.repeat(10 * 1024 * 1024)}"}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('The request body is larger than the 10 MB the service reads.');
  });

  it('never problem+json, and a wrong key is the documented 401', async () => {
    const answer = await client(mock().url, 'not_a_key')('GET', '/api/v1/account');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.body).toEqual({ error: expect.any(String) });
  });
});

describe('Prefer names an answer', () => {
  it('answers exactly that example and changes nothing', async () => {
    const call = client(mock().url, newKey());
    const before = await call('GET', '/api/v1/account');
    const named = await call('PATCH', '/api/v1/account', { maxCallDurationSeconds: 1800 }, { Prefer: 'example=paidAccount' });
    expect(named.status).toBe(200);
    const after = await call('GET', '/api/v1/account');
    expect(after.body).toEqual(before.body);
  });
});

describe('the control surface (generated/mock-control.json)', () => {
  const control = readGeneratedJson('mock-control.json');

  it('is a description of its own, apart from the service contract', () => {
    expect(Object.keys(control.paths).every((p) => p.startsWith('/__mock/'))).toBe(true);
    expect(Object.keys(readGeneratedJson('openapi.json').paths).some((p) => p.startsWith('/__mock/'))).toBe(false);
  });

  it('announces itself and its key mode (GET /__mock/about), without a key', async () => {
    const about = await client(mock().url, null)('GET', '/__mock/about');
    expect(about).toMatchObject({ status: 200, body: { mock: 'numbers-api', keys: 'any' } });
  });

  it('advances the simulated clock, and validates its own requests', async () => {
    const call = client(mock().url, null);
    const before = await call('GET', '/__mock/clock');
    const moved = await call('POST', '/__mock/clock/advance', { seconds: 3600 });
    expect(moved.status).toBe(200);
    expect(moved.body.offsetSeconds - before.body.offsetSeconds).toBe(3600);
    expect(Date.parse(moved.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(3600_000);
    const refused = await call('POST', '/__mock/clock/advance', { seconds: -5 });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body.error.fieldErrors)).toEqual(['seconds']);
  });

  it("sets the key's wallet balance, and only that account's", async () => {
    const key = newKey();
    const set = await client(mock().url, key)('PUT', '/__mock/wallet', { balance: 0 });
    expect(set).toMatchObject({ status: 200, body: { balance: 0 } });
    expect(mock().simulator.state.accounts[mock().simulator.state.keys[key]!]!.balance).toBe(0);
    const other = newKey();
    await client(mock().url, other)('GET', '/api/v1/account');
    expect(mock().simulator.state.accounts[mock().simulator.state.keys[other]!]!.balance).toBeGreaterThan(0);
    expect((await client(mock().url, null)('PUT', '/__mock/wallet', { balance: 1 })).status).toBe(401);
  });
});

describe('from the command line', () => {
  it('--seed starts accounts from your data, and --strict-keys accepts only its keys', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-seed-'));
    const seedFile = path.join(dir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify({ accounts: [{ keys: ['sk_live_seeded_one'], account: { maxCallDurationSeconds: 777 } }] }));
    const port = await freePort();
    const cli = startCli(['mock', '--port', String(port), '--quiet', '--seed', seedFile, '--strict-keys']);
    try {
      await cli.waitForOutput(/Mock ready on/);
      const url = `http://127.0.0.1:${port}`;
      expect((await client(url, 'sk_live_seeded_one')('GET', '/api/v1/account')).body.maxCallDurationSeconds).toBe(777);
      expect((await client(url, 'sk_live_stranger')('GET', '/api/v1/account')).status).toBe(401);
      expect((await client(url, null)('GET', '/__mock/about')).body).toEqual({ mock: 'numbers-api', keys: 'strict' });
    } finally {
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  });

  it('refuses a seed file that is not a seed, with exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-seed-'));
    const seedFile = path.join(dir, 'seed.json');
    writeFileSync(seedFile, '{"accounts": [{"keys": ["pk_wrong"]}]}');
    const cli = startCli(['mock', '--seed', seedFile]);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toContain('keys beginning sk_live_');
  });

  it('--state survives kill -9 in a loop of writes: the file is always a complete state, with what was written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'mock-state-'));
    const stateFile = path.join(dir, 'state.json');
    const key = newKey('state');
    let acknowledged = 0;
    for (let round = 1; round <= 3; round++) {
      const port = await freePort();
      const cli = startCli(['mock', '--port', String(port), '--quiet', '--state', stateFile]);
      try {
        await cli.waitForOutput(/Mock ready on/);
        const call = client(`http://127.0.0.1:${port}`, key);
        // What an earlier round wrote and had acknowledged long enough ago is still there.
        if (acknowledged > 0) expect((await call('GET', '/api/v1/account')).body.maxCallDurationSeconds).toBe(acknowledged);
        for (let i = 0; i < 20; i++) {
          const value = 60 + round * 100 + i;
          if ((await call('PATCH', '/api/v1/account', { maxCallDurationSeconds: value })).status === 200) acknowledged = value;
        }
        // Let the last write reach the file, then keep writing while the process is killed.
        await new Promise((resolve) => setTimeout(resolve, 400));
        const writes = (async () => {
          for (let i = 0; i < 50; i++) await call('PATCH', '/api/v1/account', { maxCallDurationSeconds: 3000 + i }).catch(() => undefined);
        })();
        await new Promise((resolve) => setTimeout(resolve, 20 + round * 15));
        cli.child.kill('SIGKILL');
        await writes;
      } finally {
        cli.child.kill('SIGKILL');
        await cli.exited;
      }
      const state = readStateFile(stateFile)!;
      expect(state.version).toBe(1);
      const value = state.accounts[state.keys[key]!]!.account.maxCallDurationSeconds!;
      expect(value === acknowledged || value >= 3000).toBe(true);
      acknowledged = value;
    }
  });
});
