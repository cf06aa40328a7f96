// The stateful mock end to end, as a frontend team walks it (issue 11): sign-up to a key, the
// account, a message sent, listed and delivered, a call placed, replayed and ended, a top-up that
// lifts the free-account limits, usage from that traffic, and the account deleted; then the same
// sign-up walked from a page of another origin in real Chromium. Every value the test sends that
// the contract fixes (the sign-up code, the free-account ceilings) is read from the contract.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simContract } from '../src/simulator/contract.js';
import { documentedSignupCode } from '../src/simulator/simulator.js';
import { loadOpenApi } from './helpers/contract.js';
import { client, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';
import { skipBrowser, startFrontEnd, type FrontEnd } from './helpers/chromium.js';

const contract = simContract(loadOpenApi());
const CODE = documentedSignupCode(contract);
const WRONG_CODE = CODE === '000000' ? '111111' : '000000';
const freeLimits = (contract.example('getAccount', 200, 'freeAccount') as { limits: unknown }).limits;

let mock: StatefulMock;
beforeAll(async () => {
  mock = await startStatefulMock();
});
afterAll(async () => {
  await mock?.close();
});

/** A unique holder number in the fictional 555-01xx range, per test run. */
function holderNumber(): string {
  return `+1202555${String(Math.floor(Math.random() * 9000) + 1000)}`;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the flows in order, over HTTP', () => {
  let key = '';
  let provisioned = '';

  it('signs up: email code, registration, phone code, a key once and a first number', async () => {
    const anonymous = client(mock.url, null);
    const email = `e2e.${Date.now()}@example.com`;
    const signup = await anonymous('POST', '/api/v1/auth/signup', { email });
    expect(signup.status).toBe(200);
    expect((await anonymous('POST', '/api/v1/auth/verify', { verificationId: signup.body.verificationId, code: WRONG_CODE })).status).toBe(401);
    const verified = await anonymous('POST', '/api/v1/auth/verify', { verificationId: signup.body.verificationId, code: CODE });
    expect(verified.status).toBe(200);
    expect(verified.body.apiKey).toBeUndefined();
    const registrationId = verified.body.registrationId;
    const holder = holderNumber();
    expect((await anonymous('POST', '/api/v1/auth/register-number', { registrationId, phoneNumber: holder })).status).toBe(200);
    const created = await anonymous('POST', '/api/v1/auth/verify-number', { registrationId, code: CODE });
    expect(created.status).toBe(200);
    key = created.body.apiKey;
    provisioned = created.body.phoneNumber;
    expect(key).toMatch(/^sk_live_/);
    expect(provisioned).not.toBe(holder);

    const call = client(mock.url, key);
    const account = await call('GET', '/api/v1/account');
    expect(account.body.limits).toEqual(freeLimits);
    const numbers = await call('GET', '/api/v1/numbers');
    expect(numbers.body.map((n: { number: string }) => n.number)).toContain(provisioned);
    // The same email again signs in to the same account with a new key.
    const again = await anonymous('POST', '/api/v1/auth/signup', { email: email.replace('@', '+tag@') });
    const signedIn = await anonymous('POST', '/api/v1/auth/verify', { verificationId: again.body.verificationId, code: CODE });
    expect(signedIn.body.apiKey).toMatch(/^sk_live_/);
    expect(signedIn.body.apiKey).not.toBe(key);
    expect((await client(mock.url, signedIn.body.apiKey)('GET', '/api/v1/numbers')).body).toEqual(numbers.body);
  });

  it('a free account has no credit: a send is refused 402 until a top-up, which lifts the limits for good', async () => {
    const call = client(mock.url, key);
    const numbers = await call('GET', '/api/v1/numbers');
    const from = numbers.body[0];
    const refused = await call('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: from.id, body: 'hello' });
    expect(refused.status).toBe(402);
    const checkout = await call('POST', '/api/v1/billing/checkout/credits', {});
    expect(checkout.status).toBe(200);
    const paid = await call('POST', '/__mock/checkout/complete', { clientSecret: checkout.body.clientSecret, amount: 20 });
    expect(paid.status).toBe(200);
    expect((await call('GET', '/api/v1/account')).body.limits).toBeNull();
    expect((await call('GET', '/api/v1/billing')).body.balance).toBeGreaterThan(0);
  });

  it('sends a message: 201 with what was sent, listed newest first, delivered within seconds (status event)', async () => {
    const call = client(mock.url, key);
    const from = (await call('GET', '/api/v1/numbers')).body[0];
    const sent = await call('POST', '/api/v1/messages', { to: '+14155550123', fromNumberId: from.id, body: 'Your table is ready.' });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ to: '+14155550123', body: 'Your table is ready.', from: from.number, phoneNumberId: from.id });
    const listed = await call('GET', '/api/v1/messages');
    expect(listed.body[0].id).toBe(sent.body.id);
    const event = await waitFor(async () => {
      const waited = await call('POST', '/api/v1/events/wait', { timeout: 5 });
      return waited.status === 200 && waited.body.type === 'message.status_changed' && JSON.stringify(waited.body).includes(sent.body.id) ? waited.body : undefined;
    });
    expect(event.relatedObject?.id ?? event.data.messageId).toBe(sent.body.id);
  });

  it('places a call once per Idempotency-Key, and it runs Queued to Terminated', async () => {
    const call = client(mock.url, key);
    const from = (await call('GET', '/api/v1/numbers')).body[0];
    const body = { to: '+14155550123', fromNumberId: from.id, outboundInstruction: 'Confirm the booking.' };
    const first = await call('POST', '/api/v1/calls', body, { 'Idempotency-Key': 'e2e-call-1' });
    expect(first.status).toBe(201);
    const replay = await call('POST', '/api/v1/calls', body, { 'Idempotency-Key': 'e2e-call-1' });
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(first.body.id);
    expect((await call('GET', '/api/v1/calls')).body.filter((c: { id: string }) => c.id === first.body.id)).toHaveLength(1);
    const ended = await waitFor(async () => {
      const listed = (await call('GET', '/api/v1/calls')).body.find((c: { id: string }) => c.id === first.body.id);
      return listed?.status.state === 'Terminated' ? listed : undefined;
    }, 20_000);
    expect(ended.terminationType).toBeDefined();
  });

  it('usage counts that traffic', async () => {
    const usage = await client(mock.url, key)('GET', '/api/v1/usage?days=7');
    expect(usage.status).toBe(200);
    expect(usage.body.periodDays).toBe(7);
    expect(usage.body.totals.messages).toBeGreaterThanOrEqual(1);
    expect(usage.body.totals.calls).toBeGreaterThanOrEqual(1);
  });

  it('deleting the account ends its key', async () => {
    const call = client(mock.url, key);
    expect((await call('DELETE', '/api/v1/account')).status).toBe(200);
    expect((await call('GET', '/api/v1/account')).status).toBe(401);
  });
});

