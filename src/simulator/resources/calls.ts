// Calls (parts 2, 3, 4.2, 4.5, 6, 7, 8): a placed call is answered 201 and moves through the
// call lifecycle of part 3 (read from `x-state-machines.callLifecycle`), each move updating the
// listed record and emitting `call.status_changed` (part 6); an `Idempotency-Key` replay answers
// the original call with 200 (part 7.2); a free account holds 2 calls at once and 300 s per call
// (part 8); a PAYG number with an empty wallet is gated (part 3).
import type { RequestContext, ResourceModule, RuleContext } from '../context.js';
import { HISTORY_LIMIT, LIST_LIMIT, trimOldest, type AccountState, type Job } from '../state.js';
import type { CallRecord, CallStatusChangedData, CallStatusRecord, NumberRecord, TerminationType } from '../records.js';
import type { JsonObject, SimResponse } from '../types.js';
import { aboveFreeCeiling, freeLimits, isFree } from './free-account.js';
import { findNumber, isWalletGated } from './numbers.js';
import { matchTestValue } from '../documented-inputs.js';
import { recordTraffic } from './usage.js';

/** Simulated ms spent in a state before the next move, at the default pace (issue 11: Terminated within about 10 s). */
const TIME_IN_STATE_MS: Record<string, number> = { Queued: 1000, Ringing: 2000, 'In-Progress': 5000 };
const DEFAULT_TIME_IN_STATE_MS = 2000;
/** The global default call cap: not shown (part 8), so none is applied beyond the other levels. */
const GLOBAL_DEFAULT_CAP_SECONDS: number | null = null;

/** A state a call enters, as `call.status_changed` carries it. */
type Move = Pick<CallStatusChangedData, 'status' | 'terminationType'>;

interface Lifecycle {
  /** The states in order, first to last (Queued, Ringing, In-Progress, Terminated). */
  order: string[];
  terminal: string;
  /** The status object of each non-terminal state, from the contract's event examples. */
  status: Record<string, CallStatusRecord>;
  /** For each termination type: the status entered and the state the call ends from, from the examples. */
  endings: Partial<Record<TerminationType, { status: CallStatusRecord; from: string }>>;
}

const lifecycles = new WeakMap<object, Lifecycle>();

/**
 * The call lifecycle: the order of states from `x-state-machines.callLifecycle` (part 3), and the
 * status objects and ending points from the contract's `call.status_changed` examples (an ending
 * such as `busy` leaves from Ringing, as its example's `previousState` shows).
 */
export function callLifecycle(ctx: Pick<RuleContext, 'contract'>): Lifecycle {
  const cached = lifecycles.get(ctx.contract);
  if (cached) return cached;
  const machine = ctx.contract.stateMachine('callLifecycle');
  const moves = ((machine?.transitions ?? []) as JsonObject[]).filter((t) => t.from !== t.to);
  if (moves.length === 0) throw new Error('The contract has no callLifecycle state machine (x-state-machines).');
  const targets = new Set(moves.map((t) => t.to));
  let state: string | undefined = String(moves.find((t) => !targets.has(t.from))!.from);
  const order: string[] = [];
  while (state !== undefined && !order.includes(state)) {
    order.push(state);
    state = moves.find((t) => t.from === state)?.to;
  }
  const terminal = order[order.length - 1]!;
  const status: Record<string, CallStatusRecord> = {};
  const endings: Lifecycle['endings'] = {};
  for (const name of Object.keys(ctx.contract.document.components?.examples ?? {})) {
    const event = ctx.contract.componentExample(name) as JsonObject;
    if (event?.type !== 'call.status_changed') continue;
    const data = event.data as CallStatusChangedData;
    if (data.status.state === terminal && data.terminationType) endings[data.terminationType] = { status: data.status, from: String(data.previousState) };
    else status[data.status.state] ??= data.status;
  }
  const lifecycle = { order, terminal, status, endings };
  lifecycles.set(ctx.contract, lifecycle);
  return lifecycle;
}

