// Named snapshots of the mock's state (issue 32): the whole state, or one key's account with the
// index entries that name it, as plain data a team can commit (`GET /__mock/snapshots/{name}`) and
// load at start (`--snapshot <file>`). Every store keeps them its own way (src/store/store.ts);
// what a snapshot holds and how one account is put back is decided here, once. Browser-safe.
import { dropJobs, planJob } from '../simulator/job-queue.js';
import { copyWithoutPrototypes, dict, emptyState, type AccountState, type SimState } from '../simulator/state.js';
import type { SnapshotFile, SnapshotInfo } from './store.js';

/** A snapshot's name: what a path segment and a file name can carry as they are. */
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Snapshots one mock keeps at most (each may be a whole state). */
export const MAX_SNAPSHOTS = 50;

const copy = <T>(value: T): T => copyWithoutPrototypes(value);

/** The index entries of `state` that name `account` (its keys, email, numbers). */
function indexEntriesOf(state: SimState, account: AccountState): Pick<SimState, 'keys' | 'emails' | 'serviceNumbers' | 'boundNumbers'> {
  const entries = { keys: dict<string>(), emails: dict<string>(), serviceNumbers: dict<string>(), boundNumbers: dict<string>() };
  for (const key of account.keys) if (state.keys[key] === account.id) entries.keys[key] = account.id;
  if (account.email && state.emails[account.email] === account.id) entries.emails[account.email] = account.id;
  for (const number of account.numbers) if (state.serviceNumbers[number.number] === account.id) entries.serviceNumbers[number.number] = account.id;
  return entries;
}

/** A snapshot of the whole `state`, or of `account` alone, as a file holds it. */
export function takeSnapshot(state: SimState, name: string, createdAt: string, account?: AccountState): SnapshotFile {
  if (!account) return { snapshot: name, scope: 'all', createdAt, state: copy(state) };
  const one = emptyState();
  one.accounts[account.id] = copy(account);
  Object.assign(one, copy(indexEntriesOf(state, account)));
  one.jobs = copy(state.jobs.filter((job) => job.accountId === account.id));
  one.eventSeq = state.eventSeq;
  one.jobSeq = state.jobSeq;
  return { snapshot: name, scope: 'account', createdAt, state: one };
}

/** What the list says of a snapshot. */
export function snapshotInfo(file: SnapshotFile, bytes: number): SnapshotInfo {
  return { name: file.snapshot, scope: file.scope, accounts: Object.keys(file.state.accounts).length, createdAt: file.createdAt, bytes };
}

/**
 * Puts the accounts of a one-account snapshot back into `state`, in place: whatever the
 * snapshot's keys open now is replaced (its own account removed), and the snapshot's account, its
 * index entries and its planned steps come back as they were. Counters never go back.
 */
export function restoreAccountInto(state: SimState, file: SnapshotFile): void {
  const saved = file.state;
  for (const account of Object.values(saved.accounts)) {
    const replaced = new Set<string>([account.id]);
    for (const key of account.keys) if (state.keys[key]) replaced.add(state.keys[key]!);
    for (const id of replaced) {
      const current = state.accounts[id];
      if (!current) continue;
      for (const key of current.keys) if (state.keys[key] === id) delete state.keys[key];
      if (current.email && state.emails[current.email] === id) delete state.emails[current.email];
      for (const number of current.numbers) if (state.serviceNumbers[number.number] === id) delete state.serviceNumbers[number.number];
      delete state.accounts[id];
    }
    dropJobs(state, (job) => replaced.has(job.accountId));
    state.accounts[account.id] = copy(account);
  }
  for (const field of ['keys', 'emails', 'serviceNumbers', 'boundNumbers'] as const) Object.assign(state[field], copy(saved[field]));
  for (const key of Object.keys(saved.keys)) delete state.revokedKeys[key];
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
