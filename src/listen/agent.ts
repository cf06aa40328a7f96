// The local listening agent (part 6, local fan-out target rules; part 5.9): reads the account's
// events from a deployment (the mock or a live base URL) with `POST /api/v1/events/wait` long
// polls, and POSTs each event's raw JSON to every registered loopback target.
// - every target gets every event; deliveries run independently, never one after another (rule 4);
// - a 2xx is delivered; any other status, a connection error or a timeout gets one retry, then the
//   event is logged and dropped for that target; nothing is queued (rule 3; src/delivery/deliver.ts);
// - targets are loopback URLs only (rule 1) and can be added, listed and removed while it runs (rule 5);
// - a 408 is the expected end of an empty window: wait again; a 429 is waited out as `Retry-After`
//   says (part 8); a lost connection (or a 5xx) is resumed with backoff;
// - a base URL that refuses the very first connection (nothing listens there, or its host does not
//   resolve) stops the agent at once: it is a wrong address, not an outage to wait out.
//
// Each wait is the package's one outgoing request (src/request/: the base URL's own path kept, the
// key as middleware, no redirect followed, the answer read up to MAX_ANSWER_BYTES, its `Retry-After`
// parser and backoff). It trusts nothing the deployment sends (issue 27, item 8): only a 200 whose
// body is JSON with the event envelope (part 6) is forwarded, anything else (not JSON, not an
// event, a redirect) is logged and waited out with growing backoff; what it prints of an answer is
// its status and a summary with every key redacted and control characters taken out, never the
// body as it came; and it opens at most MAX_IN_FLIGHT_PER_TARGET deliveries to one target at a
// time (past that an event is dropped for that target, and said, as rule 3 drops a failed one:
// nothing is queued).
import { deliverEvent, describeAttempt, isSuccess, type DeliveryOptions } from '../delivery/deliver.js';
import { dict } from '../contract/dict.js';
import { parseTargetUrl } from '../delivery/loopback-url.js';
import { listOperations, loadOpenApi } from '../contract/generated-files.js';
import { hasEventEnvelope } from '../events/envelope.js';
import { createRequester, NoAnswer } from '../request/index.js';
import type { Redactor } from '../request/redact.js';
import { abortableSleep, backoffDelay, parseRetryAfter } from '../request/retry.js';

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

/** Text from elsewhere as it may be printed: no control characters (no terminal escapes, no fake lines), at most `max` characters. */
export function printable(text: string, max = 120): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}

/** What may be printed of an answer's body: its `error` if it is the Error shape, else its size; redacted, printable. */
function answerSummary(answer: { text: string; json: unknown }, redact: Redactor): string {
  const error = (answer.json as { error?: unknown } | null | undefined)?.error;
  return typeof error === 'string' ? printable(redact(error), 200) : `a body of ${answer.text.length} characters, not shown`;
}

/**
 * The fields every event carries (part 6), read from the contract's `Event` schema at run time:
 * the events entry's `isEvent` reads the generated constants, and the command's package holds
 * none (its tarball leaves dist/generated out).
 */
let envelope: string[] | undefined;

/** The event in a 200's body, when it is JSON with the part-6 envelope (a string id and type, an object `data`). */
function eventOf(json: unknown): { id: string; type: string } | undefined {
  envelope ??= (loadOpenApi().components?.schemas?.Event?.required ?? ['id', 'type', 'data']) as string[];
  return hasEventEnvelope(json, envelope) && typeof json.id === 'string' ? { id: json.id, type: json.type } : undefined;
}