/** The moves a call in `current` makes from now on to end with `terminationType`. */
function plannedMoves(ctx: Pick<RuleContext, 'contract'>, current: string, terminationType: TerminationType): Move[] {
  const lifecycle = callLifecycle(ctx);
  const ending = lifecycle.endings[terminationType];
  if (!ending) throw new Error(`The contract shows no ${terminationType} ending of a call`);
  const moves: Move[] = [];
  const endFrom = lifecycle.order.indexOf(ending.from);
  // Past its ending point already (a seeded call): it ends from where it is.
  for (let i = lifecycle.order.indexOf(current) + 1; i <= endFrom; i++) moves.push({ status: lifecycle.status[lifecycle.order[i]!]! });
  moves.push({ status: ending.status, terminationType });
  return moves;
}

interface CallMeta {
  /** The cap in force (part 4.2 priority; free ceiling), seconds or null; shown nowhere (the contract does not show it). */
  effectiveCapSeconds: number | null;
  to?: string;
  fromNumberId?: string;
  createdAt: string;
  /** The moves still to come. */
  moves: Move[];
  inProgressAt?: number;
  idempotencyKey?: string;
  /** A seeded call: usage already counts it in the seeded history (usage.ts). */
  seeded?: boolean;
}

function callMeta(account: AccountState, id: string): CallMeta | undefined {
  return account.meta[id] as unknown as CallMeta | undefined;
}

function startProcess(ctx: RuleContext, account: AccountState, callId: string, current: string): void {
  ctx.schedule(account, 'call.progress', callId, (TIME_IN_STATE_MS[current] ?? DEFAULT_TIME_IN_STATE_MS) / ctx.options.pace);
}

/** One move of the lifecycle: the record enters the next state and `call.status_changed` reports it with `previousState` (part 6). */
function progressStep(ctx: RuleContext, account: AccountState, job: Job): void {
  const call = account.calls.findLast((c) => c.id === job.ref); // newest last: a step is about a recent one
  const meta = callMeta(account, job.ref);
  const move = meta?.moves.shift();
  if (!call || !meta || !move) return;
  const previousState = call.status.state;
  call.status = { ...move.status };
  const data: CallStatusChangedData = { status: move.status, previousState };
  if (move.terminationType !== undefined) {
    call.terminationType = move.terminationType;
    data.terminationType = move.terminationType;
  }
  if (move.status.state === 'In-Progress') meta.inProgressAt = ctx.now;
  ctx.emit(account, 'call.status_changed', data, { id: call.id, type: 'call', url: null });
  if (meta.moves.length > 0) {
    startProcess(ctx, account, call.id, move.status.state);
  } else if (!meta.seeded) {
    const seconds = meta.inProgressAt === undefined ? 0 : Math.round((ctx.now - meta.inProgressAt) / 1000);
    recordTraffic(ctx, account, 'call', { record: call, durationSeconds: seconds });
  }
}

/**
 * The effective call cap (part 4.2): the per-call cap, then the number's, then the account's,
 * then the global default; a higher level overrides a lower one either way. A free account's
 * inherited value is clamped to its ceiling (part 8).
 */
export function effectiveCap(ctx: Pick<RuleContext, 'contract'>, account: AccountState, number: Pick<NumberRecord, 'maxCallDurationSeconds'> | undefined, perCall: unknown): number | null {
  const levels = [perCall, number?.maxCallDurationSeconds, account.account.maxCallDurationSeconds, GLOBAL_DEFAULT_CAP_SECONDS];
  const cap = (levels.find((value) => typeof value === 'number') as number | undefined) ?? null;
  if (!isFree(account)) return cap;
  const ceiling = freeLimits(ctx).maxCallDurationSeconds;
  return cap === null ? ceiling : Math.min(cap, ceiling);
}

function isActive(ctx: Pick<RuleContext, 'contract'>, call: CallRecord): boolean {
  return call.status.state !== callLifecycle(ctx).terminal;
}

