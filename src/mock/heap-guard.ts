// The stateful mock's last line against running out of memory (issue 27, item 4). Every account
// is bounded (src/simulator/account-bounds.ts: live accounts, what one account holds), but the cap
// on accounts is set for accounts as a demo or a test fills them; many accounts each filled to
// their bound would still pass V8's heap limit, and a process past it dies with every account.
// So the heap is looked at after requests that change state (at most every CHECK_EVERY_MS): when
// what is in use passes `fraction` of the old generation's limit, the cap on live accounts is
// lowered for good to two thirds of those live now, the least recently used idle accounts
// go down to it, and the log says so; from then on a new key evicts the least recently used one,
// and memory stops growing with keys. Named snapshots are not live accounts: they are kept as bytes
// outside V8's heap (src/store/memory-store.ts) under their own bound (--max-snapshot-bytes), so
// what is measured here is what the accounts hold, and no account is evicted for a snapshot
// (issue 39). Node only (v8).
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { SimBounds } from '../simulator/simulator.js';

/** How often the heap is looked at, at most. */
const CHECK_EVERY_MS = 100;
/** The share of the old generation's limit past which the cap on accounts is lowered. */
export const DEFAULT_HEAP_FRACTION = 0.6;
/** V8's young generation (three 16 MB semi-spaces by default), which `heap_size_limit` adds to `--max-old-space-size`. */
const YOUNG_GENERATION = 48 * 1024 * 1024;

/**
 * The old generation's limit (exported for the test that holds the guard's line against snapshots). Where `--max-old-space-size` is given (on the command line or in
 * NODE_OPTIONS) it is that: `heap_size_limit` adds a young generation whose size differs by Node
 * line (Node 24's V8 reserves up to 192 MB for it, so a 48 MB old space reports a 240 MB limit).
 * Otherwise the limit less the default young generation (a few percent of a default heap).
 */
export function oldGenerationLimit(heapSizeLimit: number): number {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  // The last one given is the one Node uses.
  const last = flags.findLast((flag) => /^--max-old-space-size=\d+$/.test(flag));
  const given = last === undefined ? undefined : Number(last.split('=')[1]) * 1024 * 1024;
  return given !== undefined && given < heapSizeLimit ? given : Math.max(heapSizeLimit / 2, heapSizeLimit - YOUNG_GENERATION);
}

export interface HeapGuard {
  /** Looks at the heap now if it has not been looked at lately; lowers the cap if it must. */
  check(): void;
  stop(): void;
}

const mb = (bytes: number): string => `${Math.round(bytes / 1024 / 1024)} MB`;

export function guardHeap(simulator: SimBounds, warn: (line: string) => void, fraction = DEFAULT_HEAP_FRACTION): HeapGuard {
  let last = 0;
  let checking = false;
  // What is in use counts garbage too until V8 collects it: after the cap is lowered, it is lowered
  // again only once a full collection has run and the heap is still past the line.
  let fullCollections = 0;
  let collectionsAtLowering = -1;
  const collections = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if ((entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections++;
  });
  collections.observe({ entryTypes: ['gc'] });
  const check = (): void => {
    // Lowering the cap changes state, which calls this again: that call is not another round.
    if (checking || Date.now() - last < CHECK_EVERY_MS) return;
    checking = true;
    try {
      round();
    } finally {
      checking = false;
      last = Date.now();
    }
  };
  const round = (): void => {
    const { heap_size_limit: limit } = v8.getHeapStatistics();
    // What has lived through a collection: the young generation (short-lived garbage) left out.
    let used = 0;
    for (const space of v8.getHeapSpaceStatistics()) if (space.space_name !== 'new_space') used += space.space_used_size;
    const oldLimit = oldGenerationLimit(limit);
    if (used < oldLimit * fraction || fullCollections === collectionsAtLowering) return;
    const live = simulator.liveAccounts();
    if (live <= 1) return;
    const cap = simulator.lowerAccountCap(Math.floor((live * 2) / 3));
    collectionsAtLowering = fullCollections;
    warn(
      `memory: ${mb(used)} of the ${mb(oldLimit)} heap in use with ${live.toLocaleString('en-US')} accounts; live accounts are now capped at ` +
        `${cap.toLocaleString('en-US')} (the least recently used idle ones evicted; their keys open fresh accounts next time). ` +
        'A larger heap (--max-old-space-size) or smaller accounts (--max-account-bytes) keep more.',
    );
  };
  // Growth no request causes (deliveries reported by the clock) is looked at too, now and then.
  const timer = setInterval(check, 5000);
  timer.unref();
  return {
    check,
    stop() {
      clearInterval(timer);
      collections.disconnect();
    },
  };
}
