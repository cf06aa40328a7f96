// The store seam (issues 32 and 37): where the simulator's state lives, and how a request's changes
// land; the floor of src/store/, above the simulator and below the pipeline (src/serve/).
// The rules (src/simulator/resources/) stay synchronous plain functions of (state, request,
// clock); a store hands them a state to run on and commits what they changed:
//
// - memory (default, and the MSW transport's): the state is the simulator's own object; a run
//   changes it in place and is committed as it ends (memory-store.ts);
// - the file (`--state`, file-store.ts): the same, and each run's changes (change-set.ts) are
//   appended to a journal, group-committed, compacted; the file itself is state-file.ts;
// - Valkey/Redis (`--store redis://...`, redis-store.ts): a run sees a view holding what it
//   touches, loaded on demand, and its changes are committed atomically if nothing it read
//   changed meanwhile (optimistic, retried), so any number of processes serve one mock.
//
// Everything above the seam (the pipeline's responder, the control surface, the runner of due
// steps and long polls, webhook deliveries) calls `run`, never the state, and asks what a store
// does (`shared` between processes, `durability`), never which store it is.
import type { SimRules } from '../simulator/simulator.js';

export type MaybePromise<T> = T | Promise<T>;

/**
 * Where the state is kept across restarts (`--state`, the file store): a request is answered only
 * once every change made before its answer is durable, its own and any other it could show, so
 * nothing acknowledged or shown is lost.
 */
export interface Durability {
  /**
   * Resolves once every change made so far is durable (at once when all are); rejects when the
   * write that was to hold them failed (the error's message says why, for the 503).
   */
  durable(): Promise<void>;
}

/**
 * A change the store could not keep or a read it could not make (a store that cannot be reached,
 * a run that kept meeting others' changes): the pipeline answers it 503 in the `Error` shape with
 * this message, and nothing was changed. The mock never invents success.
 */
export class StoreFailure extends Error {
  readonly status = 503;
}

/** What a run is about, so that a store that loads on demand can load it up front. */
export interface StoreScope {
  /** The request's key: the account it opens. */
  key?: string;
  /** An account by id (a due step, a long poll, a webhook delivery's outcome). */
  accountId?: string;
  /** The lease of the request's `Idempotency-Key` (SharedStore.claimIdempotency): the run's commit ends it, in the same atomic write. */
  lease?: IdempotencyLease;
}

/**
 * An `Idempotency-Key` held while its original runs (part 7.2). The commit of the run it is given
 * to (`StoreScope.lease`) ends it together with what the run stored (the call, the answer to
 * replay), so a call acknowledged before the store went down replays as soon as the store is back,
 * never "still running"; `release` ends it when the run committed nothing (a refusal, a failure).
 */
export interface IdempotencyLease {
  release(): Promise<void>;
}

/** What `GET /__mock/snapshots` lists of one snapshot. */
export interface SnapshotInfo {
  name: string;
  /** `all`: every account; `account`: one key's. */
  scope: 'all' | 'account';
  accounts: number;
  createdAt: string;
  bytes: number;
}

export interface SimStore {
  /**
   * Runs `work` with the simulator's rules over this store's state and commits what it changed,
   * atomically; the events it emitted are published (`SimWatch.onEvent`) once committed. `work`
   * is synchronous and may be run more than once (a view that lacked something, a conflict with
   * another process), so it changes nothing but the state the simulator shows it.
   */
  run<T>(scope: StoreScope, work: (rules: SimRules) => T): MaybePromise<T>;
  /** Runs every simulated step due by now, whoever's it is. */
  runDue(): MaybePromise<void>;
  /** When the next step falls due (simulated ms) as far as this process knows, or undefined. */
  nextDueAt(): number | undefined;
  /** Moves the one simulated clock forward and runs what fell due, for every account. */
  advance(ms: number): MaybePromise<void>;
  /** Back to the seed: every account, key and sign-up forgotten. */
  reset(): MaybePromise<void>;
  /** The simulated now and how far it is ahead of the machine's clock (ms). */
  clock(): MaybePromise<{ now: number; offsetMs: number }>;
  /** Named snapshots (`/__mock/snapshots`). */
  readonly snapshots: SnapshotShelf;
  /** With a state other processes share (Valkey/Redis), what such a store does besides; none: this process's runs are the only ones. */
  readonly shared?: SharedStore;
  /** What the pipeline waits for before it answers (the file store: the journal on disk). */
  readonly durability?: Durability;
  /** Stops its timers and connections (the state stays where it is kept). */
  close(): Promise<void>;
}

/** What a store shared by several processes does besides runs: its callers ask for it, never which store it is. */
export interface SharedStore {
  /**
   * Called with the id of an account another process committed events of (long polls held here
   * ask again). Returns a function that stops it.
   */
  onOtherCommits(listener: (accountId: string) => void): () => void;
  /**
   * Takes the lease of an `Idempotency-Key` of `key` (part 7.2) before its request runs, waiting
   * while another process's original runs. Resolves with the lease (give it to the run, then
   * release it), or undefined when the original still runs as the wait window closes (409). A
   * store of one process needs none: its runs never overlap, and a run's changes land whole.
   */
  claimIdempotency(key: string, idempotencyKey: string): Promise<IdempotencyLease | undefined>;
}

/** A snapshot as a file holds it (`GET /__mock/snapshots/{name}`, `--snapshot <file>`). */
export interface SnapshotFile {
  snapshot: string;
  scope: 'all' | 'account';
  createdAt: string;
  /** The state: whole (`all`), or one account with the index entries that name it (`account`). */
  state: import('../simulator/state.js').SimState;
}

/** A snapshot as the shelf lists it: what is answered, and whose it is (the digests of its keys, src/store/snapshots.ts; none for a snapshot of every account). */
export interface SnapshotListing extends SnapshotInfo {
  owners: string[];
}

/**
 * Where a store keeps its snapshots: their keys sealed (snapshots.ts), bounded in number and in
 * bytes (`SnapshotLimit`). Who may do what to which is the control surface's (src/serve/control.ts).
 */
export interface SnapshotShelf {
  /** Saves the state (all accounts, or the account `key` opens) under `name`, replacing one of that name. */
  save(name: string, key?: string): MaybePromise<SnapshotListing>;
  /** Brings a snapshot back: the whole state, or that one account (`key`: the key that brings it back). Undefined: no such snapshot. */
  restore(name: string, key?: string): MaybePromise<SnapshotListing | undefined>;
  list(): MaybePromise<SnapshotListing[]>;
  /** The snapshot as a file, or undefined. */
  get(name: string): MaybePromise<SnapshotFile | undefined>;
  /** Adds a snapshot file (`--snapshot`), replacing one of that name; its keys are sealed first. */
  put(file: SnapshotFile): MaybePromise<SnapshotListing>;
  remove(name: string): MaybePromise<boolean>;
}
