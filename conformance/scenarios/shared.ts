// Request-building helpers shared by the scenarios, all reading the description.
import { parameterExample, requestExample, type Json, type Operation } from '../description.js';
import { resolveRef } from '../../src/contract/json-pointer.js';
import { nonexistentId, type NegativeBody } from '../policy.js';
import type { ScenarioContext } from '../scenario.js';

export const isSuccess = (status: number): boolean => status >= 200 && status < 300;

/** Required query parameters filled with their documented examples. */
export function exampleQuery(document: Json, op: Operation): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  for (const p of op.parameters) {
    if (p.in !== 'query' || !p.required) continue;
    const value = parameterExample(document, p);
    if (value !== undefined) query[p.name] = typeof value === 'object' ? JSON.stringify(value) : value;
  }
  return query;
}

/** Every path parameter set to an identifier that cannot exist. */
export function nonexistentPathParams(document: Json, op: Operation): Record<string, string> {
  const params: Record<string, string> = {};
  for (const p of op.parameters) if (p.in === 'path') params[p.name] = nonexistentId(parameterExample(document, p));
  return params;
}

export function pathParamNames(op: Operation): string[] {
  return op.parameters.filter((p) => p.in === 'path').map((p) => p.name as string);
}

export function hasRequestBody(op: Operation): boolean {
  return op.operation.requestBody !== undefined;
}

/** Top-level properties of the JSON request body schema (through allOf/oneOf/anyOf), by name. */
export function requestProperties(document: Json, op: Operation): Map<string, Json> {
  const properties = new Map<string, Json>();
  const visit = (raw: Json, depth: number) => {
    const schema = resolveRef(document, raw);
    if (!schema || typeof schema !== 'object' || depth > 5) return;
    for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
      // A `false` branch schema only forbids the field; keep the first real definition.
      if (property !== false && !properties.has(name)) properties.set(name, resolveRef(document, property));
    }
    for (const key of ['allOf', 'anyOf', 'oneOf']) (schema[key] ?? []).forEach((s: Json) => visit(s, depth + 1));
  };
  const body = resolveRef(document, op.operation.requestBody);
  visit(body?.content?.['application/json']?.schema, 0);
  return properties;
}

/** Top-level property names of the JSON request body schema (through allOf/oneOf/anyOf). */
export function requestFields(document: Json, op: Operation): Set<string> {
  return new Set(requestProperties(document, op).keys());
}

/** The integers just outside a numeric field's documented `minimum`..`maximum`, as the description states them. */
export function outOfRangeIntegers(document: Json, op: Operation, field: string): number[] {
  const schema = requestProperties(document, op).get(field);
  const values: number[] = [];
  if (typeof schema?.minimum === 'number') values.push(Math.ceil(schema.minimum) - 1);
  if (typeof schema?.maximum === 'number') values.push(Math.floor(schema.maximum) + 1);
  return values;
}

/** Builds a policy body, skipping the scenario if the description no longer has its fields. */
export function buildPolicyBody(ctx: ScenarioContext, op: Operation, policy: NegativeBody): Json {
  const fields = requestFields(ctx.env.document, op);
  const missing = policy.fields.filter((f) => !fields.has(f));
  if (missing.length) ctx.skip(`The request schema of ${op.operationId} no longer has ${missing.join(', ')}; the safety policy needs review.`);
  return policy.build(requestExample(ctx.env.document, op));
}

/** `<operationId> <status>` when the operation documents the status: what a scenario provokes (coverage). */
export function provokes(op: Operation, ...statuses: number[]): string[] {
  return statuses.filter((status) => documents(op, status)).map((status) => `${op.operationId} ${status}`);
}

/** The operation's first documented success status (200 or 201). */
export function successStatus(op: Operation): number | undefined {
  return Object.keys(op.operation.responses ?? {}).map(Number).filter((status) => status >= 200 && status < 300).sort()[0];
}

export function documents(op: Operation, status: number): boolean {
  const responses = op.operation.responses ?? {};
  return String(status) in responses || `${String(status)[0]}XX` in responses;
}
