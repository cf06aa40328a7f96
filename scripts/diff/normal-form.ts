// The normal form the schema comparison (./schema.ts) works on. Different spellings of the same
// schema normalise alike, so that only real differences are compared:
// - 3.1 nullability: `type: [x, 'null']`, and `anyOf: [{$ref}, {type: 'null'}]` (X, nullable);
// - value lists: `enum`, `const`, and `anyOf`/`oneOf` of `const`s, closed, or open with a
//   catch-all branch (`anyOf: [{const: a}, {const: b}, {type: string}]`: documented values plus
//   "any other string");
// - `allOf` flattened (properties, required, types intersected, nullability intersected);
// - forbidden fields, whether written `properties: {x: false}`, `properties: {x: {not: {}}}` (a
//   schema nothing satisfies, whatever `type` stands beside it for code generators),
//   `properties: {x: {allOf: [{type: 'null'}, {type: string}]}}` (types no value has at once) or
//   `not: {required: [x]}`;
// - a `oneOf` compared by its leaves (`oneOfLeaves`): fields beside the union distributed into
//   each branch, and a `oneOf` nested in a branch flattened;
// - `additionalProperties: true` is the default, so it is dropped.

import { type Document, type Json, type Located, canonical, childPointer, isObject, sameJson } from './resolve.js';

export interface ValueSet {
  /** `true` when a catch-all branch (`{type: string}`) accepts values beyond the documented ones. */
  open: boolean;
  list: Json[];
  pointer: string;
  /** Values whose own `const` branch is marked `x-inferred`. */
  inferred?: Json[];
}

export interface Normal {
  /** What was normalised (to read it again, e.g. without its conditionals). */
  input: Located;
  loc: Located;
  /** Keywords of the node with `allOf` branches merged in (own keywords win). */
  keywords: Record<string, Json>;
  /** JSON types allowed, without 'null'; null = any type. */
  types: Set<string> | null;
  nullable: boolean;
  values: ValueSet | null;
  properties: Map<string, Located>;
  required: Set<string>;
  /** Fields that must be absent: `properties: {x: false}`, or the idiom `not: {required: [x]}`. */
  forbidden: Set<string>;
  variants: Partial<Record<'oneOf' | 'anyOf', Located[]>>;
}

const STRUCTURAL = new Set([
  'type', 'enum', 'const', 'properties', 'required', 'items', 'prefixItems', 'additionalProperties',
  'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', 'pattern', 'format', 'patternProperties',
  'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf',
  'minItems', 'maxItems', 'uniqueItems', 'minProperties', 'maxProperties', 'contains', 'minContains',
  'maxContains', 'propertyNames', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties',
  'unevaluatedItems', 'contentMediaType', 'contentEncoding', 'nullable',
]);

export const ANNOTATIONS = new Set([
  'title', 'description', 'examples', 'example', '$comment', 'externalDocs', '$schema', '$id',
  '$anchor', '$defs', 'definitions', 'xml', 'x-inferred-reason', 'x-source',
]);

const typesOf = (type: Json): string[] => (Array.isArray(type) ? type : typeof type === 'string' ? [type] : []);

const jsonType = (value: Json): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

/** Keys of a branch other than annotations (and `type`, which a const branch may repeat). */
const structuralKeys = (node: Record<string, Json>): string[] =>
  Object.keys(node).filter((k) => STRUCTURAL.has(k) || (!ANNOTATIONS.has(k) && !k.startsWith('x-') && k !== 'deprecated'));

const isNullBranch = (node: Json): boolean =>
  isObject(node) && sameJson(typesOf(node.type), ['null']) && structuralKeys(node).every((k) => k === 'type');

const isConstBranch = (node: Json): boolean =>
  isObject(node) && 'const' in node && node.const !== null && structuralKeys(node).every((k) => k === 'const' || k === 'type');

/** A branch that accepts any value of its type: the "other values" of an open enum. */
const isCatchAllBranch = (node: Json): boolean =>
  isObject(node) && typesOf(node.type).length > 0 && !typesOf(node.type).includes('null') && structuralKeys(node).every((k) => k === 'type');

/**
 * No value is valid: `{not: {}}` (with or without annotations and a `type` beside it), or an
 * `allOf` of types no value has at once (`allOf: [{type: 'null'}, {type: string}]`, the form code
 * generators type as `never`).
 */
export const acceptsNothing = (node: Json): boolean => {
  if (!isObject(node)) return false;
  if (isObject(node.not) && Object.keys(node.not).length === 0) return true;
  const typed = Array.isArray(node.allOf) ? node.allOf.filter((b: Json) => isObject(b) && b.type !== undefined) : [];
  if (typed.length < 2) return false;
  const widen = (types: string[]) => (types.includes('number') ? [...types, 'integer'] : types);
  const common = typed.map((b: Json) => widen(typesOf(b.type))).reduce((acc: string[], types: string[]) => acc.filter((t) => types.includes(t)));
  return common.length === 0;
};

