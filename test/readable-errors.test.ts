// Errors a frontend can show (issue 22), read through the package's client as a page reads them,
// from the stateful mock in-process (the same pipeline as over HTTP):
// - a 400 of a composed body names only the fields that are wrong, each once, in words a person
//   reads (part 7's own sentence where part 7 gives one), never the schema's internals, and never
//   a `body` key for the body as a whole;
// - no key at all is told it is missing, a wrong one that it is invalid (part 5.1);
// - a brand-new account's first send is 402 with its machine code, and each refusal that state
//   decides has the way out the mock guide documents (docs/guides/mock.md), which works.
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient } from '../src/client/index.js';
import { createHandlers, type MockHandlers } from '../src/msw/index.js';
import { simContract } from '../src/simulator/contract.js';
import { loadOpenApi } from './helpers/contract.js';
import { newKey } from './helpers/stateful-mock.js';

const BASE = 'https://api.example.com';
const document = loadOpenApi();
const contract = simContract(document);
// The demo seed's lines, as the contract's examples give them.
const SMS_LINE = contract.example('listNumbers', 200, 'twoNumbers')[0]!;
const WHATSAPP_LINE = contract.example('createNumber', 201, 'whatsappReadyNumber');
const WARMING_LINE = contract.example('updateNumber', 200, 'whatsappWarmingUp');
const SIGNUP_CODE = (document['x-test-values'] as Array<{ name: string; value: string }>).find((entry) => entry.name === 'signupCode')!.value;

