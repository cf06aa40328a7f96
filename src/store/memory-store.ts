// The memory store (the default, and the MSW transport's): the state is the simulator's own
// object, a run changes it in place and is committed as it ends; snapshots are kept beside it.
// Synchronous, so the in-process transports answer at once. Browser-safe.
import { checkRoom, DEFAULT_MAX_SNAPSHOT_BYTES, restoreAccountInto, sealKeys, snapshotInfo, takeSnapshot } from './snapshots.js';
import type { SimStorage } from '../simulator/simulator.js';
import { withoutPrototype } from '../simulator/state.js';
import type { SimStore, SnapshotFile, SnapshotListing, SnapshotShelf } from './store.js';

/** Where a store of one process keeps its snapshots: in memory, or also on disk (the file store). */
export interface SnapshotKeeping {
  /** Called after a snapshot is saved or added, with its JSON text. */
  save?(file: SnapshotFile, text: string): void;
  remove?(name: string): void;
}

/**
 * The snapshot shelf of a store whose state is `simulator.state` (memory and file). Each snapshot
 * is kept as its UTF-8 bytes: outside V8's heap, so the heap guard (src/mock/heap-guard.ts) never
 * takes snapshots for live accounts and lowers their cap for them; their bound is `maxBytes`.
 */
export function localSnapshots(simulator: SimStorage, keeping: SnapshotKeeping = {}, initial: SnapshotFile[] = [], maxBytes = DEFAULT_MAX_SNAPSHOT_BYTES): SnapshotShelf {
  const shelf = new Map<string, { listing: SnapshotListing; bytes: Uint8Array }>();
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const keep = (file: SnapshotFile, bytes: Uint8Array): SnapshotListing => {
    const listing = snapshotInfo(file, bytes.length);
    shelf.set(file.snapshot, { listing, bytes });
    return listing;
  };
  const add = (file: SnapshotFile): SnapshotListing => {
    const text = JSON.stringify(sealKeys(file));
    const bytes = encoder.encode(text);
    checkRoom([...shelf.values()].map(({ listing }) => listing), file.snapshot, bytes.length, maxBytes);
    const listing = keep(file, bytes);
    keeping.save?.(file, text);
    return listing;
  };
  const read = (bytes: Uint8Array): SnapshotFile => JSON.parse(decoder.decode(bytes), withoutPrototype) as SnapshotFile;
  for (const file of initial) {
    // A file kept before keys were sealed is written again without them.
    const before = JSON.stringify(file);
    const text = JSON.stringify(sealKeys(file));
    keep(file, encoder.encode(text));
    if (text !== before) keeping.save?.(file, text);
  }
  return {
    save: (name, key) => add(takeSnapshot(simulator, name, new Date(simulator.clock.now()).toISOString(), key)),
    put: (file) => add(JSON.parse(JSON.stringify(file), withoutPrototype) as SnapshotFile),
    restore(name, key) {
      const entry = shelf.get(name);
      if (!entry) return undefined;
      const file = read(entry.bytes);
      if (file.scope === 'all') simulator.load(file.state);
      else simulator.withContext((ctx) => restoreAccountInto(ctx.state, file, key));
      return entry.listing;
    },
    list: () => [...shelf.values()].map(({ listing }) => listing).sort((a, b) => a.name.localeCompare(b.name)),
    get(name) {
      const entry = shelf.get(name);
      return entry ? read(entry.bytes) : undefined;
    },
    remove(name) {
      if (!shelf.delete(name)) return false;
      keeping.remove?.(name);
      return true;
    },
  };
}

export function memoryStore(simulator: SimStorage, maxSnapshotBytes?: number): SimStore {
  return {
    // The simulator's entry points commit (and publish their events) as they end.
    run: (_scope, work) => work(simulator),
    runDue: () => simulator.tick(),
    nextDueAt: () => simulator.nextDueAt(),
    advance: (ms) => simulator.advance(ms),
    reset: () => simulator.reset(),
    clock: () => ({ now: simulator.clock.now(), offsetMs: simulator.clock.offset() }),
    snapshots: localSnapshots(simulator, {}, [], maxSnapshotBytes),
    close: () => Promise.resolve(),
  };
}
