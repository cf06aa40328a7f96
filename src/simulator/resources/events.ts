// Events that follow actions (part 6): `POST /api/v1/events/wait` (parts 4.5, 6, 8) and the
// inferred webhook subscriptions (`/api/v1/webhooks`, part 6). The core only records: the
// simulator asks `webhookTargets` where an event goes as it is emitted; the fan-out
// (src/serve/webhook-fanout.ts) delivers it (node: src/mock/webhook-delivery.ts; MSW: a callback)
// and hands the outcome back to `recordWebhookDelivery`. What this module keeps outside the state
// (the waits held, the target of a ping being emitted) is its simulator's own (`ctx.local`).
//
// What the mock does where part 6 leaves it open (docs/guides/events.md says the same):
// - A key's FIRST wait sees only events that happen after it began: the stream is presence-based,
//   not at-least-once (part 6).
// - After that the mock remembers, per key and filter, the last event a wait handed out; the next
//   wait of that key with the same filters resumes right after it. A polling loop (and
//   `numbers-api listen`) therefore misses nothing between two waits, within the account's last
//   `EVENT_LOG_LIMIT` events.
// - Two waits running at the same time start from the same point, so both may receive the same
//   event: handlers must tolerate duplicates (as part 6 rule 4 asks of fan-out targets).
// - `webhook.ping` is never answered to a wait (part 6: it goes to its subscription only).
import type { ProcessLocal, RequestContext, ResourceModule, RuleContext } from '../context.js';
import { dict, type AccountState } from '../state.js';
import type { JsonObject, SimEvent, SimResponse } from '../types.js';
import type { WebhookRecord } from '../records.js';
import { CONTROL_PREFIX, reachesControlSurface } from '../../delivery/control-paths.js';

const PING = 'webhook.ping';
/** Webhook subscriptions one account may hold (inferred: part 6 shows no management operations, and no limit). */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
/** How many wait cursors an account keeps (one per key and filter set); the oldest go first. */
const CURSOR_LIMIT = 50;

/** A short stand-in for a long cursor name (53-bit cyrb53), so 50 cursors stay small whatever the filters. */
function shortName(text: string): string {
  if (text.length <= 256) return text;
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return `#${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}:${text.length}`;
}

/**
 * Whether `event` matches `filters` (part 4.5: `{groupId}`; other keys are not shown). The mock's
 * rule: `type` compares the envelope's type; every other key must equal the same-named field of
 * `data` (`groupId`, `messageId`, `channel`, `status`...). An event without that field does not match.
 */
export function matchesFilters(event: SimEvent, filters: JsonObject): boolean {
  return Object.entries(filters).every(([key, wanted]) => {
    const actual = key === 'type' ? event.type : event.data[key];
    return actual !== undefined && JSON.stringify(actual) === JSON.stringify(wanted);
  });
}

function cursors(account: AccountState): Record<string, number> {
  const events = ((account.extra.events as JsonObject | undefined) ??= dict());
  return ((events.waitCursors as Record<string, number> | undefined) ??= dict());
}

function saveCursor(account: AccountState, name: string, seq: number): void {
  const all = cursors(account);
  delete all[name]; // re-inserted last: the most recently used stays
  all[name] = seq;
  for (const old of Object.keys(all).slice(0, -CURSOR_LIMIT)) delete all[old];
}

function waitForEvent(ctx: RequestContext<'waitForEvent'>): SimResponse {
  // Part 7: 503 when the event stream is not configured on the deployment. The mock's always is;
  // its documented test value reaches the answer, and nothing is held.
  const notConfigured = ctx.testValue(['eventStreamNotConfigured']);
  if (notConfigured) return notConfigured;
  const { account } = ctx;
  const accountId = account.id;
  const timeout = Number(ctx.body.timeout);
  const filters: JsonObject = ctx.body.filters && typeof ctx.body.filters === 'object' ? ctx.body.filters : {};
  const { heldWaits } = ctx.local;
  const cursorName = shortName(`${ctx.request.headers.authorization ?? ''}\n${JSON.stringify(Object.keys(filters).sort().map((key) => [key, filters[key]]))}`);
  // The first wait of a key starts now; later ones resume after the last event handed out.
  const from = cursors(account)[cursorName] ?? ctx.state.eventSeq;
  saveCursor(account, cursorName, from);
  let held = false;
  /** Counts this wait among the account's held ones, or no longer. */
  const holding = (on: boolean): void => {
    if (held === on) return;
    held = on;
    const count = (heldWaits.get(accountId) ?? 0) + (on ? 1 : -1);
    if (count > 0) heldWaits.set(accountId, count);
    else heldWaits.delete(accountId);
  };
  const release = (): void => holding(false);
  // The 408 text is the documented one, with this wait's own number of seconds.
  const expired = ctx.documented(408, 'waitTimedOut');
  return {
    status: 200,
    hold: {
      accountId,
      timeoutMs: timeout * 1000,
      // Asked again, in a run of the store, after each event of the account: the account as the
      // state holds it then (a store may load it afresh), never the one of the request.
      check(state) {
        const account = state.accounts[accountId];
        const found = account?.events.find(({ seq, event }) => seq > from && event.type !== PING && matchesFilters(event, filters));
        if (!account || !found) {
          holding(true);
          return undefined;
        }
        release();
        if (found.seq > (cursors(account)[cursorName] ?? 0)) saveCursor(account, cursorName, found.seq);
        return { status: 200, body: found.event };
      },
      expire() {
        release();
        return { ...expired, body: { error: (expired.body as { error: string }).error.replace(/\d+/, String(timeout)) } };
      },
      cancel: release,
    },
  };
}

