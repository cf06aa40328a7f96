// The Valkey/Redis store (`--store redis://host:port/db`, issue 32): the state in a server any
// number of mock processes share, so they serve the same accounts with the same answers.
//
// A run of the rules sees a view holding what it touches: the account its key opens (and the
// index entry that says so), loaded in one round trip; an entry it reaches beyond that (a sign-up,
// an email, a number) throws `Missing` (change-set.ts), is loaded, and the run starts over. The
// run's changes (change-set.ts: a message appended, an entry set ...) are committed by one Lua
// script, atomically and only if nothing the run read changed meanwhile (each account has a
// version, each index entry its value); otherwise the run starts over on what is there now.
// Each account is kept as a base and the list of changes since, folded into a new base every
// FOLD_AFTER changes; a process keeps the accounts it served and catches up with the changes
// others made instead of reading the whole account again.
//
// Planned steps live with their account (a sorted set by due time) and in one queue of accounts
// by their next due time: whichever process is alive claims due accounts for a lease and runs
// their steps in a run like any other, so a step runs once. The simulated clock's offset is in the
// store, read by every load. A commit with events publishes the account's id: a long poll held by
// any process asks again. A reset starts a new generation of keys (the old one is removed after).
import { Redis } from 'ioredis';
import { applyChanges, INDEXES, Missing, trackChanges, type Change } from './change-set.js';
import { addJobs, orderJobs } from '../simulator/job-queue.js';
import { checkRoom, DEFAULT_MAX_SNAPSHOT_BYTES, restoreAccountInto, sealKeys, snapshotInfo, takeSnapshot } from './snapshots.js';
import type { Emitted, SimRules, SimStorage } from '../simulator/simulator.js';
import { emptyState, withoutPrototype, type AccountState, type Job, type SimState } from '../simulator/state.js';
import { StoreFailure, type IdempotencyLease, type SimStore, type SnapshotFile, type SnapshotListing, type StoreScope } from './store.js';
import { CLAIM, COMMIT, DUMP, LOAD, RELEASE_LEASE, REDUE, REPLACE } from './redis-scripts.js';

/** The store could not be reached or refused a command: the pipeline answers 503 (the mock never invents success). */
export class StoreUnavailable extends StoreFailure {
  constructor(
    readonly url: string,
    cause: Error,
  ) {
    super(`The mock's store (${url}) cannot be reached: ${cause.message}. Nothing was changed by this request; retry once the store is back (list before you retry, part 7.5).`);
  }
}

/** A run that kept meeting changes made by others (a very hot account): answered 503 too. */
class TooManyConflicts extends StoreFailure {}

/** Changes an account's log holds before they are folded into a new base. */
const FOLD_AFTER = 64;
/** Attempts of one run before it gives up (each after a conflict or an entry loaded). */
const MAX_ATTEMPTS = 50;
/** How long a process holds the accounts it claimed to run their due steps. */
const LEASE_MS = 10_000;
/** How long a duplicate waits for the original of its Idempotency-Key (part 7.2: not shown; the mock's). */
const IDEMPOTENCY_WAIT_MS = 3000;
/** The lease of an original: a process killed while it runs holds the key no longer than this. */
const IDEMPOTENCY_LEASE_MS = 30_000;
/** How often an idle process looks for due steps others planned. */
const POLL_MS = 250;

interface Cached {
  v: number;
  account: AccountState;
  /** Its planned steps by `seq`, with the member text the store holds them under. */
  jobs: Map<number, { job: Job; member: string }>;
}

type Load = [string, string, string[], string[], Array<[string, number, number, string, string[], string[] | null]>];

export interface RedisConnection {
  redis: Redis;
  subscriber: Redis;
  url: string;
  prefix: string;
}

/** The URL with its password hidden, for messages. */
export function shownUrl(url: string): string {
  return url.replace(/\/\/([^@/]*)@/, '//***@');
}

/**
 * Connects to the store and checks it can keep the mock's promise: an answered write survives a
 * restart of the store. Throws an error of one line (the command prints it and exits 2) when the
 * store cannot be reached or is set to lose writes; `warn` says what it only weakens.
 */
