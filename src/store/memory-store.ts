// The memory store (the default, and the MSW transport's): the state is the simulator's own
// object, a run changes it in place and is committed as it ends; snapshots are kept beside it.
// Synchronous, so the in-process transports answer at once. Browser-safe.
import { MAX_SNAPSHOTS, restoreAccountInto, snapshotInfo, takeSnapshot } from './snapshots.js';
import type { SimStorage } from '../simulator/simulator.js';
import type { SimStore, SnapshotFile, SnapshotInfo, SnapshotShelf } from './store.js';

/** Where a store of one process keeps its snapshots: in memory, or also on disk (the file store). */
export interface SnapshotKeeping {
  /** Called after a snapshot is saved or added, with its JSON text. */
  save?(file: SnapshotFile, text: string): void;
  remove?(name: string): void;
}

export class SnapshotLimit extends Error {}

/** The snapshot shelf of a store whose state is `simulator.state` (memory and file). */
export function localSnapshots(simulator: SimStorage, keeping: SnapshotKeeping = {}, initial: SnapshotFile[] = []): SnapshotShelf {
  const shelf = new Map<string, { file: SnapshotFile; bytes: number }>();
  const add = (file: SnapshotFile, text = JSON.stringify(file)): SnapshotInfo => {
    if (!shelf.has(file.snapshot) && shelf.size >= MAX_SNAPSHOTS) throw new SnapshotLimit(`The mock keeps at most ${MAX_SNAPSHOTS} snapshots; delete one first (DELETE /__mock/snapshots/{name}).`);
    // Kept as its text's own copy: later changes of the state never reach it.
    const kept = JSON.parse(text) as SnapshotFile;
    shelf.set(file.snapshot, { file: kept, bytes: text.length });
    keeping.save?.(kept, text);
    return snapshotInfo(kept, text.length);
  };
  for (const file of initial) {
    const text = JSON.stringify(file);
    shelf.set(file.snapshot, { file, bytes: text.length });
  }
  return {
    save(name, key) {
      const account = key === undefined ? undefined : simulator.accountForKey(key);
      return add(takeSnapshot(simulator.state, name, new Date(simulator.clock.now()).toISOString(), account));
    },
    put: (file) => add(file),
    restore(name) {
      const entry = shelf.get(name);
      if (!entry) return undefined;
      const { file } = entry;
      const copy = JSON.parse(JSON.stringify(file.state)) as SnapshotFile['state'];
      if (file.scope === 'all') simulator.load(copy);
      else simulator.withContext((ctx) => restoreAccountInto(ctx.state, { ...file, state: copy }));
      return snapshotInfo(file, entry.bytes);
    },
    list: () => [...shelf.values()].map(({ file, bytes }) => snapshotInfo(file, bytes)).sort((a, b) => a.name.localeCompare(b.name)),
    get: (name) => shelf.get(name)?.file,
    remove(name) {
      const had = shelf.delete(name);
      if (had) keeping.remove?.(name);
      return had;
    },
  };
}

export function memoryStore(simulator: SimStorage): SimStore {
  return {
    // The simulator's entry points commit (and publish their events) as they end.
    run: (_scope, work) => work(simulator),
    runDue: () => simulator.tick(),
    nextDueAt: () => simulator.nextDueAt(),
    advance: (ms) => simulator.advance(ms),
    reset: () => simulator.reset(),
    clock: () => ({ now: simulator.clock.now(), offsetMs: simulator.clock.offset() }),
    snapshots: localSnapshots(simulator),
    close: () => Promise.resolve(),
  };
}
