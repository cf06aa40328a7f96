// The suite is split into a few files so that vitest's `--shard` can spread it over machines.
// Every scenario of one operation lands in the same slice, by a stable hash of its operationId.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const SLICE_COUNT = 4;

export function sliceOf(operationId: string, count = SLICE_COUNT): number {
  let hash = 0;
  for (const ch of operationId) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return (hash % count) + 1;
}

/** The file that holds a slice: slice-<n>.conformance.ts, or .js in the built package. */
export function sliceFile(index: number): string {
  return `slice-${index}.conformance${path.extname(fileURLToPath(import.meta.url))}`;
}
