// `--state <file>`: the simulator's state kept across restarts, and nothing acknowledged lost.
//
// The file holds the state as it was at its last compaction, one account per line (so no single
// string holds the whole state, and it is read back the same way when it is too large for one
// string); each change since is in the journal beside it (`<file>.journal`, file-store.ts),
// appended and flushed before the request that made it is answered. A new file
// is written to a temporary file in the same directory (mode 600: the state holds full API keys),
// every byte of it checked written, flushed to disk, its size checked, then renamed over the state
// file: a rename is atomic, so a kill at any moment leaves the last complete state, and a write cut
// short (a full disk) never replaces it. Temporary files a killed run left are removed at start;
// the file is checked against the state's schema before it is used.
import { closeSync, fstatSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { emptyState, withoutPrototype, type SimState } from '../simulator/state.js';
import { applyChanges, type Change } from './change-set.js';
import { addJobs, orderJobs } from '../simulator/job-queue.js';

/** The state file holds full API keys: only its owner reads it. */
const STATE_FILE_MODE = 0o600;
/** Below this size a state file is parsed as one string; above it, one account per line (V8's strings stop at about 512 MB). */
export const WHOLE_PARSE_LIMIT = 256 * 1024 * 1024;
/** Bytes handed to the file system per write call. */
const WRITE_BATCH = 1024 * 1024;

/** Why a state write failed, in words for the log and the 503. */
export function describeWriteError(error: NodeJS.ErrnoException): string {
  const causes: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'the file system is read-only',
    ENOENT: 'the directory does not exist',
    EIO: 'an input/output error',
  };
  const cause = error.code ? causes[error.code] : undefined;
  return cause ? `${cause} (${error.code})` : error.message;
}

/** Temporary files `.<name>.<pid>.tmp` (and the journal's, `.<name>.journal.<pid>.tmp`) beside `file` left by a run that was killed; removed, and their names returned. */
export function removeStaleTemporaries(file: string): string[] {
  const dir = path.dirname(file);
  const pattern = new RegExp(`^\\.${path.basename(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:\\.journal)?\\.(\\d+)\\.tmp$`);
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (!pid || (pid !== process.pid && isRunning(pid))) continue;
    try {
      unlinkSync(path.join(dir, name));
      removed.push(name);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return removed;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Where the journal of state file `file` is. */
export const journalOf = (file: string): string => `${file}.journal`;

/** How far the journal was folded into a state file: the state's own part at `head`, each account at its own. */
export interface JournalSeqs {
  head: number;
  accounts: Record<string, number>;
}

/**
 * The state in `file` with every change of its journal applied (file-store.ts), or
 * undefined when there is neither yet. A file that is not JSON, or not a state of this mock
 * (`check` names what is wrong with it), is an error saying so; the file is left as it is.
 */
export function readStateFile(file: string, check: (state: SimState) => string[] = () => [], wholeParseLimit = WHOLE_PARSE_LIMIT): SimState | undefined {
  return readStateWithJournal(file, check, wholeParseLimit)?.state;
}

/** The state, and of its journal (`Journal`) how far it goes: `lastSeq` the last change number, the file's own included. */
export type ReadState = Omit<Journal, 'entries'> & { state: SimState };

export function readStateWithJournal(file: string, check: (state: SimState) => string[] = () => [], wholeParseLimit = WHOLE_PARSE_LIMIT): ReadState | undefined {
  const base = readBase(file, wholeParseLimit);
  const journal = readJournal(journalOf(file));
  if (!base && !journal) return undefined;
  const state = base?.state ?? emptyState();
  const seqs = base?.seqs ?? { head: 0, accounts: {} };
  const replayed = journal ? replayJournal(state, seqs, journal.entries) : state;
  const problems = check(replayed);
  if (problems.length > 0) {
    const shown = `${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}`;
    throw new Error(`${file} is not a valid state of this mock (${shown}); it is left untouched: move it away or choose another --state.`);
  }
  return { state: replayed, lastSeq: Math.max(seqs.head, journal?.lastSeq ?? 0), tornBytes: journal?.tornBytes ?? 0, goodBytes: journal?.goodBytes ?? 0 };
}

/** The bytes of `file` (`what` it is, for the error), or undefined when there is none. */
function readIfThere(file: string, what: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`Cannot read ${what} ${file}: ${(error as Error).message}`);
  }
}

