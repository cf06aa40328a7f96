// Usage (part 4.3), computed from the account's own traffic. The messages and calls modules call
// `recordTraffic` for each message sent or received and each call that ended (its minutes known
// then); usage keeps per-day counters by number, direction and geography (`account.daily` holds
// the day totals, `extra.usage` the rest), so it never depends on how much history a list keeps.
//
// Seeded history (the demo account's messages and ended calls, from the contract's examples)
// carries no time (part 2 shows none): it counts as traffic of the day the account was opened, so
// a demo account's usage agrees with its lists from the first request. A seeded call has no known
// length: it counts as a call with 0 minutes and stays out of the call-duration statistics.
import type { RequestContext, ResourceModule, RuleContext } from '../context.js';
import { dict, type AccountState } from '../state.js';
import type { JsonObject } from '../types.js';
import type { UsageRecord } from '../records.js';

const DAY_MS = 86_400_000;
/** Day cells kept: the longest window (90 days) and the one before it, for `deltaPct`. */
const KEEP_DAYS = 180;
/** Call lengths kept for the duration statistics (the longest window's). */
const KEEP_DURATIONS = 5000;

type Direction = 'outbound' | 'inbound';
type Geography = 'domestic' | 'intl';

/** One number's traffic on one day, in the shape of `UsagePeriodSplit` (part 4.3). */
interface Split {
  voice: Record<Direction, Record<Geography, { calls: number; minutes: number }>>;
  messages: Record<Direction, Record<Geography, { count: number }>>;
}

interface UsageState {
  /** `YYYY-MM-DD` → number id → that day's split. */
  days: Record<string, Record<string, Split>>;
  /** Call lengths, `[day, seconds]`, oldest first. */
  durations: Array<[string, number]>;
  /** All-time totals (they outlive the day cells). */
  all: { messages: number; calls: number; minutes: number };
}

function usageState(account: AccountState): UsageState {
  const state = (account.extra.usage ??= dict()) as Partial<UsageState>;
  state.days ??= dict();
  state.durations ??= [];
  state.all ??= { messages: 0, calls: 0, minutes: 0 };
  return state as UsageState;
}

/** Every direction and geography a split counts. */
const WAYS = [['outbound', 'domestic'], ['outbound', 'intl'], ['inbound', 'domestic'], ['inbound', 'intl']] as const;

function emptySplit(): Split {
  const cells = <T>(make: () => T) => ({ outbound: { domestic: make(), intl: make() }, inbound: { domestic: make(), intl: make() } });
  return { voice: cells(() => ({ calls: 0, minutes: 0 })), messages: cells(() => ({ count: 0 })) };
}

function addSplit(into: Split, from: Split): void {
  for (const [direction, geography] of WAYS) {
    into.voice[direction][geography].calls += from.voice[direction][geography].calls;
    into.voice[direction][geography].minutes += from.voice[direction][geography].minutes;
    into.messages[direction][geography].count += from.messages[direction][geography].count;
  }
}

export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Country calling codes of one and two digits (ITU-T E.164 assignments); every other code has three. */
const ONE_DIGIT = new Set(['1', '7']);
const TWO_DIGIT = new Set([
  '20', '27', '30', '31', '32', '33', '34', '36', '39', '40', '41', '43', '44', '45', '46', '47', '48', '49', '51', '52', '53', '54', '55', '56', '57', '58',
  '60', '61', '62', '63', '64', '65', '66', '81', '82', '84', '86', '90', '91', '92', '93', '94', '95', '98',
]);

/** The country calling code of an E.164 number (`+14155550123` → `1`, `+447700900123` → `44`). */
export function countryCallingCode(e164: string): string {
  const digits = e164.replace(/^\+/, '');
  if (ONE_DIGIT.has(digits.slice(0, 1))) return digits.slice(0, 1);
  if (TWO_DIGIT.has(digits.slice(0, 2))) return digits.slice(0, 2);
  return digits.slice(0, 3);
}

/** Part 4.3: domestic when the other party's country calling code is the service number's. */
export function geography(serviceNumber: string | undefined, counterpart: string | null | undefined): Geography {
  if (!serviceNumber || !counterpart) return 'domestic';
  return countryCallingCode(serviceNumber) === countryCallingCode(counterpart) ? 'domestic' : 'intl';
}