/** The endings test values ask for (spec/test-values.yaml); any other call ends `completed`. */
const TEST_ENDINGS: Record<string, TerminationType> = { callBusy: 'busy', callNoAnswer: 'no-answer', callFailed: 'failed' };

function storeCall(account: AccountState, call: CallRecord, meta: CallMeta): void {
  account.calls.push(call);
  account.meta[call.id] = meta as unknown as JsonObject;
  for (const dropped of trimOldest(account.calls, HISTORY_LIMIT)) {
    const key = callMeta(account, dropped.id)?.idempotencyKey;
    if (key !== undefined && account.idempotency[key] === dropped.id) delete account.idempotency[key];
    delete account.meta[dropped.id];
  }
}

function createCall(ctx: RequestContext<'createCall'>): SimResponse {
  const { account, body } = ctx;
  // Part 7.2: a retry with the key of a call placed earlier answers that call, as it is now. The
  // 409 of a duplicate whose original is still running when the wait window closes is never
  // reached otherwise (the simulator handles one request at a time): the documented test value
  // stands in for it, and nothing is placed.
  const stillRunning = ctx.testValue(['callStillProcessing']);
  if (stillRunning) return stillRunning;
  const key = ctx.request.headers['idempotency-key'];
  if (key !== undefined && key !== '') {
    const original = account.calls.findLast((c) => c.id === account.idempotency[key]);
    if (original) return ctx.json(200, original);
  }

  const number = findNumber(account, { id: body.fromNumberId });
  if (!number) return ctx.documented(400, 'unknownFromNumber');
  if (aboveFreeCeiling(ctx, account, body.maxCallDurationSeconds)) return ctx.documented(400, 'aboveFreeCeiling');
  // Carrier outcomes by documented test value (spec/test-values.yaml).
  const refusal = ctx.testValue(['callUnsupportedRegion']);
  if (refusal) return refusal;
  if (isWalletGated(account, number)) return ctx.documented(402);
  if (isFree(account) && account.calls.filter((c) => isActive(ctx, c)).length >= freeLimits(ctx).maxConcurrentCalls) {
    return ctx.documented(429, 'callLimitReached');
  }

  const lifecycle = callLifecycle(ctx);
  const first = lifecycle.order[0]!;
  const call: CallRecord = { id: ctx.ids.next('call_'), status: { ...lifecycle.status[first]! } };
  storeCall(account, call, {
    effectiveCapSeconds: effectiveCap(ctx, account, number, body.maxCallDurationSeconds),
    to: String(body.to),
    fromNumberId: number.id,
    createdAt: ctx.nowIso,
    moves: plannedMoves(ctx, first, TEST_ENDINGS[matchTestValue(ctx.contract, ctx.operationId, ctx.request, Object.keys(TEST_ENDINGS))?.name ?? ''] ?? 'completed'),
    ...(key ? { idempotencyKey: key } : {}),
  });
  if (key) account.idempotency[key] = call.id;
  ctx.emit(account, 'call.status_changed', { status: call.status, previousState: null }, { id: call.id, type: 'call', url: null });
  startProcess(ctx, account, call.id, first);
  return ctx.json(201, call);
}

export const callsModule: ResourceModule = {
  name: 'calls',
  parts: '2, 3, 4.2, 4.5, 6, 7, 8',
  reads: ['listCalls'],
  handlers: {
    createCall,
    listCalls: (ctx) => ctx.json(200, ctx.account.calls.slice(-LIST_LIMIT).reverse()),
  },
  processes: {
    'call.progress': progressStep,
  },
  seed(ctx, account) {
    // A seeded call still under way carries on to its end (completed), as a placed one does.
    for (const call of account.calls) {
      if (!isActive(ctx, call)) continue;
      const current = String(call.status.state);
      account.meta[call.id] = { createdAt: ctx.nowIso, effectiveCapSeconds: null, moves: plannedMoves(ctx, current, 'completed'), seeded: true } as unknown as JsonObject;
      startProcess(ctx, account, call.id, current);
    }
  },
};
