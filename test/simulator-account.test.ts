// The account rules of part 4.2 and the key rules of parts 5.1 and 5.3, in the simulator core
// (in-process, deterministic clock and ids). Each test fails when its rule is taken out of
// src/simulator/resources/account.ts or src/simulator/accounts.ts.
import { describe, expect, it } from 'vitest';
import { inProcessSimulator, simRequest, type InProcessInit } from './helpers/simulator-harness.js';

const inProcess = (options: InProcessInit['options'] = {}, seed?: InProcessInit['seed']) => inProcessSimulator({ options, seed });
const request = (method: string, path: string, key: string | null, body?: unknown) => simRequest(method, path, { key, body });

describe('accounts and keys (parts 5.1, 5.3)', () => {
  it('opens a separate account per key, each from the demo seed, and never mixes them', () => {
    const { simulator: sim, answer } = inProcess();
    expect(answer(request('PATCH', '/api/v1/account', 'sk_live_one', { maxCallDurationSeconds: 1200 })).status).toBe(200);
    const one = answer(request('GET', '/api/v1/account', 'sk_live_one')).body as { maxCallDurationSeconds: number };
    const two = answer(request('GET', '/api/v1/account', 'sk_live_two')).body as { maxCallDurationSeconds: number };
    expect(one.maxCallDurationSeconds).toBe(1200);
    // The demo seed is the contract's paidAccount example.
    expect(two.maxCallDurationSeconds).toBe((sim.contract.example('getAccount', 200, 'paidAccount') as { maxCallDurationSeconds: number }).maxCallDurationSeconds);
    expect(Object.keys(sim.state.accounts)).toHaveLength(2);
  });

  it('refuses a missing key, another scheme and a key not beginning sk_live_ with the documented 401, saying which', () => {
    const { simulator: sim, answer } = inProcess();
    const invalid = sim.contract.example('getAccount', 401, 'invalidApiKey');
    for (const key of ['pk_test_abc', 'sk_live_']) {
      expect(answer(request('GET', '/api/v1/account', key))).toEqual({ status: 401, body: invalid });
    }
    expect(answer(request('GET', '/api/v1/account', null))).toEqual({ status: 401, body: sim.contract.example('getAccount', 401, 'missingApiKey') });
  });

  it('shows keys only as previews, never the full value', () => {
    const { simulator: sim, answer } = inProcess();
    const account = answer(request('GET', '/api/v1/account', 'sk_live_previewme1234')).body as { apiKeys: Array<{ preview: string }> };
    expect(account.apiKeys).toEqual([{ preview: 'sk_live_…1234' }]);
    expect(JSON.stringify(account)).not.toContain('previewme1234');
  });

  it('under --strict-keys accepts only the keys the seed names (or the sign-up issued)', () => {
    const { simulator: sim, answer } = inProcess({ strictKeys: true }, { accounts: [{ keys: ['sk_live_seeded'], balance: 7 }] });
    expect(answer(request('GET', '/api/v1/account', 'sk_live_seeded')).status).toBe(200);
    expect(answer(request('GET', '/api/v1/account', 'sk_live_stranger')).status).toBe(401);
    expect(sim.state.accounts[sim.state.keys['sk_live_seeded']!]!.balance).toBe(7);
  });
});

describe('the account (part 4.2)', () => {
  it('PATCH persists, and null clears the account cap', () => {
    const { simulator: sim, answer } = inProcess();
    answer(request('PATCH', '/api/v1/account', 'sk_live_a', { maxCallDurationSeconds: 120 }));
    expect((answer(request('GET', '/api/v1/account', 'sk_live_a')).body as { maxCallDurationSeconds: number }).maxCallDurationSeconds).toBe(120);
    const cleared = answer(request('PATCH', '/api/v1/account', 'sk_live_a', { maxCallDurationSeconds: null }));
    expect(cleared.status).toBe(200);
    expect((answer(request('GET', '/api/v1/account', 'sk_live_a')).body as { maxCallDurationSeconds: null }).maxCallDurationSeconds).toBeNull();
  });

  it("enforces a free account's ceiling on an explicit value, with the documented example, and changes nothing", () => {
    const { simulator: sim, answer } = inProcess({}, { default: { paid: false, account: { maxCallDurationSeconds: null } } });
    const limits = (sim.contract.example('getAccount', 200, 'freeAccount') as { limits: { maxCallDurationSeconds: number } }).limits;
    const above = answer(request('PATCH', '/api/v1/account', 'sk_live_free', { maxCallDurationSeconds: limits.maxCallDurationSeconds + 300 }));
    expect(above).toEqual({ status: 400, body: sim.contract.example('updateAccount', 400, 'aboveFreeCeiling') });
    const account = answer(request('GET', '/api/v1/account', 'sk_live_free')).body as { maxCallDurationSeconds: null; limits: unknown };
    expect(account.maxCallDurationSeconds).toBeNull();
    expect(account.limits).toEqual(limits);
    expect(answer(request('PATCH', '/api/v1/account', 'sk_live_free', { maxCallDurationSeconds: limits.maxCallDurationSeconds })).status).toBe(200);
  });

  it('answers the documented 400 with fieldErrors naming the field the gate refused, in words a form can show (part 7)', () => {
    const { simulator: sim, answer } = inProcess();
    const refused = answer(request('PATCH', '/api/v1/account', 'sk_live_a', { maxCallDurationSeconds: 9 }));
    expect(refused).toEqual({ status: 400, body: { error: { fieldErrors: { maxCallDurationSeconds: ['Must be at least 60'] } } } });
  });

  it('DELETE releases every number and ends the key for good (401 afterwards, even for a key that opens accounts on first use)', () => {
    const { simulator: sim, answer } = inProcess();
    const numbers = (answer(request('GET', '/api/v1/numbers', 'sk_live_gone')).body as unknown[]) ?? [];
    const account = sim.state.accounts[sim.state.keys['sk_live_gone']!]!;
    expect(account.numbers.length).toBeGreaterThan(0);
    expect(numbers).toBeDefined();
    expect(answer(request('DELETE', '/api/v1/account', 'sk_live_gone')).status).toBe(200);
    expect(answer(request('GET', '/api/v1/account', 'sk_live_gone')).status).toBe(401);
    expect(sim.state.accounts[account.id]).toBeUndefined();
    expect(Object.values(sim.state.serviceNumbers)).not.toContain(account.id);
  });
});

describe('the core', () => {
  it('answers a path the contract does not have with 404 in the one error shape', () => {
    const { simulator: sim, answer } = inProcess();
    const missing = answer(request('GET', '/api/v1/nothing-here', 'sk_live_a'));
    expect(missing.status).toBe(404);
    expect(typeof (missing.body as { error: unknown }).error).toBe('string');
  });

  it('reset forgets every account made since the start, and keeps the seeded ones', () => {
    const { simulator: sim, answer } = inProcess({}, { accounts: [{ keys: ['sk_live_kept'] }] });
    answer(request('GET', '/api/v1/account', 'sk_live_temp'));
    expect(Object.keys(sim.state.keys)).toEqual(expect.arrayContaining(['sk_live_kept', 'sk_live_temp']));
    sim.reset();
    expect(Object.keys(sim.state.keys)).toEqual(['sk_live_kept']);
  });
});
