// Finding the records of a list answer whose shape may be inferred: the body itself when it is an
// array, else the first array of objects among its properties (`items`, `data`, ...).
export function listRecords(body: unknown): { records: Record<string, unknown>[]; field?: string } | undefined {
  if (Array.isArray(body)) return { records: body as Record<string, unknown>[] };
  if (body && typeof body === 'object') {
    for (const [field, value] of Object.entries(body)) {
      if (Array.isArray(value) && value.every((v) => v && typeof v === 'object')) return { records: value as Record<string, unknown>[], field };
    }
  }
  return undefined;
}

/** Every string value under a key named `name`, anywhere in the value. */
export function valuesNamed(value: unknown, name: string, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => valuesNamed(v, name, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === name && typeof v === 'string') out.push(v);
      else valuesNamed(v, name, out);
    }
  }
  return out;
}

/** Every string anywhere in the value. */
export function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => allStrings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => allStrings(v, out));
  return out;
}

/** Timestamps of records in order, when every record has a parseable value in `field`. */
export function timestampsOf(records: Record<string, unknown>[], field: string): number[] | undefined {
  const times = records.map((r) => (typeof r[field] === 'string' ? Date.parse(r[field] as string) : Number.NaN));
  return times.every((t) => !Number.isNaN(t)) ? times : undefined;
}

/** Index of the first record newer than the one before it, or -1 when newest first. */
export function firstOutOfOrder(times: number[]): number {
  for (let i = 1; i < times.length; i++) if ((times[i] as number) > (times[i - 1] as number)) return i;
  return -1;
}