/** A schema in the normal form described above. */
export function normalize(doc: Document, loc: Located, depth = 0): Normal {
  if (loc.merge && loc.merge.length > 0 && depth < 20) {
    // The most specific definition (the last branch) wins; the others add their constraints.
    const parts = loc.merge.map((l) => normalize(doc, l, depth + 1));
    const base = parts.pop()!;
    for (const part of parts) mergeInto(base, part, { override: false });
    if (loc.inferred) base.loc = { ...base.loc, inferred: true };
    if (loc.core) stripToCore(base);
    dropForbidden(base);
    base.input = loc;
    return base;
  }
  const r = doc.resolve(loc);
  const node: Record<string, Json> = isObject(r.node) ? r.node : {};
  const norm: Normal = {
    input: loc,
    loc: r,
    keywords: { ...node },
    types: node.type === undefined ? null : new Set(typesOf(node.type).filter((t) => t !== 'null')),
    nullable: typesOf(node.type).includes('null') || node.nullable === true,
    values: null,
    properties: new Map(),
    required: new Set(Array.isArray(node.required) ? node.required : []),
    forbidden: new Set(),
    variants: {},
  };
  const not = node.not;
  if (isObject(not) && Array.isArray(not.required) && not.required.length === 1 && structuralKeys(not).every((k) => k === 'required')) {
    norm.forbidden.add(not.required[0]);
    delete norm.keywords.not;
  }
  if (Array.isArray(node.enum)) {
    norm.nullable ||= node.enum.includes(null);
    norm.values = { open: false, list: node.enum.filter((v: Json) => v !== null), pointer: childPointer(r.ptr, 'enum') };
  } else if ('const' in node) {
    if (node.const === null) norm.nullable = true;
    else norm.values = { open: false, list: [node.const], pointer: childPointer(r.ptr, 'const') };
  }
  if (isObject(node.properties)) {
    for (const name of Object.keys(node.properties)) {
      if (node.properties[name] === false || acceptsNothing(node.properties[name])) {
        norm.forbidden.add(name);
        continue;
      }
      norm.properties.set(name, { node: node.properties[name], ptr: childPointer(r.ptr, 'properties', name), inferred: r.inferred });
    }
  }

  for (const keyword of ['oneOf', 'anyOf'] as const) {
    if (!Array.isArray(node[keyword])) continue;
    const branches: Located[] = node[keyword].map((b: Json, i: number) => ({ node: b, ptr: childPointer(r.ptr, keyword, i), inferred: r.inferred }));
    const resolved = branches.map((b) => doc.resolve(b));
    const rest = branches.filter((_, i) => !isNullBranch(resolved[i]!.node));
    if (rest.length < branches.length) norm.nullable = true;
    const restResolved = rest.map((b) => doc.resolve(b));
    const consts = restResolved.filter((b) => isConstBranch(b.node));
    const catchAll = restResolved.filter((b) => isCatchAllBranch(b.node));
    if (consts.length > 0 && consts.length + catchAll.length === rest.length && !norm.values) {
      // A value union: closed when every branch is a const, open with a catch-all branch.
      norm.values = {
        open: catchAll.length > 0,
        list: consts.map((b) => b.node.const),
        pointer: childPointer(r.ptr, keyword),
        inferred: consts.filter((b) => b.inferred).map((b) => b.node.const),
      };
      if (!norm.types) norm.types = new Set([...consts.map((b) => jsonType(b.node.const)), ...catchAll.flatMap((b) => typesOf(b.node.type))]);
    } else if (rest.length === 1 && rest.length < branches.length && depth < 20) {
      // `anyOf: [X, {type: 'null'}]`: X, nullable.
      mergeInto(norm, normalize(doc, rest[0]!, depth + 1), { override: true });
    } else if (rest.length > 0) {
      norm.variants[keyword] = rest;
    }
  }

  if (Array.isArray(node.allOf) && depth < 20) {
    node.allOf.forEach((b: Json, i: number) => {
      mergeInto(norm, normalize(doc, { node: b, ptr: childPointer(r.ptr, 'allOf', i), inferred: r.inferred }, depth + 1), { override: false });
    });
  }
  // A closed value list without `type` still has the types of its values (`const: 'message.received'` is a string).
  if (!norm.types && norm.values && !norm.values.open && norm.values.list.length) norm.types = new Set(norm.values.list.map(jsonType));
  for (const k of ['allOf', 'anyOf', 'oneOf', 'properties', 'required', 'enum', 'const', '$ref']) delete norm.keywords[k];
  if (loc.core) stripToCore(norm);
  // `additionalProperties: true` says what the default already says.
  if (norm.keywords.additionalProperties === true) delete norm.keywords.additionalProperties;
  dropForbidden(norm);
  norm.input = loc;
  return norm;
}

