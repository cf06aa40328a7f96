// events/wait and webhook subscriptions in the simulator core (parts 4.5, 6, 8), in-process:
// the wait's hold, its filters, its cursor, account isolation; subscriptions, ping targets and
// the recorded outcome of deliveries.
import { describe, expect, it } from 'vitest';
import { matchesFilters, recordWebhookDelivery } from '../src/simulator/resources/events.js';
import { loadOpenApi } from '../src/contract/generated-files.js';
import { manualClock, sequentialIds } from '../src/simulator/clock.js';
import { createSimulator, type Simulator } from '../src/simulator/simulator.js';
import type { JsonObject, SimEvent, SimResponse } from '../src/simulator/types.js';
import { inProcessSimulator, simRequest, useStatefulMock } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

function setup() {
  const { simulator, answer } = inProcessSimulator();
  // Through the production pipeline: a held wait comes back with its hold, to be settled by the test.
  const request = (key: string, method: string, pathname: string, body?: unknown): SimResponse => answer(simRequest(method, pathname, { key, body }));
  const emit = (key: string, type: string, data: JsonObject = {}): SimEvent =>
    simulator.withContext((ctx) => ctx.emit(simulator.accountForKey(key)!, type, data, null));
  const wait = (key: string, body: JsonObject = { timeout: 5 }) => request(key, 'POST', '/api/v1/events/wait', body);
  return { simulator, request, emit, wait };
}

function account(simulator: Simulator, key: string) {
  return simulator.accountForKey(key)!;
}

const document = loadOpenApi();
/** How many `events/wait` requests of the key's account the simulator holds. */
const waitsHeld = (simulator: Simulator, key: string): number => simulator.heldWaits(account(simulator, key));

