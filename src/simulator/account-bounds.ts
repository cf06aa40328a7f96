// What the mock holds is bounded, whatever requests come (issue 27, items 1 and 4):
//
// - **Live accounts** (`maxAccounts`, `--max-accounts`): past the cap, the least recently used
//   account is evicted, said in the log, unless a long poll of it is being held or the seed names
//   it. Its key opens a fresh account from the seed next time (under `--strict-keys`, it is
//   refused as a key the mock never issued). A long-running mock shared by many test runs, each with
//   its own key, so stays within its memory instead of growing with every key.
// - **One account's records** (`maxAccountBytes`): an account holds at most that much state, as
//   JSON. A request with a body to an account that would pass it is refused with the documented
//   400, before it changes anything. The size is measured now and then, not on every request: the
//   bytes of request bodies since the last measurement (with an allowance for what a request adds
//   besides its body, and one for each step it planned that has not run: a delivery's events land
//   later) say when to measure again; what lands later is counted before it lands. Histories roll
//   over (500 messages and calls, 1,000 events), so an account used as the service is used stays far below the bound; one filled with
//   large records reaches it and is told so, instead of ending the process.
// - **What grows without an account**: pending sign-ups, keys that no longer work and verified
//   phone numbers are kept up to `maxAccounts` each, the oldest forgotten; an account keeps its
//   newest MAX_KEYS keys.
//
// Browser-safe; the memory of the whole process (node only) is watched by src/mock/heap-guard.ts,
// which evicts through `lowerAccountCap`.
import { dropJobs } from './job-queue.js';
import { rawOf } from './raw.js';
import type { SimOptions } from './context.js';
import type { AccountState, SimState } from './state.js';

/** Live accounts by default: about 16 KB of heap each for a demo-seeded account (`npm run bench`), so 160 MB. */
export const DEFAULT_MAX_ACCOUNTS = 10_000;
/** What one account may hold, as JSON, by default: far above what 500 messages and calls and 1,000 events of the largest documented records take. */
export const DEFAULT_MAX_ACCOUNT_BYTES = 16 * 1024 * 1024;
/** Keys an account keeps (each sign-in issues one, part 5.3); the oldest end first. */
export const MAX_KEYS = 100;
/** What a request is counted for besides its body (the records, events and meta it may add). */
const PER_REQUEST_ALLOWANCE = 4096;
/** What a planned step adds when it runs (a status change and its event), counted while it is pending. */
const PER_STEP_ALLOWANCE = 1024;

export interface Eviction {
  account: AccountState;
  reason: 'cap' | 'memory';
  /** Live accounts left after it. */
  live: number;
}

/** Drops the oldest keys (insertion order) of `dict` past `limit`. */
export function trimDict(dict: Record<string, unknown>, limit: number, onDrop?: (key: string) => void): void {
  let excess = -limit;
  for (const _key in dict) excess++;
  if (excess <= 0) return;
  for (const key in dict) {
    if (excess-- <= 0) break;
    onDrop?.(key);
    delete dict[key];
  }
}

