// A bundled OpenAPI or AsyncAPI document with internal `$ref`s, read through "located" nodes: each
// node carries the JSON pointer of the place that defines it, so a change found while walking an
// operation is reported where a maintainer would edit it (`/components/schemas/Message/...`) and
// a change to a shared schema reached from many operations collapses into one entry.

import { childPointer, unescapePointerSegment, valueAt, type JsonNode } from '../../src/contract/json-pointer.js';

export { childPointer };

/** A parsed JSON value of a description: the package's one loose JSON type. */
export type Json = JsonNode;

/** A node and the JSON pointer (in its document) of the object that defines it. */
export interface Located {
  node: Json;
  ptr: string;
  /**
   * Set when this node, or something it is written under, carries `x-inferred: true`. The marker
   * is lexical: it covers what is written beneath it, not what that references, so a documented
   * component (`Message`, part 2) used by an inferred response stays documented.
   */
  inferred?: boolean;
  /** A property that several `allOf` branches define: it must satisfy all of them. */
  merge?: Located[];
  /**
   * Read only the schema's core: without `if`/`then`/`else`, `oneOf`/`anyOf` branches and `not`
   * (the part that a conditional branch or a union branch adds to).
   */
  core?: boolean;
}

export const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export class Document {
  constructor(
    readonly root: Json,
    /** `openapi` or `asyncapi`: which document a change's pointer points into. */
    readonly kind: 'openapi' | 'asyncapi',
  ) {}

  /** The value at a JSON pointer (`#/...` or `/...`), or undefined. */
  at(pointer: string): Json {
    return valueAt(this.root, pointer);
  }

  /** A child of a located node (no `$ref` followed). */
  child(loc: Located, ...segments: Array<string | number>): Located | undefined {
    let node: Json = loc.node;
    for (const s of segments) {
      if (node === null || typeof node !== 'object') return undefined;
      node = node[s as never];
    }
    if (node === undefined) return undefined;
    return { node, ptr: childPointer(loc.ptr, ...segments), inferred: loc.inferred };
  }

  /**
   * Follows `$ref` chains to the node they name. Siblings of a `$ref` (3.1 allows them, e.g. a
   * `description` or `x-inferred`) are kept over the target's own keys. A reference that cannot
   * be resolved (external, or missing) is returned as is, so it is compared by its text.
   */
  resolve(loc: Located): Located {
    let current = loc;
    const seen = new Set<string>();
    let siblings: Record<string, Json> = {};
    let followed = false;
    while (isObject(current.node) && typeof current.node.$ref === 'string') {
      const ref: string = current.node.$ref;
      if (!ref.startsWith('#') || seen.has(ref)) break;
      seen.add(ref);
      const target = this.at(ref);
      if (target === undefined) break;
      const { $ref: _ignored, ...rest } = current.node;
      siblings = { ...rest, ...siblings };
      current = { node: target, ptr: ref.slice(1) };
      followed = true;
    }
    const node = Object.keys(siblings).length && isObject(current.node) ? { ...current.node, ...siblings } : current.node;
    // Lexical x-inferred: a followed `$ref` starts from the target's own marker (and its siblings').
    const inherited = followed ? false : Boolean(loc.inferred);
    const inferred = Boolean(inherited || (isObject(node) && node['x-inferred'] === true));
    return { node, ptr: current.ptr, inferred, ...(loc.merge && !followed ? { merge: loc.merge } : {}), ...(loc.core ? { core: true } : {}) };
  }
}

/** The last segment of a `$ref` (the component name), used to match union branches and messages. */
export function refName(node: Json): string | undefined {
  if (!isObject(node) || typeof node.$ref !== 'string') return undefined;
  const segments = node.$ref.split('/');
  return unescapePointerSegment(segments[segments.length - 1] ?? '');
}

/** Deterministic JSON text, for comparing values whose key order may differ. */
export function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

export const sameJson = (a: Json, b: Json): boolean => canonical(a) === canonical(b);
