// Webhook deliveries of the stateful mock (part 6), the one fan-out of every transport: each event
// of an account goes to every subscription whose `eventTypes` name its type (a `webhook.ping` to
// its own subscription only), at least once: a failed attempt is tried again after a backoff, up
// to `attempts`, and the outcome is recorded on the subscription (`lastDelivery`,
// `failedDeliveries`, a ping's `lastPingAt`). Deliveries start after the request that caused them
// has been answered. How one attempt is made is the transport's, injected as `deliver`: the HTTP
// mock POSTs to loopback URLs only (src/mock/webhook-delivery.ts), the in-process mock calls the
// page's callback (src/msw/handlers.ts). Browser-safe (timers only).
import { recordWebhookDelivery, type WebhookDeliveryReport } from '../simulator/resources/events.js';
import type { SimWatch } from '../simulator/simulator.js';
import type { SimStore } from '../store/store.js';
import type { JsonObject, SimEvent } from '../simulator/types.js';

/** What one attempt came to. */
export interface DeliveryAttempt {
  delivered: boolean;
  /** The HTTP status, when an endpoint answered. */
  status?: number;
  /** What went wrong, when it did. */
  error?: string;
}

/** One delivery as the transport makes it: the subscription and the event as they were when it was emitted. */
export interface Delivery {
  subscription: JsonObject;
  event: SimEvent;
  /** The event as the JSON text every attempt sends. */
  rawBody: string;
}

/** The transport's delivery: one attempt, or why the target is never contacted (a URL the mock does not reach). */
export type Deliver = (delivery: Delivery) => Promise<DeliveryAttempt> | { skipped: string };

export interface FanoutSettings {
  /** Attempts per delivery, the first included. */
  attempts: number;
  /** Waits before the 2nd, 3rd ... attempt, in ms (the last value repeats). */
  backoffMs: number[];
}

export interface WebhookFanoutOptions extends Partial<FanoutSettings> {
  simulator: SimWatch;
  /** Where outcomes are recorded. */
  store: SimStore;
  deliver: Deliver;
  /** One line per delivery. */
  log?: (line: string) => void;
}

export interface WebhookFanout {
  /** Changes the settings of deliveries that start from now on. */
  configure(settings: Partial<FanoutSettings>): void;
  /** Resolves once no delivery is in progress. */
  idle(): Promise<void>;
  /** Stops delivering: no new delivery starts and pending retries are dropped. */
  stop(): void;
}

export function startWebhookFanout(options: WebhookFanoutOptions): WebhookFanout {
  const { simulator, deliver } = options;
  const settings: FanoutSettings = { attempts: options.attempts ?? 4, backoffMs: options.backoffMs ?? [250, 1000, 4000] };
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const sleeping = new Set<{ timer: ReturnType<typeof setTimeout>; wake: () => void }>();
  const idleWaiters: Array<() => void> = [];

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const entry = { timer: setTimeout(() => done(), ms), wake: () => done() };
      const done = (): void => {
        clearTimeout(entry.timer);
        sleeping.delete(entry);
        resolve();
      };
      sleeping.add(entry);
    });

  async function fanOut(accountId: string, delivery: Delivery): Promise<void> {
    // A macrotask: after the request that caused it has been answered (or the step has run).
    await sleep(0);
    const { event, subscription } = delivery;
    const base = { eventId: event.id, eventType: event.type };
    let report: WebhookDeliveryReport;
    const first = stopped ? undefined : deliver(delivery);
    if (first && 'skipped' in first) {
      report = { ...base, outcome: 'skipped', attempts: 0, detail: first.skipped };
    } else {
      const { attempts, backoffMs } = settings;
      let last: DeliveryAttempt | undefined;
      let made = 0;
      let next = first;
      for (let number = 1; number <= attempts && !stopped && next; number++) {
        last = await next;
        made = number;
        if (last.delivered || number === attempts) break;
        await sleep(backoffMs[Math.min(number - 1, backoffMs.length - 1)] ?? 0);
        const again = stopped ? undefined : deliver(delivery);
        next = again && !('skipped' in again) ? again : undefined;
      }
      const delivered = last?.delivered === true;
      report = {
        ...base,
        outcome: delivered ? 'delivered' : 'failed',
        attempts: made,
        ...(last?.status !== undefined ? { lastStatus: last.status } : {}),
        ...(!delivered ? { detail: last ? (last.error ?? `HTTP ${last.status}`) : 'stopped before the first attempt' } : {}),
      };
    }
    options.log?.(`webhook ${String(subscription.id)} ${event.type} ${event.id}: ${report.outcome}${report.attempts ? ` after ${report.attempts} attempt(s)` : ''}${report.detail ? ` (${report.detail})` : ''}`);
    if (stopped) return;
    await options.store.run({ accountId }, (sim) => sim.withContext((ctx) => recordWebhookDelivery(ctx, accountId, String(subscription.id), report)));
  }

  const unsubscribe = simulator.onEvent((event, account, _seq, hooks) => {
    if (stopped) return;
    // `hooks` were asked while the event was emitted (a ping's target is known only then), as
    // copies: each delivery carries the event and the subscription as they were then.
    const rawBody = JSON.stringify(event);
    for (const hook of hooks) {
      const delivery: Delivery = { subscription: hook, event: JSON.parse(rawBody) as SimEvent, rawBody };
      const job = fanOut(account.id, delivery)
        .catch((error: unknown) => options.log?.(`webhook ${String(hook.id)}: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          inFlight.delete(job);
          if (inFlight.size === 0) for (const resolve of idleWaiters.splice(0)) resolve();
        });
      inFlight.add(job);
    }
  });

  return {
    configure(changes) {
      Object.assign(settings, changes);
    },
    idle: () => (inFlight.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve))),
    stop() {
      stopped = true;
      unsubscribe();
      for (const entry of [...sleeping]) entry.wake();
    },
  };
}
