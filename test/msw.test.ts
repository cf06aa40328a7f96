// numbers-api-contract/msw under setupServer (msw/node), as a vitest or jest suite uses it: the
// URLs it answers for, options (clock, ids, seed, sign-up code, strict keys), Prefer selection
// touching no state, the control functions, events/wait held and released, and webhook
// deliveries as a callback. The same corpus against the HTTP mock is test/msw-parity.test.ts.
import { http as mswHttp, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHandlers, manualClock, MockControlError, sequentialIds, type MockHandlers, type SeedFile, type SimEvent } from '../src/msw/index.js';
import { createClient } from '../src/client/index.js';
import { client, newKey } from './helpers/stateful-mock.js';

const BASE = 'https://api.example.com';
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const started: MockHandlers[] = [];
function use(options: Parameters<typeof createHandlers>[0] = {}): MockHandlers {
  const mock = createHandlers(options);
  started.push(mock);
  server.use(...mock.handlers);
  return mock;
}
afterAll(() => {
  for (const mock of started) mock.control.stop();
});

describe('the URLs it answers for', () => {
  it("the contract's base URL, its legacy base URL, the local mock URL and a baseUrl given (with a path)", async () => {
    use({ baseUrl: 'https://staging.example.org/numbers/' });
    const key = newKey('urls');
    for (const base of [BASE, 'https://legacy.example.com', 'http://127.0.0.1:4010', 'https://staging.example.org/numbers']) {
      const answer = await client(base, key)('GET', `${base.endsWith('numbers') ? '/numbers' : ''}/api/v1/account`);
      expect(answer.status, base).toBe(200);
      expect(answer.body.apiKeys, base).toHaveLength(1);
    }
  });

  it('leaves other hosts and paths to other handlers (onUnhandledRequest sees them)', async () => {
    use();
    server.use(mswHttp.get('https://elsewhere.example.net/api/v1/account', () => HttpResponse.json({ other: true })));
    expect((await client('https://elsewhere.example.net', null)('GET', '/api/v1/account')).body).toEqual({ other: true });
    await expect(fetch(`${BASE}/index.html`)).rejects.toThrow();
  });
});

describe('options', () => {
  it('an injected clock and ids make answers deterministic', async () => {
    const clock = manualClock(Date.parse('2026-11-23T12:00:00.000Z'));
    use({ clock, ids: sequentialIds() });
    const call = client(BASE, newKey('ids'));
    const numbers = (await call('GET', '/api/v1/numbers')).body;
    const sent = await call('POST', '/api/v1/messages', { to: '+14155550123', body: 'Hi', fromNumberId: numbers[0].id });
    expect(sent.status).toBe(201);
    expect(sent.body.id).toBe('msg_000001');
  });

  it('signupCode replaces the documented code; strictKeys refuses keys the sign-up did not issue', async () => {
    use({ signupCode: '654321', strictKeys: true });
    const anonymous = client(BASE, null);
    expect((await client(BASE, newKey('strict'))('GET', '/api/v1/account')).status).toBe(401);
    const { verificationId } = (await anonymous('POST', '/api/v1/auth/signup', { email: `code.${Date.now()}@example.com` })).body;
    expect((await anonymous('POST', '/api/v1/auth/verify', { verificationId, code: '123456' })).status).toBe(401);
    expect((await anonymous('POST', '/api/v1/auth/verify', { verificationId, code: '654321' })).status).toBe(200);
  });

  it('a seed replaces the demo data', async () => {
    use({ seed: { default: { numbers: [], messages: [] } } });
    const call = client(BASE, newKey('seed'));
    expect((await call('GET', '/api/v1/numbers')).body).toEqual([]);
  });
});