describe.skipIf(skipBrowser('sign-up in Chromium'))('sign-up from a page of another origin, in real Chromium', () => {
  let front: FrontEnd;

  beforeAll(async () => {
    front = await startFrontEnd('signup');
  });
  afterAll(async () => {
    await front?.close();
  });

  it('walks sign-up to a key and reads the new account, through CORS preflights', async () => {
    const tab = await (await front.browser.newContext()).newPage();
    await tab.goto(`${front.origin}/`);
    const result = await tab.evaluate(
      async ({ api, code, holder }) => {
        const post = async (path: string, body: unknown) => {
          const response = await fetch(`${api}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
          return { status: response.status, body: await response.json() };
        };
        const signup = await post('/api/v1/auth/signup', { email: `browser.${Date.now()}@example.com` });
        const verified = await post('/api/v1/auth/verify', { verificationId: signup.body.verificationId, code });
        await post('/api/v1/auth/register-number', { registrationId: verified.body.registrationId, phoneNumber: holder });
        const created = await post('/api/v1/auth/verify-number', { registrationId: verified.body.registrationId, code });
        const account = await fetch(`${api}/api/v1/account`, { headers: { Authorization: `Bearer ${created.body.apiKey}` } });
        return { statuses: [signup.status, verified.status, created.status, account.status], key: created.body.apiKey, account: await account.json() };
      },
      { api: mock.url, code: CODE, holder: holderNumber() },
    );
    expect(result.statuses).toEqual([200, 200, 200, 200]);
    expect(result.key).toMatch(/^sk_live_/);
    expect(result.account.limits).toEqual(freeLimits);
  });
});
