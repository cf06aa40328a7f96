// The account rules of part 4.2 and the key rules of parts 5.1 and 5.3, in the simulator core
// (in-process, deterministic clock and ids). Each test fails when its rule is taken out of
// src/simulator/resources/account.ts or src/simulator/accounts.ts.
import { describe, expect, it } from 'vitest';
import { inProcessSimulator, simRequest, type InProcessInit } from './helpers/simulator-harness.js';

const simulator = (options: InProcessInit['options'] = {}, seed?: InProcessInit['seed']) => inProcessSimulator({ options, seed }).simulator;
const request = (method: string, path: string, key: string | null, body?: unknown) => simRequest(method, path, { key, body });

describe('accounts and keys (parts 5.1, 5.3)', () => {
  it('opens a separate account per key, each from the demo seed, and never mixes them', () => {
    const sim = simulator();
    expect(sim.handle(request('PATCH', '/api/v1/account', 'sk_live_one', { maxCallDurationSeconds: 1200 })).status).toBe(200);
    const one = sim.handle(request('GET', '/api/v1/account', 'sk_live_one')).body as { maxCallDurationSeconds: number };
    const two = sim.handle(request('GET', '/api/v1/account', 'sk_live_two')).body as { maxCallDurationSeconds: number };
    expect(one.maxCallDurationSeconds).toBe(1200);
    // The demo seed is the contract's paidAccount example.
    expect(two.maxCallDurationSeconds).toBe((sim.contract.example('getAccount', 200, 'paidAccount') as { maxCallDurationSeconds: number }).maxCallDurationSeconds);
    expect(Object.keys(sim.state.accounts)).toHaveLength(2);
  });

  it('refuses a missing key, another scheme and a key not beginning sk_live_ with the documented 401, saying which', () => {
    const sim = simulator();
    const invalid = sim.contract.example('getAccount', 401, 'invalidApiKey');
    for (const key of ['pk_test_abc', 'sk_live_']) {
      const answer = sim.handle(request('GET', '/api/v1/account', key));
      expect(answer).toEqual({ status: 401, body: invalid });
    }
    expect(sim.handle(request('GET', '/api/v1/account', null))).toEqual({ status: 401, body: sim.contract.example('getAccount', 401, 'missingApiKey') });
  });

  it('shows keys only as previews, never the full value', () => {
    const sim = simulator();
    const account = sim.handle(request('GET', '/api/v1/account', 'sk_live_previewme1234')).body as { apiKeys: Array<{ preview: string }> };
    expect(account.apiKeys).toEqual([{ preview: 'sk_live_…1234' }]);
    expect(JSON.stringify(account)).not.toContain('previewme1234');
  });

  it('under --strict-keys accepts only the keys the seed names (or the sign-up issued)', () => {
    const sim = simulator({ strictKeys: true }, { accounts: [{ keys: ['sk_live_seeded'], balance: 7 }] });
    expect(sim.handle(request('GET', '/api/v1/account', 'sk_live_seeded')).status).toBe(200);
    expect(sim.handle(request('GET', '/api/v1/account', 'sk_live_stranger')).status).toBe(401);
    expect(sim.state.accounts[sim.state.keys['sk_live_seeded']!]!.balance).toBe(7);
  });
});

describe('the account (part 4.2)', () => {
  it('PATCH persists, and null clears the account cap', () => {
    const sim = simulator();
    sim.handle(request('PATCH', '/api/v1/account', 'sk_live_a', { maxCallDurationSeconds: 120 }));
    expect((sim.handle(request('GET', '/api/v1/account', 'sk_live_a')).body as { maxCallDurationSeconds: number }).maxCallDurationSeconds).toBe(120);
    const cleared = sim.handle(request('PATCH', '/api/v1/account', 'sk_live_a', { maxCallDurationSeconds: null }));
    expect(cleared.status).toBe(200);
    expect((sim.handle(request('GET', '/api/v1/account', 'sk_live_a')).body as { maxCallDurationSeconds: null }).maxCallDurationSeconds).toBeNull();
  });

  it("enforces a free account's ceiling on an explicit value, with the documented example, and changes nothing", () => {
    const sim = simulator({}, { default: { paid: false, account: { maxCallDurationSeconds: null } } });
    const limits = (sim.contract.example('getAccount', 200, 'freeAccount') as { limits: { maxCallDurationSeconds: number } }).limits;
    const above = sim.handle(request('PATCH', '/api/v1/account', 'sk_live_free', { maxCallDurationSeconds: limits.maxCallDurationSeconds + 300 }));
    expect(above).toEqual({ status: 400, body: sim.contract.example('updateAccount', 400, 'aboveFreeCeiling') });
    const account = sim.handle(request('GET', '/api/v1/account', 'sk_live_free')).body as { maxCallDurationSeconds: null; limits: unknown };
    expect(account.maxCallDurationSeconds).toBeNull();
    expect(account.limits).toEqual(limits);
    expect(sim.handle(request('PATCH', '/api/v1/account', 'sk_live_free', { maxCallDurationSeconds: limits.maxCallDurationSeconds })).status).toBe(200);
  });

  it('answers the documented 400 with fieldErrors naming the field the gate refused, in words a form can show (part 7)', () => {
    const sim = simulator();
    const answer = sim.handle({ ...request('PATCH', '/api/v1/account', 'sk_live_a', { maxCallDurationSeconds: 9 }), violations: [{ location: ['body', 'maxCallDurationSeconds'], message: 'Request body property maxCallDurationSeconds must be >= 60' }] });
    expect(answer).toEqual({ status: 400, body: { error: { fieldErrors: { maxCallDurationSeconds: ['Must be at least 60'] } } } });
  });

  it('DELETE releases every number and ends the key for good (401 afterwards, even for a key that opens accounts on first use)', () => {
    const sim = simulator();
    const numbers = (sim.handle(request('GET', '/api/v1/numbers', 'sk_live_gone')).body as unknown[]) ?? [];
    const account = sim.state.accounts[sim.state.keys['sk_live_gone']!]!;
    expect(account.numbers.length).toBeGreaterThan(0);
    expect(numbers).toBeDefined();
    expect(sim.handle(request('DELETE', '/api/v1/account', 'sk_live_gone')).status).toBe(200);
    expect(sim.handle(request('GET', '/api/v1/account', 'sk_live_gone')).status).toBe(401);
    expect(sim.state.accounts[account.id]).toBeUndefined();
    expect(Object.values(sim.state.serviceNumbers)).not.toContain(account.id);
  });
});

describe('the core', () => {
  it('answers a path the contract does not have with 404 in the one error shape', () => {
    const sim = simulator();
    const answer = sim.handle(request('GET', '/api/v1/nothing-here', 'sk_live_a'));
    expect(answer.status).toBe(404);
    expect(typeof (answer.body as { error: unknown }).error).toBe('string');
  });

  it('reset forgets every account made since the start, and keeps the seeded ones', () => {
    const sim = simulator({}, { accounts: [{ keys: ['sk_live_kept'] }] });
    sim.handle(request('GET', '/api/v1/account', 'sk_live_temp'));
    expect(Object.keys(sim.state.keys)).toEqual(expect.arrayContaining(['sk_live_kept', 'sk_live_temp']));
    sim.reset();
    expect(Object.keys(sim.state.keys)).toEqual(['sk_live_kept']);
  });
});
