// Accounts evicted past the cap on live accounts (src/simulator/account-bounds.ts), said in the log
// as a count per interval (issue 39): a mock shared by thousands of short-lived keys wrote a line
// per account. The first eviction after a quiet interval is said at once; those that follow, once
// per interval; what is left, at stop. The heap guard says its own, once per round.
import type { Simulator } from '../simulator/simulator.js';

/** How often evictions are summed up in the log. */
export const EVICTION_LOG_MS = 10_000;

/** Starts logging `simulator`'s evictions through `warn`; returns the function that stops it (saying what is left). */
export function logEvictions(simulator: Simulator, warn: (line: string) => void, intervalMs = EVICTION_LOG_MS): () => void {
  let count = 0;
  let cap = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const say = (): void => {
    if (count === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    const one = count === 1;
    const since = timer ? ` in the last ${intervalMs / 1000} s` : '';
    warn(
      `${count.toLocaleString('en-US')} account${one ? '' : 's'} evicted${since}: the least recently used, past ${cap.toLocaleString('en-US')} live accounts ` +
        `(--max-accounts); ${one ? 'its key opens a fresh account' : 'their keys open fresh accounts'} next time.`,
    );
    count = 0;
  };
  const stopListening = simulator.onEvict(({ reason, live }) => {
    if (reason !== 'cap') return;
    count++;
    cap = live;
    if (timer) return;
    say();
    timer = setInterval(say, intervalMs);
    timer.unref();
  });
  return () => {
    stopListening();
    say();
    clearInterval(timer);
  };
}
