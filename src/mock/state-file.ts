// `--state <file>`: the simulator's state kept across restarts. Every change is written (at most
// every `intervalMs`) to a temporary file in the same directory, flushed to disk, then renamed over
// the state file: a rename is atomic, so a kill at any moment leaves the last complete state.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { withoutPrototype, type SimState } from '../simulator/state.js';
import type { Simulator } from '../simulator/simulator.js';

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

/** Writes `text` to `file` atomically: temporary file, fsync, rename. */
export function writeFileAtomic(file: string, text: string): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = openSync(temporary, 'w');
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

export interface StatePersistence {
  /** Writes any change not written yet. */
  flush(): void;
  stop(): void;
}

export function persistState(simulator: Simulator, file: string, intervalMs = 100, onError: (error: Error) => void = () => undefined): StatePersistence {
  let dirty = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (!dirty) return;
    dirty = false;
    try {
      writeFileAtomic(file, JSON.stringify(simulator.state));
    } catch (error) {
      onError(error as Error);
    }
  };
  const stopListening = simulator.onChange(() => {
    dirty = true;
    timer ??= setTimeout(flush, intervalMs);
  });
  return {
    flush,
    stop() {
      stopListening();
      flush();
    },
  };
}