function cell(account: AccountState, day: string, numberId: string): Split {
  return ((usageState(account).days[day] ??= dict())[numberId] ??= emptySplit());
}

function dayTotals(account: AccountState, day: string) {
  return (account.daily[day] ??= { messages: 0, calls: 0, minutes: 0 });
}

function prune(account: AccountState, now: number): void {
  const state = usageState(account);
  const oldest = utcDay(now - KEEP_DAYS * DAY_MS);
  for (const day of Object.keys(state.days)) if (day < oldest) delete state.days[day];
  for (const day of Object.keys(account.daily)) if (day < oldest) delete account.daily[day];
  const firstKept = state.durations.findIndex(([day]) => day >= oldest);
  if (firstKept !== 0) state.durations.splice(0, firstKept < 0 ? state.durations.length : firstKept);
  if (state.durations.length > KEEP_DURATIONS) state.durations.splice(0, state.durations.length - KEEP_DURATIONS);
}

/**
 * Records traffic for usage (part 4.3); called by the messages and calls modules.
 * - `message`: `{direction, record}`, a Message record sent (`outbound`) or received (`inbound`).
 * - `call`: `{record, durationSeconds, direction?}`, once, when the call ended; the call's `to`
 *   and `fromNumberId` are read from its meta (the Call record shows neither).
 */
