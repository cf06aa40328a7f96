// The local listening agent (part 6, local fan-out target rules; part 5.9): reads the account's
// events from a deployment (the mock or a live base URL) with `POST /api/v1/events/wait` long
// polls, and POSTs each event's raw JSON to every registered loopback target.
// - every target gets every event; deliveries run independently, never one after another (rule 4);
// - a 2xx is delivered; any other status, a connection error or a timeout gets one retry, then the
//   event is logged and dropped for that target; nothing is queued (rule 3; src/delivery/deliver.ts);
// - targets are loopback URLs only (rule 1) and can be added, listed and removed while it runs (rule 5);
// - a 408 is the expected end of an empty window: wait again; a 429 is waited out as `Retry-After`
//   says; a lost connection (or a 5xx) is resumed with backoff;
// - a base URL that refuses the very first connection (nothing listens there, or its host does not
//   resolve) stops the agent at once: it is a wrong address, not an outage to wait out.
//
// It trusts nothing the deployment sends (issue 27, item 8): an answer's body is read up to
// MAX_ANSWER_BYTES; only a 200 whose body is JSON with the event envelope (part 6) is forwarded,
// anything else (not JSON, not an event, a redirect, which is never followed) is logged and waited
// out with growing backoff; what it prints of an answer is its status and a summary with every
// key redacted and control characters taken out, never the body as it came; and it opens at most
// MAX_IN_FLIGHT_PER_TARGET deliveries to one target at a time (past that an event is dropped for
// that target, and said, as rule 3 drops a failed one: nothing is queued).
import { deliverEvent, isSuccess, type Attempt, type DeliveryOptions } from '../delivery/deliver.js';
import { dict } from '../contract/dict.js';
import { parseTargetUrl } from '../delivery/loopback-url.js';
import { loadOpenApi } from '../contract/generated-files.js';

/** The most of one answer of the deployment the agent reads (an event is a few KB). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Deliveries in progress to one target at most (each holds a connection for up to two attempts). */
export const MAX_IN_FLIGHT_PER_TARGET = 32;

export interface ListenOptions {
  /** The deployment, e.g. `http://127.0.0.1:4010` or the service's base URL. */
  baseUrl: URL;
  apiKey: string;
  /** Targets to start with (checked with `parseTargetUrl`). */
  targets?: URL[];
  /** Signing, bearer token and per-attempt timeout of deliveries. */
  delivery?: DeliveryOptions;
  /** Seconds each long poll may wait (1 to 60, part 8; default 30). */
  waitSeconds?: number;
  /** `filters` of every wait (default `{}`: every event). */
  filters?: Record<string, unknown>;
  /** One line per delivery and per connection change. */
  log?: (line: string) => void;
  /** Backoff after a lost connection, in ms: doubled each time up to the maximum. */
  backoffMs?: { initial: number; max: number };
  /** Delivery, injectable for tests (default: the event source's, one retry). */
  deliver?: typeof deliverEvent;
}

export interface TargetStats {
  delivered: number;
  dropped: number;
}

export interface ListenSummary {
  events: number;
  delivered: number;
  dropped: number;
  byTarget: Record<string, TargetStats>;
}

export interface ListenOutcome {
  reason: 'stopped' | 'unauthorized' | 'unreachable';
  message?: string;
}

/** Network errors that mean no server is there at all, as opposed to one that went away. */
const NOTHING_THERE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);

/** The cause of a failed fetch, as `ECONNREFUSED 127.0.0.1:4010`. */
export function connectionCause(error: unknown): { code?: string; text: string } {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return { code: cause?.code, text: String(cause?.message ?? cause ?? (error as Error)?.message ?? error) };
}

