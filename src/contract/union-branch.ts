// Which branch of a `oneOf`/`anyOf` a value means, so that a person is shown the breaks of that
// branch only (the exactly-one rules of part 4.5: `{"to": "12345", "fromNumberId": ...}` means the
// `to`-and-`fromNumberId` branch, whose one break is the phone number). Browser-safe.
import { resolveRef, type JsonObject } from './json-pointer.js';

/** The required and the forbidden properties of a branch (`{not: {}}`), through its `allOf`. */
function fieldsOf(document: JsonObject, schema: JsonObject | undefined, into = { required: new Set<string>(), forbidden: new Set<string>() }) {
  if (!schema || typeof schema !== 'object') return into;
  for (const name of schema.required ?? []) into.required.add(name);
  for (const [name, raw] of Object.entries<unknown>(schema.properties ?? {})) {
    const property = resolveRef<JsonObject | undefined>(document, raw);
    if (property && typeof property.not === 'object' && property.not !== null && Object.keys(property.not).length === 0) into.forbidden.add(name);
  }
  for (const part of schema.allOf ?? []) fieldsOf(document, resolveRef<JsonObject>(document, part), into);
  return into;
}

/** Whether a branch's own `type` (through its `$ref`) lets the value's JSON type in. */
function admitsType(branch: JsonObject | undefined, value: unknown): boolean {
  const types = [branch?.type].flat().filter((t): t is string => typeof t === 'string');
  if (types.length === 0) return true;
  const type = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return types.includes(type) || (type === 'number' && Number.isInteger(value) && types.includes('integer'));
}

/**
 * The branch of a union a value means: one whose type admits it; for an object, the one whose
 * required fields it sends most of and whose forbidden fields it sends fewest of (the exactly-one
 * rules of part 4.5); then the fewest breaks; then the first.
 */
export function judgedBranch(document: JsonObject, branches: unknown[], value: unknown, breaks: number[]): number {
  let best = 0;
  let bestScore = -Infinity;
  branches.forEach((raw, index) => {
    const branch = resolveRef<JsonObject | undefined>(document, raw);
    let score = admitsType(branch, value) ? 0 : -1e6;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const { required, forbidden } = fieldsOf(document, branch);
      const sent = [...required].filter((name) => Object.hasOwn(value, name)).length;
      const clashing = [...forbidden].filter((name) => Object.hasOwn(value, name)).length;
      score += (sent * 2 - clashing * 2 - (required.size - sent)) * 1000;
    }
    score -= breaks[index] ?? 0;
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  });
  return best;
}