export async function connectRedis(url: string, warn: (line: string) => void, options: { prefix?: string; requireDurable?: boolean } = {}): Promise<RedisConnection> {
  const shown = shownUrl(url);
  const make = (): Redis =>
    new Redis(url, {
      lazyConnect: true,
      // Fail fast while the store is away (503), and keep trying to reconnect (recovers when it returns).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 3000,
      commandTimeout: 5000,
      retryStrategy: (times) => Math.min(50 * times, 1000),
      // The commands of requests served together go out in one write (and come back in one read):
      // a write a command cost a send under --store more CPU than its rules (issue 39).
      enableAutoPipelining: true,
    }).on('error', () => undefined); // reported by the commands that fail
  const redis = make();
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new Error(`--store ${shown}: cannot reach the store (${(error as Error).message}).`);
  }
  const config = (name: string): Promise<string | undefined> => redis.config('GET', name).then((reply) => (reply as string[])[1], () => undefined);
  // What the store must be set to (docs/guides/hosting.md): append-only file on, and no
  // eviction of keys (an evicted account would be a lost write).
  const appendonly = (await config('appendonly')) ?? (/aof_enabled:(\d)/.exec(await redis.info('persistence').catch(() => ''))?.[1] === '1' ? 'yes' : undefined);
  const [fsync, policy, maxmemory] = await Promise.all(['appendfsync', 'maxmemory-policy', 'maxmemory'].map(config));
  const problems: string[] = [];
  if (appendonly === 'no' && options.requireDurable !== false) problems.push('appendonly is no (an answered write would be lost when the store restarts): start it with --appendonly yes');
  if (policy && policy.startsWith('allkeys-') && maxmemory !== '0') problems.push(`maxmemory-policy is ${policy} (the store would drop accounts when full): use noeviction`);
  if (problems.length > 0) {
    redis.disconnect();
    throw new Error(`--store ${shown}: ${problems.join('; ')}.`);
  }
  if (appendonly === undefined) warn(`--store ${shown}: cannot read the store's persistence settings (CONFIG GET is refused): make sure it runs with appendonly yes.`);
  else if (fsync && fsync !== 'always') warn(`--store ${shown}: appendfsync is ${fsync}: a write the mock answered survives a restart of the store, but a crash of its machine may lose the last second of them (appendfsync always: none).`);
  const subscriber = make();
  await subscriber.connect().catch(() => undefined);
  return { redis, subscriber, url: shown, prefix: options.prefix ?? 'numbers-api' };
}

/** A promise chain per name: runs that touch one account run one after another in this process. */
class Locks {
  private readonly tails = new Map<string, Promise<unknown>>();
  async with<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const done = (this.tails.get(name) ?? Promise.resolve()).then(fn);
    const tail = done.catch(() => undefined);
    this.tails.set(name, tail);
    try {
      return await done;
    } finally {
      if (this.tails.get(name) === tail) this.tails.delete(name);
    }
  }
}

/**
 * The lease of an Idempotency-Key in the store (its key, this holder's token), given to the run of
 * its request: that run's commit ends it in the same script (COMMIT), so no crash of the store or
 * of this process between the two can leave an acknowledged call looking "still running".
 */
class RedisLease implements IdempotencyLease {
  ended = false;
  constructor(
    readonly name: string,
    readonly token: string,
    private readonly redis: Redis,
  ) {}
  /** Ends it when its run committed nothing (a refusal, a failure); a lease past its time ends by itself. */
  async release(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.redis.eval(RELEASE_LEASE, 1, this.name, this.token).catch(() => undefined);
  }
}

const COUNTERS = ['eventSeq', 'jobSeq', 'numbersIssued'] as const;
/** Accounts a process keeps copies of (the least recently stored goes first). */
const CACHE_LIMIT = 5000;

/** An account with the changes of its log applied (each a JSON list of changes, their paths from `accounts.x`). */
function replayLog(account: AccountState, log: readonly string[]): AccountState {
  const wrapper = { accounts: { x: account } };
  for (const text of log) applyChanges(wrapper, JSON.parse(text, withoutPrototype) as Change[]);
  return wrapper.accounts.x;
}

/** Sets `key` in a map kept to `limit` entries, the oldest dropped first. */
function remember<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value as K);
}