export function recordTraffic(ctx: Pick<RuleContext, 'now'>, account: AccountState, kind: string, data: JsonObject, at = ctx.now): void {
  const day = utcDay(at);
  const state = usageState(account);
  // Old days are dropped when a new day starts, not on every record (sends stay cheap).
  if (!account.daily[day]) prune(account, at);
  const byId = (id: unknown) => account.numbers.find((number) => number.id === id);
  const record = data.record as JsonObject;
  if (kind === 'message') {
    const direction: Direction = data.direction === 'inbound' ? 'inbound' : 'outbound';
    const service = byId(record.phoneNumberId)?.number ?? (direction === 'outbound' ? record.from : record.to);
    const counterpart = direction === 'outbound' ? record.to : record.from;
    cell(account, day, String(record.phoneNumberId ?? '')).messages[direction][geography(service, counterpart)].count++;
    dayTotals(account, day).messages++;
    state.all.messages++;
  } else if (kind === 'call') {
    const meta = (account.meta[record.id] ?? {}) as JsonObject;
    const direction: Direction = (data.direction ?? meta.direction) === 'inbound' ? 'inbound' : 'outbound';
    const numberId = meta.fromNumberId ?? meta.phoneNumberId ?? '';
    const seconds = typeof data.durationSeconds === 'number' ? Math.max(0, data.durationSeconds) : undefined;
    const minutes = (seconds ?? 0) / 60;
    const leaf = cell(account, day, String(numberId)).voice[direction][geography(byId(numberId)?.number, meta.to ?? meta.from)];
    leaf.calls++;
    leaf.minutes += minutes;
    const totals = dayTotals(account, day);
    totals.calls++;
    totals.minutes += minutes;
    state.all.calls++;
    state.all.minutes += minutes;
    if (seconds !== undefined) {
      state.durations.push([day, seconds]);
      if (state.durations.length > KEEP_DURATIONS) state.durations.splice(0, state.durations.length - KEEP_DURATIONS);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The answer

/**
 * The window `days` selects (part 4.3): one of the windows the parameter's schema documents (7,
 * 30, 90), given once; anything else (none, repeated, garbage) falls back to its default (30). One
 * rule for the stateful mock and the example server's usage-days-fallback.
 */
export function usageWindow(daysSchema: JsonObject | undefined, values: readonly string[]): number {
  const windows = ((daysSchema?.enum ?? daysSchema?.examples ?? []) as unknown[]).filter((v): v is number => Number.isInteger(v));
  const fallback = Number(daysSchema?.default ?? 30);
  if (values.length !== 1 || !/^\s*\d+\s*$/.test(values[0]!)) return fallback;
  const days = Number(values[0]);
  return windows.includes(days) ? days : fallback;
}

const round = (value: number, places = 2): number => Math.round(value * 10 ** places) / 10 ** places;

/** The `days` dates ending today, oldest first. */
function windowDays(now: number, days: number, endOffset = 0): string[] {
  return Array.from({ length: days }, (_, i) => utcDay(now - (endOffset + days - 1 - i) * DAY_MS));
}

function stat(account: AccountState, now: number, days: number, field: 'messages' | 'calls' | 'minutes') {
  const spark = windowDays(now, days).map((day) => round(account.daily[day]?.[field] ?? 0));
  const value = round(spark.reduce((a, b) => a + b, 0));
  const previous = windowDays(now, days, days).reduce((sum, day) => sum + (account.daily[day]?.[field] ?? 0), 0);
  // Part 4.3: null when the previous equal window had no activity.
  const deltaPct = previous === 0 ? null : round(((value - previous) / previous) * 100, 1);
  return { value, deltaPct, spark };
}

function windowSum(account: AccountState, now: number, days: number, field: 'messages' | 'calls' | 'minutes'): number {
  return round(windowDays(now, days).reduce((sum, day) => sum + (account.daily[day]?.[field] ?? 0), 0));
}

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: number[], p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** The histogram buckets, read from the labels of the contract's `usageLastWeek` example (`0-1 min` ...). */
function histogramBuckets(ctx: Pick<RuleContext, 'contract'>): Array<{ label: string; fromSec: number; toSec: number }> {
  const example = ctx.contract.example('getUsage', 200, 'usageLastWeek');
  const buckets = example.callDuration.histogram.map((entry) => {
    const [, from, to] = /^(\d+)-(\d+) min$/.exec(entry.label) ?? [];
    return { label: entry.label, fromSec: Number(from) * 60, toSec: Number(to) * 60 };
  });
  const last = buckets[buckets.length - 1];
  // Longer calls (up to 3600 s, part 8) land in one open bucket after the documented ones.
  if (last) buckets.push({ label: `${last.toSec / 60}+ min`, fromSec: last.toSec, toSec: Infinity });
  return buckets;
}

function callDuration(ctx: RequestContext, account: AccountState, days: string[]) {
  const inWindow = new Set(days);
  const seconds = usageState(account)
    .durations.filter(([day]) => inWindow.has(day))
    .map(([, s]) => s)
    .sort((a, b) => a - b);
  if (seconds.length === 0) return { sampleSize: 0, medianSec: 0, p95Sec: 0, longestSec: 0, histogram: [] };
  const middle = Math.floor(seconds.length / 2);
  const median = seconds.length % 2 ? seconds[middle]! : (seconds[middle - 1]! + seconds[middle]!) / 2;
  const histogram = histogramBuckets(ctx)
    .map((bucket) => {
      const count = seconds.filter((s) => s >= bucket.fromSec && s < bucket.toSec).length;
      return { label: bucket.label, count, pct: round(count / seconds.length, 4) };
    })
    .filter((entry, i, all) => i < all.length - 1 || entry.count > 0);
  return { sampleSize: seconds.length, medianSec: round(median), p95Sec: percentile(seconds, 95), longestSec: seconds[seconds.length - 1]!, histogram };
}

/** Adds a month in UTC, clamping the day to the month's length (Jan 31 → Feb 28). */
function addMonths(ms: number, months: number): number {
  const date = new Date(ms);
  const anchorDay = date.getUTCDate();
  const target = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(anchorDay, lastDay));
  return target.getTime();
}

/** The monthly cycle containing `now`, anchored to the account's creation (part 4.3). */
export function currentCycle(createdAt: string, now: number): { start: number; end: number } {
  const anchor = Date.parse(createdAt);
  let months = Math.max(0, (new Date(now).getUTCFullYear() - new Date(anchor).getUTCFullYear()) * 12 + new Date(now).getUTCMonth() - new Date(anchor).getUTCMonth() - 1);
  while (addMonths(anchor, months + 1) <= now) months++;
  return { start: addMonths(anchor, months), end: addMonths(anchor, months + 1) };
}

function currentPeriod(ctx: RequestContext, account: AccountState) {
  const { start, end } = currentCycle(account.createdAt, ctx.now);
  const state = usageState(account);
  const firstDay = utcDay(start);
  const all = emptySplit();
  const perNumber: Record<string, Split> = {};
  for (const [day, numbers] of Object.entries(state.days)) {
    if (day < firstDay || day > utcDay(ctx.now)) continue;
    for (const [numberId, split] of Object.entries(numbers)) {
      addSplit(all, split);
      addSplit((perNumber[numberId] ??= emptySplit()), split);
    }
  }
  const roundMinutes = (split: Split): Split => {
    for (const [direction, geography] of WAYS) split.voice[direction][geography].minutes = round(split.voice[direction][geography].minutes);
    return split;
  };
  const daysTotal = Math.round((end - start) / DAY_MS);
  const daysElapsed = Math.min(daysTotal, Math.floor((ctx.now - start) / DAY_MS));
  return {
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    daysTotal,
    daysElapsed,
    daysLeft: daysTotal - daysElapsed,
    all: roundMinutes(all),
    numbers: account.numbers.map((number) => ({
      id: number.id,
      number: number.number,
      nickname: number.nickname,
      createdAt: number.createdAt,
      breakdown: roundMinutes(perNumber[number.id] ?? emptySplit()),
    })),
  };
}

/** The usage answer for a window of `periodDays` (part 4.3). */
export function computeUsage(ctx: RequestContext, account: AccountState, periodDays: number): UsageRecord {
  const now = ctx.now;
  const days = windowDays(now, periodDays);
  const state = usageState(account);
  const messagesByNumber: Record<string, number> = {};
  const inWindow = new Set(days);
  for (const [day, numbers] of Object.entries(state.days)) {
    if (!inWindow.has(day)) continue;
    for (const [numberId, split] of Object.entries(numbers)) {
      messagesByNumber[numberId] = WAYS.reduce((sum, [direction, geography]) => sum + split.messages[direction][geography].count, messagesByNumber[numberId] ?? 0);
    }
  }
  const breakdown = (field: 'messages' | 'calls' | 'minutes') => ({ d7: windowSum(account, now, 7, field), d30: windowSum(account, now, 30, field), all: round(state.all[field]) });
  return {
    periodDays,
    stats: { messages: stat(account, now, periodDays, 'messages'), calls: stat(account, now, periodDays, 'calls'), minutes: stat(account, now, periodDays, 'minutes') },
    series: days.map((date) => ({ date, messages: account.daily[date]?.messages ?? 0, calls: account.daily[date]?.calls ?? 0 })),
    callDuration: callDuration(ctx, account, days),
    // The account's numbers by messages in the window, most first (the examples count messages).
    topNumbers: account.numbers
      .map((number) => ({ number: number.number, nickname: number.nickname, createdAt: number.createdAt, count: messagesByNumber[number.id] ?? 0 }))
      .sort((a, b) => b.count - a.count),
    breakdown: { messages: breakdown('messages'), calls: breakdown('calls'), minutes: breakdown('minutes') },
    totals: { messages: state.all.messages, calls: state.all.calls, numbers: account.numbers.length },
    currentPeriod: currentPeriod(ctx, account),
  };
}

/** The window of this request's `days`. */
function requestedWindow(ctx: RequestContext): number {
  const parameter = ((ctx.contract.operation('getUsage').parameters ?? []) as JsonObject[]).find((p) => p.name === 'days');
  return usageWindow(parameter?.schema, ctx.request.query.getAll('days'));
}

/** Whether every violation the gate found is about `days`, which part 4.3 never refuses. */
const onlyDaysViolations = (ctx: RequestContext): boolean =>
  ctx.request.violations.length > 0 && ctx.request.violations.every((verdict) => verdict.in === 'query' && verdict.parameter === 'days');

export const usageModule: ResourceModule = {
  name: 'usage',
  parts: '4.3',
  reads: ['getUsage'],
  handlers: {
    getUsage: (ctx) => ctx.json(200, computeUsage(ctx, ctx.account, requestedWindow(ctx))),
  },
  precheck: {
    // A repeated or odd `days` falls back to 30 (part 4.3) rather than a 400.
    getUsage: (ctx) => (onlyDaysViolations(ctx) ? ctx.json(200, computeUsage(ctx, ctx.account, requestedWindow(ctx))) : undefined),
  },
  seed(ctx, account) {
    // Seeded history has no time: it is traffic of the day the account was opened (see the top).
    const at = Date.parse(account.createdAt);
    const own = new Set(account.numbers.map((number) => number.number));
    for (const message of account.messages) {
      recordTraffic(ctx, account, 'message', { direction: own.has(message.from) ? 'outbound' : 'inbound', record: message }, at);
    }
    for (const call of account.calls) if (call.terminationType !== undefined) recordTraffic(ctx, account, 'call', { record: call }, at);
  },
};