describe('composed answers checked against the contract', () => {
  // A seed the contract would refuse: the account's cap must be an integer or null.
  const brokenSeed = { default: { account: { maxCallDurationSeconds: 'lots' } } } as unknown as SeedFile;

  it("validateResponses 'strict' turns a composed answer that breaks its schema into a 500 naming the problem", async () => {
    use({ seed: brokenSeed, validateResponses: 'strict' });
    const answer = await client(BASE, newKey('strict500'))('GET', '/api/v1/account');
    expect(answer.status).toBe(500);
    expect(answer.body.error).toMatch(/getAccount.*maxCallDurationSeconds/);
  });

  it("'off' passes it on as composed", async () => {
    use({ seed: brokenSeed, validateResponses: 'off' });
    const answer = await client(BASE, newKey('off200'))('GET', '/api/v1/account');
    expect(answer.status).toBe(200);
  });
});

describe('requests', () => {
  it('an invalid request answers the documented 400 with fieldErrors naming the fields', async () => {
    use();
    const answer = await client(BASE, newKey('invalid'))('PATCH', '/api/v1/account', { maxCallDurationSeconds: 5 });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.error.fieldErrors)).toEqual(['maxCallDurationSeconds']);
  });

  it('Prefer example= answers exactly that example and touches no state', async () => {
    use();
    const call = client(BASE, newKey('prefer'));
    const before = (await call('GET', '/api/v1/account')).body;
    const named = await call('GET', '/api/v1/account', undefined, { Prefer: 'example=freeAccount' });
    expect(named.status).toBe(200);
    expect(named.body.limits).toEqual({ maxCallDurationSeconds: 300, maxConcurrentCalls: 2 });
    const patched = await call('PATCH', '/api/v1/account', { maxCallDurationSeconds: 120 }, { Prefer: 'code=200' });
    expect(patched.status).toBe(200);
    expect(patched.body.maxCallDurationSeconds).not.toBe(120);
    expect((await call('GET', '/api/v1/account')).body).toEqual(before);
    expect((await call('GET', '/api/v1/account', undefined, { Prefer: 'code=401' })).body).toEqual({ error: 'Invalid API key' });
  });
});

describe('control', () => {
  it('advanceClock moves the simulated time and runs what fell due; reset forgets every account', async () => {
    const mock = use();
    const key = newKey('control');
    const call = client(BASE, key);
    const before = Date.parse(mock.control.clock().now);
    expect(mock.control.advanceClock(3600).offsetSeconds).toBe(3600);
    expect(Date.parse(mock.control.clock().now) - before).toBeGreaterThanOrEqual(3600_000);
    expect(mock.control.setWallet(key, 0)).toEqual({ balance: 0 });
    const numbers = (await call('GET', '/api/v1/numbers')).body;
    expect((await call('POST', '/api/v1/messages', { to: '+14155550123', body: 'Hi', fromNumberId: numbers[0].id })).status).toBe(402);
    mock.control.reset();
    expect((await call('POST', '/api/v1/messages', { to: '+14155550123', body: 'Hi', fromNumberId: numbers[0].id })).status).toBe(201);
    expect(() => mock.control.setWallet(key, 'lots' as unknown as number)).toThrow(MockControlError);
  });

  it('/__mock/ routes answer over fetch too', async () => {
    use();
    const answer = await client(BASE, null)('POST', '/__mock/clock/advance', { seconds: 60 });
    expect(answer.status).toBe(200);
    expect(answer.body.offsetSeconds).toBe(60);
  });
});

