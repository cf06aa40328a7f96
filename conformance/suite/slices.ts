// The suite is split into a few files so that vitest's `--shard` can spread it over machines.
// Every scenario of one operation lands in the same slice, by a stable hash of its operationId.
export const SLICE_COUNT = 4;

export function sliceOf(operationId: string, count = SLICE_COUNT): number {
  let hash = 0;
  for (const ch of operationId) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return (hash % count) + 1;
}
