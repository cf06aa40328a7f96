// The plain object behind a store's tracking proxy (change-set.ts): where a measure (JSON of an
// account) should read the data itself, not through the proxy's traps. Browser-safe.

/** The key a tracking proxy answers with its object (plain objects have no such property). */
export const RAW = Symbol('raw object');

/** The object behind a tracking proxy; any other value as it is. */
export function rawOf<T>(value: T): T {
  return (value && typeof value === 'object' ? ((value as { [RAW]?: T })[RAW] ?? value) : value) as T;
}
