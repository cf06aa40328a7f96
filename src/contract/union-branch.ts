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
 * Whether `value` is what a `const` (or, with `enums`, an `enum`) allows: undefined when the schema
 * fixes nothing. A branch's own `enum` does not tell branches apart (a wrong `channel` is a break
 * of the branch meant), so only its `const` and its `not` of an `enum` do.
 */
function fixedAllows(schema: JsonObject | undefined, value: unknown, enums: boolean): boolean | undefined {
  if (!schema || typeof schema !== 'object') return undefined;
  if ('const' in schema) return JSON.stringify(schema.const) === JSON.stringify(value);
  if (enums && Array.isArray(schema.enum)) return schema.enum.some((allowed: unknown) => JSON.stringify(allowed) === JSON.stringify(value));
  return undefined;
}

/**
 * Whether a branch's fixed values (a `const` or `enum` on a property, or a `not` of them, as each
 * event type fixes `type` and `UnknownEvent` excludes the documented ones) say the object is of
 * this branch: 1 where one matches, -1 where one excludes it, 0 where the branch fixes nothing the
 * object sends. Through `allOf`; a nested union matches when one of its branches does.
 */
function discriminates(document: JsonObject, schema: JsonObject | undefined, value: Record<string, unknown>, depth = 0): number {
  if (!schema || typeof schema !== 'object' || depth > 8) return 0;
  let verdict = 0;
  for (const [name, raw] of Object.entries<unknown>(schema.properties ?? {})) {
    if (!Object.hasOwn(value, name)) continue;
    const property = resolveRef<JsonObject | undefined>(document, raw);
    const allows = fixedAllows(property, value[name], false);
    const excludes = fixedAllows(resolveRef<JsonObject | undefined>(document, property?.not), value[name], true);
    if (allows === false || excludes === true) return -1;
    if (allows === true || excludes === false) verdict = 1;
  }
  for (const part of schema.allOf ?? []) {
    const said = discriminates(document, resolveRef<JsonObject>(document, part), value, depth + 1);
    if (said === -1) return -1;
    verdict = Math.max(verdict, said);
  }
  const union = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  if (union.length) {
    const said = union.map((branch: unknown) => discriminates(document, resolveRef<JsonObject>(document, branch), value, depth + 1));
    if (said.every((s) => s === -1)) return -1;
    verdict = Math.max(verdict, ...said);
  }
  return verdict;
}

/**
 * The branch of a union a value means: one whose type admits it; for an object, one whose fixed
 * values (a `const`: an event's `type`) it matches rather than one they exclude; then the one whose
 * required fields it sends most of and whose forbidden fields it sends fewest of (the exactly-one
 * rules of part 4.5); then the fewest breaks; then the first.
 */
export function judgedBranch(document: JsonObject, branches: unknown[], value: unknown, breaks: number[]): number {
  let best = 0;
  let bestScore = -Infinity;
  branches.forEach((raw, index) => {
    const branch = resolveRef<JsonObject | undefined>(document, raw);
    let score = admitsType(branch, value) ? 0 : -1e9;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const { required, forbidden } = fieldsOf(document, branch);
      const sent = [...required].filter((name) => Object.hasOwn(value, name)).length;
      const clashing = [...forbidden].filter((name) => Object.hasOwn(value, name)).length;
      score += (sent * 2 - clashing * 2 - (required.size - sent)) * 1000;
      score += discriminates(document, branch, value as Record<string, unknown>) * 1e6;
    }
    score -= breaks[index] ?? 0;
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  });
  return best;
}