export interface ListenAgent {
  addTarget(url: string): URL;
  /** False when the URL was not a target. */
  removeTarget(url: string): boolean;
  targets(): string[];
  summary(): ListenSummary;
  /** Resolves once the first wait has been sent (for tests and the bench). */
  polling: Promise<void>;
  /** Resolves when every delivery in progress has ended. */
  idle(): Promise<void>;
  /** Stops reading events, lets deliveries in progress end, resolves with the summary. */
  stop(): Promise<ListenSummary>;
  /**
   * Resolves when the agent stops for good: on `stop`, a fatal answer (401), or a base URL that
   * refused the first connection (`unreachable`, with the cause).
   */
  done: Promise<ListenOutcome>;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

function describe(attempt: Attempt): string {
  return attempt.status !== undefined ? `HTTP ${attempt.status} in ${attempt.ms} ms` : `${attempt.error} after ${attempt.ms} ms`;
}

/** Text from elsewhere as it may be printed: no control characters (no terminal escapes, no fake lines), at most `max` characters. */
export function printable(text: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** Every API key in `text` shown as a preview (part 5.3: a key is never shown whole). */
export function redactKeys(text: string): string {
  return text.replace(/sk_live_[^\s"',;]*/g, (key) => `sk_live_…${key.length > 12 ? key.slice(-4) : ''}`);
}

/** What may be printed of an answer's body: its `error` if it is the Error shape, else its size; redacted, printable. */
export function answerSummary(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (parsed && typeof parsed === 'object' && typeof parsed.error === 'string') return printable(redactKeys(parsed.error), 200);
  } catch {
    // not JSON
  }
  return `a body of ${text.length} characters, not shown`;
}

/** The body of `response`, or undefined when it is larger than `max` bytes (then it is not read further). */
export async function readCapped(response: Response, max: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

let envelope: string[] | undefined;
/** The fields every event carries (part 6), read from the contract's `Event` schema. */
function envelopeFields(): string[] {
  return (envelope ??= (loadOpenApi().components?.schemas?.Event?.required ?? ['id', 'type', 'data']) as string[]);
}

/** The event in a 200's body, when it is JSON with the part-6 envelope (a string id and type, an object `data`). */
function parseEvent(text: string): { id: string; type: string } | undefined {
  try {
    const value = JSON.parse(text) as Record<string, unknown> | null;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    if (!envelopeFields().every((field) => field in value)) return undefined;
    if (typeof value.id !== 'string' || typeof value.type !== 'string' || value.data === null || typeof value.data !== 'object') return undefined;
    return { id: value.id, type: value.type };
  } catch {
    return undefined;
  }
}

export function startListenAgent(options: ListenOptions): ListenAgent {
  const log = options.log ?? (() => undefined);
  const deliver = options.deliver ?? deliverEvent;
  const waitSeconds = options.waitSeconds ?? 30;
  const backoff = options.backoffMs ?? { initial: 500, max: 30_000 };
  const waitUrl = new URL('/api/v1/events/wait', options.baseUrl);
  // Normalised href → URL; a Map keeps the order targets were added in.
  const targets = new Map<string, URL>();
  for (const url of options.targets ?? []) targets.set(url.href, url);
  const stats: ListenSummary = { events: 0, delivered: 0, dropped: 0, byTarget: dict() };
  const inFlight = new Set<Promise<void>>();
  const controller = new AbortController();
  let markPolling: () => void = () => undefined;
  const polling = new Promise<void>((resolve) => (markPolling = resolve));

  /** Deliveries in progress, per target. */
  const busy = new Map<string, number>();

  function fanOut(rawBody: string, event: { id: string; type: string }): void {
    const label = `${printable(event.type, 60)} ${printable(event.id, 60)}`;
    stats.events++;
    if (targets.size === 0) log(`${label}: no target registered; not delivered.`);
    for (const [href, url] of targets) {
      const counts = (stats.byTarget[href] ??= { delivered: 0, dropped: 0 });
      if ((busy.get(href) ?? 0) >= MAX_IN_FLIGHT_PER_TARGET) {
        counts.dropped++;
        stats.dropped++;
        log(`${label} -> ${href}: dropped, ${MAX_IN_FLIGHT_PER_TARGET} deliveries to it are still in progress; nothing is queued`);
        continue;
      }
      busy.set(href, (busy.get(href) ?? 0) + 1);
      const job = deliver(url, rawBody, options.delivery).then((result) => {
        const last = result.attempts[result.attempts.length - 1]!;
        if (result.delivered) {
          counts.delivered++;
          stats.delivered++;
          log(`${label} -> ${href}: delivered (${describe(last)}${result.attempts.length > 1 ? ', on the retry' : ''})`);
        } else {
          counts.dropped++;
          stats.dropped++;
          const first = result.attempts[0]!;
          log(`${label} -> ${href}: dropped after ${result.attempts.length} attempts (${isSuccess(first) ? '' : `${describe(first)}; `}${describe(last)}); nothing is queued`);
        }
      });
      const tracked = job.finally(() => {
        busy.set(href, (busy.get(href) ?? 1) - 1);
        inFlight.delete(tracked);
      });
      inFlight.add(tracked);
    }
  }

  async function run(): Promise<ListenOutcome> {
    let delay = backoff.initial;
    let connected = false;
    let answered = false;
    const body = JSON.stringify({ timeout: waitSeconds, filters: options.filters ?? {} });
    while (!controller.signal.aborted) {
      let response: Response;
      try {
        const sent = fetch(waitUrl, {
          method: 'POST',
          headers: { Authorization: `Bearer ${options.apiKey}`, 'Content-Type': 'application/json', Accept: 'application/json' },
          body,
          // A redirect is the deployment's answer, not a place to send the key to.
          redirect: 'manual',
          signal: controller.signal,
        });
        markPolling();
        response = await sent;
      } catch (error) {
        if (controller.signal.aborted) break;
        const cause = connectionCause(error);
        if (!answered && cause.code && NOTHING_THERE.has(cause.code)) return { reason: 'unreachable', message: cause.text };
        log(`connection to ${options.baseUrl.origin} ${answered ? 'lost' : 'failed'} (${cause.text}); retrying in ${delay / 1000} s`);
        connected = false;
        await sleep(delay, controller.signal);
        delay = Math.min(backoff.max, delay * 2);
        continue;
      }
      answered = true;
      let text: string | undefined;
      try {
        text = await readCapped(response, MAX_ANSWER_BYTES);
      } catch {
        if (controller.signal.aborted) break;
        text = '';
      }
      if (!connected && response.status !== 401) {
        connected = true;
        log(`listening for events from ${options.baseUrl.origin}`);
      }
      const backOff = async (why: string): Promise<void> => {
        log(`${why}; retrying in ${delay / 1000} s`);
        await sleep(delay, controller.signal);
        delay = Math.min(backoff.max, delay * 2);
      };
      if (response.status === 200) {
        const event = text === undefined ? undefined : parseEvent(text);
        if (!event) {
          await backOff(`events/wait answered 200 with ${text === undefined ? `more than ${MAX_ANSWER_BYTES} bytes` : 'a body that is not an event (part 6 envelope)'}; not forwarded`);
          continue;
        }
        delay = backoff.initial;
        fanOut(text!, event);
        continue;
      }
      if (response.status === 408) {
        delay = backoff.initial;
        continue;
      }
      if (response.status === 401) return { reason: 'unauthorized', message: text === undefined ? 'a body too large to read' : answerSummary(text) };
      if (response.status >= 300 && response.status < 400) {
        await backOff(`events/wait answered ${response.status}, a redirect${response.headers.get('location') ? ` to ${printable(redactKeys(response.headers.get('location')!), 100)}` : ''}, which is not followed`);
        continue;
      }
      if (response.status === 429) {
        const seconds = Number(response.headers.get('retry-after'));
        const wait = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : delay;
        log(`rate limited (429); waiting ${wait / 1000} s as Retry-After says`);
        await sleep(wait, controller.signal);
        continue;
      }
      // 5xx (503: the event stream is not configured), or anything unexpected: back off and resume.
      await backOff(`events/wait answered ${response.status}${text ? ` (${answerSummary(text)})` : ''}`);
    }
    return { reason: 'stopped' };
  }

  const done = run().then((result) => {
    markPolling();
    return result;
  });

  const idle = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  };

  return {
    addTarget(input) {
      const url = parseTargetUrl(input);
      targets.set(url.href, url);
      return url;
    },
    removeTarget(input) {
      let href = input;
      try {
        href = new URL(input).href;
      } catch {
        // compared as given
      }
      return targets.delete(href);
    },
    targets: () => [...targets.keys()],
    summary: () => structuredClone(stats),
    polling,
    idle,
    async stop() {
      controller.abort();
      await done;
      await idle();
      return structuredClone(stats);
    },
    done,
  };
}

export function formatSummary(summary: ListenSummary): string {
  const lines = [`${summary.events} event(s) received; ${summary.delivered} delivery(ies) made, ${summary.dropped} dropped.`];
  for (const [href, counts] of Object.entries(summary.byTarget)) lines.push(`  ${href}: ${counts.delivered} delivered, ${counts.dropped} dropped`);
  return `${lines.join('\n')}\n`;
}
