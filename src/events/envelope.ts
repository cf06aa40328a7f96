// The event envelope check (part 6), given the envelope's fields: the events entry passes the
// generated ones (guards.ts), the listening agent the contract's `Event` schema read at run time
// (the command's package holds no generated constants). One rule, two sources of the same list.

/** Whether `value` has every field of `fields`, a string `type` and an object `data`. */
export function hasEventEnvelope(value: unknown, fields: readonly string[]): value is Record<string, unknown> & { type: string; data: object } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (!fields.every((field) => field in record)) return false;
  return typeof record.type === 'string' && record.data !== null && typeof record.data === 'object';
}
