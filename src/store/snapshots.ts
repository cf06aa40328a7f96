// Named snapshots of the mock's state (issue 32): the whole state, or one key's account with the
// index entries that name it, as plain data a team can commit (`GET /__mock/snapshots/{name}`) and
// load at start (`--snapshot <file>`). Every store keeps them its own way (src/store/store.ts);
// what a snapshot holds, whose it is, how much may be kept and how one account is put back is
// decided here, once (issue 39: a snapshot keeps no full key; it is its account's). Browser-safe.
import { keyDigest } from '../contract/api-key.js';
import { dropJobs, planJob } from '../simulator/job-queue.js';
import { copyWithoutPrototypes as copy, dict, emptyState, type AccountState, type SimState } from '../simulator/state.js';
import type { SimRules } from '../simulator/simulator.js';
import type { SnapshotFile, SnapshotInfo, SnapshotListing } from './store.js';

/** A snapshot's name: what a path segment and a file name can carry as they are. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Snapshots one mock keeps at most (each may be a whole state). */
export const MAX_SNAPSHOTS = 50;
/**
 * Bytes of JSON all snapshots together keep at most, by default (`--max-snapshot-bytes`): one whole
 * snapshot of a mock at its default live-account cap fits (10,000 demo accounts of about 6 KB: 58
 * MB), or the 50 snapshots of a team's test accounts many times over; and it is a quarter of the
 * smallest heap the mock is run with (256 MB), so the process's memory stays sized by its accounts
 * (snapshots are kept outside V8's heap, and the heap guard never counts them).
 */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

/** Why a snapshot is not kept: too many, or past the bytes all may hold. What to delete is said by the one who answers. */
export class SnapshotLimit extends Error {
  constructor(
    readonly bound: { kind: 'count'; max: number } | { kind: 'bytes'; max: number; kept: number; bytes: number },
  ) {
    super(
      bound.kind === 'count'
        ? `The mock keeps at most ${bound.max} snapshots; delete one first (DELETE /__mock/snapshots/{name}).`
        : `Snapshots keep at most ${mib(bound.max)} in all (--max-snapshot-bytes); ${mib(bound.kept)} are kept and this one is ${mib(bound.bytes)}: delete one first (DELETE /__mock/snapshots/{name}).`,
    );
  }
}

