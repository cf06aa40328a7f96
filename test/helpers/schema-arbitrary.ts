// fast-check arbitraries from the bundle's JSON Schemas (2020-12, as OpenAPI 3.1 writes them), for
// the fuzz test: values a schema accepts (`valid`), and values built to break it (`broken`):
// required fields dropped, fields of the wrong type, unknown properties, numbers just past their
// bounds, strings of odd unicode. Local `$ref`s are followed; recursion is cut at a small depth.
import fc from 'fast-check';
import { resolveRef, type JsonObject } from '../../src/contract/json-pointer.js';

const MAX_DEPTH = 6;

/** Strings a parser, a regex or a key lookup may trip on: unicode planes, controls, RTL, emoji, prototype names. */
export const oddStrings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', ' ', '\u0000', '\u202e', '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '👩🏽‍💻', 'ä\u0308', '\ud83d', '__proto__', 'constructor', 'toString', '{"a":1}', '../../etc', '%00', 'a'.repeat(2048)),
);

const typesOf = (schema: JsonObject): string[] => [schema.type].flat().filter((type): type is string => typeof type === 'string');

/** A value of a JSON type other than the ones given. */
export function otherType(types: readonly string[]): fc.Arbitrary<unknown> {
  const all: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.string({ maxLength: 8 }),
    number: fc.double({ noNaN: true, noDefaultInfinity: true }),
    integer: fc.integer(),
    boolean: fc.boolean(),
    array: fc.array(fc.integer(), { maxLength: 2 }),
    object: fc.constant({ unexpected: true }),
    null: fc.constant(null),
  };
  const numeric = types.includes('number') || types.includes('integer');
  const others = Object.entries(all).filter(([type]) => !types.includes(type) && !(numeric && (type === 'number' || type === 'integer')));
  return fc.oneof(...others.map(([, arbitrary]) => arbitrary));
}

function stringOf(schema: JsonObject): fc.Arbitrary<string> {
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern));
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T00:00:00Z'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.webUrl();
    default:
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 64) });
  }
}

function numberOf(schema: JsonObject, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-6) : -1e6);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-6) : 1e6);
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Values `schema` (of `document`) accepts, as far as these arbitraries can tell (allOf of objects merged, `not` left aside). */
export function valid(document: JsonObject, raw: unknown, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolveRef<JsonObject | boolean | undefined>(document, raw);
  if (schema === undefined || schema === true) return fc.jsonValue({ maxDepth: 1 });
  if (schema === false) return fc.constant(undefined);
  if (depth > MAX_DEPTH) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (Array.isArray(schema.oneOf) || Array.isArray(schema.anyOf)) {
    const branches = (schema.oneOf ?? schema.anyOf) as unknown[];
    const siblings = { ...schema, oneOf: undefined, anyOf: undefined };
    return fc.oneof(...branches.map((branch) => valid(document, { allOf: [siblings, branch] }, depth + 1)));
  }
  if (Array.isArray(schema.allOf)) return valid(document, mergeAllOf(document, schema), depth + 1);
  const types = typesOf(schema);
  const choices: Array<fc.Arbitrary<unknown>> = [];
  for (const type of types.length > 0 ? types : schema.properties ? ['object'] : ['string']) {
    if (type === 'string') choices.push(stringOf(schema));
    else if (type === 'integer') choices.push(numberOf(schema, true));
    else if (type === 'number') choices.push(numberOf(schema, false));
    else if (type === 'boolean') choices.push(fc.boolean());
    else if (type === 'null') choices.push(fc.constant(null));
    else if (type === 'array') choices.push(fc.array(valid(document, schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 2, 3) }));
    else if (type === 'object') choices.push(objectOf(document, schema, depth));
  }
  return fc.oneof(...choices);
}

