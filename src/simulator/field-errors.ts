// Readable field errors (part 7): the documented 400 a form can show. The gate gives Prism's
// verdict (which fields failed, in Prism's wording, schema internals included: every branch of a
// `oneOf` reports its own failures); the answer names only the fields that are wrong, each once,
// with a message a person can read:
//
// - a body whose schema is a union (`oneOf`/`anyOf`, the exactly-one rules of part 4.5) is judged
//   against the branch it means (the one whose required fields it sends most of, forbidding the
//   fewest), so `{"to": "12345", "fromNumberId": ...}` is `to: ["Invalid phone number"]` alone;
// - the message of a field is its schema's `x-error-message` (part 7's own text where part 7
//   gives one, such as "Provide exactly one of `to` or `groupId`."), else a plain one by the
//   rule it breaks ("Required", "Must be one of: a, b", "Must be at least 60" ...);
// - a problem with the body as a whole (not JSON, too large, missing, not an object) is the
//   `error` sentence itself, never a `fieldErrors` key (`body` is also a field of a message).
// Browser-safe.
import { pointerSegments, resolveRef, type JsonObject } from '../contract/json-pointer.js';
import type { SimContract } from './contract.js';
import type { SimRequest, SimResponse, Violation } from './types.js';
import type { ContractValidator, SchemaError } from './validator.js';

/** A property schema that no value satisfies: the field a branch forbids (`{type: 'null', not: {}}`). */
const forbids = (schema: JsonObject | undefined): boolean => !!schema && typeof schema.not === 'object' && schema.not !== null && Object.keys(schema.not).length === 0;

/** The branches a body schema offers: its `oneOf`/`anyOf` (one level of `allOf` looked through), else itself. */
function branchesOf(document: JsonObject, schema: JsonObject): JsonObject[] {
  const union = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(union)) return union.map((branch) => resolveRef<JsonObject>(document, branch));
  for (const part of schema.allOf ?? []) {
    const resolved = resolveRef<JsonObject>(document, part);
    if (Array.isArray(resolved?.oneOf ?? resolved?.anyOf)) return branchesOf(document, resolved);
  }
  return [schema];
}

/** The required and the forbidden properties of a branch, through its `allOf`. */
function fieldsOf(document: JsonObject, schema: JsonObject, into = { required: new Set<string>(), forbidden: new Set<string>() }) {
  for (const name of schema.required ?? []) into.required.add(name);
  for (const [name, property] of Object.entries<unknown>(schema.properties ?? {})) if (forbids(resolveRef<JsonObject>(document, property))) into.forbidden.add(name);
  for (const part of schema.allOf ?? []) fieldsOf(document, resolveRef<JsonObject>(document, part), into);
  return into;
}

/** The branch a body means: the most of its required fields sent, the fewest of its forbidden ones. */
function intendedBranch(document: JsonObject, branches: JsonObject[], body: JsonObject): JsonObject {
  let best = branches[0]!;
  let bestScore = -Infinity;
  for (const branch of branches) {
    const { required, forbidden } = fieldsOf(document, branch);
    const sent = [...required].filter((name) => Object.hasOwn(body, name)).length;
    const clashing = [...forbidden].filter((name) => Object.hasOwn(body, name)).length;
    const score = sent * 2 - clashing * 2 - (required.size - sent);
    if (score > bestScore) {
      best = branch;
      bestScore = score;
    }
  }
  return best;
}

/** The schema of the property at `path` under `schema` (through `$ref`, `allOf`, `properties`, `items`), if one says. */
function schemaAt(document: JsonObject, raw: unknown, path: readonly string[]): JsonObject | undefined {
  const schema = resolveRef<JsonObject | undefined>(document, raw);
  if (!schema || typeof schema !== 'object') return undefined;
  if (path.length === 0) return schema;
  const [head, ...rest] = path;
  if (schema.properties?.[head!] !== undefined) return schemaAt(document, schema.properties[head!], rest);
  if (schema.items !== undefined && /^\d+$/.test(head!)) return schemaAt(document, schema.items, rest);
  for (const part of schema.allOf ?? []) {
    const found = schemaAt(document, part, path);
    if (found) return found;
  }
  return undefined;
}

