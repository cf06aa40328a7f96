// Webhook deliveries of the real stateful mock to real loopback listeners (part 6): eventTypes
// filter, X-Service-Event-ID, the inferred signature, at-least-once retries with backoff and the
// recorded failure, the per-attempt timeout, the ping to one subscription only with lastPingAt,
// loopback only, and accounts kept apart.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveryFor, type WebhookDelivery } from '../src/mock/webhook-delivery.js';
import type { JsonObject } from '../src/simulator/types.js';
import { startTarget, type Target } from './helpers/event-source-target.js';
import { client, newKey, startStatefulMock, type StatefulMock } from './helpers/stateful-mock.js';

let mock: StatefulMock;
let delivery: WebhookDelivery;
const targets: Target[] = [];
const SECRET = 'whsec_test_secret';

beforeAll(async () => {
  mock = await startStatefulMock();
  delivery = webhookDeliveryFor(mock.simulator)!;
  // Short waits so the retry and timeout paths run in well under a second.
  delivery.configure({ attempts: 3, backoffMs: [20, 40], timeoutMs: 300, secret: SECRET });
}, 60_000);

afterAll(async () => {
  await Promise.all(targets.map((target) => target.close()));
  await mock?.close();
});

async function target(...args: Parameters<typeof startTarget>): Promise<Target> {
  const started = await startTarget(...args);
  targets.push(started);
  return started;
}

function emit(key: string, type: string, data: JsonObject = {}) {
  return mock.simulator.withContext((ctx) => ctx.emit(mock.simulator.accountForKey(key)!, type, data, null));
}

async function subscribe(key: string, url: string, eventTypes: string[]): Promise<JsonObject> {
  const created = await client(mock.url, key)('POST', '/api/v1/webhooks', { url, eventTypes });
  expect(created.status).toBe(201);
  return created.body;
}

async function listed(key: string, id: string): Promise<JsonObject> {
  const answer = await client(mock.url, key)('GET', '/api/v1/webhooks');
  expect(answer.status).toBe(200);
  return (answer.body as JsonObject[]).find((hook) => hook.id === id)!;
}

