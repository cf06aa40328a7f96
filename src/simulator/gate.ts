// The contract gate: the seam of the pipeline that says what is wrong with a request against the
// contract, before the simulator answers it. Prism stays the reference: `ajvGate` is ajv compiled
// from the bundle, its verdicts shaped as Prism's own validator gives them, so a request gets the
// same documented 400 (part 7), the same `fieldErrors` keys and messages, as from `prism mock`
// (test/gate-parity.test.ts sends one corpus to both). Both are ajv underneath; they differ in
// where a violation is placed and how its message reads. Prism (prism-http
// validator/validators/utils.js `convertAjvErrors`):
// - the message is prefixed: `Request body property a.b must ...`, `Request body must ...`,
//   `Request query parameter days must ...`, `Request header parameter idempotency-key must ...`;
// - a missing required property stays on its parent: `['body', 'a']`, "... must have required
//   property 'b'" (the root: `['body']`), and a missing required parameter is on the whole group:
//   `['query']`, "Request query must have required property 'x'";
// - parameter names are lower case.
// - an `enum` failure lists the allowed values (`...: all, usage`);
// - a parameter sent empty (`?limit=`, `Idempotency-Key:`) counts as not sent (see `gateView`).
import { resolveRef, type JsonObject } from '../contract/operations.js';
import { dict } from '../contract/dict.js';
import type { SimContract } from './contract.js';
import type { SimRequest, Violation } from './types.js';
import { contractValidator, type ContractValidator } from './validator.js';

/** The contract gate of the pipeline (a named seam: the ajv gate here, Prism's validator in src/mock/prism-gate.ts). */
export interface Gate {
  /** What is wrong with `request` against `operationId`'s parameters and body, as Prism reports it; empty when valid. */
  check(operationId: string, request: SimRequest): Violation[];
}

const MISSING_PROPERTY = /^must have required property '([^']+)'$/;
const MISSING_PARAMETER = /^must have required (?:query|header|path) parameter '([^']+)'$/;

function prefixed(where: string, path: string[], message: string): string {
  const kind = path.length === 0 ? '' : where === 'body' ? 'property ' : 'parameter ';
  return `Request ${where} ${kind}${path.length > 0 ? `${path.join('.')} ` : ''}${message}`;
}

const NOT_IN_ENUM = 'must be equal to one of the allowed values';

/** The `enum`s a path of a schema may end at (through `$ref`, `allOf`/`oneOf`/`anyOf`, `properties`, `items`). */
function enumsAt(document: JsonObject, schema: unknown, path: readonly string[], found: unknown[][] = []): unknown[][] {
  const node = resolveRef<JsonObject | undefined>(document, schema);
  if (!node || typeof node !== 'object') return found;
  for (const branch of [...(node.allOf ?? []), ...(node.oneOf ?? []), ...(node.anyOf ?? [])]) enumsAt(document, branch, path, found);
  if (path.length === 0) {
    if (Array.isArray(node.enum)) found.push(node.enum);
    return found;
  }
  const [head, ...rest] = path;
  if (node.properties?.[head!] !== undefined) enumsAt(document, node.properties[head!], rest, found);
  if (node.items !== undefined && /^\d+$/.test(head!)) enumsAt(document, node.items, rest, found);
  return found;
}

/** The schema a violation's location is checked against: a parameter's, or the JSON body's. */
function locationSchema(contract: SimContract, operationId: string, where: string, name: string | undefined): unknown {
  const document = contract.document;
  const operation = contract.operation(operationId);
  if (where === 'body') return resolveRef<JsonObject | undefined>(document, operation.requestBody)?.content?.['application/json']?.schema;
  for (const raw of operation.parameters ?? []) {
    const parameter = resolveRef<JsonObject>(document, raw);
    if (parameter.in === where && String(parameter.name).toLowerCase() === name?.toLowerCase()) return parameter.schema;
  }
  return undefined;
}

/** Prism's `: a, b` after an enum failure, where the schema at that place has one enum. */
function allowedValues(contract: SimContract, operationId: string, violation: Violation): string {
  if (violation.message !== NOT_IN_ENUM) return '';
  const [where = 'body', ...rest] = violation.location;
  const schema = locationSchema(contract, operationId, where, rest[0]);
  const enums = enumsAt(contract.document, schema, where === 'body' ? rest : rest.slice(1));
  return enums.length === 1 ? `: ${enums[0]!.join(', ')}` : '';
}

function hasEmptyValue(request: SimRequest): boolean {
  for (const value of request.query.values()) if (value === '') return true;
  for (const name in request.headers) if (request.headers[name] === '') return true;
  return false;
}

/** The request as Prism's gate reads it: a query or header parameter sent empty is not sent. */
function gateView(request: SimRequest): SimRequest {
  if (!hasEmptyValue(request)) return request; // the usual request: nothing to copy
  const query = new URLSearchParams();
  for (const [name, value] of request.query) if (value !== '') query.append(name, value);
  const headers = dict<string | undefined>();
  for (const [name, value] of Object.entries(request.headers)) if (value !== '') headers[name] = value;
  return { ...request, query, headers };
}

/** One violation of contractValidator (src/simulator/validator.ts) as Prism reports it. */
function prismShaped(violation: Violation): Violation {
  const [where = 'body', ...rest] = violation.location;
  // A required body not sent: Prism's own wording (prism-http validator/validators/body.js).
  if (where === 'body' && rest.length === 0 && violation.message === 'must have a JSON body') return { location: ['body'], message: 'Body parameter is required' };
  if (where === 'body') {
    const missing = MISSING_PROPERTY.exec(violation.message)?.[1];
    const path = missing !== undefined && rest[rest.length - 1] === missing ? rest.slice(0, -1) : rest;
    return { location: [where, ...path], message: prefixed(where, path, violation.message) };
  }
  const missingParameter = MISSING_PARAMETER.exec(violation.message)?.[1];
  if (missingParameter !== undefined) {
    const name = missingParameter.toLowerCase();
    return { location: [where], message: prefixed(where, [], `must have required property '${name}'`) };
  }
  const path = rest.map((segment, index) => (index === 0 ? segment.toLowerCase() : segment));
  return { location: [where, ...path], message: prefixed(where, path, violation.message) };
}

function prismVerdict(contract: SimContract, operationId: string, violations: readonly Violation[]): Violation[] {
  return violations.map((violation) => {
    const shaped = prismShaped(violation);
    return { ...shaped, message: shaped.message + allowedValues(contract, operationId, violation) };
  });
}

/** The gate as ajv compiled from the bundle (browser-safe: the in-process mock's, and the HTTP mock's by default). */
export function ajvGate(contract: SimContract, validator: ContractValidator = contractValidator(contract)): Gate {
  return { check: (operationId, request) => prismVerdict(contract, operationId, validator.request(operationId, gateView(request))) };
}
