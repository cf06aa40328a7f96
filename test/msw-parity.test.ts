// One behaviour, two transports (issue 13): the same corpus of requests (valid, invalid, stateful
// sequences) goes to the HTTP stateful mock (node:http before the core pipeline, the simulator
// core) and to the in-process MSW handlers (ajv as the gate, the same core) under setupServer;
// both give the same statuses, the same `fieldErrors` keys and the same bodies apart from
// generated ids, keys and times. Each transport gets its own fresh keys.
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, type MockHandlers } from '../src/msw/index.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

const MSW_BASE = 'https://api.example.com';
// Each transport keeps its own state, so both sign up the same person.
const email = `parity.${Date.now()}@example.com`;
const phone = `+1415555${String(1000 + (Date.now() % 9000))}`;

type Call = ReturnType<typeof client>;
interface Answer {
  step: string;
  status: number;
  body: unknown;
}

/** Ids (`msg_01J…`, `sk_live_…`), times and keys vary per run: each becomes a placeholder, numbered by first appearance. */
function canonical(records: Answer[]): Answer[] {
  const names = new Map<string, string>();
  const visit = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(visit);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]));
    if (typeof value !== 'string') return value;
    if (/^sk_live_…\w{4}$/.test(value)) return '<key preview>';
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/.test(value)) return '<time>';
    return value.replace(/\b(?:sk_live|[a-z]{2,5})_[A-Za-z0-9_]{6,}\b/g, (token) => {
      if (!names.has(token)) names.set(token, `<${token.split('_')[0]}#${names.size + 1}>`);
      return names.get(token)!;
    });
  };
  return records.map((record) => ({ ...record, body: visit(record.body) }));
}

