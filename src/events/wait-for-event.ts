// POST /api/v1/events/wait (parts 4.5, 6, 8): a long poll. 408 means no matching event arrived in
// the window, which is expected (part 7), so it resolves to null instead of throwing.

import type { components } from '../../generated/types/openapi.js';
import { ApiError, type NumbersApiClient } from '../client/index.js';

type AnyEvent = components['schemas']['AnyEvent'];
type EventWaitRequest = components['schemas']['EventWaitRequest'];

export interface WaitForEventOptions {
  /** Abort the wait (the request is cancelled and the abort error is thrown). */
  signal?: AbortSignal;
  /**
   * How long past `request.timeout` the wait may take before it ends as a 408 would (default
   * 1000 ms). Browser-safe: Chromium re-sends a request whose 408 came on a reused keep-alive
   * connection, holding a wait for two or three windows; past its own window plus this grace, the
   * wait is cancelled and resolves to null, once.
   */
  graceMs?: number;
}

const DEFAULT_GRACE_MS = 1000;

/**
 * Wait up to `request.timeout` seconds (1 to 60) for the next event matching `request.filters`.
 * Resolves to the event, or to `null` when none arrived in time (408, or the window and
 * `graceMs` passed). Other failures throw `ApiError` (503: the event stream is not configured).
 * The request is never retried (it is a POST).
 */
export async function waitForEvent(
  client: NumbersApiClient,
  request: EventWaitRequest = {},
  options: WaitForEventOptions = {},
): Promise<AnyEvent | null> {
  const window = typeof request.timeout === 'number' ? AbortSignal.timeout(request.timeout * 1000 + (options.graceMs ?? DEFAULT_GRACE_MS)) : undefined;
  const signals = [options.signal, window].filter((signal): signal is AbortSignal => signal !== undefined);
  try {
    const { data } = await client.POST('/api/v1/events/wait', {
      body: request,
      ...(signals.length > 0 ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) } : {}),
    });
    return data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 408) return null;
    // The window and its grace passed (the caller's own signal did not fire): as a 408 would.
    if (window?.aborted && !options.signal?.aborted) return null;
    throw error;
  }
}
