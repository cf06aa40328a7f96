// The file store (`--state <file>`, issue 32): the state in memory, as the memory store keeps it,
// and every change on disk before the request that made it is answered.
//
// Each run of the rules is tracked (src/store/change-set.ts) and its changes become one line
// of the journal (`<file>.journal`): a send appends its message, its event and a step, never the
// account. Lines are written by group commit: one write and one fdatasync cover every request
// waiting when it starts; requests served while the disk works (it works off the event loop) wait
// for the next. A request is answered once every change made before its answer is on disk, its
// own and any other it could show: a read that could show a change waits for its commit.
//
// The journal is folded into the state file (compaction) once it outgrows the file: the state is
// written afresh (state-file.ts: temporary file, checked, renamed), account by account between
// requests, each account noting the last change it holds, so the journal kept after it needs only
// the lines written since the compaction began. A write that fails (a full or read-only disk) is
// cut back to the last whole line, said once in the log, and answered 503 naming the cause; the
// change stays in memory and goes out with the next write.
import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, readSync, writeSync, fsyncSync, ftruncateSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { trackChanges, unwrapDeep } from './change-set.js';
import { localSnapshots, type SnapshotKeeping } from './memory-store.js';
import type { Emitted, SimStorage } from '../simulator/simulator.js';
import type { SimStore, SnapshotFile } from './store.js';
import type { SimState } from '../simulator/state.js';
import { journalOf, StateNotSaved, stateChunks, writeFileAtomic, writeFileAtomicAsync, describeWriteError } from './state-file.js';

export interface FileStoreOptions {
  /** The last change number already in the journal (read at start). */
  lastSeq?: number;
  /** The journal's length up to its last whole line (what a killed run cut short is cut off). */
  journalBytes?: number;
  /** One line when writing starts failing (naming the cause) and one when it works again. */
  log?: (line: string) => void;
  /** The journal is folded into the state file past this many bytes (default: 4 times the file, at least 64 MB). */
  compactBytes?: number;
  /** Write the journal's space ahead (default true; off where the disk is small). */
  preallocate?: boolean;
  /** Snapshots kept beside the file (`<file>.snapshots/`), read at start. */
  snapshots?: SnapshotFile[];
  /** Where snapshots are kept besides (snapshot-files.ts). */
  keepSnapshot?: SnapshotKeeping;
  /** Bytes all snapshots may keep (`--max-snapshot-bytes`, src/store/snapshots.ts). */
  maxSnapshotBytes?: number;
}

/** One line of the journal for a change numbered `n`. */
const line = (n: number, body: string): string => `{"n":${n},${body}}\n`;

/** How long the journal stays open without a write. */
const IDLE_CLOSE_MS = 250;
/** Space written ahead of the journal at a time. */
const PREALLOCATE_BYTES = 8 * 1024 * 1024;

/** Whether the journal holds only zeros (space written ahead) from `at` on (checked at its first byte: a line starts with `{`). */
function zerosAfter(fd: number, at: number): boolean {
  const first = Buffer.alloc(1);
  return readSync(fd, first, 0, 1, at) === 0 || first[0] === 0;
}