export function startListenAgent(options: ListenOptions): ListenAgent {
  const log = options.log ?? (() => undefined);
  const waitSeconds = options.waitSeconds ?? 30;
  const backoff = options.backoffMs ?? { initial: 500, max: 30_000 };
  const waitOperation = listOperations(loadOpenApi()).find((entry) => entry.operation.operationId === 'waitForEvent')!;
  // A timeout a little past the wait's own window: a connection that hangs is resumed like a lost one.
  const requests = createRequester({ baseUrl: options.baseUrl, apiKey: options.apiKey, maxAnswerBytes: MAX_ANSWER_BYTES, timeoutMs: (waitSeconds + 15) * 1000 });
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
      /** The event's end at this target, counted and said. */
      const ended = (how: keyof TargetStats, line: string): void => {
        counts[how]++;
        stats[how]++;
        log(`${label} -> ${href}: ${line}`);
      };
      if ((busy.get(href) ?? 0) >= MAX_IN_FLIGHT_PER_TARGET) {
        ended('dropped', `dropped, ${MAX_IN_FLIGHT_PER_TARGET} deliveries to it are still in progress; nothing is queued`);
        continue;
      }
      busy.set(href, (busy.get(href) ?? 0) + 1);
      const job = deliverEvent(url, rawBody, options.delivery).then(({ delivered, attempts }) => {
        const [first, last] = [attempts[0]!, attempts[attempts.length - 1]!];
        if (delivered) ended('delivered', `delivered (${describeAttempt(last)}${attempts.length > 1 ? ', on the retry' : ''})`);
        else ended('dropped', `dropped after ${attempts.length} attempts (${isSuccess(first) ? '' : `${describeAttempt(first)}; `}${describeAttempt(last)}); nothing is queued`);
      });
      const tracked = job.finally(() => {
        busy.set(href, (busy.get(href) ?? 1) - 1);
        inFlight.delete(tracked);
      });
      inFlight.add(tracked);
    }
  }

  async function run(): Promise<ListenOutcome> {
    // Failures in a row: each waits twice as long as the last, up to the maximum; an event or an empty window starts over.
    let failures = 0;
    const delay = (): number => backoffDelay(failures + 1, { baseDelayMs: backoff.initial, maxDelayMs: backoff.max });
    const backOff = async (why: string): Promise<void> => {
      const wait = delay();
      log(`${why}; retrying in ${wait / 1000} s`);
      failures++;
      await abortableSleep(wait, controller.signal).catch(() => undefined);
    };
    let connected = false;
    let answered = false;
    const origin = options.baseUrl.origin;
    while (!controller.signal.aborted) {
      let answer: { status: number; headers: Record<string, string>; text?: string; json?: unknown };
      try {
        answer = await requests.send({ method: waitOperation.method, path: waitOperation.path, body: { timeout: waitSeconds, filters: options.filters ?? {} }, signal: controller.signal, onSend: markPolling });
      } catch (error) {
        if (controller.signal.aborted) break;
        if (!(error instanceof NoAnswer)) throw error;
        if (error.kind !== 'too-large') {
          if (!answered && error.code && NOTHING_THERE.has(error.code)) return { reason: 'unreachable', message: error.detail };
          connected = false;
          await backOff(`connection to ${origin} ${answered ? 'lost' : 'failed'} (${error.detail})`);
          continue;
        }
        answer = { status: error.status!, headers: {} };
      }
      answered = true;
      const { status, headers, text, json } = answer;
      if (status === 401) return { reason: 'unauthorized', message: text === undefined ? 'a body too large to read' : answerSummary({ text, json }, requests.redact) };
      if (!connected) {
        connected = true;
        log(`listening for events from ${origin}`);
      }
      const event = status === 200 ? eventOf(json) : undefined;
      if (text !== undefined && (event || status === 408)) {
        // An event, or a 408: the expected end of an empty window. Either way, wait again at once.
        failures = 0;
        if (event) fanOut(text, event);
      } else if (text !== undefined && status === 429) {
        const wait = parseRetryAfter(headers['retry-after']) ?? delay();
        log(`rate limited (429); waiting ${wait / 1000} s as Retry-After says`);
        await abortableSleep(wait, controller.signal).catch(() => undefined);
      } else {
        // Too large, not an event, a redirect, a 5xx (503: the event stream is not configured) or anything unexpected: back off and resume.
        await backOff(
          text === undefined
            ? `events/wait answered ${status} with more than ${MAX_ANSWER_BYTES} bytes; not forwarded`
            : status === 200
              ? 'events/wait answered 200 with a body that is not an event (part 6 envelope); not forwarded'
              : status >= 300 && status < 400
                ? `events/wait answered ${status}, a redirect${headers.location ? ` to ${printable(requests.redact(headers.location), 100)}` : ''}, which is not followed`
                : `events/wait answered ${status}${text ? ` (${answerSummary({ text, json }, requests.redact)})` : ''}`,
        );
      }
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
      // A URL is compared normalised, anything else as given.
      return targets.delete(URL.canParse(input) ? new URL(input).href : input);
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