export function accountBounds(getState: () => SimState, options: Pick<SimOptions, 'maxAccounts' | 'maxAccountBytes'>, isBusy: (account: AccountState) => boolean, isNamed: (account: AccountState) => boolean) {
  /** Account id → nothing: a Map keeps insertion order, so its first entry is the least recently used. */
  let recency = new Map<string, true>();
  let cap = options.maxAccounts;
  /** By account id: a store may hand each run its own proxy of an account. */
  const size = new Map<string, { measured: number; since: number }>();

  const rebuild = (state: SimState): void => {
    recency = new Map(Object.keys(state.accounts).map((id) => [id, true]));
    size.clear();
  };
  rebuild(getState());

  function evict(state: SimState, account: AccountState): void {
    for (const key of account.keys) if (state.keys[key] === account.id) delete state.keys[key];
    if (account.email && state.emails[account.email] === account.id) delete state.emails[account.email];
    for (const number of account.numbers) if (state.serviceNumbers[number.number] === account.id) delete state.serviceNumbers[number.number];
    delete state.accounts[account.id];
    size.delete(account.id);
  }

  function evictSome(count: number, reason: Eviction['reason'], keep?: AccountState): Eviction[] {
    const state = getState();
    const evicted: Eviction[] = [];
    const gone = new Set<string>();
    for (const id of recency.keys()) {
      if (evicted.length >= count) break;
      const account = state.accounts[id];
      // Deleted by its own request (DELETE /api/v1/account), or evicted in this round: forgotten below.
      if (!account) {
        gone.add(id);
        continue;
      }
      if (account.id === keep?.id || isBusy(account) || isNamed(account)) continue;
      evict(state, account);
      gone.add(id);
      evicted.push({ account, reason, live: 0 });
    }
    for (const id of gone) recency.delete(id);
    // The planned steps of every account evicted, in one pass over the queue.
    if (evicted.length > 0 && state.jobs.some((job) => gone.has(job.accountId))) dropJobs(state, (job) => gone.has(job.accountId));
    for (const eviction of evicted) eviction.live = recency.size;
    return evicted;
  }

  // No cap (a store shared by several processes keeps the accounts; each process sees only some):
  // nothing is tracked, evicted or trimmed here.
  const unbounded = !Number.isFinite(options.maxAccounts);
  /** What the account's planned steps will add (a delivery's events land after the request that planned it). */
  const pendingAllowance = (account: AccountState): number => {
    let steps = 0;
    for (const job of getState().jobs) if (job.accountId === account.id) steps++;
    return steps * PER_STEP_ALLOWANCE;
  };
  return {
    /** The account served now is the most recently used. */
    touch(account: AccountState): void {
      if (unbounded) return;
      recency.delete(account.id);
      recency.set(account.id, true);
    },
    /** Evicts the least recently used accounts while more than `maxAccounts` live; `keep` is never evicted. */
    enforce(keep?: AccountState): Eviction[] {
      return recency.size > cap ? evictSome(recency.size - cap, cap < options.maxAccounts ? 'memory' : 'cap', keep) : [];
    },
    /** Lowers the cap on live accounts to `limit` for good (the heap guard), evicting the least recently used down to it. */
    lowerCap(limit: number): Eviction[] {
      cap = Math.max(1, Math.min(cap, limit));
      return recency.size > cap ? evictSome(recency.size - cap, 'memory') : [];
    },
    /** The cap on live accounts now. */
    cap: (): number => cap,
    /**
     * Undefined when `account` may take a request body of `bytes`; else how much it holds (JSON
     * bytes), for the 400. Counts the body as taken when it may.
     */
    refuses(account: AccountState, bytes: number): number | undefined {
      // The allowance is counted for this request too: what it adds besides its body (the record,
      // the status events its delivery lands later) must fit under the bound as well.
      const adds = bytes + PER_REQUEST_ALLOWANCE;
      let known = size.get(account.id);
      if (!known || known.measured + known.since + adds > options.maxAccountBytes) {
        known = { measured: JSON.stringify(rawOf(account)).length + pendingAllowance(account), since: 0 };
        size.set(account.id, known);
      }
      if (known.measured + adds > options.maxAccountBytes) return known.measured;
      known.since += adds;
      return undefined;
    },
    /** Forgets the oldest entries of the state's maps that grow without an account. */
    trimGlobal(): void {
      if (unbounded) return;
      const state = getState();
      const limit = options.maxAccounts;
      trimDict(state.signups, limit, (id) => {
        const registrationId = state.signups[id]?.registrationId;
        if (registrationId) delete state.registrations[registrationId];
      });
      trimDict(state.revokedKeys, limit);
      trimDict(state.boundNumbers, limit);
    },
    /** How many accounts are live. */
    live: (): number => recency.size,
    /** Starts over from `state` (a reset, a state loaded). */
    rebuild,
  };
}

/** Ends the oldest keys of an account past MAX_KEYS (each sign-in adds one). */
export function trimKeys(state: SimState, account: AccountState): void {
  while (account.keys.length > MAX_KEYS) {
    const key = account.keys.shift()!;
    delete state.keys[key];
    state.revokedKeys[key] = true;
  }
}
