// `--state <file>`: the simulator's state kept across restarts, and nothing acknowledged lost.
//
// Every change is written to a temporary file in the same directory (mode 600: the state holds
// full API keys), every byte of it checked written, flushed to disk, its size checked, then renamed
// over the state file: a rename is atomic, so a kill at any moment leaves the last complete state,
// and a write cut short (a full disk) never replaces it. A request is answered only once every
// change made before its answer is on disk (group commit: one write covers every request waiting
// when it starts; requests that arrive during a write wait for the next one), so nothing the mock
// acknowledged or showed survives `kill -9` only by luck. Changes no request waits for (a delivery
// reported by the clock) are written behind, within `intervalMs`.
//
// A write that fails (ENOSPC, EACCES, EROFS ...) is said once in the log, and the requests that
// waited for it are told (the pipeline answers them 503 in the `Error` shape); nothing is retried
// in a loop: the next request that waits tries again, and changes nobody waits for are retried
// with a growing delay. The file is written account by account, one account per line, so no single
// string holds the whole state, and read back the same way when it is too large for one string.
import { closeSync, fstatSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { withoutPrototype, type SimState } from '../simulator/state.js';
import type { Simulator } from '../simulator/simulator.js';
import type { Durability } from '../simulator/pipeline.js';

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

/** Temporary files `.<name>.<pid>.tmp` beside `file` left by a run that was killed; removed, and their names returned. */
export function removeStaleTemporaries(file: string): string[] {
  const dir = path.dirname(file);
  const pattern = new RegExp(`^\\.${path.basename(file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.(\\d+)\\.tmp$`);
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

/**
 * The state in `file`, or undefined when it does not exist yet. A file that is not JSON, or not a
 * state of this mock (`check` names what is wrong with it), is an error saying so; the file is
 * left as it is.
 */
export function readStateFile(file: string, check: (state: SimState) => string[] = () => [], wholeParseLimit = WHOLE_PARSE_LIMIT): SimState | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  let state: SimState;
  try {
    state = bytes.length < wholeParseLimit ? (JSON.parse(bytes.toString('utf8'), withoutPrototype) as SimState) : parseByLines(bytes);
  } catch (error) {
    throw new Error(`The state file ${file} is not JSON: ${(error as Error).message}`);
  }
  if (!state || typeof state !== 'object' || state.version !== 1 || typeof state.accounts !== 'object') {
    throw new Error(`${file} is not a state file of this mock (version 1); move it away or choose another --state.`);
  }
  const problems = check(state);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).map((problem) => `  ${problem}`).join('\n');
    throw new Error(
      `${file} is not a valid state of this mock (${problems.length} problem${problems.length === 1 ? '' : 's'}); it is left untouched:\n${shown}${problems.length > 5 ? `\n  ... and ${problems.length - 5} more` : ''}\nMove it away or choose another --state.`,
    );
  }
  return state;
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
    const entry = line.replace(/,$/, '');
    if (entry === '' || entry === '}}') continue;
    Object.assign(state.accounts, JSON.parse(`{${entry}}`, withoutPrototype));
  }
  return state;
}

