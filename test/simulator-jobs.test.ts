// The simulator's queue of planned steps (part 3's processes: a delivery, a call's moves, a
// review) runs them in time order, whatever the batch: a step planned by another step while the
// clock jumped runs before a later step already queued; steps at the same time keep the order they
// were planned in; a step another step unschedules does not run; a request first runs every step
// due by its time; and a state file's queue written as a sorted list loads in the same order.
// Driven through a test module, so each rule is seen on its own.
import { describe, expect, it } from 'vitest';
import { manualClock, sequentialIds } from '../src/simulator/clock.js';
import type { ResourceModule } from '../src/simulator/context.js';
import { createSimulator } from '../src/simulator/simulator.js';
import { document, simRequest } from './helpers/simulator-harness.js';

function queueUnderTest() {
  const ran: string[] = [];
  const module: ResourceModule = {
    name: 'queue under test',
    parts: '3',
    handlers: { getAccount: (ctx) => ctx.json(200, { maxCallDurationSeconds: null, limits: null }) },
    processes: {
      record: (_ctx, _account, job) => void ran.push(job.ref),
      // Records itself, then plans `record` for `data.then` after `data.in` ms.
      plan: (ctx, account, job) => {
        ran.push(job.ref);
        ctx.schedule(account, 'record', String(job.data!.then), Number(job.data!.in));
      },
      // Records itself, then unschedules the `record` step `data.cancel`.
      cancel: (ctx, account, job) => {
        ran.push(job.ref);
        ctx.unschedule(account, 'record', String(job.data!.cancel));
      },
    },
  };
  const clock = manualClock();
  const simulator = createSimulator({ document, clock, ids: sequentialIds(), modules: [module] });
  const account = (key: string) => simulator.accountForKey(key)!;
  const plan = (key: string, kind: string, ref: string, delayMs: number, data?: Record<string, string | number>) =>
    simulator.withContext((ctx) => ctx.schedule(account(key), kind, ref, delayMs, data));
  return { simulator, clock, ran, plan };
}

describe('planned steps run in time order', () => {
  // A1 (due at 10) plans A2 `in` seconds later; A3 is queued for 20; the clock jumps to 30.
  it.each([
    ['a step planned by a step while the clock jumped runs before a later queued one', 5, ['A1', 'A2', 'A3']],
    ['steps due at the same time run in the order they were planned', 10, ['A1', 'A3', 'A2']],
  ])('%s', (_name, after, order) => {
    const { simulator, ran, plan } = queueUnderTest();
    plan('sk_live_a', 'plan', 'A1', 10, { then: 'A2', in: after });
    plan('sk_live_a', 'record', 'A3', 20);
    simulator.advance(30);
    expect(ran).toEqual(order);
    expect(simulator.nextDueAt()).toBeUndefined();
  });

  it('a step planned for later than now waits', () => {
    const { simulator, ran, plan } = queueUnderTest();
    plan('sk_live_a', 'plan', 'A1', 10, { then: 'A2', in: 100 });
    simulator.advance(30);
    expect(ran).toEqual(['A1']);
    simulator.advance(100);
    expect(ran).toEqual(['A1', 'A2']);
  });

  it('a step unscheduled by an earlier step of the same batch does not run', () => {
    const { simulator, ran, plan } = queueUnderTest();
    plan('sk_live_a', 'cancel', 'C1', 10, { cancel: 'C2' });
    plan('sk_live_a', 'record', 'C2', 20);
    plan('sk_live_a', 'record', 'C3', 25);
    simulator.advance(30);
    expect(ran).toEqual(['C1', 'C3']);
  });

  it('a request first runs every step due by its time, in time order, whoever’s it is', () => {
    const { simulator, clock, ran, plan } = queueUnderTest();
    plan('sk_live_x', 'record', 'X1', 10);
    plan('sk_live_y', 'record', 'Y1', 5);
    plan('sk_live_x', 'record', 'X2', 15);
    plan('sk_live_x', 'record', 'X3', 40);
    clock.advance(30);
    expect(simulator.handle(simRequest('GET', '/api/v1/account', { key: 'sk_live_x' })).status).toBe(200);
    expect(ran).toEqual(['Y1', 'X1', 'X2']);
    expect(simulator.nextDueAt()).toBe(clock.now() + 10);
  });

  it('keeps the order over thousands of steps planned out of order', () => {
    const { simulator, ran, plan } = queueUnderTest();
    // Due times out of order, many equal: the order of the run is (due time, order planned).
    const planned = Array.from({ length: 3000 }, (_, i) => ({ ref: `J${i}`, delay: ((i * 7919) % 1000) + 1 }));
    for (const { ref, delay } of planned) plan('sk_live_a', 'record', ref, delay);
    simulator.advance(2000);
    const expected = planned.map((job, i) => ({ ...job, i })).sort((a, b) => a.delay - b.delay || a.i - b.i).map((job) => job.ref);
    expect(ran).toEqual(expected);
  });

  it('keeps the order when steps are unscheduled from the middle of the queue', () => {
    const { simulator, ran, plan } = queueUnderTest();
    const planned = Array.from({ length: 3000 }, (_, i) => ({ ref: `J${i}`, delay: ((i * 7919) % 1000) + 1, i }));
    for (const { ref, delay } of planned) plan('sk_live_a', 'record', ref, delay);
    const account = simulator.accountForKey('sk_live_a')!;
    const dropped = planned.filter(({ i }) => i % 3 === 0);
    simulator.withContext((ctx) => dropped.forEach(({ ref }) => ctx.unschedule(account, 'record', ref)));
    simulator.advance(2000);
    const expected = planned.filter(({ i }) => i % 3 !== 0).sort((a, b) => a.delay - b.delay || a.i - b.i).map((job) => job.ref);
    expect(ran).toEqual(expected);
  });

  it('a queue saved as a sorted list (before `seq`) loads in its order', () => {
    const first = queueUnderTest();
    first.plan('sk_live_a', 'record', 'A1', 10);
    const state = structuredClone(first.simulator.state);
    const accountId = state.jobs[0]!.accountId;
    // As an older state file holds them: sorted by time, equal times in the order planned, no seq.
    state.jobs = ['S1', 'S2', 'S3', 'S4'].map((ref, i) => ({ at: state.jobs[0]!.at + (i < 2 ? 0 : 5), kind: 'record', accountId, ref }));
    delete state.jobSeq;
    const ran: string[] = [];
    const module: ResourceModule = { name: 'queue under test', parts: '3', handlers: {}, processes: { record: (_ctx, _account, job) => void ran.push(job.ref) } };
    const clock = manualClock();
    const loaded = createSimulator({ document, clock, ids: sequentialIds(), modules: [module], state });
    loaded.withContext((ctx) => ctx.schedule(loaded.state.accounts[accountId]!, 'record', 'S5', 15));
    loaded.advance(30);
    expect(ran).toEqual(['S1', 'S2', 'S3', 'S4', 'S5']);
  });
});