/** The corpus: a list of steps, each may read earlier answers (ids, keys) of the same transport. */
async function corpus(callWith: (key: string | null) => Call, label: string): Promise<Answer[]> {
  const records: Answer[] = [];
  const key = newKey(`parity_${label}`);
  const as = callWith(key);
  const anonymous = callWith(null);
  const record = async (step: string, pending: Promise<{ status: number; body: unknown }>) => {
    const { status, body } = await pending;
    records.push({ step, status, body });
    return body as Record<string, unknown>;
  };

  // Reads and refusals
  await record('account', as('GET', '/api/v1/account'));
  await record('account without key', anonymous('GET', '/api/v1/account'));
  await record('account with a key not sk_live_', callWith('pk_test_1')('GET', '/api/v1/account'));
  await record('unknown path', as('GET', '/api/v1/nothing-here'));
  await record('numbers', as('GET', '/api/v1/numbers'));
  await record('messages', as('GET', '/api/v1/messages'));
  // Invalid requests: the documented 400 with fieldErrors
  await record('account cap below the minimum', as('PATCH', '/api/v1/account', { maxCallDurationSeconds: 5 }));
  await record('account cap of the wrong type', as('PATCH', '/api/v1/account', { maxCallDurationSeconds: 'ten' }));
  await record('malformed JSON', as('PATCH', '/api/v1/account', '{"maxCallDurationSeconds": '));
  await record('malformed JSON where a precheck speaks first', as('POST', '/api/v1/messages', '{"to": '));
  await record('send with no body fields', as('POST', '/api/v1/messages', {}));
  await record('send with a bad number', as('POST', '/api/v1/messages', { to: '12', body: 'hi', fromNumberId: 'pn_x' }));
  await record('send with an unknown field', as('POST', '/api/v1/messages', { to: '+14155550123', body: 'hi', colour: 'red' }));
  await record('messages since not a time', as('GET', '/api/v1/messages?since=yesterday'));
  await record('messages with a bad direction', as('GET', '/api/v1/messages?direction=sideways'));
  await record('sign-up without email', anonymous('POST', '/api/v1/auth/signup', {}));
  await record('sign-up with a bad email', anonymous('POST', '/api/v1/auth/signup', { email: 'not-an-email' }));
  await record('send with no body at all', as('POST', '/api/v1/messages'));
  await record('billing activity with a filter not in the enum', as('GET', '/api/v1/billing/activity?filter=everything'));
  await record('billing activity with an empty limit', as('GET', '/api/v1/billing/activity?limit='));
  await record('billing activity with a limit not an integer', as('GET', '/api/v1/billing/activity?limit=ten'));
  await record('lookup without the required number', as('GET', '/api/v1/lookup'));
  await record('lookup of a number not E.164', as('GET', '/api/v1/lookup?number=12'));
  await record('call with an empty Idempotency-Key', as('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: 'pn_x', outboundInstruction: 'Hi' }, { 'Idempotency-Key': '' }));
  await record('inbound test message on a channel not in the enum', as('POST', '/api/v1/test/messages/inbound', { to: '+14155550123', from: '+14155550124', channel: 'fax' }));
  await record('10DLC with a kind not in the enum', as('POST', '/api/v1/numbers/pn_x/10dlc', { kind: 'charity', brand: {}, campaign: {} }));
  await record('wait with timeout out of range', as('POST', '/api/v1/events/wait', { timeout: 90 }));
  // Prefer: exactly the documented example, touching no state
  await record('Prefer example=freeAccount', as('GET', '/api/v1/account', undefined, { Prefer: 'example=freeAccount' }));
  await record('Prefer code=404', as('PATCH', '/api/v1/numbers/pn_nope', { nickname: 'x' }, { Prefer: 'code=404' }));
  await record('a method the path does not have', as('DELETE', '/api/v1/messages'));
  await record('Prefer code=200 on an invalid request', as('PATCH', '/api/v1/account', { maxCallDurationSeconds: 5 }, { Prefer: 'code=200' }));
  await record('Prefer example= a name the status lacks', as('GET', '/api/v1/account', undefined, { Prefer: 'example=noSuchExample' }));
  await record('Prefer code= a status not documented', as('GET', '/api/v1/account', undefined, { Prefer: 'code=418' }));
  await record('Prefer code=429 with its Retry-After', as('GET', '/api/v1/lookup?number=%2B14155550123', undefined, { Prefer: 'code=429' }));
  await record('Prefer code=401', as('GET', '/api/v1/account', undefined, { Prefer: 'code=401' }));

  // A stateful sequence: sign-up → verify → register-number → verify-number → send → list
  const signup = await record('sign-up', anonymous('POST', '/api/v1/auth/signup', { email, coupon: 'LAUNCH50' }));
  await record('verify with a wrong code', anonymous('POST', '/api/v1/auth/verify', { verificationId: signup.verificationId, code: '000000' }));
  const verified = await record('verify', anonymous('POST', '/api/v1/auth/verify', { verificationId: signup.verificationId, code: '123456' }));
  await record('register-number', anonymous('POST', '/api/v1/auth/register-number', { registrationId: verified.registrationId, phoneNumber: phone }));
  const account = await record('verify-number', anonymous('POST', '/api/v1/auth/verify-number', { registrationId: verified.registrationId, code: '123456' }));
  const own = callWith(String(account.apiKey));
  const numbers = (await record('new account numbers', own('GET', '/api/v1/numbers'))) as unknown as Array<Record<string, unknown>>;
  await record('new account', own('GET', '/api/v1/account'));
  const fromNumberId = Array.isArray(numbers) ? numbers[0]?.id : undefined;
  const sent = await record('send', own('POST', '/api/v1/messages', { to: '+14155550199', body: 'Hello from the parity test', fromNumberId }));
  await record('send to an unsupported region (test value)', own('POST', '/api/v1/messages', { to: '+15005550300', body: 'Hi', fromNumberId }));
  await record('list after send', own('GET', '/api/v1/messages'));
  await record('wait for the delivery', own('POST', '/api/v1/events/wait', { timeout: 5, filters: { messageId: sent.id } }));
  await record('control: advance the clock a minute', anonymous('POST', '/__mock/clock/advance', { seconds: 60 }));
  await record('control: advance the clock backwards', anonymous('POST', '/__mock/clock/advance', { seconds: -5 }));
  await record('list after delivery', own('GET', '/api/v1/messages'));
  await record('control: set the wallet without a balance', own('PUT', '/__mock/wallet', {}));
  await record('control: set the wallet', own('PUT', '/__mock/wallet', { balance: 0 }));
  await record('send with an empty wallet', own('POST', '/api/v1/messages', { to: '+14155550199', body: 'Again', fromNumberId }));
  await record('second sign-up with the same email signs in', anonymous('POST', '/api/v1/auth/signup', { email }));
  return records;
}

describe('MSW handlers and the HTTP mock answer alike', () => {
  let http: StatefulMock;
  let msw: MockHandlers;
  const server = setupServer();

  beforeAll(async () => {
    http = await startStatefulMock();
    msw = createHandlers();
    server.use(...msw.handlers);
    server.listen({ onUnhandledRequest: 'bypass' });
  });

  afterAll(async () => {
    server.close();
    msw?.control.stop();
    await http?.close();
  });

  it('the same statuses, fieldErrors keys and bodies for one corpus', async () => {
    const overHttp = canonical(await corpus((key) => client(http.url, key), 'http'));
    const inProcess = canonical(await corpus((key) => client(MSW_BASE, key), 'msw'));
    expect(inProcess).toEqual(overHttp);
    expect(inProcess.map((r) => `${r.step}: ${r.status}`)).toEqual(overHttp.map((r) => `${r.step}: ${r.status}`));
    const keys = (records: Answer[]) =>
      records.map((r) => `${r.step}: ${Object.keys((r.body as { error?: { fieldErrors?: object } })?.error?.fieldErrors ?? {}).sort().join(',')}`);
    expect(keys(inProcess)).toEqual(keys(overHttp));
    expect(inProcess).toEqual(overHttp);
    // The corpus reaches what it is meant to (else both transports could agree on failing alike).
    const at = (step: string) => overHttp.find((r) => r.step === step)!;
    expect(at('send').status).toBe(201);
    expect(at('wait for the delivery')).toMatchObject({ status: 200, body: { type: 'message.status_changed', data: { status: 'delivered' } } });
    expect(at('send with an empty wallet').status).toBe(402);
    expect(Object.keys((at('sign-up without email').body as { error: { fieldErrors: object } }).error.fieldErrors)).toEqual(['email']);
  }, 120_000);
});
