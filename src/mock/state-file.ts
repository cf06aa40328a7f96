// `--state <file>`: the simulator's state kept across restarts, and nothing acknowledged lost.
//
// Every change is written to a temporary file in the same directory (mode 600: the state holds
// full API keys), flushed to disk, then renamed over the state file: a rename is atomic, so a kill
// at any moment leaves the last complete state. A request that changed state is answered only
// once the state that holds its change is on disk (group commit: one write covers every request
// waiting when it starts; requests that arrive during a write wait for the next one), so a write
// the mock acknowledged survives `kill -9`. Changes no request waits for (a delivery reported by
// the clock) are written behind, within `intervalMs`.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync, unlinkSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { withoutPrototype, type SimState } from '../simulator/state.js';
import type { Simulator } from '../simulator/simulator.js';
import type { Durability } from '../simulator/pipeline.js';

/** The state file holds full API keys: only its owner reads it. */
const STATE_FILE_MODE = 0o600;

/** The state in `file`, or undefined when it does not exist yet; a file that is not a state is an error. */
export function readStateFile(file: string): SimState | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`Cannot read the state file ${file}: ${(error as Error).message}`);
  }
  let state: SimState;
  try {
    state = JSON.parse(text, withoutPrototype) as SimState;
  } catch (error) {
    throw new Error(`The state file ${file} is not JSON: ${(error as Error).message}`);
  }
  if (!state || state.version !== 1 || typeof state.accounts !== 'object') {
    throw new Error(`${file} is not a state file of this mock (version 1); move it away or choose another --state.`);
  }
  return state;
}

const temporaryOf = (file: string): string => path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);

/** Writes `text` to `file` atomically, synchronously: temporary file (mode 600), fsync, rename. */
export function writeFileAtomic(file: string, text: string): void {
  const temporary = temporaryOf(file);
  const fd = openSync(temporary, 'w', STATE_FILE_MODE);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, file);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // already gone
    }
    throw error;
  }
}

/** The same, without blocking the mock while the disk works. */
async function writeFileAtomicAsync(file: string, text: string): Promise<void> {
  const temporary = temporaryOf(file);
  const handle = await open(temporary, 'w', STATE_FILE_MODE);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

export interface StatePersistence extends Durability {
  /** Writes any change not written yet, now (at stop). */
  flush(): void;
  stop(): void;
}

export function persistState(simulator: Simulator, file: string, intervalMs = 100, onError: (error: Error) => void = () => undefined): StatePersistence {
  /** Changes so far, and how many of them are on disk. */
  let changes = 0;
  let written = 0;
  let writing: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let waiters: Array<{ upTo: number; resolve: () => void }> = [];

  const settle = (): void => {
    const ready = waiters.filter((waiter) => waiter.upTo <= written);
    waiters = waiters.filter((waiter) => waiter.upTo > written);
    for (const waiter of ready) waiter.resolve();
  };

  /** One write of the state as it is now; then another, at once, if requests are still waiting. */
  const write = (): void => {
    if (writing || stopped || written === changes) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const upTo = changes;
    const text = JSON.stringify(simulator.state);
    writing = writeFileAtomicAsync(file, text).then(
      () => {
        written = Math.max(written, upTo);
      },
      (error: Error) => onError(error),
    );
    void writing.then(() => {
      writing = undefined;
      settle();
      if (waiters.length > 0) write();
      else if (written < changes) timer ??= setTimeout(write, intervalMs);
    });
  };

  const stopListening = simulator.onChange(() => {
    changes++;
    timer ??= setTimeout(write, intervalMs);
  });

  return {
    mark: () => changes,
    durableSince(mark) {
      if (changes === mark || written >= changes || stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.push({ upTo: changes, resolve });
        // Requests finishing together share the write: it starts on the next turn of the loop.
        setImmediate(write);
      });
    },
    flush() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (written === changes) return;
      try {
        writeFileAtomic(file, JSON.stringify(simulator.state));
        written = changes;
      } catch (error) {
        onError(error as Error);
      }
      settle();
    },
    stop() {
      stopListening();
      this.flush();
      stopped = true;
      for (const waiter of waiters.splice(0)) waiter.resolve();
    },
  };
}