export function fileStore(simulator: SimStorage, file: string, options: FileStoreOptions = {}): SimStore {
  const log = options.log ?? (() => undefined);
  const journalFile = journalOf(file);
  let seq = options.lastSeq ?? 0;
  /** Lines not yet written, and the change number the last of them carries. */
  let pending: string[] = [];
  let written = seq;
  let writing = false;
  let stopped = false;
  let failing: NodeJS.ErrnoException | undefined;
  /** The journal's length up to its last whole line: a failed write is cut back to it. */
  let goodBytes = options.journalBytes ?? 0;
  let fileBytes = 0;
  let fd: number | undefined;
  /** Closes the journal after a while without writes (a disk can then be remounted, unmounted ...). */
  let idle: ReturnType<typeof setTimeout> | undefined;
  /** The journal's size on disk, zeros past `goodBytes` included. */
  let allocated = 0;
  let preallocate = options.preallocate ?? true;
  let waiters: Array<{ upTo: number; started: boolean; resolve: () => void; reject: (error: Error) => void }> = [];
  /** While a compaction runs: the lines recorded since it began, with their numbers (they make the new journal). */
  let since: Array<[number, string]> | undefined;
  let compacting: Promise<void> | undefined;
  const compactBytes = (): number => options.compactBytes ?? Math.max(64 * 1024 * 1024, 4 * fileBytes);

  // At start the journal is folded into a fresh state file, which also holds what the start itself
  // made (the seed's named accounts); when the disk refuses, the file and journal stay as they are.
  try {
    writeFileAtomic(file, stateChunks(simulator.state, { head: seq, account: () => seq }));
    closeSync(openSync(journalFile, 'w', 0o600));
    goodBytes = 0;
  } catch (error) {
    log(`--state: cannot write ${file} at start: ${describeWriteError(error as NodeJS.ErrnoException)}; changes answer 503 until it can be written.`);
  }
  try {
    fileBytes = statSync(file).size;
  } catch {
    fileBytes = 0;
  }

  const record = (body: string): void => {
    const text = line(++seq, body);
    pending.push(text);
    since?.push([seq, text]);
  };

  /** Runs `work` on the state behind a tracker; what it changed becomes a line of the journal. */
  function tracked<T>(work: () => T): T {
    const before = simulator.state;
    const tracker = trackChanges(before);
    let outcome: { result: T; emitted: Emitted[] } | undefined;
    try {
      // The state itself beside the view: a read that changes nothing runs on it (simulator.ts).
      outcome = simulator.within(tracker.view, work, before) as typeof outcome;
    } finally {
      // Also after a rule that threw: what it changed in memory is what the disk must hold.
      if (simulator.state !== before) record(`"state":${JSON.stringify(simulator.state)}`);
      else if (tracker.changed()) record(`"c":${JSON.stringify(tracker.changes())}`);
    }
    simulator.publish(outcome!.emitted);
    // The answer of a change holds the records it shows as the tracker's proxies: written out
    // through their traps, they cost a read under --state two thirds of its speed (issue 39). A
    // run that changed nothing is answered as it is (a read ran on the state's own objects).
    return tracker.changed() ? (unwrapDeep(outcome!.result) as T) : outcome!.result;
  }

  const succeeded = (upTo: number): void => {
    written = Math.max(written, upTo);
    if (failing) log(`--state: ${file} is written again.`);
    failing = undefined;
    const ready = waiters.filter((waiter) => waiter.upTo <= written);
    waiters = waiters.filter((waiter) => waiter.upTo > written);
    for (const waiter of ready) waiter.resolve();
  };

  const failed = (error: NodeJS.ErrnoException): void => {
    if (!failing || failing.code !== error.code) {
      log(`--state: cannot write ${file}: ${describeWriteError(error)}. Requests that change state answer 503 until it can be written again.`);
    }
    failing = error;
    const told = waiters.filter((waiter) => waiter.started);
    waiters = waiters.filter((waiter) => !waiter.started);
    for (const waiter of told) waiter.reject(new StateNotSaved(file, error));
  };

  /**
   * The journal, open for writing at `goodBytes`; what a failed write left past the last whole
   * line is cut off first. Space is written ahead with zeros (a reader stops at them): a flush of
   * a line into space already on disk needs no update of the file's size, which on a busy disk
   * halves what each group commit waits for.
   */
  async function journalFd(): Promise<number> {
    if (fd === undefined) {
      closeSync(openSync(journalFile, 'a', 0o600));
      fd = openSync(journalFile, 'r+');
      allocated = fstatSync(fd).size;
      if (allocated > goodBytes && !zerosAfter(fd, goodBytes)) {
        ftruncateSync(fd, goodBytes);
        allocated = goodBytes;
      }
    }
    if (allocated - goodBytes < PREALLOCATE_BYTES / 4 && preallocate) extend(fd);
    return fd;
  }

  /** Writes zeros ahead of the journal's end; a disk without room for them is not asked again. */
  function extend(handle: number): void {
    const from = allocated;
    try {
      const zeros = Buffer.alloc(1024 * 1024);
      for (let at = from; at < from + PREALLOCATE_BYTES; at += zeros.length) writeSync(handle, zeros, 0, zeros.length, at);
      fdatasyncSync(handle);
      allocated = from + PREALLOCATE_BYTES;
    } catch {
      preallocate = false;
      try {
        ftruncateSync(handle, Math.max(goodBytes, from));
      } catch {
        // cut back at the next open
      }
    }
  }

  /** Closes the journal; `trim`: without the space written ahead (at stop). */
  function closeJournal(trim = false): void {
    if (fd === undefined) return;
    try {
      if (trim && allocated > goodBytes) ftruncateSync(fd, goodBytes);
      closeSync(fd);
    } catch {
      // already gone
    }
    fd = undefined;
  }

  /** A compaction's swap of the journal, to run between two group writes. */
  let swap: (() => Promise<void>) | undefined;

  /** One group write of every pending line; then another at once if requests came during it. */
  function write(): void {
    if (swap && !writing) {
      const run = swap;
      swap = undefined;
      writing = true;
      void run().finally(() => {
        writing = false;
        write();
      });
      return;
    }
    if (writing || stopped || pending.length === 0) {
      if (!writing && pending.length === 0 && waiters.length > 0) succeeded(seq);
      return;
    }
    writing = true;
    const lines = pending;
    const upTo = seq;
    pending = [];
    for (const waiter of waiters) waiter.started = true;
    (async () => {
      // One write into the page cache, made synchronously (microseconds), and one fdatasync off
      // the event loop: while the disk works, requests go on being served, and what they change
      // is the next group, so one account's pipelined writes share a commit (issue 39). None is
      // answered before its group's fdatasync has returned.
      const fd = await journalFd();
      const buffer = Buffer.from(lines.join(''), 'utf8');
      try {
        for (let done = 0; done < buffer.length; ) done += writeSync(fd, buffer, done, buffer.length - done, goodBytes + done);
        await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
      } catch (error) {
        // Cut back to the last whole line, so the journal never holds half a change.
        try {
          ftruncateSync(fd, goodBytes);
        } catch {
          closeJournal();
        }
        throw error;
      }
      goodBytes += buffer.length;
    })().then(
      () => succeeded(upTo),
      (error: NodeJS.ErrnoException) => {
        // The lines go out with the next write.
        pending = [...lines, ...pending];
        failed(error);
      },
    ).finally(() => {
      writing = false;
      // Idle: the journal is closed until the next write (a disk can then be remounted, unmounted ...).
      if (pending.length === 0 && waiters.length === 0 && !since) {
        clearTimeout(idle);
        idle = setTimeout(() => {
          if (!writing && pending.length === 0) closeJournal();
        }, IDLE_CLOSE_MS);
        idle.unref?.();
      }
      if (waiters.length > 0) setImmediate(write);
      else if (pending.length > 0) setTimeout(write, failing ? 1000 : 100).unref?.();
      if (!failing && goodBytes > compactBytes() && !compacting) compacting = compact().finally(() => (compacting = undefined));
    });
  }

  /** Folds the journal into a new state file; the journal keeps the lines written since it began. */
  async function compact(): Promise<void> {
    const state: SimState = simulator.state;
    const head = seq;
    since = [];
    try {
      // The head (the maps, the queue of steps) is written as it is now, before anything waits;
      // accounts follow one by one, each as it is when its line is made.
      const chunks = stateChunks(state, { head, account: () => seq });
      const first = chunks.next().value as string;
      await writeFileAtomicAsync(file, (function* () {
        yield first;
        yield* chunks;
      })());
      if (simulator.state !== state) return; // replaced meanwhile (written whole in the journal): try again later
      // Swap the journal for the lines written since, between two group writes.
      await new Promise<void>((resolve, reject) => {
        swap = async () => {
          try {
            // The lines already written; those still pending go to the new journal with the next write.
            const kept = since!.filter(([n]) => n <= written).map(([, text]) => text).join('');
            await writeFileAtomicAsync(journalFile, [kept]);
            closeJournal();
            goodBytes = Buffer.byteLength(kept);
            fileBytes = (await stat(file)).size;
            resolve();
          } catch (error) {
            reject(error as Error);
          }
        };
        if (!writing) write();
      });
    } catch (error) {
      log(`--state: could not fold the journal into ${file}: ${describeWriteError(error as NodeJS.ErrnoException)}; the journal keeps every change.`);
    } finally {
      since = undefined;
      if (pending.length > 0) setImmediate(write);
    }
  }

  /** Writes what is not written yet, now, synchronously (at stop). */
  function flush(): void {
    if (pending.length === 0) return;
    const buffer = Buffer.from(pending.join(''), 'utf8');
    try {
      closeJournal();
      const fd = openSync(journalFile, 'a', 0o600);
      try {
        if (fstatSync(fd).size !== goodBytes) ftruncateSync(fd, goodBytes);
        for (let done = 0; done < buffer.length; ) done += writeSync(fd, buffer, done, buffer.length - done, goodBytes + done);
        fsyncSync(fd);
        goodBytes += buffer.length;
        pending = [];
        succeeded(seq);
      } catch (error) {
        try {
          ftruncateSync(fd, goodBytes);
        } catch {
          // the next start cuts it back
        }
        throw error;
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      failed(error as NodeJS.ErrnoException);
    }
  }

  const snapshots = localSnapshots(simulator, options.keepSnapshot, options.snapshots, options.maxSnapshotBytes);

  return {
    run: (_scope, work) => tracked(() => work(simulator)),
    runDue: () => tracked(() => simulator.tick()),
    nextDueAt: () => simulator.nextDueAt(),
    advance: (ms) => tracked(() => simulator.advance(ms)),
    // A reset replaces the state object: written whole.
    reset: () => {
      simulator.reset();
      record(`"state":${JSON.stringify(simulator.state)}`);
    },
    clock: () => ({ now: simulator.clock.now(), offsetMs: simulator.clock.offset() }),
    snapshots: {
      ...snapshots,
      save: (name, key) => tracked(() => snapshots.save(name, key)),
      restore: (name, key) => tracked(() => snapshots.restore(name, key)),
    },
    durability: {
      durable() {
        if (written >= seq || stopped) return Promise.resolve();
        return new Promise<void>((resolve, reject) => {
          waiters.push({ upTo: seq, started: false, resolve, reject });
          // Requests finishing together share the write: it starts on the next turn of the loop.
          setImmediate(write);
        });
      },
    },
    async close() {
      await compacting;
      while (writing) await new Promise((resolve) => setTimeout(resolve, 1));
      flush();
      stopped = true;
      clearTimeout(idle);
      closeJournal(true);
      for (const waiter of waiters.splice(0)) waiter.reject(new StateNotSaved(file, failing ?? Object.assign(new Error('the mock stopped'), { code: 'ESTOPPED' })));
    },
  };
}
