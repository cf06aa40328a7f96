// Retries, exactly as far as part 7 allows and no further (the typed client's), and the one
// `Retry-After` parser and backoff every door that waits uses (the suite's 429s, the listening
// agent's polls):
//  - GET has no side effects (7.1): retried on 429 (waiting `Retry-After` when given, part 8), on
//    502/503 and on network errors, with bounded exponential backoff.
//  - a request that carries its operation's idempotency key (`x-effects`: POST /api/v1/calls, 7.2)
//    is retried on the same conditions and on 409 (the original is still running), always with the same key, so at most one call is placed.
//    Any non-2xx answer guarantees no live call (7.3), so retrying one is safe.
//  - Every other write is not idempotent (7.4) and is never retried.
import type { PendingRequest } from './pending-request.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 3). 1 turns retrying off. */
  maxAttempts?: number;
  /** Wait before the first retry when the answer gives no `Retry-After`; doubled for each next one (default 250 ms). */
  baseDelayMs?: number;
  /** Ceiling of the backoff wait (default 4000 ms). */
  maxDelayMs?: number;
  /**
   * Longest `Retry-After` the client waits for by itself (default 20 000 ms). A longer one is the
   * caller's decision: the 429 surfaces as an `ApiError` carrying `retryAfterSeconds`.
   */
  maxRetryAfterMs?: number;
  /** How to wait (default: a timer). Lets tests and schedulers observe or replace the waits. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

export const RETRY_DEFAULTS: Omit<ResolvedRetryOptions, 'sleep'> = {
  maxAttempts: 3,
  baseDelayMs: 250,
  maxDelayMs: 4000,
  maxRetryAfterMs: 20_000,
};

/** Statuses after which a safe request is tried again (part 7.1; 409 only for a keyed one, 7.2). */
const RETRY_STATUSES = new Set([429, 502, 503]);
const KEYED_RETRY_STATUSES = new Set([409, 429, 502, 503]);

export function resolveRetryOptions(options: RetryOptions | false | undefined): ResolvedRetryOptions {
  if (options === false) return { ...RETRY_DEFAULTS, maxAttempts: 1, sleep: abortableSleep };
  // An option given as undefined keeps its default.
  const resolved: ResolvedRetryOptions = { ...RETRY_DEFAULTS, sleep: abortableSleep, ...Object.fromEntries(Object.entries(options ?? {}).filter(([, v]) => v !== undefined)) };
  for (const key of ['maxAttempts', 'baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'] as const) {
    const value = resolved[key];
    if (!Number.isFinite(value) || value < 0 || (key === 'maxAttempts' && (!Number.isInteger(value) || value < 1))) {
      throw new TypeError(`retry.${key} must be ${key === 'maxAttempts' ? 'an integer of at least 1' : 'a non-negative number'}, got ${String(value)}`);
    }
  }
  if (typeof resolved.sleep !== 'function') throw new TypeError('retry.sleep must be a function');
  return resolved;
}

/** `Retry-After` (part 8) as milliseconds: delay-seconds or an HTTP date (RFC 9110 10.2.3); undefined if absent or unreadable. */
export function parseRetryAfter(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header === null || header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before retry number `retry` (1 for the first retry): the base delay, doubled each time, up to the ceiling. */
export function backoffDelay(retry: number, options: Pick<ResolvedRetryOptions, 'baseDelayMs' | 'maxDelayMs'>): number {
  return Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
}

/** Waits `ms`, or until `signal` aborts (then it rejects with the abort's reason). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export type RetryKind = 'safe' | 'keyed' | 'never';

/**
 * A fetch that tries a request again when part 7 says that is safe. `kindOf` says which rule a
 * request falls under; a `never` request is passed through untouched (no clone, no wait).
 */
export function createRetryingFetch(
  fetchImpl: (request: PendingRequest) => Promise<Response>,
  options: ResolvedRetryOptions,
  kindOf: (request: PendingRequest) => RetryKind,
): (request: PendingRequest) => Promise<Response> {
  return async (request) => {
    const kind = options.maxAttempts > 1 ? kindOf(request) : 'never';
    if (kind === 'never') return fetchImpl(request);
    const retryStatuses = kind === 'keyed' ? KEYED_RETRY_STATUSES : RETRY_STATUSES;
    for (let attempt = 1; ; attempt += 1) {
      const last = attempt >= options.maxAttempts;
      // Each attempt sends a copy, so the body (and the Idempotency-Key header) is the same every
      // time; a request without a body (a GET) can be sent again as it is.
      const sent = last || request.body === null ? request : request.clone();
      let response: Response;
      try {
        response = await fetchImpl(sent);
      } catch (error) {
        if (last || request.signal?.aborted) throw error;
        await options.sleep(backoffDelay(attempt, options), request.signal ?? undefined);
        continue;
      }
      if (last || !retryStatuses.has(response.status)) return response;
      let wait = backoffDelay(attempt, options);
      if (response.status === 429) {
        const retryAfter = parseRetryAfter(response.headers.get('Retry-After'));
        if (retryAfter !== undefined) {
          // Honour the server's wait; one longer than we are willing to sit through is returned.
          if (retryAfter > options.maxRetryAfterMs) return response;
          wait = retryAfter;
        }
      }
      await response.body?.cancel().catch(() => {});
      await options.sleep(wait, request.signal ?? undefined);
    }
  };
}
