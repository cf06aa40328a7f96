// The values of a request the service takes only once, as the contract marks them (`x-unique`: a
// sign-up's email, the holder's number, an `Idempotency-Key`; spec/EXTENSIONS.md). The recorder
// writes each as a fresh value per run (to-arazzo.ts), so a recording replays again and again on
// one deployment; a replay that fails after a step sent one as a literal says an earlier run may
// have taken it (conformance/replay.ts, by uniqueAt). Browser-safe.
import { resolveRef, resolveRefShown, type JsonObject } from '../contract/json-pointer.js';
import { formatExpression, type RuntimeExpression } from '../contract/runtime-expression.js';
import { schemasAt, type ResolvedOperation } from '../contract/workflows.js';

/** Where a request carries a value: a pointer into its body, or a parameter by name. */
export type RequestPlace = { in: 'body'; pointer: string } | { in: 'path' | 'query' | 'header'; name: string };

/** The runtime expression that reads the value at `place` back from the step's own request (`$request.body#/email`). */
export const requestExpression = (place: RequestPlace): RuntimeExpression => (place.in === 'body' ? { root: '$request', part: 'body', pointer: place.pointer } : { root: '$request', part: place.in, name: place.name });

/** What the contract says of a value the service takes once: why (its `x-unique`), and the value's schema. */
export interface Unique {
  reason: string;
  schema: JsonObject;
}

/** What `uniqueAt` found, by operation and place: a recording turned into Arazzo asks it of every value of every step, again at each write. */
const found = new WeakMap<JsonObject, Map<string, Unique | undefined>>();

/** The `x-unique` of the value at `place` of `operation`'s request, if the contract marks it. */
export function uniqueAt(operation: ResolvedOperation, place: RequestPlace): Unique | undefined {
  let known = found.get(operation.operation);
  if (!known) found.set(operation.operation, (known = new Map()));
  const at = place.in === 'body' ? `body ${place.pointer}` : `${place.in} ${place.name.toLowerCase()}`;
  if (!known.has(at)) known.set(at, lookUpUnique(operation, place));
  return known.get(at);
}

function lookUpUnique(operation: ResolvedOperation, place: RequestPlace): Unique | undefined {
  const { document } = operation;
  let nodes: unknown[];
  if (place.in === 'body') {
    const content = (resolveRef(document, operation.operation.requestBody)?.content ?? {}) as JsonObject;
    const schema = (content['application/json'] ?? Object.values(content)[0])?.schema;
    nodes = schema ? schemasAt(document, schema, place.pointer) : [];
  } else {
    const declared = [...((operation.pathItem.parameters ?? []) as unknown[]), ...((operation.operation.parameters ?? []) as unknown[])].map((p) => resolveRef(document, p));
    nodes = declared.filter((p) => p?.in === place.in && String(p.name).toLowerCase() === place.name.toLowerCase());
  }
  for (const node of nodes) {
    const shown = resolveRefShown<JsonObject | undefined>(document, node);
    if (typeof shown?.['x-unique'] === 'string') return { reason: shown['x-unique'], schema: resolveRefShown(document, shown.schema ?? shown) };
  }
  return undefined;
}

const faker = (name: 'string.uuid' | 'number.integer', args?: { min: number; max: number }): string => formatExpression({ root: '$faker', name, ...(args ? { args } : {}) });

/**
 * A fresh value for a field the service takes once, as Respect's `$faker` makes one at each run
 * (this package's runner reads the same): an example.com address, a fictional number (555-0100
 * to 555-0199, area codes 600 to 989, away from the 500 area of the test values), or a UUID.
 */
export function freshValue(schema: JsonObject | undefined): string {
  if (schema?.format === 'email') return `recording-{${faker('string.uuid')}}@example.com`;
  if (typeof schema?.pattern === 'string' && schema.pattern.startsWith('^\\+')) return `+1{${faker('number.integer', { min: 600, max: 989 })}}5550{${faker('number.integer', { min: 100, max: 199 })}}`;
  return faker('string.uuid');
}