/** The state file itself (no journal): the state and how far the journal was folded into it. */
function readBase(file: string, wholeParseLimit: number): { state: SimState; seqs: JournalSeqs } | undefined {
  const bytes = readIfThere(file, 'the state file');
  if (!bytes) return undefined;
  let state: SimState & { journalSeq?: number; journalSeqs?: Record<string, number> };
  try {
    state = bytes.length < wholeParseLimit ? (JSON.parse(bytes.toString('utf8'), withoutPrototype) as SimState) : parseByLines(bytes);
  } catch (error) {
    throw new Error(`The state file ${file} is not JSON: ${(error as Error).message}`);
  }
  if (!state || typeof state !== 'object' || state.version !== 1 || typeof state.accounts !== 'object') {
    throw new Error(`${file} is not a state file of this mock (version 1); move it away or choose another --state.`);
  }
  const seqs: JournalSeqs = { head: Number(state.journalSeq ?? 0), accounts: state.journalSeqs && typeof state.journalSeqs === 'object' ? state.journalSeqs : {} };
  delete state.journalSeq;
  delete state.journalSeqs;
  return { state, seqs };
}

/** A state file too large for one string, as `stateChunks` wrote it: the rest on the first line, then one account per line. */
function parseByLines(bytes: Buffer): SimState {
  const lines: string[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(10, start);
    lines.push(bytes.toString('utf8', start, end < 0 ? bytes.length : end));
    start = end < 0 ? bytes.length : end + 1;
  }
  const head = lines.shift() ?? '';
  if (!head.endsWith('"accounts":{')) throw new Error('too large to read as one string, and not written one account per line');
  const state = JSON.parse(`${head}}}`, withoutPrototype) as SimState;
  for (const line of lines) {
    if (line.startsWith('},')) {
      // The fields after the accounts (how far the journal was folded in).
      Object.assign(state, JSON.parse(`{${line.slice(2)}`, withoutPrototype));
      continue;
    }
    const entry = line.replace(/,$/, '');
    if (entry === '' || entry === '}}') continue;
    Object.assign(state.accounts, JSON.parse(`{${entry}}`, withoutPrototype));
  }
  return state;
}

/**
 * The state as JSON, in pieces: everything but the accounts on the first line, then one account
 * per line; with `seqs`, how far the journal is folded in (the head's on the first line, each
 * account's after the accounts). `accountsNow` gives each account as it is when its line is made
 * (a compaction writes while the mock runs).
 */
export function* stateChunks(state: SimState, seqs?: { head: number; account: (id: string) => number }): Generator<string> {
  const { accounts, ...rest } = state;
  const head = seqs ? { ...rest, journalSeq: seqs.head } : rest;
  yield `${JSON.stringify(head).slice(0, -1)},"accounts":{`;
  let first = true;
  const folded: Record<string, number> = {};
  for (const id of Object.keys(accounts)) {
    const account = accounts[id];
    if (!account) continue; // deleted while the file was being written
    if (seqs) folded[id] = seqs.account(id);
    yield `${first ? '\n' : ',\n'}${JSON.stringify(id)}:${JSON.stringify(account)}`;
    first = false;
  }
  yield seqs ? `\n},"journalSeqs":${JSON.stringify(folded)}}\n` : '\n}}\n';
}