/** A size as the refusals say it. */
export const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(bytes < 1024 * 1024 ? 2 : 1)} MiB`;

/**
 * Refuses a snapshot of `bytes` under `name` when it would pass the count or `maxBytes` with what
 * `kept` lists (one of the same name is replaced, so its bytes do not count).
 */
export function checkRoom(kept: readonly Pick<SnapshotInfo, 'name' | 'bytes'>[], name: string, bytes: number, maxBytes: number): void {
  const others = kept.filter((info) => info.name !== name);
  if (others.length >= MAX_SNAPSHOTS) throw new SnapshotLimit({ kind: 'count', max: MAX_SNAPSHOTS });
  const total = others.reduce((sum, info) => sum + info.bytes, 0);
  if (total + bytes > maxBytes) throw new SnapshotLimit({ kind: 'bytes', max: maxBytes, kept: total, bytes });
}

/**
 * `file` with every key kept as its digest (src/contract/api-key.ts): the keys that open accounts,
 * each account's keys, the revoked ones. A key reopens its account from the digest; the snapshot,
 * on disk, in Redis or answered, holds no key that a reader could use. In place; returns `file`.
 */
export function sealKeys(file: SnapshotFile): SnapshotFile {
  const { state } = file;
  const sealed = <T>(entries: Record<string, T>): Record<string, T> => {
    const out = dict<T>();
    for (const [key, value] of Object.entries(entries)) out[keyDigest(key)] = value;
    return out;
  };
  state.keys = sealed(state.keys ?? {});
  state.revokedKeys = sealed(state.revokedKeys ?? {});
  for (const account of Object.values(state.accounts ?? {})) account.keys = (account.keys ?? []).map(keyDigest);
  return file;
}

/** Whether `key` is one of the keys the snapshot listed as `listing` belongs to. */
export function ownsSnapshot(listing: Pick<SnapshotListing, 'owners'>, key: string | undefined): boolean {
  return key !== undefined && listing.owners.includes(keyDigest(key));
}

/** The index entries of `state` that name `account` (its keys, email, numbers). */
function indexEntriesOf(state: SimState, account: AccountState): Pick<SimState, 'keys' | 'emails' | 'serviceNumbers' | 'boundNumbers'> {
  const entries = { keys: dict<string>(), emails: dict<string>(), serviceNumbers: dict<string>(), boundNumbers: dict<string>() };
  for (const key of account.keys) if (state.keys[key] === account.id) entries.keys[key] = account.id;
  if (account.email && state.emails[account.email] === account.id) entries.emails[account.email] = account.id;
  for (const number of account.numbers) if (state.serviceNumbers[number.number] === account.id) entries.serviceNumbers[number.number] = account.id;
  return entries;
}

/** A snapshot of the whole state `sim` shows, or of the account `key` opens, as a file holds it: its keys sealed. */
export function takeSnapshot({ state, accountForKey }: Pick<SimRules, 'state' | 'accountForKey'>, name: string, createdAt: string, key?: string): SnapshotFile {
  if (key === undefined) return sealKeys({ snapshot: name, scope: 'all', createdAt, state: copy(state) });
  const account = accountForKey(key);
  // A key that opens no account never stands for every account.
  if (!account) throw new Error('The key opens no account.');
  const one = emptyState();
  one.accounts[account.id] = copy(account);
  Object.assign(one, copy(indexEntriesOf(state, account)));
  one.jobs = copy(state.jobs.filter((job) => job.accountId === account.id));
  one.eventSeq = state.eventSeq;
  one.jobSeq = state.jobSeq;
  return sealKeys({ snapshot: name, scope: 'account', createdAt, state: one });
}

/** What the list says of a snapshot, and whose it is: the digests of its keys; none for a snapshot of every account (the operator's). */
export function snapshotInfo(file: SnapshotFile, bytes: number): SnapshotListing {
  const owners = file.scope === 'account' ? Object.keys(file.state.keys) : [];
  return { name: file.snapshot, scope: file.scope, accounts: Object.keys(file.state.accounts).length, createdAt: file.createdAt, bytes, owners };
}

/** The list's entry as it is answered: whose it is stays the mock's. */
export function answeredInfo({ owners: _owners, ...info }: SnapshotListing): SnapshotInfo {
  return info;
}

/**
 * Puts the accounts of a one-account snapshot back into `state`, in place: whatever the
 * snapshot's keys open now is replaced (its own account removed), and the snapshot's account, its
 * index entries and its planned steps come back as they were. Counters never go back. `key`: the
 * key that brings it back, kept as itself again (the snapshot's other keys as their digests, each
 * until it is used: accounts.ts).
 */
export function restoreAccountInto(state: SimState, file: SnapshotFile, key?: string): void {
  const saved = file.state;
  for (const account of Object.values(saved.accounts)) {
    const replaced = new Set<string>([account.id]);
    for (const kept of account.keys) if (state.keys[kept]) replaced.add(state.keys[kept]!);
    if (key !== undefined && state.keys[key]) replaced.add(state.keys[key]!);
    for (const id of replaced) {
      const current = state.accounts[id];
      if (!current) continue;
      for (const kept of current.keys) if (state.keys[kept] === id) delete state.keys[kept];
      if (current.email && state.emails[current.email] === id) delete state.emails[current.email];
      for (const number of current.numbers) if (state.serviceNumbers[number.number] === id) delete state.serviceNumbers[number.number];
      delete state.accounts[id];
    }
    dropJobs(state, (job) => replaced.has(job.accountId));
    state.accounts[account.id] = copy(account);
  }
  for (const field of ['keys', 'emails', 'serviceNumbers', 'boundNumbers'] as const) Object.assign(state[field], copy(saved[field]));
  for (const kept of Object.keys(saved.keys)) delete state.revokedKeys[kept];
  const digest = key === undefined ? undefined : keyDigest(key);
  if (key !== undefined && digest !== undefined && state.keys[digest] !== undefined) {
    const id = state.keys[digest]!;
    delete state.keys[digest];
    delete state.revokedKeys[key];
    state.keys[key] = id;
    state.accounts[id]!.keys = state.accounts[id]!.keys.map((kept) => (kept === digest ? key : kept));
  }
  for (const job of saved.jobs) planJob(state, { at: job.at, kind: job.kind, accountId: job.accountId, ref: job.ref, ...(job.data ? { data: copy(job.data) } : {}) });
  state.eventSeq = Math.max(state.eventSeq, saved.eventSeq);
}

/** Why a snapshot file cannot be used, or undefined. */
export function snapshotFileProblem(file: unknown): string | undefined {
  const value = file as Partial<SnapshotFile> | null;
  if (!value || typeof value !== 'object') return 'not a JSON object';
  if (typeof value.snapshot !== 'string' || !SNAPSHOT_NAME.test(value.snapshot)) return '"snapshot" is not a snapshot name (letters, digits, ".", "_", "-"; at most 64)';
  if (value.scope !== 'all' && value.scope !== 'account') return '"scope" is neither "all" nor "account"';
  const state = value.state as Partial<SimState> | undefined;
  if (!state || typeof state !== 'object' || state.version !== 1 || typeof state.accounts !== 'object') return '"state" is not a state of this mock (version 1)';
  return undefined;
}