export function redisStore(simulator: SimStorage, connection: RedisConnection, options: { warn?: (line: string) => void; maxSnapshotBytes?: number } = {}): SimStore {
  const { redis, subscriber, prefix: P, url } = connection;
  const maxSnapshotBytes = options.maxSnapshotBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES;
  const replica = Math.random().toString(36).slice(2, 10);
  for (const [name, lua] of Object.entries({ load: LOAD, commit: COMMIT, claim: CLAIM, redue: REDUE, dump: DUMP, replace: REPLACE })) redis.defineCommand(name, { numberOfKeys: 0, lua });
  type Scripts = Record<'load' | 'commit' | 'claim' | 'redue' | 'dump' | 'replace', (...args: (string | number)[]) => Promise<unknown>>;
  const scripts = redis as unknown as Scripts;
  const cache = new Map<string, Cached>();
  /** API key -> account id, as last seen (which account's lock a request takes). */
  const owners = new Map<string, string>();
  let gen = '';
  const locks = new Locks();
  let nextDue: number | undefined;
  const otherEvents = new Set<(accountId: string) => void>();
  let closed = false;

  /** What the store answers, or its error as the 503 of the pipeline. */
  const reach = <T>(command: Promise<T>): Promise<T> =>
    command.catch((error: unknown) => Promise.reject(error instanceof StoreUnavailable || error instanceof TooManyConflicts ? error : new StoreUnavailable(url, error as Error)));

  // What a commit publishes: "<generation> <process> <account id>" (redis-scripts.ts), plain fields.
  subscriber.on('message', (_channel: string, published: string) => {
    const [from, by, accountId] = published.split(' ');
    if (from !== gen) {
      cache.clear(); // a reset or a snapshot brought back by another process
      gen = from ?? '';
    }
    if (by === replica || !accountId) return;
    for (const listener of otherEvents) listener(accountId);
  });
  void subscriber.subscribe(`${P}:events`).catch(() => undefined);

  const syncClock = (offset: number): void => {
    const ahead = offset - simulator.clock.offset();
    if (ahead > 0) simulator.clock.advance(ahead);
  };

  /** What a run needs loaded: accounts by id (held version, -1 none), index entries. */
  interface Wanted {
    accounts: Set<string>;
    entries: Array<[string, string]>;
  }

  interface Loaded {
    counters: Record<string, number>;
    clock: number;
    /** Index entries: JSON text, or '' for none. */
    entries: Map<string, string>;
    /** Accounts: their version (0: none). */
    versions: Map<string, number>;
  }

  /** Takes what a load brought of an account into the cache; false when it cannot (a copy dropped meanwhile: load it whole). */
  function adopt(id: string, v: number, base: string, log: string[], members: string[] | null): boolean {
    if (v === 0) {
      cache.delete(id);
      return true;
    }
    let held = cache.get(id);
    if (base !== '') {
      held = { v: 0, account: JSON.parse(base, withoutPrototype) as AccountState, jobs: new Map() };
    } else if (!held || (members === null && held.v !== v)) {
      cache.delete(id);
      return false;
    }
    held.account = replayLog(held.account, log);
    held.v = v;
    remember(cache, id, held, CACHE_LIMIT);
    if (members) {
      held.jobs = new Map();
      for (const member of members) {
        const job = JSON.parse(member) as Job;
        held.jobs.set(job.seq!, { job, member });
      }
    }
    return true;
  }

  async function load(wanted: Wanted, follow?: string): Promise<Loaded> {
    const request = {
      gen,
      follow: follow !== undefined,
      a: Object.fromEntries([...wanted.accounts].map((id) => [id, cache.get(id)?.v ?? -1])),
      x: wanted.entries,
    };
    const [atGen, clock, counterList, idx, accounts] = (await reach(scripts.load(P, JSON.stringify(request)))) as Load;
    if (atGen !== gen) {
      cache.clear();
      gen = atGen;
    }
    const counters: Record<string, number> = {};
    for (let i = 0; i < counterList.length; i += 2) counters[counterList[i]!] = Number(counterList[i + 1]);
    const entries = new Map<string, string>();
    wanted.entries.forEach(([map, key], i) => entries.set(`${map}\u0000${key}`, idx[i] ?? ''));
    const versions = new Map<string, number>();
    let again = false;
    for (const [id, v, , base, log, members] of accounts) {
      versions.set(id, v);
      if ((v === 0 || cache.get(id)?.v !== v || base !== '') && !adopt(id, v, base, log, members)) again = true;
    }
    // A copy dropped while the load was under way: load again, whole.
    if (again) return load(wanted, follow);
    return { counters, clock: Number(clock), entries, versions };
  }

  /**
   * One run: load what it needs, run the rules on a view of it, commit what changed if nothing it
   * read changed meanwhile; otherwise (or when it reached an entry it lacked) start over.
   */
  async function attempt<T>(scope: StoreScope, work: (rules: SimRules) => T): Promise<{ result: T; emitted: Emitted[] }> {
    const known = scope.key ? owners.get(scope.key) : undefined;
    const wanted: Wanted = { accounts: new Set([scope.accountId, known].filter((id): id is string => id !== undefined)), entries: scope.key ? [['keys', scope.key]] : [] };
    // The run may change in place only the cached copy of the account its lock covers; any other
    // account it reaches (a sign-up's, a snapshot's) it works on as a copy of its own.
    const own = (): string | undefined => scope.accountId ?? (scope.key ? owners.get(scope.key) : undefined);
    for (let round = 0; round < MAX_ATTEMPTS; round++) {
      const loaded = await load(wanted, scope.key);
      // Follow the key to its account (loaded in the same round trip).
      if (scope.key) {
        const owner = loaded.entries.get(`keys\u0000${scope.key}`);
        if (owner) {
          const id = JSON.parse(owner) as string;
          remember(owners, scope.key, id, CACHE_LIMIT * 4);
          if (!wanted.accounts.has(id)) {
            wanted.accounts.add(id);
            if (!loaded.versions.has(id)) continue;
          }
        }
      }
      // The view: the accounts and entries loaded, nothing else.
      const view = emptyState();
      for (const [id, v] of loaded.versions) {
        if (v === 0) continue;
        const cached = cache.get(id)!;
        view.accounts[id] = id === own() ? cached.account : structuredClone(cached.account);
        for (const { job } of cached.jobs.values()) view.jobs.push(job);
      }
      for (const [joined, text] of loaded.entries) {
        const [map, key] = joined.split('\u0000') as [string, string];
        if (text !== '') (view[map as (typeof INDEXES)[number]] as Record<string, unknown>)[key] = JSON.parse(text, withoutPrototype);
      }
      orderJobs(view);
      for (const name of COUNTERS) view[name] = loaded.counters[name] ?? 0;
      syncClock(loaded.clock);
      view.clockOffsetMs = simulator.clock.offset();
      const jobsBefore = new Map<number, string>();
      for (const id of loaded.versions.keys()) for (const [seq, { member }] of cache.get(id)?.jobs ?? []) jobsBefore.set(seq, member);
      const tracker = trackChanges(view, {
        holds: (map, key) => (map === 'accounts' ? loaded.versions.has(key) : loaded.entries.has(`${map}\u0000${key}`)),
      });
      let outcome: { result: T; emitted: Emitted[] };
      try {
        outcome = simulator.within(tracker.view, () => work(simulator));
      } catch (error) {
        // Whatever the run changed in the accounts it held is not the store's: read them again.
        for (const id of tracker.touchedAccounts()) cache.delete(id);
        if (error instanceof Missing) {
          if (error.map === 'accounts') wanted.accounts.add(error.key);
          else wanted.entries.push([error.map, error.key]);
          continue;
        }
        throw error;
      }
      if (!tracker.changed()) return outcome;
      const committed = await commit(tracker.changes(), tracker.touchedAccounts(), loaded, jobsBefore, outcome.emitted, view, scope.lease instanceof RedisLease ? scope.lease : undefined);
      if (committed) return outcome;
      for (const id of tracker.touchedAccounts()) cache.delete(id);
    }
    throw new TooManyConflicts(`The mock's store (${url}) kept changing under this request (${MAX_ATTEMPTS} attempts); nothing was changed by it. Retry.`);
  }

  /** Commits a run's changes; false when something it read changed meanwhile. */
  async function commit(changes: Change[], touched: Set<string>, loaded: Loaded, jobsBefore: Map<number, string>, emitted: Emitted[], view: SimState, lease?: RedisLease): Promise<boolean> {
    const texts: string[] = [];
    const text = (value: string): number => texts.push(value) + 3; // ARGV index (1-based; 3 are taken)
    const perAccount = new Map<string, Change[]>();
    const whole = new Map<string, AccountState | null>();
    const x: Array<[string, string, string]> = [];
    const counters: Record<string, number> = {};
    const planned: Job[] = [];
    const taken = new Set<number>();
    for (const change of changes) {
      if (change[0] === 'j+') {
        planned.push(...change[1]);
        continue;
      }
      if (change[0] === 'j-') {
        change[1].forEach((seq) => taken.add(seq));
        continue;
      }
      const path = change[1];
      if (path[0] === 'accounts' && path[1] !== undefined) {
        const id = path[1];
        if (path.length === 2) whole.set(id, change[0] === 's' ? (change[2] as AccountState) : null);
        else (perAccount.get(id) ?? perAccount.set(id, []).get(id)!).push(change);
      } else if ((INDEXES as readonly string[]).includes(path[0]!) && path.length === 2) {
        x.push([path[0]!, path[1]!, change[0] === 's' ? JSON.stringify(change[2]) : '']);
      } else if ((COUNTERS as readonly string[]).includes(path[0]!) && path.length === 1 && change[0] === 's') {
        counters[path[0]!] = Number(change[2]);
      }
    }
    const accounts = new Set<string>([...touched, ...perAccount.keys(), ...whole.keys()]);
    const plan = {
      replica,
      checkA: Object.fromEntries(loaded.versions),
      checkX: [...loaded.entries].map(([joined, value]) => [...joined.split('\u0000'), value]),
      x,
      c: counters,
      events: [...new Set(emitted.map(({ account }) => account.id))],
      a: [] as Array<Record<string, unknown>>,
      ...(lease && !lease.ended ? { lease: [lease.name, lease.token] } : {}),
    };
    for (const id of accounts) {
      const account = view.accounts[id];
      if (whole.get(id) === null || !account) {
        if (loaded.versions.get(id) !== 0 || whole.get(id) === null) plan.a.push({ id, del: true });
        continue;
      }
      const version = loaded.versions.get(id) ?? 0;
      const entry: Record<string, unknown> = { id, jrem: [], jadd: [] };
      // A new account, or one whose log is long: written whole (its new base).
      if (whole.has(id) || version === 0 || (version + 1) % FOLD_AFTER === 0) entry.base = text(JSON.stringify(account));
      else entry.log = text(JSON.stringify((perAccount.get(id) ?? []).map(relative)));
      for (const seq of taken) {
        const member = jobsBefore.get(seq);
        if (member && JSON.parse(member).accountId === id) (entry.jrem as number[]).push(text(member));
      }
      for (const job of planned) if (job.accountId === id && !taken.has(job.seq!)) (entry.jadd as Array<[number, number]>).push([job.at, text(JSON.stringify(job))]);
      plan.a.push(entry);
    }
    const reply = await reach(scripts.commit(P, gen, JSON.stringify(plan), ...texts)).catch((error: unknown) => {
      for (const id of accounts) cache.delete(id);
      throw error;
    });
    if (reply !== 'OK') return false;
    if (lease) lease.ended = true;
    // The accounts as the run left them are now the store's, at their next version.
    for (const id of accounts) {
      const account = view.accounts[id];
      if (!account || whole.get(id) === null) {
        cache.delete(id);
        continue;
      }
      const before = cache.get(id);
      const jobs = new Map<number, { job: Job; member: string }>();
      for (const [seq, entry] of before?.jobs ?? []) if (!taken.has(seq)) jobs.set(seq, entry);
      for (const job of planned) if (job.accountId === id && !taken.has(job.seq!)) jobs.set(job.seq!, { job, member: JSON.stringify(job) });
      remember(cache, id, { v: (loaded.versions.get(id) ?? 0) + 1, account, jobs }, CACHE_LIMIT);
      for (const { job } of jobs.values()) nextDue = Math.min(nextDue ?? Infinity, job.at);
    }
    return true;
  }

  /** A change of an account, its path from the account. */
  const relative = (change: Change): Change => {
    const copy = [...change] as Change;
    (copy as unknown as [string, string[]])[1] = ['accounts', 'x', ...(change[1] as string[]).slice(2)];
    return copy;
  };

  async function run<T>(scope: StoreScope, work: (rules: SimRules) => T): Promise<T> {
    if (closed) throw new StoreUnavailable(url, new Error('the mock is stopping'));
    // Runs about one account run one after another in this process (they change its cached copy).
    const lockName = scope.accountId ?? (scope.key ? owners.get(scope.key) : undefined) ?? (scope.key ? `key:${scope.key}` : '*');
    const { result, emitted } = await locks.with(lockName, () => attempt(scope, work));
    simulator.publish(emitted);
    return result;
  }

  /** Runs the due steps of the accounts this process can claim, until none is due by now. */
  async function runDue(): Promise<void> {
    for (let rounds = 0; rounds < 100; rounds++) {
      const reply = await scripts.claim(P, String(simulator.clock.now()), String(LEASE_MS), '32').catch(() => undefined);
      if (!reply) return; // the store is away: the next wake-up tries again
      const [, ids, next] = reply as [string, string[], string];
      nextDue = next === '' ? undefined : Number(next);
      if (ids.length === 0) return;
      await Promise.all(
        ids.map(async (id) => {
          try {
            await run({ accountId: id }, () => simulator.tick());
          } finally {
            await scripts.redue(P, gen, id).catch(() => undefined);
          }
        }),
      );
    }
  }

  // The store's own snapshot shelf: each snapshot one string (the portable file), listed in a hash.
  async function dumpAll(): Promise<SimState> {
    const [, counterList, maps, accounts] = (await scripts.dump(P, JSON.stringify(INDEXES))) as [string, string[], string[][], Array<[string, string, string[], string[]]>];
    const state = emptyState();
    INDEXES.forEach((name, i) => {
      const flat = maps[i] ?? [];
      for (let k = 0; k < flat.length; k += 2) (state[name] as Record<string, unknown>)[flat[k]!] = JSON.parse(flat[k + 1]!, withoutPrototype);
    });
    for (let i = 0; i < counterList.length; i += 2) (state as unknown as Record<string, number>)[counterList[i]!] = Number(counterList[i + 1]);
    for (const [id, base, log, members] of accounts) {
      state.accounts[id] = replayLog(JSON.parse(base, withoutPrototype) as AccountState, log);
      addJobs(state, members.map((member) => JSON.parse(member) as Job));
    }
    orderJobs(state);
    state.clockOffsetMs = simulator.clock.offset();
    return state;
  }

  /** Starts a new generation holding `state` (a whole snapshot brought back, a reset). */
  async function replaceAll(state: SimState): Promise<void> {
    const texts: string[] = [];
    const text = (value: string): number => texts.push(value) + 2;
    const plan = {
      replica,
      x: Object.fromEntries(INDEXES.map((name) => [name, Object.fromEntries(Object.entries(state[name]).map(([key, value]) => [key, JSON.stringify(value)]))])),
      c: { eventSeq: state.eventSeq, jobSeq: state.jobSeq ?? 0, numbersIssued: state.numbersIssued ?? 0 },
      a: Object.values(state.accounts).map((account) => ({
        id: account.id,
        base: text(JSON.stringify(account)),
        jadd: state.jobs.filter((job) => job.accountId === account.id).map((job) => [job.at, text(JSON.stringify(job))]),
      })),
    };
    // cjson reads an empty object as an empty list and the reverse: both are fine for the script.
    gen = String(await reach(scripts.replace(P, JSON.stringify(plan), ...texts)));
    cache.clear();
    void removeOldGenerations();
  }

  /** Removes what generations before the current one left (in the background, by SCAN). */
  async function removeOldGenerations(): Promise<void> {
    const current = gen;
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${P}:g*`, 'COUNT', 500);
        cursor = next;
        // Only generations before this one: a later one may have begun meanwhile (another reset).
        const old = keys.filter((key) => Number(key.slice(P.length + 2).split(':', 1)[0]) < Number(current));
        if (old.length > 0) await redis.unlink(...old);
      } while (cursor !== '0' && !closed);
    } catch {
      // tried again at the next reset
    }
  }

  const snapshotKey = (name: string): string => `${P}:snap:${name}`;
  const snapshots = {
    async save(name: string, key?: string): Promise<SnapshotListing> {
      const createdAt = new Date(simulator.clock.now()).toISOString();
      const file = key === undefined ? takeSnapshot({ state: await dumpAll(), accountForKey: () => undefined }, name, createdAt) : await run({ key }, (sim) => takeSnapshot(sim, name, createdAt, key));
      return this.put(file);
    },
    async put(file: SnapshotFile): Promise<SnapshotListing> {
      const text = JSON.stringify(sealKeys(JSON.parse(JSON.stringify(file), withoutPrototype) as SnapshotFile));
      const sealed = JSON.parse(text) as SnapshotFile;
      const info = snapshotInfo(sealed, Buffer.byteLength(text));
      // The bound is checked against the list as this process reads it: two processes saving at
      // once may pass it by one snapshot each.
      checkRoom(await this.list(), sealed.snapshot, info.bytes, maxSnapshotBytes);
      await reach(redis.multi().set(snapshotKey(sealed.snapshot), text).hset(`${P}:snaps`, sealed.snapshot, JSON.stringify(info)).exec());
      return info;
    },
    async get(name: string): Promise<SnapshotFile | undefined> {
      const text = await reach(redis.get(snapshotKey(name)));
      return text ? (JSON.parse(text, withoutPrototype) as SnapshotFile) : undefined;
    },
    async restore(name: string, key?: string): Promise<SnapshotListing | undefined> {
      const file = await this.get(name);
      if (!file) return undefined;
      if (file.scope === 'all') await replaceAll(file.state);
      else await run(key === undefined ? {} : { key }, (sim) => sim.withContext((ctx) => restoreAccountInto(ctx.state, file, key)));
      return snapshotInfo(file, Buffer.byteLength(JSON.stringify(file)));
    },
    async list(): Promise<SnapshotListing[]> {
      const all = await reach(redis.hgetall(`${P}:snaps`));
      return Object.values(all)
        .map((text) => JSON.parse(text) as Partial<SnapshotListing>)
        .map((listing) => ({ ...listing, owners: listing.owners ?? [] }) as SnapshotListing)
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    async remove(name: string): Promise<boolean> {
      const [[, removed]] = ((await reach(redis.multi().hdel(`${P}:snaps`, name).del(snapshotKey(name)).exec())) ?? [[null, 0]]) as Array<[unknown, number]>;
      return removed === 1;
    },
  };

  return {
    run,
    runDue,
    shared: {
      async claimIdempotency(key, idempotencyKey) {
        const name = `${P}:g${gen || '0'}:idem:${key}:${idempotencyKey}`;
        const token = `${replica}:${Math.random().toString(36).slice(2)}`;
        const until = Date.now() + IDEMPOTENCY_WAIT_MS;
        // SET NX with a lease: atomic, so two processes never both run as the original.
        while ((await reach(redis.set(name, token, 'PX', IDEMPOTENCY_LEASE_MS, 'NX'))) !== 'OK') {
          if (Date.now() >= until) return undefined;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        return new RedisLease(name, token, redis);
      },
      onOtherCommits(listener) {
        otherEvents.add(listener);
        return () => otherEvents.delete(listener);
      },
    },
    nextDueAt: () => Math.min(nextDue ?? Infinity, simulator.clock.now() + POLL_MS),
    async advance(ms) {
      syncClock(Number(await reach(redis.incrby(`${P}:clock`, Math.round(ms)))));
      await runDue();
    },
    async reset() {
      const fresh = emptyState();
      // The seed's named accounts, made on a state of their own, then the new generation at once.
      simulator.within(fresh, () => simulator.seedNamedAccounts());
      await replaceAll(fresh);
    },
    async clock() {
      syncClock(Number((await reach(redis.get(`${P}:clock`))) ?? 0));
      return { now: simulator.clock.now(), offsetMs: simulator.clock.offset() };
    },
    snapshots,
    async close() {
      closed = true;
      subscriber.disconnect();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