/** The pieces gathered into buffers of about WRITE_BATCH bytes. */
function* batches(chunks: Iterable<string>): Generator<Buffer> {
  let pending: string[] = [];
  let size = 0;
  for (const chunk of chunks) {
    pending.push(chunk);
    size += chunk.length;
    if (size >= WRITE_BATCH) {
      yield Buffer.from(pending.join(''), 'utf8');
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield Buffer.from(pending.join(''), 'utf8');
}

const temporaryOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);

const shortWrite = (size: number, total: number): Error => Object.assign(new Error(`wrote ${size} of ${total} bytes`), { code: 'ESHORT' });

/** Writes the pieces to `file` atomically, synchronously: temporary file (mode 600), every byte checked, fsync, size checked, rename. */
export function writeFileAtomic(file: string, chunks: Iterable<string>): void {
  const temporary = temporaryOf(file);
  try {
    const fd = openSync(temporary, 'w', STATE_FILE_MODE);
    try {
      let total = 0;
      for (const buffer of batches(chunks)) {
        for (let done = 0; done < buffer.length; ) done += writeSync(fd, buffer, done, buffer.length - done);
        total += buffer.length;
      }
      fsyncSync(fd);
      if (fstatSync(fd).size !== total) throw shortWrite(fstatSync(fd).size, total);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // never created, or already gone
    }
    throw error;
  }
}

/** The same, without blocking the mock while the disk works. */
export async function writeFileAtomicAsync(file: string, chunks: Iterable<string>): Promise<void> {
  const temporary = temporaryOf(file);
  try {
    const handle = await open(temporary, 'w', STATE_FILE_MODE);
    try {
      let total = 0;
      for (const buffer of batches(chunks)) {
        for (let done = 0; done < buffer.length; ) done += (await handle.write(buffer, done, buffer.length - done)).bytesWritten;
        total += buffer.length;
      }
      await handle.sync();
      const { size } = await handle.stat();
      if (size !== total) throw shortWrite(size, total);
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** A change that could not be made durable: the pipeline answers it 503. */
export class StateNotSaved extends Error {
  constructor(
    readonly file: string,
    readonly reason: NodeJS.ErrnoException,
  ) {
    super(
      `The mock could not save its state to ${file}: ${describeWriteError(reason)}. The change is kept in memory and written ` +
        'once the file can be written again; it is lost if the mock stops before that. List before you retry (part 7.5).',
    );
  }
}

/** One line of the journal: change number `n`, and what changed (`c`) or the whole state it became (`state`: a reset, a snapshot brought back). */
export interface JournalEntry {
  n: number;
  c?: Change[];
  state?: SimState;
}

interface Journal {
  entries: JournalEntry[];
  lastSeq: number;
  /** Bytes up to the end of the last whole line. */
  goodBytes: number;
  /** Bytes after it that are not a whole line: a write a kill cut short (never acknowledged). */
  tornBytes: number;
}

/** The journal's whole lines; a last line a kill cut short is left out (it was never acknowledged). */
export function readJournal(file: string): Journal | undefined {
  const bytes = readIfThere(file, 'the journal');
  if (!bytes) return undefined;
  const entries: JournalEntry[] = [];
  let start = 0;
  let lastSeq = 0;
  while (start < bytes.length) {
    const end = bytes.indexOf(10, start);
    if (end < 0) break; // no newline: cut short
    let entry: JournalEntry;
    try {
      entry = JSON.parse(bytes.toString('utf8', start, end), withoutPrototype) as JournalEntry;
    } catch {
      // Only the tail can be damaged (a failed write is cut back before the next one): stop here.
      break;
    }
    if (!entry || typeof entry.n !== 'number' || entry.n <= lastSeq) break;
    entries.push(entry);
    lastSeq = entry.n;
    start = end + 1;
  }
  // Zeros after the last line are space written ahead (src/store/file-store.ts), not a torn write.
  return { entries, lastSeq, goodBytes: start, tornBytes: bytes[start] === 0 ? 0 : bytes.length - start };
}

/**
 * `state` with the journal's changes applied that its file does not hold yet: a change to an
 * account applies when it is newer than that account's line, any other when it is newer than
 * the file's head (a compaction writes accounts one by one while the mock runs).
 */
export function replayJournal(state: SimState, seqs: JournalSeqs, entries: readonly JournalEntry[]): SimState {
  let current = state;
  let head = seqs.head;
  let accounts = seqs.accounts;
  /** Steps taken, by `seq` (unique): dropped from the queue once, at the end. */
  const gone = new Set<number>();
  let queued = new Set(state.jobs.map((job) => job.seq));
  for (const entry of entries) {
    if (entry.state) {
      if (entry.n > head) {
        current = entry.state;
        head = entry.n;
        accounts = {};
        gone.clear();
        queued = new Set(current.jobs.map((job) => job.seq));
      }
      continue;
    }
    const applies = (change: Change): boolean => {
      if (change[0] === 'j+' || change[0] === 'j-') return entry.n > head;
      const path = change[1];
      return path[0] === 'accounts' && path[1] !== undefined ? entry.n > (accounts[path[1]] ?? head) : entry.n > head;
    };
    const changes = (entry.c ?? []).filter(applies);
    applyChanges(current, changes, {
      planned: (jobs) => addJobs(current, jobs.filter((job) => !queued.has(job.seq) && queued.add(job.seq))),
      removed: (seqs) => seqs.forEach((seq) => gone.add(seq)),
    });
  }
  if (gone.size > 0) current.jobs = current.jobs.filter((job) => !gone.has(job.seq!));
  orderJobs(current);
  return current;
}