describe('webhook deliveries from the stateful mock (part 6)', () => {
  it('send a message: its message.status_changed is delivered to the subscription', async () => {
    const key = newKey('wh');
    const hooks = await target([]);
    await subscribe(key, hooks.url, ['message.status_changed']);
    // The demo seed's PAYG SMS line (the contract's twoNumbers example).
    const sent = await client(mock.url, key)('POST', '/api/v1/messages', { to: '+14155550999', fromNumberId: 'pn_8f3kq2m9x7', body: 'Your table is ready.' });
    expect(sent.status).toBe(201);
    const forThisMessage = () => hooks.received.filter((request) => JSON.parse(request.rawBody.toString()).data?.messageId === sent.body.id);
    while (forThisMessage().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const event = JSON.parse(forThisMessage()[0]!.rawBody.toString());
    expect(event).toMatchObject({ type: 'message.status_changed', relatedObject: { id: sent.body.id } });
    expect(forThisMessage()[0]!.headers['x-service-event-id']).toBe(event.id);
  });

  it('delivers each event to the subscriptions whose eventTypes name it, with X-Service-Event-ID and JSON', async () => {
    const key = newKey('wh');
    const statuses = await target([]);
    const calls = await target([]);
    const a = await subscribe(key, statuses.url, ['message.status_changed']);
    await subscribe(key, calls.url, ['call.status_changed']);
    const event = emit(key, 'message.status_changed', { messageId: 'msg_1' });
    await delivery.idle();
    expect(statuses.received).toHaveLength(1);
    expect(calls.received).toHaveLength(0);
    const [got] = statuses.received;
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-service-event-id']).toBe(event.id);
    expect(JSON.parse(got!.rawBody.toString('utf8'))).toEqual(event);
    // Signed (inferred header): HMAC-SHA256 hex of the raw body.
    expect(got!.headers['x-service-signature']).toBe(createHmac('sha256', SECRET).update(got!.rawBody).digest('hex'));
    expect((await listed(key, a.id)).lastDelivery).toMatchObject({ eventId: event.id, outcome: 'delivered', attempts: 1, lastStatus: 200 });
  });

  it('a ping reaches its subscription only, ignoring eventTypes, and a 2xx updates lastPingAt', async () => {
    const key = newKey('wh');
    const pinged = await target([204]);
    const other = await target([]);
    const hook = await subscribe(key, pinged.url, []);
    await subscribe(key, other.url, ['message.received', 'webhook.ping']);
    const answer = await client(mock.url, key)('POST', `/api/v1/webhooks/${hook.id}/ping`);
    expect(answer.status).toBe(200);
    await delivery.idle();
    expect(pinged.received).toHaveLength(1);
    expect(other.received).toHaveLength(0);
    expect(JSON.parse(pinged.received[0]!.rawBody.toString())).toMatchObject({ type: 'webhook.ping', relatedObject: null, data: {} });
    expect((await listed(key, hook.id)).lastPingAt).toEqual(expect.any(String));
  });

  it('a ping answered non-2xx leaves lastPingAt null', async () => {
    const key = newKey('wh');
    const failing = await target([], 503);
    const hook = await subscribe(key, failing.url, []);
    await client(mock.url, key)('POST', `/api/v1/webhooks/${hook.id}/ping`);
    await delivery.idle();
    const record = await listed(key, hook.id);
    expect(record.lastPingAt).toBeNull();
    expect(record.lastDelivery).toMatchObject({ outcome: 'failed', lastStatus: 503 });
  });

  it('at-least-once: a 500 then a 200 is delivered on the retry, the same event id both times', async () => {
    const key = newKey('wh');
    const flaky = await target([500, 200]);
    const hook = await subscribe(key, flaky.url, ['message.received']);
    const event = emit(key, 'message.received', { messageId: 'msg_2' });
    await delivery.idle();
    expect(flaky.received.map((request) => request.headers['x-service-event-id'])).toEqual([event.id, event.id]);
    const record = await listed(key, hook.id);
    expect(record.lastDelivery).toMatchObject({ outcome: 'delivered', attempts: 2, lastStatus: 200 });
    expect(record.failedDeliveries).toBeUndefined();
  });

  it('always 500: retried with backoff up to the attempt limit, then recorded as failed', async () => {
    const key = newKey('wh');
    const broken = await target([], 500);
    const hook = await subscribe(key, broken.url, ['message.received']);
    emit(key, 'message.received', { messageId: 'msg_3' });
    await delivery.idle();
    expect(broken.received).toHaveLength(3);
    // Backoff: each retry waits at least as long as the one before it was planned.
    expect(broken.received[1]!.at - broken.received[0]!.at).toBeGreaterThanOrEqual(20);
    expect(broken.received[2]!.at - broken.received[1]!.at).toBeGreaterThanOrEqual(40);
    const record = await listed(key, hook.id);
    expect(record.lastDelivery).toMatchObject({ outcome: 'failed', attempts: 3, lastStatus: 500 });
    expect(record.failedDeliveries).toBe(1);
  });

  it('an endpoint that never answers: each attempt ends at the per-attempt timeout', async () => {
    const key = newKey('wh');
    const silent = await target([], 'hang');
    const hook = await subscribe(key, silent.url, ['message.received']);
    emit(key, 'message.received', { messageId: 'msg_4' });
    await delivery.idle();
    expect(silent.received).toHaveLength(3);
    const record = await listed(key, hook.id);
    expect(record.lastDelivery).toMatchObject({ outcome: 'failed', attempts: 3, lastStatus: null });
    expect(record.lastDelivery.detail).toMatch(/no answer within 0.3 s/);
  });

  it('contacts loopback URLs only: any other URL, look-alikes included, is accepted and recorded as skipped', async () => {
    const key = newKey('wh');
    const hooks = [
      await subscribe(key, 'https://hooks.example.org/numbers/events', ['message.received']),
      await subscribe(key, 'http://127.0.0.1.example.com/hooks', ['message.received']),
      await subscribe(key, 'http://localhost.evil/hooks', ['message.received']),
    ];
    emit(key, 'message.received', { messageId: 'msg_5' });
    await delivery.idle();
    for (const hook of hooks) {
      expect((await listed(key, hook.id)).lastDelivery).toMatchObject({ outcome: 'skipped', attempts: 0 });
    }
  });

  it('never delivers one account\'s events to another account\'s subscription', async () => {
    const mine = newKey('wh');
    const theirs = newKey('wh');
    const listener = await target([]);
    await subscribe(mine, listener.url, ['message.received']);
    emit(theirs, 'message.received', { messageId: 'msg_6' });
    await delivery.idle();
    expect(listener.received).toHaveLength(0);
  });
});