/** A forbidden field's schema says nothing more: a union branch may forbid a field declared around it. */
function dropForbidden(norm: Normal): void {
  for (const name of norm.forbidden) norm.properties.delete(name);
}

/**
 * The branches of a `oneOf`, each together with the schema around it, with a branch that is
 * itself a `oneOf` replaced by its own branches: `P ∧ oneOf(A ∧ oneOf(C1, C2), B)` reads as
 * `oneOf(P ∧ A ∧ C1, P ∧ A ∧ C2, P ∧ B)`. Fields declared beside a union or in each of its
 * branches, and a union nested in a branch or spelled out, are then compared alike. (The two are
 * the same when the nested branches exclude each other, as the exactly-one rules do.)
 */
export function oneOfLeaves(doc: Document, n: Normal, depth = 0): Located[] {
  const leaves: Located[] = [];
  for (const branch of n.variants.oneOf ?? []) {
    const together = whole(n, branch);
    const inner = normalize(doc, together);
    if (inner.variants.oneOf && depth < 5) leaves.push(...oneOfLeaves(doc, inner, depth + 1));
    else leaves.push(together);
  }
  return leaves;
}

export function stripToCore(norm: Normal): void {
  for (const k of ['if', 'then', 'else', 'not']) delete norm.keywords[k];
  norm.variants = {};
}

/**
 * A conditional (`then`/`else`) or union (`oneOf`/`anyOf`) branch applies together with the schema
 * around it: compare the two together, so that moving a property between them is not a change.
 */
export const whole = (n: Normal, branch: Located): Located => ({ ...branch, merge: [{ ...n.input, core: true }, branch] });

/** Values allowed by both: a closed list wins over an open one (`const` narrowing an open enum). */
function intersectValues(a: ValueSet | null, b: ValueSet | null): ValueSet | null {
  if (!a || !b) return a ?? b;
  if (a.open !== b.open) return a.open ? b : a;
  if (!a.open) return { ...a, list: a.list.filter((v) => b.list.some((w) => sameJson(v, w))) };
  return { ...a, list: [...a.list, ...b.list.filter((v) => !a.list.some((w) => sameJson(v, w)))] };
}

/** Merges a branch into a schema: `override` for a nullable wrapper (the branch is the schema). */
function mergeInto(target: Normal, branch: Normal, { override }: { override: boolean }): void {
  for (const [name, loc] of branch.properties) {
    const existing = target.properties.get(name);
    // Defined by several allOf branches: the property must satisfy each of them.
    target.properties.set(name, existing ? { node: existing.node, ptr: existing.ptr, inferred: existing.inferred, merge: [...(existing.merge ?? [existing]), loc] } : loc);
  }
  for (const name of branch.required) target.required.add(name);
  for (const name of branch.forbidden) target.forbidden.add(name);
  if (override) target.nullable ||= branch.nullable;
  else {
    // allOf: null must be allowed by both (an untyped side allows anything, null included).
    target.nullable = (target.types ? target.nullable : true) && (branch.types ? branch.nullable : true);
  }
  if (branch.types) {
    target.types = target.types && !override ? new Set([...target.types].filter((t) => branch.types!.has(t))) : branch.types;
  }
  target.values = intersectValues(target.values, branch.values);
  for (const k of ['oneOf', 'anyOf'] as const) target.variants[k] ??= branch.variants[k];
  for (const [k, v] of Object.entries(branch.keywords)) {
    if (k === 'type' || k === 'nullable') continue;
    if (override ? !ANNOTATIONS.has(k) || !(k in target.keywords) : !(k in target.keywords)) target.keywords[k] = v;
  }
  // A nullable wrapper is its branch: report changes where the branch is defined, keeping the
  // wrapper's own x-inferred.
  if (override) target.loc = { ...branch.loc, inferred: Boolean(target.loc.inferred || branch.loc.inferred) };
}

/** Schema text without annotations, to recognise a renamed property by its unchanged schema. */
export function shapeOf(doc: Document, loc: Located, depth = 0): string {
  const r = doc.resolve(loc);
  const strip = (value: Json, d: number): Json => {
    if (d > 30) return null;
    if (Array.isArray(value)) return value.map((v) => strip(v, d + 1));
    if (!isObject(value)) return value;
    if (typeof value.$ref === 'string') return strip(doc.resolve({ node: value, ptr: '' }).node, d + 1);
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) if (!ANNOTATIONS.has(k) && !k.startsWith('x-')) out[k] = strip(v, d + 1);
    return out;
  };
  return canonical(strip(r.node, depth));
}