function pointsAtControl(url: string): boolean {
  try {
    return reachesControlSurface(new URL(url));
  } catch {
    return false; // not a URL WHATWG reads: never contacted (src/mock/webhook-delivery.ts)
  }
}

/** The subscriptions `event` goes to: the pinged one for `webhook.ping`, else those whose `eventTypes` name its type. */
export function webhookTargets(local: ProcessLocal, account: AccountState, event: SimEvent): JsonObject[] {
  if (event.type === PING) {
    // Asked while `emit` runs: the ping's target is known only then.
    const id = local.pingInFlight.get(account.id);
    return account.webhooks.filter((hook) => hook.id === id);
  }
  return account.webhooks.filter((hook) => Array.isArray(hook.eventTypes) && hook.eventTypes.includes(event.type));
}

/** What became of one delivery to one subscription, as the transport reports it. */
export interface WebhookDeliveryReport {
  eventId: string;
  eventType: string;
  /** `delivered` (a 2xx), `failed` (every attempt failed) or `skipped` (not a loopback URL: never contacted). */
  outcome: 'delivered' | 'failed' | 'skipped';
  attempts: number;
  /** The last HTTP status, when the endpoint answered. */
  lastStatus?: number;
  /** What went wrong, when it did. */
  detail?: string;
}

/**
 * Records a delivery's outcome on its subscription (inferred fields `lastDelivery` and
 * `failedDeliveries`); a ping answered 2xx updates `lastPingAt` (part 6).
 */
export function recordWebhookDelivery(ctx: RuleContext, accountId: string, subscriptionId: string, report: WebhookDeliveryReport): void {
  const hook = ctx.state.accounts[accountId]?.webhooks.find((candidate) => candidate.id === subscriptionId);
  if (!hook) return;
  hook.lastDelivery = {
    eventId: report.eventId,
    eventType: report.eventType,
    outcome: report.outcome,
    attempts: report.attempts,
    lastStatus: report.lastStatus ?? null,
    detail: report.detail ?? null,
    at: ctx.nowIso,
  };
  if (report.outcome !== 'delivered') hook.failedDeliveries = Number(hook.failedDeliveries ?? 0) + 1;
  if (report.outcome === 'delivered' && report.eventType === PING) hook.lastPingAt = ctx.nowIso;
}

export const eventsModule: ResourceModule = {
  name: 'events',
  parts: '4.5, 6, 8',
  precheck: {
    // `timeout` outside 1..60 (part 8): the documented message rather than the gate's wording.
    // A timeout that is not a number keeps the gate's own message.
    waitForEvent: (ctx) =>
      typeof ctx.body.timeout === 'number' && ctx.request.violations.some((verdict) => verdict.in === 'body' && verdict.field.join('.') === 'timeout')
        ? ctx.documented(400, 'timeoutOutOfRange')
        : undefined,
  },
  reads: ['listWebhookSubscriptions'],
  handlers: {
    waitForEvent,

    listWebhookSubscriptions: (ctx) => ctx.json(200, ctx.account.webhooks),

    createWebhookSubscription(ctx) {
      // Any absolute URL is accepted, as the contract's own examples are not loopback; the mock
      // only ever contacts loopback URLs (src/mock/webhook-delivery.ts) and records the rest as
      // skipped. Never the mock's control surface: an event must not reset the mock.
      if (pointsAtControl(String(ctx.body.url))) {
        return ctx.json(400, { error: { fieldErrors: { url: [`Must not point at the mock's control surface (${CONTROL_PREFIX}...).`] } } });
      }
      // Each event fans out to every subscription: their number is bounded (inferred).
      if (ctx.account.webhooks.length >= MAX_WEBHOOKS_PER_ACCOUNT) return ctx.documented(400, 'tooManySubscriptions');
      const hook: WebhookRecord = {
        id: ctx.ids.next('wh_'),
        url: String(ctx.body.url),
        eventTypes: Array.isArray(ctx.body.eventTypes) ? ctx.body.eventTypes.map(String) : [],
        lastPingAt: null,
        createdAt: ctx.nowIso,
      };
      ctx.account.webhooks.push(hook);
      return ctx.json(201, hook);
    },

    pingWebhook(ctx) {
      const { account } = ctx;
      const hook = account.webhooks.find((candidate) => candidate.id === ctx.params.id);
      if (!hook) return ctx.documented(404);
      // relatedObject null and data {} (part 6); it reaches this subscription only, whatever its eventTypes.
      ctx.local.pingInFlight.set(account.id, String(hook.id));
      try {
        ctx.emit(account, PING, {}, null);
      } finally {
        ctx.local.pingInFlight.delete(account.id);
      }
      return ctx.documented(200);
    },
  },
};
