// Calls (parts 2, 3, 4.2, 4.5, 6, 7, 8) in the simulator core (in-process, deterministic clock and
// ids, every request through the contract's validator as the gate and every answer checked
// against the contract), then on the real stateful mock. Each test fails when its rule is taken
// out of src/simulator/resources/calls.ts.
import { describe, expect, it } from 'vitest';
import type { Simulator } from '../src/simulator/simulator.js';
import type { JsonObject } from '../src/simulator/types.js';
import { callLifecycle, effectiveCap } from '../src/simulator/resources/calls.js';
import { checkEventsAfterEach, inProcessSimulator, useStatefulMock } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

// Every event emitted is checked against the contract's event schemas (AnyEvent, part 6).
const checkEvents = checkEventsAfterEach();
const KEY = 'sk_live_calls';
const PAYG_LINE = 'pn_8f3kq2m9x7';
const FIXED_LINE = 'pn_5k1vt8e3qa';
const TEST = { unsupportedRegion: '+15005550310', busy: '+15005550311', noAnswer: '+15005550312', failed: '+15005550313' };

function harness() {
  const { simulator: sim, call, account } = inProcessSimulator({ key: KEY });
  checkEvents(sim);
  const place = (body: JsonObject = {}, headers: Record<string, string> = {}) =>
    call('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: PAYG_LINE, outboundInstruction: 'Confirm the delivery window.', ...body }, undefined, headers);
  const events = (callId?: string) =>
    account()
      .events.map((e) => e.event as unknown as JsonObject)
      .filter((e) => e.type === 'call.status_changed' && (callId === undefined || e.relatedObject.id === callId));
  const listed = (id: string) => (call('GET', '/api/v1/calls').body as JsonObject[]).find((c) => c.id === id);
  return { sim, call, account, place, events, listed };
}

const example = (sim: Simulator, operationId: string, status: number, name?: string) => sim.contract.example(operationId, status, name);

describe('placing a call (parts 4.5, 7)', () => {
  it('answers 201 with a Queued call, lists it first and emits call.status_changed Queued with previousState null', () => {
    const h = harness();
    const answer = h.place();
    expect(answer.status).toBe(201);
    const placed = answer.body as JsonObject;
    expect(placed.status.state).toBe('Queued');
    expect((h.call('GET', '/api/v1/calls').body as JsonObject[])[0]).toEqual(placed);
    const [queued] = h.events(placed.id);
    expect(queued).toMatchObject({ object: 'event', version: 1, relatedObject: { id: placed.id, type: 'call', url: null }, data: { status: placed.status, previousState: null } });
    // The status object is the contract's own (callStatusQueued).
    expect(placed.status).toEqual((h.sim.contract.componentExample('callStatusQueued') as JsonObject).data.status);
  });

  it('moves Queued, Ringing, In-Progress, Terminated (completed) in order, within 10 s, each move listed and emitted with previousState', () => {
    const h = harness();
    const placed = h.place().body as JsonObject;
    const seen: string[] = [h.listed(placed.id)!.status.state];
    for (let t = 0; t < 10_000; t += 250) {
      h.sim.advance(250);
      const state = h.listed(placed.id)!.status.state;
      if (state !== seen[seen.length - 1]) seen.push(state);
    }
    // The order is x-state-machines.callLifecycle's.
    expect(seen).toEqual(callLifecycle(h.sim).order);
    expect(seen).toEqual(['Queued', 'Ringing', 'In-Progress', 'Terminated']);
    const events = h.events(placed.id).map((e) => e.data as JsonObject);
    expect(events.map((d) => [d.previousState, d.status.state])).toEqual([
      [null, 'Queued'],
      ['Queued', 'Ringing'],
      ['Ringing', 'In-Progress'],
      ['In-Progress', 'Terminated'],
    ]);
    expect(events[3]!.terminationType).toBe('completed');
    expect(h.listed(placed.id)).toMatchObject({ terminationType: 'completed', status: events[3]!.status });
    expect(events.slice(0, 3).every((d) => !('terminationType' in d))).toBe(true);
  });

  for (const [name, to, terminationType, from] of [
    ['busy', TEST.busy, 'busy', 'Ringing'],
    ['no answer', TEST.noAnswer, 'no-answer', 'Ringing'],
    ['failed', TEST.failed, 'failed', 'Queued'],
  ] as const) {
    it(`test value ${to}: the call is placed and ends ${name} from ${from}`, () => {
      const h = harness();
      const placed = h.place({ to });
      expect(placed.status).toBe(201);
      h.sim.advance(10_000);
      const last = h.events((placed.body as JsonObject).id).at(-1)!.data as JsonObject;
      expect(last).toMatchObject({ previousState: from, terminationType, status: { state: 'Terminated' } });
      expect(h.listed((placed.body as JsonObject).id)!.terminationType).toBe(terminationType);
    });
  }

  it('a call counts in usage (part 4.3) once it has ended', () => {
    const h = harness();
    const total = () => ((h.call('GET', '/api/v1/usage').body as JsonObject).totals as JsonObject).calls as number;
    h.account();
    h.sim.advance(15_000);
    const before = total();
    h.place();
    h.sim.advance(15_000);
    expect(total()).toBe(before + 1);
  });

  it('lists at most the 100 newest, newest first', () => {
    const h = harness();
    const ids = Array.from({ length: 103 }, () => (h.place().body as JsonObject).id);
    const list = h.call('GET', '/api/v1/calls').body as JsonObject[];
    expect(list).toHaveLength(100);
    expect(list.map((c) => c.id)).toEqual(ids.slice(-100).reverse());
  });

  it('a seeded call still under way carries on to Terminated', () => {
    const h = harness();
    const seeded = (h.call('GET', '/api/v1/calls').body as JsonObject[]).find((c) => c.status.state !== 'Terminated')!;
    expect(seeded).toBeDefined();
    const from = String(seeded.status.state);
    h.sim.advance(15_000);
    expect(h.listed(seeded.id)).toMatchObject({ status: { state: 'Terminated' }, terminationType: 'completed' });
    expect(h.events(seeded.id).map((e) => (e.data as JsonObject).previousState)).toEqual([from, 'In-Progress']);
  });
});

describe('idempotency (part 7.2)', () => {
  it('a replay with the same Idempotency-Key answers 200 with the original call as it is now, listed once', () => {
    const h = harness();
    const first = h.place({}, { 'idempotency-key': 'order-4471' });
    expect(first.status).toBe(201);
    h.sim.advance(1500);
    const replay = h.place({}, { 'idempotency-key': 'order-4471' });
    expect(replay.status).toBe(200);
    expect((replay.body as JsonObject).id).toBe((first.body as JsonObject).id);
    expect((replay.body as JsonObject).status.state).toBe('Ringing');
    const list = h.call('GET', '/api/v1/calls').body as JsonObject[];
    expect(list.filter((c) => c.id === (first.body as JsonObject).id)).toHaveLength(1);
    // One Queued event: the replay placed nothing.
    expect(h.events().filter((e) => (e.data as JsonObject).previousState === null)).toHaveLength(1);
  });

  it('without a key, or with another key, every request places another call', () => {
    const h = harness();
    const a = h.place().body as JsonObject;
    const b = h.place().body as JsonObject;
    const c = h.place({}, { 'idempotency-key': 'k1' }).body as JsonObject;
    const d = h.place({}, { 'idempotency-key': 'k2' });
    expect(d.status).toBe(201);
    expect(new Set([a.id, b.id, c.id, (d.body as JsonObject).id]).size).toBe(4);
  });

  it('a duplicate whose original is still running past the wait window answers 409 (part 7.2), by the documented test value, placing nothing', () => {
    const h = harness();
    const stillRunning = h.sim.contract.testValues('createCall').find((v) => v.name === 'callStillProcessing')!;
    const answer = h.place({}, { 'idempotency-key': stillRunning.value });
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual(example(h.sim, 'createCall', 409, 'originalStillRunning'));
    expect(h.events()).toHaveLength(0);
    // Any other key places the call.
    expect(h.place({}, { 'idempotency-key': `${stillRunning.value}-not` }).status).toBe(201);
  });

  it('a refused request keeps no key: a retry with it after the cause is gone places the call', () => {
    const h = harness();
    h.account().balance = 0;
    expect(h.place({}, { 'idempotency-key': 'retry-me' }).status).toBe(402);
    h.account().balance = 5;
    expect(h.place({}, { 'idempotency-key': 'retry-me' }).status).toBe(201);
  });
});

describe('refusals (parts 3, 7, 8)', () => {
  it('a free account holds 2 calls at once: a third answers 429 call_limit_reached, and one ending frees a slot', () => {
    const h = harness();
    // The demo seed's call still under way ends first, so that the account holds no call.
    h.account();
    h.sim.advance(15_000);
    h.account().paid = false;
    expect(h.place().status).toBe(201);
    expect(h.place().status).toBe(201);
    expect(h.place()).toEqual({ status: 429, body: example(h.sim, 'createCall', 429, 'callLimitReached') });
    h.sim.advance(10_000);
    expect(h.place().status).toBe(201);
  });

  it('a paid account is not held to 2 calls', () => {
    const h = harness();
    for (let i = 0; i < 3; i++) expect(h.place().status).toBe(201);
  });

  it('a free account: an explicit cap above 300 s answers 400 aboveFreeCeiling; 300 is accepted; a paid account takes 600', () => {
    const h = harness();
    expect(h.place({ maxCallDurationSeconds: 600 }).status).toBe(201);
    h.sim.advance(15_000);
    h.account().paid = false;
    expect(h.place({ maxCallDurationSeconds: 301 })).toEqual({ status: 400, body: example(h.sim, 'createCall', 400, 'aboveFreeCeiling') });
    expect(h.place({ maxCallDurationSeconds: 300 }).status).toBe(201);
  });

  it('wallet gating: 402 from a PAYG number at a zero balance, never from a FIXED number; nothing is placed', () => {
    const h = harness();
    h.account().balance = 0;
    const before = h.account().calls.length;
    expect(h.place()).toEqual({ status: 402, body: example(h.sim, 'createCall', 402) });
    expect(h.account().calls).toHaveLength(before);
    expect(h.place({ fromNumberId: FIXED_LINE }).status).toBe(201);
  });

  it('test value: unsupported_region answers 403, and no call is placed or emitted', () => {
    const h = harness();
    expect(h.place({ to: TEST.unsupportedRegion })).toEqual({ status: 403, body: example(h.sim, 'createCall', 403, 'unsupportedRegion') });
    expect(h.events()).toEqual([]);
  });

  it('a fromNumberId that is not the account\'s answers 400 unknownFromNumber', () => {
    const h = harness();
    expect(h.place({ fromNumberId: 'pn_someone_else' })).toEqual({ status: 400, body: example(h.sim, 'createCall', 400, 'unknownFromNumber') });
  });
});

describe('the effective call cap (part 4.2 priority, part 8 free ceiling), kept internal', () => {
  it('per call, then number, then account, then the global default; a free account is clamped to 300', () => {
    const h = harness();
    const account = h.account();
    const number = { maxCallDurationSeconds: 900 };
    account.account.maxCallDurationSeconds = 1200;
    expect(effectiveCap(h.sim, account, number, 120)).toBe(120);
    expect(effectiveCap(h.sim, account, number, 2400)).toBe(2400);
    expect(effectiveCap(h.sim, account, number, null)).toBe(900);
    expect(effectiveCap(h.sim, account, { maxCallDurationSeconds: null }, undefined)).toBe(1200);
    account.account.maxCallDurationSeconds = null;
    expect(effectiveCap(h.sim, account, { maxCallDurationSeconds: null }, undefined)).toBeNull();
    account.paid = false;
    expect(effectiveCap(h.sim, account, number, null)).toBe(300);
    expect(effectiveCap(h.sim, account, { maxCallDurationSeconds: null }, 120)).toBe(120);
  });

  it('is kept with the call but shown nowhere the contract does not show it', () => {
    const h = harness();
    const placed = h.place({ maxCallDurationSeconds: 120 }).body as JsonObject;
    expect(h.account().meta[placed.id]).toMatchObject({ effectiveCapSeconds: 120 });
    expect(Object.keys(placed).sort()).toEqual(['id', 'status']);
  });
});

describe('on the real stateful mock over HTTP', () => {
  const mock = useStatefulMock();

  it('10 parallel POSTs with one Idempotency-Key create exactly one call', async () => {
    const call = client(mock().url, newKey('idem'));
    const body = { to: '+14155550123', fromNumberId: PAYG_LINE, outboundInstruction: 'Confirm the delivery window.' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/api/v1/calls', body, { 'Idempotency-Key': 'parallel-key-1' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    const listed = (await call('GET', '/api/v1/calls')).body as JsonObject[];
    expect(listed.filter((c) => ids.has(c.id))).toHaveLength(1);
    const another = await call('POST', '/api/v1/calls', body);
    expect(another.status).toBe(201);
    expect(ids.has(another.body.id)).toBe(false);
  });

  it('a placed call is listed Queued, and reaches Terminated with 4 call.status_changed in order once the clock has moved 10 s', async () => {
    const key = newKey('life');
    const call = client(mock().url, key);
    const placed = await call('POST', '/api/v1/calls', { to: '+14155550123', fromNumberId: PAYG_LINE, outboundInstruction: 'Hi' });
    expect(placed.status).toBe(201);
    expect(placed.body.status.state).toBe('Queued');
    expect(((await call('GET', '/api/v1/calls')).body as JsonObject[])[0]).toEqual(placed.body);
    expect((await client(mock().url, null)('POST', '/__mock/clock/advance', { seconds: 10 })).status).toBe(200);
    const listed = ((await call('GET', '/api/v1/calls')).body as JsonObject[]).find((c) => c.id === placed.body.id)!;
    expect(listed).toMatchObject({ status: { state: 'Terminated' }, terminationType: 'completed' });
    const states = mock().simulator
      .accountForKey(key)!
      .events.filter((e) => e.event.type === 'call.status_changed' && e.event.relatedObject?.id === placed.body.id)
      .map((e) => (e.event.data as JsonObject).status.state);
    expect(states).toEqual(['Queued', 'Ringing', 'In-Progress', 'Terminated']);
  });

  it('a bad to names the to field, not a fixed example', async () => {
    const call = client(mock().url, newKey('bad'));
    const answer = await call('POST', '/api/v1/calls', { to: 'hello', fromNumberId: PAYG_LINE, outboundInstruction: 'x' });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.error.fieldErrors)).toEqual(['to']);
  });
});