describe('events', () => {
  it('events/wait is held until the matching event, and a wait the client aborts is released', async () => {
    const mock = use();
    const key = newKey('wait');
    const call = client(BASE, key);
    const account = () => mock.simulator.accountForKey(key);
    const numbers = (await call('GET', '/api/v1/numbers')).body;
    const waiting = call('POST', '/api/v1/events/wait', { timeout: 30, filters: { type: 'message.status_changed' } });
    await expect.poll(() => mock.simulator.heldWaits(account())).toBe(1);
    const sent = (await call('POST', '/api/v1/messages', { to: '+14155550123', body: 'Hi', fromNumberId: numbers[0].id })).body;
    mock.control.advanceClock(60);
    const event = (await waiting).body;
    expect(event).toMatchObject({ type: 'message.status_changed', data: { messageId: sent.id } });

    const abort = new AbortController();
    const abandoned = fetch(`${BASE}/api/v1/events/wait`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ timeout: 30, filters: { type: 'call.status_changed' } }),
      signal: abort.signal,
    });
    await expect.poll(() => mock.simulator.heldWaits(account())).toBe(1);
    abort.abort();
    await expect(abandoned).rejects.toThrow();
    await expect.poll(() => mock.simulator.heldWaits(account())).toBe(0);
  });

  it('webhook deliveries call onWebhookDelivery: subscribed types, and a ping to its one subscription (then lastPingAt is set)', async () => {
    const delivered: Array<{ event: SimEvent; subscription: Record<string, unknown> }> = [];
    const mock = use({ onWebhookDelivery: (event, subscription) => void delivered.push({ event, subscription }) });
    const call = client(BASE, newKey('hooks'));
    const hook = (await call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.org/a', eventTypes: ['message.status_changed'] })).body;
    const other = (await call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.org/b', eventTypes: ['call.status_changed'] })).body;
    expect((await call('POST', `/api/v1/webhooks/${other.id}/ping`)).status).toBe(200);
    await expect.poll(() => delivered.length).toBe(1);
    expect(delivered[0]!.event.type).toBe('webhook.ping');
    expect(delivered[0]!.subscription.id).toBe(other.id);
    await expect.poll(async () => (await call('GET', '/api/v1/webhooks')).body.find((h: { id: string }) => h.id === other.id).lastPingAt).not.toBeNull();

    const numbers = (await call('GET', '/api/v1/numbers')).body;
    await call('POST', '/api/v1/messages', { to: '+14155550123', body: 'Hi', fromNumberId: numbers[0].id });
    mock.control.advanceClock(60);
    await expect.poll(() => delivered.some(({ event }) => event.data.status === 'delivered')).toBe(true);
    // Each event went to the subscription for its type only (the seeded call's progress too).
    for (const { event, subscription } of delivered.slice(1)) {
      expect(subscription.id, event.type).toBe(event.type === 'message.status_changed' ? hook.id : other.id);
    }
  });

  it('a callback that throws is a failed delivery, recorded on the subscription as the HTTP mock records one (the same fan-out)', async () => {
    use({
      onWebhookDelivery: () => {
        throw new Error('the page said no');
      },
    });
    const call = client(BASE, newKey('hooks'));
    const hook = (await call('POST', '/api/v1/webhooks', { url: 'https://hooks.example.org/a', eventTypes: [] })).body;
    expect((await call('POST', `/api/v1/webhooks/${hook.id}/ping`)).status).toBe(200);
    const listed = async () => (await call('GET', '/api/v1/webhooks')).body.find((h: { id: string }) => h.id === hook.id);
    await expect.poll(async () => (await listed()).lastDelivery?.outcome).toBe('failed');
    expect(await listed()).toMatchObject({ failedDeliveries: 1, lastPingAt: null, lastDelivery: { eventType: 'webhook.ping', attempts: 1, detail: 'the page said no' } });
  });
});

describe("the guide's vitest example (docs/guides/mock-in-process.md)", () => {
  it("the typed client against the mock's base URL: a send, then the message in the list", async () => {
    use();
    const client = createClient({ apiKey: newKey('guide'), baseUrl: 'mock' });
    const { data: numbers } = await client.GET('/api/v1/numbers');
    const { data: sent } = await client.POST('/api/v1/messages', {
      body: { to: '+14155550123', body: 'Hello', fromNumberId: numbers[0]!.id },
    });
    const { data: messages } = await client.GET('/api/v1/messages');
    expect(messages.map((message) => message.id)).toContain(sent.id);
  });
});
