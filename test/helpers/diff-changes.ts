// What the versioning rules' tests read from a diff.
import { expect } from 'vitest';
import type { Change } from '../../scripts/diff/index.js';

/** A before/after document of the rules' tests, edited freely in place. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** The one change with this code (fails, listing what was found, when there is not exactly one). */
export function only(changes: Change[], code: string): Change {
  const found = changes.filter((c) => c.code === code);
  expect(found, `${code} in ${JSON.stringify(changes.map((c) => [c.code, c.classification, c.pointer]))}`).toHaveLength(1);
  return found[0]!;
}