describe('POST /api/v1/events/wait (parts 4.5, 6)', () => {
  it('answers 503 as a deployment without an event stream does (part 7), by the documented test value, holding nothing', () => {
    const { simulator, wait } = setup();
    const value = simulator.contract.testValues('waitForEvent').find((v) => v.name === 'eventStreamNotConfigured')!;
    const answer = wait('sk_live_a', { timeout: 5, filters: { groupId: value.value } });
    expect(answer.hold).toBeUndefined();
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual(simulator.contract.example('waitForEvent', 503, 'eventStreamNotConfigured'));
    expect(wait('sk_live_a', { timeout: 5, filters: { groupId: 'grp_other' } }).hold).toBeDefined();
  });


  it('holds the request (no answer at once) and answers the next event of the account', () => {
    const { simulator, wait, emit } = setup();
    const answer = wait('sk_live_a');
    expect(answer.hold).toBeDefined();
    expect(answer.hold!.check(simulator.state)).toBeUndefined();
    expect(waitsHeld(simulator, 'sk_live_a')).toBe(1);
    const event = emit('sk_live_a', 'message.status_changed', { messageId: 'msg_1' });
    const done = answer.hold!.check(simulator.state);
    expect(done).toEqual({ status: 200, body: event });
    expect(waitsHeld(simulator, 'sk_live_a')).toBe(0);
  });

  it('a key\'s first wait does not answer events that happened before it began', () => {
    const { simulator, wait, emit } = setup();
    emit('sk_live_a', 'message.received', { messageId: 'msg_old' });
    expect(wait('sk_live_a').hold!.check(simulator.state)).toBeUndefined();
  });

  it('later waits of the key resume after the last event handed out: a polling loop misses nothing', () => {
    const { simulator, wait, emit } = setup();
    const first = wait('sk_live_a');
    const e1 = emit('sk_live_a', 'message.status_changed', { messageId: 'msg_1' });
    const e2 = emit('sk_live_a', 'message.status_changed', { messageId: 'msg_2' });
    expect(first.hold!.check(simulator.state)?.body).toEqual(e1);
    // e2 happened between the two waits: the next wait answers it at once.
    expect(wait('sk_live_a').hold!.check(simulator.state)?.body).toEqual(e2);
    expect(wait('sk_live_a').hold!.check(simulator.state)).toBeUndefined();
  });

  it('two concurrent waits of one key both receive the same event', () => {
    const { simulator, wait, emit } = setup();
    const a = wait('sk_live_a');
    const b = wait('sk_live_a');
    const event = emit('sk_live_a', 'call.status_changed', { status: { state: 'Ringing', label: 'Ringing' } });
    expect(a.hold!.check(simulator.state)?.body).toEqual(event);
    expect(b.hold!.check(simulator.state)?.body).toEqual(event);
  });

  it('honours filters: groupId, and any other key against the same field of data, type against the type', () => {
    const { simulator, wait, emit } = setup();
    const group = wait('sk_live_a', { timeout: 5, filters: { groupId: 'grp_2' } });
    const typed = wait('sk_live_a', { timeout: 5, filters: { type: 'call.status_changed' } });
    emit('sk_live_a', 'message.received', { messageId: 'msg_1', groupId: null });
    emit('sk_live_a', 'message.received', { messageId: 'msg_2', groupId: 'grp_1' });
    expect(group.hold!.check(simulator.state)).toBeUndefined();
    expect(typed.hold!.check(simulator.state)).toBeUndefined();
    const inGroup = emit('sk_live_a', 'message.received', { messageId: 'msg_3', groupId: 'grp_2' });
    const call = emit('sk_live_a', 'call.status_changed', { status: { state: 'Queued', label: 'Queued' } });
    expect(group.hold!.check(simulator.state)?.body).toEqual(inGroup);
    expect(typed.hold!.check(simulator.state)?.body).toEqual(call);
    const event = { data: { groupId: 'grp_1', channel: 'whatsapp' }, type: 'message.received' } as unknown as SimEvent;
    expect(matchesFilters(event, { channel: 'whatsapp' })).toBe(true);
    expect(matchesFilters(event, { channel: 'sms' })).toBe(false);
    expect(matchesFilters(event, { unknownKey: 'x' })).toBe(false);
  });

  it('when nothing matches in the window, answers the documented 408 with the wait\'s own seconds', () => {
    const { simulator, wait } = setup();
    const answer = wait('sk_live_a', { timeout: 7, filters: { groupId: 'grp_none' } });
    expect(answer.hold!.timeoutMs).toBe(7000);
    const documented = simulator.contract.example('waitForEvent', 408, 'waitTimedOut') as { error: string };
    const expired = answer.hold!.expire();
    expect(expired.status).toBe(408);
    expect(expired.body).toEqual({ error: documented.error.replace(/\d+/, '7') });
  });

  it('never hands one account\'s events to another key', () => {
    const { simulator, wait, emit } = setup();
    const other = wait('sk_live_b');
    expect(other.hold!.accountId).toBe(account(simulator, 'sk_live_b').id);
    emit('sk_live_a', 'message.received', { messageId: 'msg_a' });
    expect(other.hold!.check(simulator.state)).toBeUndefined();
  });

  it('never answers webhook.ping (it goes to its subscription only)', () => {
    const { simulator, request, wait, emit } = setup();
    const answer = wait('sk_live_a');
    const hook = request('sk_live_a', 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:9/h', eventTypes: [] }).body as JsonObject;
    expect(request('sk_live_a', 'POST', `/api/v1/webhooks/${hook.id}/ping`).status).toBe(200);
    expect(answer.hold!.check(simulator.state)).toBeUndefined();
    const next = emit('sk_live_a', 'message.received', { messageId: 'msg_1' });
    expect(answer.hold!.check(simulator.state)?.body).toEqual(next);
  });

  it('a timeout out of 1..60 gets the documented 400 (the gate\'s violation, part 8)', () => {
    const { simulator, request } = setup();
    const answer = request('sk_live_a', 'POST', '/api/v1/events/wait', { timeout: 61 });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual(simulator.contract.example('waitForEvent', 400, 'timeoutOutOfRange'));
  });
});

// Issue 37: what a simulator keeps in this process beside its state (the waits it holds, the ping
// being emitted) is its own. Two simulators in one process with the same ids (sequential: the
// same key opens an account of the same id in each) must not see each other's: a wait held in one
// kept the other from evicting its idle account of that id while the waits were one map per process.
describe('two simulators in one process', () => {
  const twoSimulators = () => {
    const make = () => createSimulator({ document, clock: manualClock(), ids: sequentialIds(), options: { maxAccounts: 1 } });
    return [make(), make()] as const;
  };

  it('count only the waits each holds', () => {
    const [one, other] = twoSimulators();
    expect(account(one, 'sk_live_a').id).toBe(account(other, 'sk_live_a').id);
    const held = one.handle(simRequest('POST', '/api/v1/events/wait', { key: 'sk_live_a', body: { timeout: 5 } }));
    expect(held.hold!.check(one.state)).toBeUndefined();
    expect(waitsHeld(one, 'sk_live_a')).toBe(1);
    expect(waitsHeld(other, 'sk_live_a')).toBe(0);
    held.hold!.expire();
    expect(waitsHeld(one, 'sk_live_a')).toBe(0);
  });

  it('evict by their own waits: an account idle in one is evicted there, whatever the other holds', () => {
    const [one, other] = twoSimulators();
    const idle = account(other, 'sk_live_a').id;
    const held = one.handle(simRequest('POST', '/api/v1/events/wait', { key: 'sk_live_a', body: { timeout: 5 } }));
    expect(held.hold!.check(one.state)).toBeUndefined();
    // A second key in the other simulator, past its cap of one live account: its idle account goes.
    expect(other.handle(simRequest('GET', '/api/v1/account', { key: 'sk_live_b' })).status).toBe(200);
    expect(other.liveAccounts()).toBe(1);
    expect(other.state.accounts[idle]).toBeUndefined();
    // The one holding the wait keeps its account.
    expect(one.handle(simRequest('GET', '/api/v1/account', { key: 'sk_live_b' })).status).toBe(200);
    expect(one.state.accounts[idle]).toBeDefined();
  });
});

describe('webhook subscriptions (part 6, inferred operations)', () => {
  it('creates and lists the account\'s subscriptions, each account its own', () => {
    const { request } = setup();
    const created = request('sk_live_a', 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:3000/hooks', eventTypes: ['message.received'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: 'http://127.0.0.1:3000/hooks', eventTypes: ['message.received'], lastPingAt: null });
    expect(request('sk_live_a', 'GET', '/api/v1/webhooks').body).toEqual([created.body]);
    expect(request('sk_live_b', 'GET', '/api/v1/webhooks').body).toEqual([]);
  });

  it('an event goes to the subscriptions whose eventTypes name its type; a ping to its subscription only', () => {
    const { simulator, request, emit } = setup();
    const a = request('sk_live_a', 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:1/a', eventTypes: ['message.received'] }).body as JsonObject;
    const b = request('sk_live_a', 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:1/b', eventTypes: ['call.status_changed'] }).body as JsonObject;
    const seen: Array<[string, string[]]> = [];
    simulator.onEvent((event, _account, _seq, hooks) => seen.push([event.type, hooks.map((hook) => String(hook.id))]));
    emit('sk_live_a', 'message.received');
    emit('sk_live_a', 'call.status_changed');
    emit('sk_live_a', 'message.status_changed');
    request('sk_live_a', 'POST', `/api/v1/webhooks/${b.id}/ping`);
    expect(seen).toEqual([
      ['message.received', [a.id]],
      ['call.status_changed', [b.id]],
      ['message.status_changed', []],
      ['webhook.ping', [b.id]],
    ]);
    // The ping's envelope: relatedObject null, data {} (part 6).
    const ping = account(simulator, 'sk_live_a').events.at(-1)!.event;
    expect(ping).toMatchObject({ type: 'webhook.ping', relatedObject: null, data: {} });
  });

  it('ping of an unknown subscription (or another account\'s) is 404', () => {
    const { request } = setup();
    const hook = request('sk_live_a', 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:1/a', eventTypes: [] }).body as JsonObject;
    expect(request('sk_live_b', 'POST', `/api/v1/webhooks/${hook.id}/ping`).status).toBe(404);
    expect(request('sk_live_a', 'POST', '/api/v1/webhooks/wh_nope/ping').status).toBe(404);
  });

  it('records outcomes: a 2xx ping sets lastPingAt; a failure counts in failedDeliveries', () => {
    const { simulator, request } = setup();
    const hook = request('sk_live_a', 'POST', '/api/v1/webhooks', { url: 'http://127.0.0.1:1/a', eventTypes: [] }).body as JsonObject;
    const accountId = account(simulator, 'sk_live_a').id;
    simulator.withContext((ctx) => recordWebhookDelivery(ctx, accountId, hook.id, { eventId: 'evt_1', eventType: 'webhook.ping', outcome: 'failed', attempts: 4, lastStatus: 500 }));
    let listed = (request('sk_live_a', 'GET', '/api/v1/webhooks').body as JsonObject[])[0]!;
    expect(listed.lastPingAt).toBeNull();
    expect(listed.failedDeliveries).toBe(1);
    expect(listed.lastDelivery).toMatchObject({ eventId: 'evt_1', outcome: 'failed', attempts: 4, lastStatus: 500 });
    simulator.withContext((ctx) => recordWebhookDelivery(ctx, accountId, hook.id, { eventId: 'evt_2', eventType: 'webhook.ping', outcome: 'delivered', attempts: 1, lastStatus: 204 }));
    listed = (request('sk_live_a', 'GET', '/api/v1/webhooks').body as JsonObject[])[0]!;
    expect(listed.lastPingAt).toBe(new Date(simulator.clock.now()).toISOString());
    expect(listed.failedDeliveries).toBe(1);
  });
});

describe('events that follow actions, on the real stateful mock (part 6)', () => {
  // The demo seed's PAYG SMS line (the contract's twoNumbers example).
  const SMS_LINE = { id: 'pn_8f3kq2m9x7', number: '+13125550187' };
  const mock = useStatefulMock();

  type Answer = Awaited<ReturnType<ReturnType<typeof client>>>;
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const wait = (key: string, body: JsonObject) => client(mock().url, key)('POST', '/api/v1/events/wait', body);

  /** Starts a key's first wait and returns once the mock holds it (a first wait sees only later events). */
  async function firstWait(key: string, body: JsonObject): Promise<{ answer: Promise<Answer> }> {
    const answer = wait(key, body);
    while (mock().simulator.heldWaits(mock().simulator.accountForKey(key)) === 0) await pause(5);
    return { answer };
  }

  /**
   * A new key whose first wait for events of `type` the mock holds; `collect` waits again (the key's
   * cursor misses nothing between waits) until `count` events pass `keep`, in order.
   */
  async function watch(type: string) {
    const key = newKey('events');
    const body = { timeout: 30, filters: { type } };
    const first = await firstWait(key, body);
    const collect = async (keep: (event: JsonObject) => boolean, count: number) => {
      const events: JsonObject[] = [];
      let answer = await first.answer;
      for (;;) {
        expect([200, 408]).toContain(answer.status);
        if (answer.status === 200 && keep(answer.body)) events.push(answer.body);
        if (events.length >= count) return events;
        answer = await wait(key, body);
      }
    };
    return { key, collect };
  }

  it('send a message: message.status_changed for it arrives by wait', async () => {
    const { key, collect } = await watch('message.status_changed');
    const sent = await client(mock().url, key)('POST', '/api/v1/messages', { to: '+14155550999', fromNumberId: SMS_LINE.id, body: 'Your table is ready.' });
    expect(sent.status).toBe(201);
    const [event] = await collect((e) => e.data.messageId === sent.body.id, 1);
    expect(event).toMatchObject({ object: 'event', type: 'message.status_changed', relatedObject: { id: sent.body.id, type: 'message' } });
  });

  it('inject an inbound message: message.received carries the messageId the messages list shows', async () => {
    const { key, collect } = await watch('message.received');
    const call = client(mock().url, key);
    const injected = await call('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550101', body: 'Is it ready?' });
    expect(injected.status).toBe(201);
    const [event] = await collect(() => true, 1);
    const listed = (await call('GET', '/api/v1/messages?direction=inbound')).body as JsonObject[];
    expect(listed[0]!.id).toBe(injected.body.id);
    expect(event!.data).toMatchObject({ messageId: listed[0]!.id, from: '+14155550101', to: SMS_LINE.number, source: 'internal' });
  });

  it('a call: four call.status_changed in lifecycle order, with previousState, and terminationType at the end', async () => {
    const { key, collect } = await watch('call.status_changed');
    const placed = await client(mock().url, key)('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: SMS_LINE.id, outboundInstruction: 'Confirm the delivery window.' });
    expect(placed.status).toBe(201);
    // The rest of the lifecycle without waiting for it: the simulated clock moves on.
    const advanced = await fetch(new URL('/__mock/clock/advance', mock().url), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds: 600 }) });
    expect(advanced.status).toBe(200);
    const events = await collect((e) => e.relatedObject?.id === placed.body.id, 4);
    const states = events.map((e) => e.data.status.state);
    expect(states).toHaveLength(4);
    expect(states[0]).toBe(placed.body.status.state);
    expect(events.slice(1).map((e) => e.data.previousState)).toEqual(states.slice(0, 3));
    expect(events[3]!.data.terminationType).toEqual(expect.any(String));
    expect(new Set(states).size).toBe(4);
  });

  it('a wait whose filter matches nothing answers 408 after its timeout', async () => {
    const key = newKey('events');
    const first = await firstWait(key, { timeout: 1, filters: { groupId: 'grp_nothing_here' } });
    await client(mock().url, key)('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550102', body: 'not in a group' });
    const answer = await first.answer;
    expect(answer.status).toBe(408);
    expect(answer.body.error).toEqual(expect.stringContaining('1'));
  });

  it('two keys never see each other\'s events', async () => {
    const mine = newKey('events');
    const theirs = newKey('events');
    const body = { timeout: 1, filters: { type: 'message.received' } };
    const waiting = await firstWait(theirs, body);
    await client(mock().url, mine)('POST', '/api/v1/test/messages/inbound', { to: SMS_LINE.number, from: '+14155550103', body: 'for mine only' });
    expect((await waiting.answer).status).toBe(408);
  });

  it.each([0, 61, 'soon'])('timeout %j is refused by the contract gate with 400', async (timeout) => {
    const answer = await wait(newKey('events'), { timeout, filters: {} });
    expect(answer.status).toBe(400);
    expect(answer.body.error.fieldErrors).toHaveProperty('timeout');
    const documented = mock().simulator.contract.example('waitForEvent', 400, 'timeoutOutOfRange');
    if (typeof timeout === 'number') expect(answer.body).toEqual(documented);
    else expect(answer.body).not.toEqual(documented);
  });
});
