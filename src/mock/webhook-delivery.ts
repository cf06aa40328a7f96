// Webhook deliveries of the HTTP mock (part 6): the transport's delivery for the one fan-out
// (src/serve/webhook-fanout.ts, which decides where each event goes, retries with backoff and
// records the outcome). One attempt here is a POST of the event as JSON with `X-Service-Event-ID`
// equal to the event id, signed when a secret is set, over node:http. The mock only ever contacts
// loopback URLs (part 6 rule 1, the same check as the local fan-out): a subscription to any other
// URL is accepted but never contacted, and each delivery to it is recorded as `skipped`.
import { DEFAULT_SIGNATURE_HEADER, deliveryHeaders, isSuccess, postOnce, type Attempt } from '../delivery/deliver.js';
import { loopbackRule, parseTargetUrl, type LoopbackRule } from '../delivery/loopback-url.js';
import type { SimWatch } from '../simulator/simulator.js';
import { startWebhookFanout, type FanoutSettings, type WebhookFanout, type WebhookFanoutOptions } from '../serve/webhook-fanout.js';

/** The environment variable whose value signs webhook deliveries (HMAC-SHA256 hex, inferred). */
export const WEBHOOK_SECRET_ENV = 'NUMBERS_API_WEBHOOK_SECRET';

export interface WebhookDeliverySettings extends FanoutSettings {
  /** Per attempt (default 5000 ms, as the local fan-out's default `--timeout`). */
  timeoutMs: number;
  /** Signs each delivery: HMAC-SHA256 hex of the raw body in `signatureHeader` (inferred; part 5.10 does not show the scheme). */
  secret?: string;
  signatureHeader: string;
}

/** The fan-out's options, its delivery made here. */
export interface WebhookDeliveryOptions extends Partial<WebhookDeliverySettings>, Omit<WebhookFanoutOptions, 'deliver'> {
  /** One attempt; default: POST over node:http to a loopback address only. */
  send?: (url: URL, rawBody: string, headers: Record<string, string>, timeoutMs: number) => Promise<Attempt>;
}

export interface WebhookDelivery extends WebhookFanout {
  /** Changes the settings of deliveries that start from now on (tests use short timeouts). */
  configure(settings: Partial<WebhookDeliverySettings>): void;
}

const running = new WeakMap<SimWatch, WebhookDelivery>();

/** The deliveries started for this simulator (by `startMock`), if any. */
export function webhookDeliveryFor(simulator: SimWatch): WebhookDelivery | undefined {
  return running.get(simulator);
}

export function startWebhookDelivery(options: WebhookDeliveryOptions): WebhookDelivery {
  const { simulator } = options;
  const settings = {
    timeoutMs: options.timeoutMs ?? 5000,
    secret: options.secret ?? (process.env[WEBHOOK_SECRET_ENV] || undefined),
    signatureHeader: options.signatureHeader ?? DEFAULT_SIGNATURE_HEADER,
  };
  const send = options.send ?? postOnce;
  let rule: LoopbackRule | undefined;
  const loopbackUrl = (url: string): URL | undefined => {
    try {
      return parseTargetUrl(url, (rule ??= loopbackRule()));
    } catch {
      return undefined;
    }
  };
  const fanout = startWebhookFanout({
    ...options,
    deliver({ subscription, event, rawBody }) {
      const target = loopbackUrl(String(subscription.url));
      if (!target) return { skipped: 'not a loopback URL: the mock never contacts it' };
      const headers = { ...deliveryHeaders(rawBody, settings), 'X-Service-Event-ID': event.id };
      return send(target, rawBody, headers, settings.timeoutMs).then((attempt) => ({ delivered: isSuccess(attempt), ...(attempt.status !== undefined ? { status: attempt.status } : {}), ...(attempt.error ? { error: attempt.error } : {}) }));
    },
  });

  const delivery: WebhookDelivery = {
    configure({ attempts, backoffMs, ...rest }) {
      fanout.configure({ ...(attempts !== undefined ? { attempts } : {}), ...(backoffMs !== undefined ? { backoffMs } : {}) });
      Object.assign(settings, rest);
    },
    idle: () => fanout.idle(),
    stop() {
      fanout.stop();
      running.delete(simulator);
    },
  };
  running.set(simulator, delivery);
  return delivery;
}