function objectOf(document: JsonObject, schema: JsonObject, depth: number): fc.Arbitrary<JsonObject> {
  const required = new Set<string>(schema.required ?? []);
  const shape: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, property] of Object.entries<unknown>(schema.properties ?? {})) {
    const value = valid(document, property, depth + 1);
    shape[name] = required.has(name) ? value : fc.option(value, { nil: undefined, freq: 2 });
  }
  for (const name of required) shape[name] ??= fc.string({ maxLength: 8 });
  return fc.record(shape).map((record) => Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)));
}

/** One object schema from `allOf` branches that are objects: their properties and required lists together. */
function mergeAllOf(document: JsonObject, schema: JsonObject): JsonObject {
  const merged: JsonObject = { ...schema, allOf: undefined, properties: { ...(schema.properties ?? {}) }, required: [...(schema.required ?? [])] };
  for (const raw of schema.allOf as unknown[]) {
    const branch = resolveRef<JsonObject>(document, raw);
    if (!branch || typeof branch !== 'object') continue;
    const part = branch.allOf ? mergeAllOf(document, branch) : branch;
    if (part.oneOf || part.anyOf) return { ...merged, ...part, allOf: undefined, properties: { ...merged.properties, ...(part.properties ?? {}) }, required: [...merged.required, ...(part.required ?? [])] };
    Object.assign(merged.properties, part.properties ?? {});
    merged.required.push(...(part.required ?? []));
    if (part.type && !merged.type) merged.type = part.type;
    for (const key of ['enum', 'const', 'pattern', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'items', 'additionalProperties']) if (part[key] !== undefined) merged[key] = part[key];
  }
  return merged;
}

/** The properties an object schema names (through allOf/oneOf/anyOf), each with its schema. */
export function namedProperties(document: JsonObject, raw: unknown, found = new Map<string, JsonObject>()): Map<string, JsonObject> {
  const schema = resolveRef<JsonObject | undefined>(document, raw);
  if (!schema || typeof schema !== 'object') return found;
  for (const branch of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) namedProperties(document, branch, found);
  for (const [name, property] of Object.entries<unknown>(schema.properties ?? {})) if (!found.has(name)) found.set(name, resolveRef<JsonObject>(document, property) ?? {});
  return found;
}

/** Ways to break a body of `schema`: applied to a valid body, each gives one the contract refuses (or one near its edges). */
export function broken(document: JsonObject, raw: unknown, validBody: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const properties = [...namedProperties(document, raw).entries()];
  const mutations: Array<fc.Arbitrary<unknown>> = [
    // Not an object at all.
    otherType(['object']),
    // An unknown property with an odd name and value.
    fc.tuple(validBody, oddStrings, fc.jsonValue({ maxDepth: 2 })).map(([body, name, value]) => (isObject(body) ? { ...body, [name]: value } : body)),
  ];
  if (properties.length > 0) {
    const property = fc.constantFrom(...properties);
    // A field dropped.
    mutations.push(fc.tuple(validBody, property).map(([body, [name]]) => (isObject(body) ? omit(body, name) : body)));
    // A field of the wrong type.
    mutations.push(fc.tuple(validBody, property).chain(([body, [name, schema]]) => otherType(typesOf(schema)).map((value) => (isObject(body) ? { ...body, [name]: value } : body))));
    // A string field of odd unicode.
    mutations.push(fc.tuple(validBody, property, oddStrings).map(([body, [name], text]) => (isObject(body) ? { ...body, [name]: text } : body)));
    // A number just past its bounds.
    const bounded = properties.filter(([, schema]) => schema.minimum !== undefined || schema.maximum !== undefined);
    if (bounded.length > 0) {
      mutations.push(
        fc.tuple(validBody, fc.constantFrom(...bounded), fc.boolean()).map(([body, [name, schema], low]) => {
          const edge = low ? (schema.minimum ?? schema.maximum) - 1 : (schema.maximum ?? schema.minimum) + 1;
          return isObject(body) ? { ...body, [name]: edge } : body;
        }),
      );
    }
  }
  return fc.oneof(...mutations);
}

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === 'object' && !Array.isArray(value);

function omit(body: JsonObject, name: string): JsonObject {
  const { [name]: _dropped, ...rest } = body;
  return rest;
}
