// The memory store (the default, and the MSW transport's): the state is the simulator's own
// object, a run changes it in place and is committed as it ends; snapshots are kept beside it.
// Synchronous, so the in-process transports answer at once. Browser-safe.
import { DEFAULT_MAX_SNAPSHOT_BYTES, restoreAccountInto, sealKeys, snapshotInfo, snapshotShelf, takeSnapshot } from './snapshots.js';
import type { SimStorage } from '../simulator/simulator.js';
import type { SimStore, SnapshotFile, SnapshotListing, SnapshotShelf } from './store.js';

/** Where a store of one process keeps its snapshots: in memory, or also on disk (the file store). */
export interface SnapshotKeeping {
  /** Called after a snapshot is saved or added, with its JSON text. */
  save?(file: SnapshotFile, text: string): void;
  remove?(name: string): void;
}

export { SnapshotLimit } from './snapshots.js';

/**
 * The snapshot shelf of a store whose state is `simulator.state` (memory and file). Each snapshot
 * is kept as its UTF-8 bytes: outside V8's heap, so the heap guard (src/mock/heap-guard.ts) never
 * takes snapshots for live accounts and lowers their cap for them; their bound is `maxBytes`.
 */
export function localSnapshots(simulator: SimStorage, keeping: SnapshotKeeping = {}, initial: SnapshotFile[] = [], maxBytes = DEFAULT_MAX_SNAPSHOT_BYTES): SnapshotShelf {
  const shelf = new Map<string, { listing: SnapshotListing; bytes: Uint8Array }>();
  const decoder = new TextDecoder();
  for (const file of initial) {
    // A file kept before keys were sealed is written again without them.
    const before = JSON.stringify(file);
    const text = JSON.stringify(sealKeys(file));
    const bytes = new TextEncoder().encode(text);
    shelf.set(file.snapshot, { listing: snapshotInfo(file, bytes.length), bytes });
    if (text !== before) keeping.save?.(file, text);
  }
  return snapshotShelf(
    {
      listings: () => [...shelf.values()].map(({ listing }) => listing),
      text(name) {
        const entry = shelf.get(name);
        return entry && decoder.decode(entry.bytes);
      },
      keep(listing, text, bytes, file) {
        shelf.set(listing.name, { listing, bytes });
        keeping.save?.(file, text);
      },
      drop(name) {
        if (!shelf.delete(name)) return false;
        keeping.remove?.(name);
        return true;
      },
    },
    maxBytes,
    (name, key) => takeSnapshot(simulator, name, new Date(simulator.clock.now()).toISOString(), key),
    (file, key) => (file.scope === 'all' ? simulator.load(file.state) : simulator.withContext((ctx) => restoreAccountInto(ctx.state, file, key))),
  );
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
