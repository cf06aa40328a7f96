// Number lookup (parts 4.5, 7, 8): each rule of src/simulator/resources/lookup.ts, in-process on a
// manual clock (every answer checked against the contract), and the 429 with `Retry-After` over HTTP.
import { describe, expect, it } from 'vitest';
import { LOOKUP_BURST, LOOKUP_CACHE_MS, LOOKUP_HOURLY } from '../src/simulator/resources/lookup.js';
import { inProcessSimulator, testValue, useStatefulMock } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

function sim() {
  const { simulator, clock, call } = inProcessSimulator({ key: 'sk_live_lookup' });
  const lookup = (number: string, key?: string) => call('GET', `/api/v1/lookup?number=${encodeURIComponent(number)}`, undefined, key);
  return { simulator, clock, lookup };
}

/** `n` distinct numbers never looked up before. */
const distinct = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `+1415555${String(1000 + from + i)}`);

describe('lookup answers from the number (parts 4.5, 7)', () => {
  it('the lookupIncomplete test value is 502 lookupIncomplete', () => {
    const { simulator, lookup } = sim();
    const answer = lookup(testValue('lookupIncomplete'));
    expect([answer.status, answer.body]).toEqual([502, simulator.contract.example('lookupNumber', 502, 'lookupIncomplete')]);
  });

  it('the channel test values answer the documented channels with the number asked', () => {
    const { simulator, lookup } = sim();
    const channels = (name: string) => (simulator.contract.example('lookupNumber', 200, name) as { channels: unknown }).channels;
    expect(lookup(testValue('lookupImessageReachable')).body).toEqual({ number: testValue('lookupImessageReachable'), channels: channels('imessageReachable') });
    expect(lookup(testValue('lookupWhatsappOnly')).body).toEqual({ number: testValue('lookupWhatsappOnly'), channels: channels('whatsappOnly') });
  });

  it('any other number answers by its country calling code: +1 as imessageReachable, others as whatsappOnly', () => {
    const { simulator, lookup } = sim();
    const channels = (name: string) => (simulator.contract.example('lookupNumber', 200, name) as { channels: unknown }).channels;
    expect(lookup('+14155550177').body.channels).toEqual(channels('imessageReachable'));
    expect(lookup('+447700900123').body.channels).toEqual(channels('whatsappOnly'));
  });
});

describe('lookup caps (part 8; values inferred)', () => {
  it(`the burst cap: ${LOOKUP_BURST.count} lookups per ${LOOKUP_BURST.windowMs / 1000} s, then 429 rate_limited with Retry-After`, () => {
    const { simulator, clock, lookup } = sim();
    for (const number of distinct(LOOKUP_BURST.count)) expect(lookup(number).status).toBe(200);
    const capped = lookup(distinct(1, 50)[0]!);
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual(simulator.contract.example('lookupNumber', 429, 'lookupRateLimited'));
    expect(capped.headers?.['Retry-After']).toBe(String(LOOKUP_BURST.windowMs / 1000));
    clock.advance(LOOKUP_BURST.windowMs);
    expect(lookup(distinct(1, 50)[0]!).status).toBe(200);
  });

  it('the cap is per account', () => {
    const { lookup } = sim();
    for (const number of distinct(LOOKUP_BURST.count)) lookup(number, 'sk_live_one');
    expect(lookup(distinct(1, 50)[0]!, 'sk_live_one').status).toBe(429);
    expect(lookup(distinct(1, 50)[0]!, 'sk_live_two').status).toBe(200);
  });

  it(`the rolling-hour cap: ${LOOKUP_HOURLY.count} per hour, Retry-After until the oldest leaves the hour`, () => {
    const { clock, lookup } = sim();
    const spacing = LOOKUP_BURST.windowMs / LOOKUP_BURST.count;
    for (const number of distinct(LOOKUP_HOURLY.count)) {
      expect(lookup(number).status).toBe(200);
      clock.advance(spacing);
    }
    const capped = lookup(distinct(1, 500)[0]!);
    expect(capped.status).toBe(429);
    expect(Number(capped.headers?.['Retry-After'])).toBe((LOOKUP_HOURLY.windowMs - LOOKUP_HOURLY.count * spacing) / 1000);
  });

  it('repeated lookups of one number are served from the cache and do not count', () => {
    const { clock, lookup } = sim();
    const [repeated] = distinct(1, 900);
    for (let i = 0; i < LOOKUP_BURST.count * 3; i++) expect(lookup(repeated!).status).toBe(200);
    // One counted so far: the burst still has room for count - 1 others.
    for (const number of distinct(LOOKUP_BURST.count - 1)) expect(lookup(number).status).toBe(200);
    expect(lookup(distinct(1, 50)[0]!).status).toBe(429);
    // Even at the cap, the cached number still answers.
    expect(lookup(repeated!).status).toBe(200);
    // Once the cache entry is gone, the number counts again.
    clock.advance(LOOKUP_CACHE_MS);
    for (const number of distinct(LOOKUP_BURST.count - 1, 100)) expect(lookup(number).status).toBe(200);
    expect(lookup(repeated!).status).toBe(200);
    expect(lookup(distinct(1, 200)[0]!).status).toBe(429);
  });

  it('a failed lookup is not cached', () => {
    const { lookup } = sim();
    expect(lookup(testValue('lookupIncomplete')).status).toBe(502);
    expect(lookup(testValue('lookupIncomplete')).status).toBe(502);
    // Both counted: 3 left in the burst.
    for (const number of distinct(LOOKUP_BURST.count - 2)) expect(lookup(number).status).toBe(200);
    expect(lookup(distinct(1, 50)[0]!).status).toBe(429);
  });
});

describe('lookup over HTTP on the stateful mock', () => {
  const mock = useStatefulMock();

  it('the burst cap answers 429 with a Retry-After header; the 502 test value is reached', async () => {
    const call = client(mock().url, newKey('lookup'));
    expect((await call('GET', `/api/v1/lookup?number=${encodeURIComponent(testValue('lookupIncomplete'))}`)).status).toBe(502);
    for (const number of distinct(LOOKUP_BURST.count - 1)) expect((await call('GET', `/api/v1/lookup?number=${encodeURIComponent(number)}`)).status).toBe(200);
    const capped = await call('GET', `/api/v1/lookup?number=${encodeURIComponent(distinct(1, 50)[0]!)}`);
    expect(capped.status).toBe(429);
    expect(Number(capped.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(capped.body.code).toBe('rate_limited');
  });
});
