// Records keyed by strings from outside: ids in paths, `Idempotency-Key`, brand ids, body keys,
// header names, targets, answers of a deployment under test. Such a record has no prototype, so
// `__proto__`, `constructor` or `toString` are keys like any other and never reach
// Object.prototype; it stays plain JSON. Browser-safe.

/** A record keyed by strings from outside; every map of the simulator's state is one. */
export type Dict<T> = Record<string, T>;

export function dict<T>(): Dict<T> {
  return Object.create(null) as Dict<T>;
}

/** `JSON.parse` reviver: every object parsed has no prototype (a state file, a seed, a request body). */
export function withoutPrototype(_key: string, value: unknown): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.assign(Object.create(null), value) : value;
}

/** A deep copy of plain JSON data whose objects have no prototype. */
export function copyWithoutPrototypes<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value), withoutPrototype) as T);
}

