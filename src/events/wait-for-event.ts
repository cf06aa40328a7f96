// POST /api/v1/events/wait (parts 4.5, 6, 8): a long poll. 408 means no matching event arrived in
// the window, which is expected (part 7), so it resolves to null instead of throwing.

import type { components } from '../../generated/types/openapi.js';
import { ApiError, type NumbersApiClient } from '../client/index.js';

type AnyEvent = components['schemas']['AnyEvent'];
type EventWaitRequest = components['schemas']['EventWaitRequest'];

export interface WaitForEventOptions {
  /** Abort the wait (the request is cancelled and the abort error is thrown). */
  signal?: AbortSignal;
}

/**
 * Wait up to `request.timeout` seconds (1 to 60) for the next event matching `request.filters`.
 * Resolves to the event, or to `null` when none arrived in time (408). Other failures throw
 * `ApiError` (503: the event stream is not configured). The request is never retried (it is a POST).
 */
export async function waitForEvent(
  client: NumbersApiClient,
  request: EventWaitRequest = {},
  options: WaitForEventOptions = {},
): Promise<AnyEvent | null> {
  try {
    const { data } = await client.POST('/api/v1/events/wait', {
      body: request,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 408) return null;
    throw error;
  }
}
