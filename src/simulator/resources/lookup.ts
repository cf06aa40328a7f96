// Number lookup (parts 4.5, 7, 8): which channels a number is reachable on, capped per account by
// a burst cap and a rolling-hour cap (429 `rate_limited` with `Retry-After`); a number looked up
// shortly before is answered from a cache and does not count. Part 8 does not show the caps: the
// values below are the mock's, stated in the operation's description (inferred).
//
// The answer comes from the number alone: the documented test values reach a failed lookup (502)
// and each documented channel outcome; any other number answers the `imessageReachable` channels
// when its country calling code is +1, else the `whatsappOnly` channels.
import type { ResourceModule } from '../context.js';
import { dict } from '../state.js';
import type { JsonObject } from '../types.js';

export const LOOKUP_BURST = { count: 5, windowMs: 10_000 };
export const LOOKUP_HOURLY = { count: 30, windowMs: 3_600_000 };
export const LOOKUP_CACHE_MS = 60_000;

interface LookupState {
  /** When each counted lookup happened (simulated ms), oldest first, within the last hour. */
  counted: number[];
  /** Number → when it was looked up and what it answered. */
  cache: Record<string, { at: number; channels: JsonObject }>;
}

/** Seconds until a lookup would fit under both caps again, or 0 when it fits now. */
export function lookupRetryAfter(state: LookupState, now: number): number {
  let waitMs = 0;
  for (const cap of [LOOKUP_BURST, LOOKUP_HOURLY]) {
    const inWindow = state.counted.filter((at) => at > now - cap.windowMs);
    if (inWindow.length >= cap.count) waitMs = Math.max(waitMs, inWindow[inWindow.length - cap.count]! + cap.windowMs - now);
  }
  return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
}

export const lookupModule: ResourceModule = {
  name: 'lookup',
  parts: '4.5, 7, 8',
  handlers: {
    lookupNumber(ctx) {
      const number = String(ctx.request.query.get('number'));
      const state = ((ctx.account.extra.lookup as LookupState | undefined) ??= { counted: [], cache: dict() });
      const now = ctx.now;
      state.counted = state.counted.filter((at) => at > now - LOOKUP_HOURLY.windowMs);
      for (const [cached, entry] of Object.entries(state.cache)) if (entry.at <= now - LOOKUP_CACHE_MS) delete state.cache[cached];

      // Part 8: a repeated lookup of one number is served from the cache and does not count.
      const cached = state.cache[number];
      if (cached) return ctx.json(200, { number, channels: cached.channels });

      const retryAfter = lookupRetryAfter(state, now);
      if (retryAfter > 0) return ctx.documented(429, 'lookupRateLimited', { 'Retry-After': String(retryAfter) });
      state.counted.push(now);

      // A documented outcome by test value; a lookup that could not complete (502) implies nothing
      // about the number and is not cached (part 7).
      const documented = ctx.testValue(['lookupIncomplete', 'lookupWhatsappOnly', 'lookupImessageReachable']);
      if (documented && documented.status !== 200) return documented;
      const channels = ((documented?.body ?? ctx.documented(200, number.startsWith('+1') ? 'imessageReachable' : 'whatsappOnly').body) as JsonObject).channels as JsonObject;
      state.cache[number] = { at: now, channels };
      return ctx.json(200, { number, channels });
    },
  },
};
