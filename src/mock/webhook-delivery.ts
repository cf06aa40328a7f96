// Webhook deliveries of the stateful mock (part 6): each event of an account is POSTed to the URL
// of every subscription whose `eventTypes` name its type (a `webhook.ping` to its own subscription
// only), as JSON with `X-Service-Event-ID` equal to the event id. At-least-once: a non-2xx answer,
// a connection error or a timeout is retried with backoff, and after the last attempt the
// delivery is recorded as failed on the subscription (`lastDelivery`, `failedDeliveries`).
//
// The mock only ever contacts loopback URLs (part 6 rule 1, the same check as the local fan-out):
// a subscription to any other URL is accepted but never contacted, and each delivery to it is
// recorded as `skipped`. The core (src/simulator/resources/events.ts) decides where an event goes
// and records outcomes; the sending is node-only and lives here, injectable (`send`) so that
// another transport can deliver through a callback.
import { DEFAULT_SIGNATURE_HEADER, deliveryHeaders, isSuccess, postOnce, type Attempt } from '../delivery/deliver.js';
import { loopbackRule, parseTargetUrl, type LoopbackRule } from '../delivery/loopback-url.js';
import { recordWebhookDelivery, webhookTargets, type WebhookDeliveryReport } from '../simulator/resources/events.js';
import type { Simulator } from '../simulator/simulator.js';
import type { SimEvent } from '../simulator/types.js';

/** The environment variable whose value signs webhook deliveries (HMAC-SHA256 hex, inferred). */
export const WEBHOOK_SECRET_ENV = 'NUMBERS_API_WEBHOOK_SECRET';

export interface WebhookDeliverySettings {
  /** Attempts per delivery, the first included (default 4). */
  attempts: number;
  /** Waits before the 2nd, 3rd ... attempt, in ms (the last value repeats). Default 250, 1000, 4000. */
  backoffMs: number[];
  /** Per attempt (default 5000 ms, as the local fan-out's default `--timeout`). */
  timeoutMs: number;
  /** Signs each delivery: HMAC-SHA256 hex of the raw body in `signatureHeader` (inferred; part 5.10 does not show the scheme). */
  secret?: string;
  signatureHeader: string;
}

export interface WebhookDeliveryOptions extends Partial<WebhookDeliverySettings> {
  simulator: Simulator;
  /** One attempt; default: POST over node:http to a loopback address only. */
  send?: (url: URL, rawBody: string, headers: Record<string, string>, timeoutMs: number) => Promise<Attempt>;
  /** One line per delivery. */
  log?: (line: string) => void;
}

export interface WebhookDelivery {
  /** Changes the settings of deliveries that start from now on (tests use short timeouts). */
  configure(settings: Partial<WebhookDeliverySettings>): void;
  /** Resolves once no delivery is in progress. */
  idle(): Promise<void>;
  /** Stops delivering: no new delivery starts and pending retries are dropped. */
  stop(): void;
}

const running = new WeakMap<Simulator, WebhookDelivery>();

/** The deliveries started for this simulator (by `startMock`), if any. */
export function webhookDeliveryFor(simulator: Simulator): WebhookDelivery | undefined {
  return running.get(simulator);
}

export function startWebhookDelivery(options: WebhookDeliveryOptions): WebhookDelivery {
  const { simulator } = options;
  const settings: WebhookDeliverySettings = {
    attempts: options.attempts ?? 4,
    backoffMs: options.backoffMs ?? [250, 1000, 4000],
    timeoutMs: options.timeoutMs ?? 5000,
    secret: options.secret ?? (process.env[WEBHOOK_SECRET_ENV] || undefined),
    signatureHeader: options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER,
  };
  const send = options.send ?? postOnce;
  let rule: LoopbackRule | undefined;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const sleeping = new Set<{ timer: ReturnType<typeof setTimeout>; wake: () => void }>();
  let idleWaiters: Array<() => void> = [];

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

  function loopbackUrl(url: string): URL | undefined {
    try {
      return parseTargetUrl(url, (rule ??= loopbackRule()));
    } catch {
      return undefined;
    }
  }

  async function deliver(accountId: string, hookId: string, url: string, event: SimEvent): Promise<void> {
    const rawBody = JSON.stringify(event);
    const base = { eventId: event.id, eventType: event.type };
    const target = loopbackUrl(url);
    let report: WebhookDeliveryReport;
    if (!target) {
      report = { ...base, outcome: 'skipped', attempts: 0, detail: 'not a loopback URL: the mock never contacts it' };
    } else {
      const { secret, signatureHeader, attempts, backoffMs, timeoutMs } = settings;
      const headers = { ...deliveryHeaders(rawBody, { secret, signatureHeader }), 'X-Service-Event-ID': event.id };
      let last: Attempt | undefined;
      let made = 0;
      for (let number = 1; number <= attempts && !stopped; number++) {
        if (number > 1) await sleep(backoffMs[Math.min(number - 2, backoffMs.length - 1)] ?? 0);
        if (stopped) break;
        last = await send(target, rawBody, headers, timeoutMs);
        made = number;
        if (isSuccess(last)) break;
      }
      const delivered = last !== undefined && isSuccess(last);
      report = {
        ...base,
        outcome: delivered ? 'delivered' : 'failed',
        attempts: made,
        ...(last?.status !== undefined ? { lastStatus: last.status } : {}),
        ...(!delivered ? { detail: last ? (last.error ?? `HTTP ${last.status}`) : 'stopped before the first attempt' } : {}),
      };
    }
    options.log?.(
      `webhook ${hookId} ${event.type} ${event.id}: ${report.outcome}` +
        (report.attempts ? ` after ${report.attempts} attempt(s)` : '') +
        (report.detail ? ` (${report.detail})` : ''),
    );
    if (!stopped) simulator.withContext((ctx) => recordWebhookDelivery(ctx, accountId, hookId, report));
  }

  const unsubscribe = simulator.onEvent((event, account) => {
    if (stopped) return;
    // Asked now, while emit runs: a ping's target is known only then.
    for (const hook of webhookTargets(account, event)) {
      const job = deliver(account.id, String(hook.id), String(hook.url), event)
        .catch((error: unknown) => options.log?.(`webhook ${String(hook.id)}: ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => {
          inFlight.delete(job);
          if (inFlight.size === 0) {
            const waiters = idleWaiters;
            idleWaiters = [];
            for (const resolve of waiters) resolve();
          }
        });
      inFlight.add(job);
    }
  });

  const delivery: WebhookDelivery = {
    configure(changes) {
      Object.assign(settings, changes);
    },
    idle: () => (inFlight.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve))),
    stop() {
      stopped = true;
      unsubscribe();
      for (const entry of [...sleeping]) entry.wake();
      running.delete(simulator);
    },
  };
  running.set(simulator, delivery);
  return delivery;
}