const article = (type: string): string => (type === 'null' ? 'null' : /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** A plain message for a rule a value breaks (ajv's keyword and params). */
export function plainMessage(error: Pick<SchemaError, 'keyword' | 'params'>): string {
  const params = error.params as JsonObject;
  switch (error.keyword) {
    case 'required':
      return 'Required';
    case 'type':
      return `Must be ${[params.type].flat().map(String).map(article).join(' or ')}`;
    case 'enum':
      return `Must be one of: ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'const':
      return `Must be ${JSON.stringify(params.allowedValue)}`;
    case 'minimum':
      return `Must be at least ${params.limit}`;
    case 'maximum':
      return `Must be at most ${params.limit}`;
    case 'exclusiveMinimum':
      return `Must be more than ${params.limit}`;
    case 'exclusiveMaximum':
      return `Must be less than ${params.limit}`;
    case 'minLength':
      return params.limit === 1 ? 'Must not be empty' : `Must be at least ${params.limit} characters`;
    case 'maxLength':
      return `Must be at most ${params.limit} characters`;
    case 'minItems':
      return `Must hold at least ${params.limit} item${params.limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `Must hold at most ${params.limit} item${params.limit === 1 ? '' : 's'}`;
    case 'format':
      return params.format === 'email' ? 'Invalid email address' : params.format === 'uri' ? 'Invalid URL' : `Invalid ${params.format}`;
    case 'additionalProperties':
      return 'Not a field of this request';
    default:
      return 'Invalid value';
  }
}

/** The same from Prism's wording of a parameter's violation (`Request query parameter days must be integer`). */
function plainFromPrism(message: string): string {
  const rule = message.replace(/^Request (?:query|header|path) (?:parameter \S+ )?/, '');
  const allowed = /^must be equal to one of the allowed values: (.*)$/.exec(rule);
  if (allowed) return `Must be one of: ${allowed[1]}`;
  const type = /^must be ([a-z,]+)$/.exec(rule);
  if (type) return plainMessage({ keyword: 'type', params: { type: type[1]!.split(',') } });
  const bound = /^must be (>=|<=|>|<) (\S+)$/.exec(rule);
  if (bound) return plainMessage({ keyword: { '>=': 'minimum', '<=': 'maximum', '>': 'exclusiveMinimum', '<': 'exclusiveMaximum' }[bound[1]!]!, params: { limit: bound[2] } });
  const format = /^must match format "([^"]+)"$/.exec(rule);
  if (format) return plainMessage({ keyword: 'format', params: { format: format[1] } });
  if (/^must have required property/.test(rule)) return 'Required';
  return 'Invalid value';
}

/** What a problem of the body as a whole reads as (the `error` sentence). */
function wholeBodyError(violation: Violation): string {
  const message = violation.message.replace(/^Request body /, '');
  if (/not valid JSON/.test(message)) return `The request body is not valid JSON${/\((.*)\)/.exec(message)?.[1] ? `: ${/\((.*)\)/.exec(message)![1]}` : ''}.`;
  if (/at most \d+ bytes/.test(message)) return `The request body is larger than the ${Math.round(Number(/(\d+) bytes/.exec(message)![1]) / 1024 / 1024)} MB the service reads.`;
  if (/multipart/.test(message)) return 'The request body is not valid multipart/form-data.';
  if (/required|JSON body/i.test(message)) return 'A JSON request body is required.';
  return `The request body ${message}.`;
}

function add(fields: Record<string, string[]>, field: string, message: string): void {
  // Each field once: its first, most specific message.
  if (!Object.hasOwn(fields, field)) fields[field] = [message];
}

/** The documented 400 for a request the gate refused: `{error: {fieldErrors}}`, or the `error` sentence for the body as a whole. */
export function readableFieldErrors(contract: SimContract, validator: ContractValidator, operationId: string, request: SimRequest, violations: readonly Violation[]): SimResponse {
  const { document } = contract;
  const fields: Record<string, string[]> = {};
  const bodyViolations = violations.filter((violation) => (violation.location[0] ?? 'body') === 'body');
  const body = request.body;
  const isObject = body !== null && typeof body === 'object' && !Array.isArray(body);
  const whole = bodyViolations.find((violation) => violation.location.length <= 1 && !/required property|additional propert|exactly one|a schema in anyOf|must NOT be valid|must be null/.test(violation.message));
  if (whole && (!isObject || /JSON|bytes|multipart|JSON body|Body parameter/.test(whole.message))) {
    return { status: 400, body: { error: wholeBodyError(whole) } };
  }
  if (bodyViolations.length > 0) {
    const media = resolveRef<JsonObject | undefined>(document, contract.operation(operationId).requestBody)?.content;
    const schema = resolveRef<JsonObject | undefined>(document, (request.form ? media?.['multipart/form-data'] : media?.['application/json'])?.schema);
    if (!isObject && !request.form) return { status: 400, body: { error: 'The request body must be a JSON object.' } };
    const value = request.form ? Object.fromEntries(Object.entries(request.form).map(([name, part]) => [name, typeof part.value === 'string' ? part.value : ''])) : (body as JsonObject);
    const branch = schema ? intendedBranch(document, branchesOf(document, schema), value) : undefined;
    for (const error of branch ? validator.explain(branch, value) : []) {
      if (['oneOf', 'anyOf', 'allOf', 'if', 'then', 'else'].includes(error.keyword)) continue;
      const path = pointerSegments(error.instancePath);
      const named = error.keyword === 'required' ? String((error.params as JsonObject).missingProperty) : error.keyword === 'additionalProperties' ? String((error.params as JsonObject).additionalProperty) : undefined;
      const fieldPath = named === undefined ? path : [...path, named];
      if (fieldPath.length === 0) continue;
      const fieldSchema = schemaAt(document, branch, fieldPath);
      add(fields, fieldPath.join('.'), (error.keyword !== 'required' && (fieldSchema?.['x-error-message'] as string | undefined)) || plainMessage(error));
    }
    // A break the branch's own check does not see (a value the gate refused for another reason): its field, plainly.
    if (Object.keys(fields).length === 0) for (const violation of bodyViolations) if (violation.location.length > 1) add(fields, violation.location.slice(1).join('.'), plainFromPrism(violation.message));
  }
  for (const violation of violations) {
    const [where, name] = violation.location;
    if (where === 'body' || where === undefined) continue;
    const parameter = name ?? /required property '([^']+)'/.exec(violation.message)?.[1] ?? where;
    const declared = (contract.operation(operationId).parameters ?? []).map((raw: unknown) => resolveRef<JsonObject>(document, raw)).find((p: JsonObject) => String(p.name).toLowerCase() === parameter.toLowerCase());
    const schema = resolveRef<JsonObject | undefined>(document, declared?.schema);
    add(fields, declared?.name ?? parameter, (/required property/.test(violation.message) ? undefined : (schema?.['x-error-message'] as string | undefined)) ?? plainFromPrism(violation.message));
  }
  if (Object.keys(fields).length === 0) return { status: 400, body: { error: 'The request does not match the contract.' } };
  return { status: 400, body: { error: { fieldErrors: fields } } };
}
