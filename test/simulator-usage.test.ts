// Usage (part 4.3): each rule of src/simulator/resources/usage.ts, in-process on a manual clock
// (every answer checked against the contract), traffic sent through the messages and calls
// modules, and the `days` fallback over HTTP on the real stateful mock.
import { describe, expect, it } from 'vitest';
import { countryCallingCode, currentCycle, recordTraffic } from '../src/simulator/resources/usage.js';
import type { AccountState } from '../src/simulator/state.js';
import { inProcessSimulator, testValue, useStatefulMock } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

const DAY = 86_400_000;
const CODE = testValue('signupCode');

function sim() {
  const { simulator, clock, call } = inProcessSimulator({ key: 'sk_live_usage' });
  /** A new account with no history (made by the sign-up, with the coupon's credit so that it can send) and its key. */
  function freshAccount(email = 'usage@example.com'): { key: string; account: AccountState } {
    const { verificationId } = call('POST', '/api/v1/auth/signup', { email, coupon: testValue('couponCredit') }).body;
    const { registrationId } = call('POST', '/api/v1/auth/verify', { verificationId, code: CODE }).body;
    call('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: '+14155550150' });
    const { apiKey } = call('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE }).body;
    return { key: apiKey, account: simulator.state.accounts[simulator.state.keys[apiKey]!]! };
  }
  const usage = (key: string, query = '') => call('GET', `/api/v1/usage${query}`, undefined, key).body;
  return { simulator, clock, call, freshAccount, usage };
}

const message = (account: AccountState, to: string | null, from?: string) => ({
  id: `msg_${Math.random()}`,
  phoneNumberId: account.numbers[0]!.id,
  from: from ?? account.numbers[0]!.number,
  to,
  groupId: null,
});

describe('periodDays (part 4.3)', () => {
  it('follows days when it is 7, 30 or 90, and is 30 for none, any other value, garbage or a repeated days', () => {
    const { usage } = sim();
    const key = 'sk_live_days';
    expect(usage(key, '?days=7').periodDays).toBe(7);
    expect(usage(key, '?days=90').periodDays).toBe(90);
    expect(usage(key, '?days=30').periodDays).toBe(30);
    expect(usage(key).periodDays).toBe(30);
    expect(usage(key, '?days=45').periodDays).toBe(30);
    expect(usage(key, '?days=abc').periodDays).toBe(30);
    expect(usage(key, '?days=7&days=90').periodDays).toBe(30);
  });

  it('the series and sparks have one entry per day of the window, oldest first, ending today', () => {
    const { usage, clock } = sim();
    const answer = usage('sk_live_series', '?days=7');
    expect(answer.series).toHaveLength(7);
    expect(answer.stats.messages.spark).toHaveLength(7);
    expect(answer.series.at(-1).date).toBe(new Date(clock.now()).toISOString().slice(0, 10));
    expect(answer.series[0].date).toBe(new Date(clock.now() - 6 * DAY).toISOString().slice(0, 10));
  });
});

describe('usage is computed from the account’s own traffic (part 4.3)', () => {
  it('messages sent and received through the messages module are counted by day, direction, geography and number', () => {
    const { call, freshAccount, usage } = sim();
    const { key, account } = freshAccount();
    const line = account.numbers[0]!;
    expect(usage(key).totals).toEqual({ messages: 0, calls: 0, numbers: 1 });
    for (const to of ['+14155550161', '+14155550162', '+447700900123']) {
      expect(call('POST', '/api/v1/messages', { to, fromNumberId: line.id, body: 'hi' }, key).status).toBe(201);
    }
    const answer = usage(key, '?days=7');
    expect(answer.totals.messages).toBe(3);
    expect(answer.stats.messages.value).toBe(3);
    expect(answer.series.at(-1).messages).toBe(3);
    expect(answer.breakdown.messages).toEqual({ d7: 3, d30: 3, all: 3 });
    // Geography by country calling code relative to the service number (+1).
    expect(answer.currentPeriod.all.messages.outbound).toEqual({ domestic: { count: 2 }, intl: { count: 1 } });
    expect(answer.currentPeriod.all.messages.inbound).toEqual({ domestic: { count: 0 }, intl: { count: 0 } });
    expect(answer.currentPeriod.numbers).toEqual([expect.objectContaining({ id: line.id, number: line.number })]);
    expect(answer.currentPeriod.numbers[0].breakdown.messages.outbound.intl.count).toBe(1);
    expect(answer.topNumbers).toEqual([{ number: line.number, nickname: line.nickname, createdAt: line.createdAt, count: 3 }]);
  });

  it('a call that ended is counted with its minutes and its length feeds the call-duration statistics', () => {
    const { simulator, call, freshAccount, usage } = sim();
    const { key, account } = freshAccount('caller@example.com');
    const placed = call('POST', '/api/v1/calls', { to: '+14155550163', fromNumberId: account.numbers[0]!.id, outboundInstruction: 'Say hello.' }, key);
    expect(placed.status).toBe(201);
    for (let i = 0; i < 120 && account.calls.at(-1)!.status.state !== 'Terminated'; i++) simulator.advance(5_000);
    expect(account.calls.at(-1)!.status.state).toBe('Terminated');
    const answer = usage(key);
    expect(answer.totals.calls).toBe(1);
    expect(answer.stats.calls.value).toBe(1);
    expect(answer.callDuration.sampleSize).toBe(1);
    expect(answer.stats.minutes.value).toBeCloseTo(answer.callDuration.longestSec / 60, 1);
    expect(answer.currentPeriod.all.voice.outbound.domestic.calls).toBe(1);
  });

  it('call-duration statistics: median, p95, longest and a histogram with the documented buckets', () => {
    const { simulator, freshAccount, usage } = sim();
    const { key, account } = freshAccount();
    const ctx = { now: simulator.clock.now() };
    for (const seconds of [30, 90, 400, 700]) recordTraffic(ctx, account, 'call', { record: { id: 'call_x' }, durationSeconds: seconds });
    const { callDuration } = usage(key);
    expect(callDuration).toMatchObject({ sampleSize: 4, medianSec: 245, p95Sec: 700, longestSec: 700 });
    const labels = (simulator.contract.example('getUsage', 200, 'usageLastWeek') as { callDuration: { histogram: { label: string }[] } }).callDuration.histogram.map((h) => h.label);
    expect(callDuration.histogram.slice(0, labels.length).map((h: { label: string }) => h.label)).toEqual(labels);
    expect(callDuration.histogram.map((h: { count: number }) => h.count)).toEqual([1, 1, 1, 1]);
    expect(callDuration.histogram[0].pct).toBe(0.25);
  });

  it('deltaPct is null when the previous equal window had no activity, else the change in percent', () => {
    const { simulator, freshAccount, usage } = sim();
    const { key, account } = freshAccount();
    const now = simulator.clock.now();
    recordTraffic({ now }, account, 'message', { direction: 'outbound', record: message(account, '+14155550164') });
    expect(usage(key, '?days=7').stats.messages.deltaPct).toBeNull();
    for (let i = 0; i < 4; i++) recordTraffic({ now }, account, 'message', { direction: 'outbound', record: message(account, '+14155550164') }, now - 8 * DAY);
    const answer = usage(key, '?days=7');
    expect(answer.stats.messages.value).toBe(1);
    expect(answer.stats.messages.deltaPct).toBe(-75);
    // Older traffic is in the 30-day window and all-time counts, not in the 7-day one.
    expect(answer.breakdown.messages).toEqual({ d7: 1, d30: 5, all: 5 });
    expect(answer.stats.calls.deltaPct).toBeNull();
  });

  it('inbound messages count as inbound; geography by country calling code', () => {
    const { simulator, freshAccount, usage } = sim();
    const { key, account } = freshAccount();
    const line = account.numbers[0]!;
    recordTraffic({ now: simulator.clock.now() }, account, 'message', { direction: 'inbound', record: message(account, line.number, '+4915112345678') });
    recordTraffic({ now: simulator.clock.now() }, account, 'message', { direction: 'inbound', record: message(account, line.number, '+12125550100') });
    expect(usage(key).currentPeriod.all.messages.inbound).toEqual({ domestic: { count: 1 }, intl: { count: 1 } });
    expect(countryCallingCode('+447700900123')).toBe('44');
    expect(countryCallingCode('+35312345678')).toBe('353');
    expect(countryCallingCode('+14155550123')).toBe('1');
  });
});

describe('how much usage history an account keeps', () => {
  it('day counters older than 180 days are dropped; the all-time figures keep them', () => {
    const { simulator, freshAccount, usage } = sim();
    const { key, account } = freshAccount();
    const now = simulator.clock.now();
    recordTraffic({ now }, account, 'message', { direction: 'outbound', record: message(account, '+14155550168') }, now - 200 * DAY);
    recordTraffic({ now }, account, 'message', { direction: 'outbound', record: message(account, '+14155550168') });
    expect(Object.keys(account.daily)).toEqual([new Date(now).toISOString().slice(0, 10)]);
    expect(usage(key, '?days=90').breakdown.messages).toEqual({ d7: 1, d30: 1, all: 2 });
  });
});

describe('currentPeriod (part 4.3)', () => {
  it('is a monthly cycle anchored to the account’s creation date, independent of days', () => {
    const { clock, freshAccount, usage } = sim();
    const { key, account } = freshAccount();
    const created = Date.parse(account.createdAt);
    clock.advance(40 * DAY);
    const period = usage(key, '?days=7').currentPeriod;
    expect(period.start).toBe(new Date(Date.UTC(2026, 11, 23, 12)).toISOString());
    expect(period.end).toBe(new Date(Date.UTC(2027, 0, 23, 12)).toISOString());
    expect(period).toMatchObject({ daysTotal: 31, daysElapsed: 10, daysLeft: 21 });
    expect(usage(key, '?days=90').currentPeriod).toEqual(period);
    expect(created).toBe(Date.UTC(2026, 10, 23, 12));
  });

  it('clamps the anchor day to short months', () => {
    const cycle = currentCycle('2026-01-31T10:00:00.000Z', Date.parse('2026-03-01T00:00:00.000Z'));
    expect(new Date(cycle.start).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(new Date(cycle.end).toISOString()).toBe('2026-03-31T10:00:00.000Z');
  });

  it('counts only the current cycle’s traffic', () => {
    const { simulator, clock, freshAccount, usage } = sim();
    const { key, account } = freshAccount();
    recordTraffic({ now: clock.now() }, account, 'message', { direction: 'outbound', record: message(account, '+14155550165') });
    clock.advance(35 * DAY);
    recordTraffic({ now: simulator.clock.now() }, account, 'message', { direction: 'outbound', record: message(account, '+14155550166') });
    const answer = usage(key, '?days=90');
    expect(answer.totals.messages).toBe(2);
    expect(answer.currentPeriod.all.messages.outbound.domestic.count).toBe(1);
  });
});

describe('the seeded demo account (its history counts as traffic of the day it was opened)', () => {
  it('totals agree with the seeded lists from the first request', () => {
    const { simulator, usage } = sim();
    const answer = usage('sk_live_demo');
    const account = simulator.state.accounts[simulator.state.keys['sk_live_demo']!]!;
    expect(account.messages.length).toBeGreaterThan(0);
    expect(answer.totals.messages).toBe(account.messages.length);
    expect(answer.totals.calls).toBe(account.calls.filter((c) => c.terminationType !== undefined).length);
    expect(answer.totals.numbers).toBe(account.numbers.length);
  });
});

describe('usage over HTTP on the stateful mock', () => {
  const mock = useStatefulMock();

  it('a repeated or odd days falls back to 30, never a 400 or 422; a sent message is counted', async () => {
    const call = client(mock().url, newKey('usage'));
    expect((await call('GET', '/api/v1/usage?days=7&days=90')).body.periodDays).toBe(30);
    expect((await call('GET', '/api/v1/usage?days=abc')).body.periodDays).toBe(30);
    const before = await call('GET', '/api/v1/usage?days=7');
    expect(before.status).toBe(200);
    expect(before.body.periodDays).toBe(7);
    const numbers = (await call('GET', '/api/v1/numbers')).body;
    const payg = numbers.find((n: { billingMode?: string }) => n.billingMode === 'PAYG') ?? numbers[0];
    expect((await call('POST', '/api/v1/messages', { to: '+14155550167', fromNumberId: payg.id, body: 'counted' })).status).toBe(201);
    const after = await call('GET', '/api/v1/usage?days=7');
    expect(after.body.totals.messages).toBe(before.body.totals.messages + 1);
    expect(after.body.stats.messages.value).toBe(before.body.stats.messages.value + 1);
  });
});