/** The state as JSON, in pieces: everything but the accounts on the first line, then one account per line. */
export function* stateChunks(state: SimState): Generator<string> {
  const { accounts, ...rest } = state;
  yield `${JSON.stringify(rest).slice(0, -1)},"accounts":{`;
  let first = true;
  for (const [id, account] of Object.entries(accounts)) {
    yield `${first ? '\n' : ',\n'}${JSON.stringify(id)}:${JSON.stringify(account)}`;
    first = false;
  }
  yield '\n}}\n';
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

class ShortWrite extends Error {
  code = 'ESHORT';
}

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
      if (fstatSync(fd).size !== total) throw new ShortWrite(`wrote ${fstatSync(fd).size} of ${total} bytes`);
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
async function writeFileAtomicAsync(file: string, chunks: Iterable<string>): Promise<void> {
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
      if (size !== total) throw new ShortWrite(`wrote ${size} of ${total} bytes`);
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

export interface StatePersistence extends Durability {
  /** Writes any change not written yet, now (at stop). */
  flush(): void;
  stop(): void;
}

export interface PersistOptions {
  /** How soon a change nobody waits for is written (default 100 ms). */
  intervalMs?: number;
  /** The longest wait between retries of a failing write nobody waits for (default 5 s). */
  maxRetryMs?: number;
  /** One line when writing starts failing (naming the cause) and one when it works again. */
  log?: (line: string) => void;
}

export function persistState(simulator: Simulator, file: string, options: PersistOptions = {}): StatePersistence {
  const intervalMs = options.intervalMs ?? 100;
  const maxRetryMs = options.maxRetryMs ?? 5000;
  const log = options.log ?? (() => undefined);
  /** Changes so far, and how many of them are on disk. */
  let changes = 0;
  let written = 0;
  let writing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  /** The failure of the last write, while writes fail. */
  let failing: NodeJS.ErrnoException | undefined;
  let retryMs = intervalMs;
  /** Requests waiting for their changes to be on disk; `started` once a write covering them began. */
  let waiters: Array<{ upTo: number; started: boolean; resolve: () => void; reject: (error: Error) => void }> = [];

  const later = (ms: number): void => {
    if (timer === undefined && !stopped) timer = setTimeout(write, ms);
  };

  const succeeded = (upTo: number): void => {
    written = Math.max(written, upTo);
    if (failing) log(`--state: ${file} is written again.`);
    failing = undefined;
    retryMs = intervalMs;
    const ready = waiters.filter((waiter) => waiter.upTo <= written);
    waiters = waiters.filter((waiter) => waiter.upTo > written);
    for (const waiter of ready) waiter.resolve();
  };

  const failed = (error: NodeJS.ErrnoException): void => {
    if (!failing || failing.code !== error.code) {
      log(`--state: cannot write ${file}: ${describeWriteError(error)}. Requests that change state answer 503 until it can be written again.`);
    }
    failing = error;
    // The requests this write covered are told; those that came during it wait for the next one.
    const told = waiters.filter((waiter) => waiter.started);
    waiters = waiters.filter((waiter) => !waiter.started);
    for (const waiter of told) waiter.reject(new StateNotSaved(file, error));
  };

  /** One write of the state as it is now; then another at once if requests came during it. */
  function write(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (writing || stopped || written >= changes) return;
    writing = true;
    const upTo = changes;
    for (const waiter of waiters) waiter.started = true;
    writeFileAtomicAsync(file, stateChunks(simulator.state)).then(
      () => succeeded(upTo),
      (error: NodeJS.ErrnoException) => failed(error),
    ).finally(() => {
      writing = false;
      if (waiters.length > 0) write();
      else if (written < changes) {
        // Behind, nobody waiting: soon after a success, with a growing delay while it fails.
        later(failing ? retryMs : intervalMs);
        if (failing) retryMs = Math.min(maxRetryMs, retryMs * 2);
      }
    });
  }

  const stopListening = simulator.onChange(() => {
    changes++;
    later(intervalMs);
  });

  return {
    durable() {
      if (written >= changes || stopped) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ upTo: changes, started: false, resolve, reject });
        // Requests finishing together share the write: it starts on the next turn of the loop.
        setImmediate(write);
      });
    },
    flush() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (written >= changes) return;
      const upTo = changes;
      for (const waiter of waiters) waiter.started = true;
      try {
        writeFileAtomic(file, stateChunks(simulator.state));
        succeeded(upTo);
      } catch (error) {
        failed(error as NodeJS.ErrnoException);
      }
    },
    stop() {
      stopListening();
      this.flush();
      stopped = true;
      for (const waiter of waiters.splice(0)) waiter.reject(new StateNotSaved(file, failing ?? Object.assign(new Error('the mock stopped'), { code: 'ESTOPPED' })));
    },
  };
}