let mock: MockHandlers;
let server: ReturnType<typeof setupServer>;
beforeAll(() => {
  mock = createHandlers({ validateResponses: 'strict' });
  server = setupServer(...mock.handlers);
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => undefined);
afterAll(() => {
  server.close();
  mock.control.stop();
});

/** What the client throws for a request, or null when it succeeds. */
async function refusal(run: () => Promise<unknown>): Promise<ApiError | null> {
  try {
    await run();
    return null;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
}

// No retries: a test reads each answer as the page would get it first.
const api = (key: string) => createClient({ apiKey: key, baseUrl: BASE, retry: false });

/** A raw request (bodies the typed client would not let a page send), answered as JSON. */
async function raw(method: string, path: string, key: string | null, body?: unknown) {
  const response = await fetch(`${BASE}${path}`, {
    method,
    headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error: unknown; code?: string } };
}

describe('a 400 of a composed body names only the wrong fields, once, readably (part 7)', () => {
  const cases: Array<[string, Record<string, unknown>, Record<string, string[]>]> = [
    ['a bad phone number', { to: '12345', fromNumberId: SMS_LINE.id, body: 'hi' }, { to: ['Invalid phone number'] }],
    ['a number where a phone number goes', { to: 14155550123, fromNumberId: SMS_LINE.id, body: 'hi' }, { to: ['Invalid phone number'] }],
    ['`to` with `groupId: null`', { to: '+14155550123', groupId: null, fromNumberId: SMS_LINE.id, body: 'hi' }, { groupId: ['Provide exactly one of `to` or `groupId`.'] }],
    ['`fromNumberId: null` beside `fromNumber`', { to: '+14155550123', fromNumber: SMS_LINE.number, fromNumberId: null, body: 'hi' }, { fromNumberId: ['Provide exactly one of `fromNumber` or `fromNumberId`.'] }],
    ['a group send with `to: null`', { groupId: 'grp_6Tq8Wz2Lm4', to: null, body: 'hi' }, { to: ['Provide exactly one of `to` or `groupId`.'] }],
    ['a channel of the wrong type', { to: '+14155550123', fromNumberId: SMS_LINE.id, channel: 5 }, { channel: ['Must be a string'] }],
    ['a message body of the wrong type (the field named body)', { to: '+14155550123', fromNumberId: SMS_LINE.id, body: 5 }, { body: ['Must be a string'] }],
  ];

  it.each(cases)('%s', async (_name, send, fieldErrors) => {
    const error = await refusal(() => api(newKey('readable')).POST('/api/v1/messages', { body: send as never }));
    expect(error?.status).toBe(400);
    expect(error?.error).toEqual({ fieldErrors });
    for (const message of Object.values(fieldErrors).flat()) expect(message).not.toMatch(/oneOf|anyOf|must NOT be valid|must be null|Request body/);
  });

  it('other bodies too: a bound, an email, a value list, a required query parameter', async () => {
    const key = newKey('readable_more');
    expect((await refusal(() => api(key).PATCH('/api/v1/account', { body: { maxCallDurationSeconds: 5 } })))?.error).toEqual({ fieldErrors: { maxCallDurationSeconds: ['Must be at least 60'] } });
    expect((await refusal(() => createClient({ apiKey: 'sk_live_not_needed_for_sign_up', baseUrl: BASE }).POST('/api/v1/auth/signup', { body: { email: 'nope' } })))?.error).toEqual({ fieldErrors: { email: ['Invalid email address'] } });
    expect((await raw('GET', '/api/v1/billing/activity?filter=everything', key)).body.error).toEqual({ fieldErrors: { filter: ['Must be one of: all, usage, payment-credits'] } });
    expect((await raw('GET', '/api/v1/lookup', key)).body.error).toEqual({ fieldErrors: { number: ['Required'] } });
  });

  it('the body as a whole is the error sentence, never a `body` key', async () => {
    const answer = await raw('POST', '/api/v1/messages', newKey('readable_json'), '{"to": ');
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(/^The request body is not valid JSON/);
  });
});

describe('401 says whether the key is missing or invalid (part 5.1)', () => {
  it('no Authorization at all: missing; a key that is not one: invalid', async () => {
    const missing = await raw('GET', '/api/v1/account', null);
    const invalid = await fetch(`${BASE}/api/v1/account`, { headers: { Authorization: 'Bearer pk_test_1' } });
    expect(missing).toEqual({ status: 401, body: { error: expect.stringMatching(/^Missing API key/) } });
    expect(invalid.status).toBe(401);
    expect(((await invalid.json()) as { error: string }).error).toBe('Invalid API key');
  });
});

describe('refusals that state decides carry their code, and the way out the mock guide documents works', () => {
  /** A new account from sign-up (parts 3 and 5.3), with or without a coupon. */
  async function signUp(coupon?: string): Promise<string> {
    const anonymous = createClient({ apiKey: 'sk_live_not_needed_for_sign_up', baseUrl: BASE });
    const email = `first.hour.${Math.random().toString(36).slice(2)}@example.com`;
    const { data: sent } = await anonymous.POST('/api/v1/auth/signup', { body: { email, ...(coupon ? { coupon } : {}) } });
    const { data: verified } = await anonymous.POST('/api/v1/auth/verify', { body: { verificationId: sent!.verificationId, code: SIGNUP_CODE } });
    const registrationId = (verified as { registrationId: string }).registrationId;
    const phone = `+1415555${String(Math.floor(1000 + Math.random() * 8999))}`;
    await anonymous.POST('/api/v1/auth/register-number', { body: { registrationId, phoneNumber: phone } });
    const { data: created } = await anonymous.POST('/api/v1/auth/verify-number', { body: { registrationId, code: SIGNUP_CODE } });
    return (created as { apiKey: string }).apiKey;
  }

  it("402 insufficient_credit on a new account's first send; the wallet, or a completed top-up, lifts it", async () => {
    const key = await signUp();
    const { data: numbers } = await api(key).GET('/api/v1/numbers');
    const send = () => api(key).POST('/api/v1/messages', { body: { to: '+14155550123', fromNumberId: numbers![0]!.id, body: 'hello' } });
    const refused = await refusal(send);
    expect(refused).toMatchObject({ status: 402, code: 'insufficient_credit' });
    expect((await raw('PUT', '/__mock/wallet', key, { balance: 50 })).status).toBe(200);
    expect(await refusal(send)).toBeNull();

    const other = await signUp();
    const { data: lines } = await api(other).GET('/api/v1/numbers');
    const { data: checkout } = await api(other).POST('/api/v1/billing/checkout/credits', { body: {} });
    expect((await raw('POST', '/__mock/checkout/complete', other, { clientSecret: checkout!.clientSecret })).status).toBe(200);
    expect(await refusal(() => api(other).POST('/api/v1/messages', { body: { to: '+14155550123', fromNumberId: lines![0]!.id, body: 'hello' } }))).toBeNull();
  });

  it('429 call_limit_reached on a free account; the clock moving a call to its end lifts it', async () => {
    const key = await signUp('LAUNCH50'); // credit, still free (a coupon is not a top-up)
    const { data: numbers } = await api(key).GET('/api/v1/numbers');
    const call = () => api(key).POST('/api/v1/calls', { body: { to: '+14155550123', fromNumberId: numbers![0]!.id, outboundInstruction: 'Hello.' } });
    expect(await refusal(call)).toBeNull();
    expect(await refusal(call)).toBeNull();
    expect(await refusal(call)).toMatchObject({ status: 429, code: 'call_limit_reached' });
    await raw('POST', '/__mock/clock/advance', null, { seconds: 10 });
    expect(await refusal(call)).toBeNull();
  });

  it('429 rate_limited for WhatsApp spacing (Retry-After), lifted by the clock; unanswered, lifted by a reply', async () => {
    const key = newKey('whatsapp_ways_out');
    const to = '+14155550188';
    const send = () => api(key).POST('/api/v1/messages', { body: { to, fromNumberId: WHATSAPP_LINE.id, channel: 'whatsapp', body: 'hi' } });
    expect(await refusal(send)).toBeNull();
    const spaced = await refusal(send);
    expect(spaced).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(spaced!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    await raw('POST', '/__mock/clock/advance', null, { seconds: spaced!.retryAfterSeconds });
    expect(await refusal(send)).toBeNull(); // the second message
    await raw('POST', '/__mock/clock/advance', null, { seconds: 2 });
    expect(await refusal(send)).toBeNull(); // the third, still unanswered
    await raw('POST', '/__mock/clock/advance', null, { seconds: 2 });
    expect(await refusal(send)).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((await raw('POST', '/api/v1/test/messages/inbound', key, { to: WHATSAPP_LINE.number, from: to, channel: 'whatsapp', body: 'yes?' })).status).toBe(201);
    expect(await refusal(send)).toBeNull();
  });

  it('400 whatsappNotConnected on a line warming up; about 6 hours of clock lift it', async () => {
    const key = newKey('warming_way_out');
    const send = () => api(key).POST('/api/v1/messages', { body: { to: '+14155550199', fromNumberId: WARMING_LINE.id, channel: 'whatsapp', body: 'hi' } });
    expect((await refusal(send))?.status).toBe(400);
    await raw('POST', '/__mock/clock/advance', null, { seconds: 21600 });
    expect(await refusal(send)).toBeNull();
  });

  it('409 noActiveSubscription; a completed subscription checkout lifts it', async () => {
    const key = await signUp(); // the demo account holds an iMessage number, which cannot subscribe (part 3)
    const cancel = () => api(key).POST('/api/v1/billing/subscription/cancel');
    expect((await refusal(cancel))?.status).toBe(409);
    const { data: checkout } = await api(key).POST('/api/v1/billing/checkout/subscription', { body: { interval: 'monthly' } });
    expect((await raw('POST', '/__mock/checkout/complete', key, { clientSecret: checkout!.clientSecret })).status).toBe(200);
    expect(await refusal(cancel)).toBeNull();
  });
});
