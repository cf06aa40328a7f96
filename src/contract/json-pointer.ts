// JSON pointers (RFC 6901) and local `$ref`s: the one helper the repository reads a parsed
// description with (the simulator, both transports, the conformance suite, the docs build, the
// breaking-change diff, the benches and the tests). One failure rule: a pointer to nothing is
// `undefined`; a `$ref` that is not local, or one that comes back to itself, is an error (a bundle
// only holds local references, and a cycle of bare references points at no value). Browser-safe.

/** A JSON value, as parsed. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A node of a parsed OpenAPI or AsyncAPI description, or a value read from one. Deliberately
 * loose, and defined here once for every reader (src/, the conformance suite, the diff, the docs
 * build): code that walks a description reads fields by the shape the contract gives them, and
 * the bundle's own tests (lint, examples, generators) hold that shape, so one loose type is kept
 * rather than a narrowing at every step. Records and answers of the simulator are typed from the
 * generated types instead (src/simulator/records.ts).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonNode = any;
/** An object node of a parsed description. */
export type JsonObject = Record<string, JsonNode>;

/** One segment escaped: `~` → `~0`, `/` → `~1`. */
export function escapePointerSegment(segment: string | number): string {
  const text = String(segment);
  return /[~/]/.test(text) ? text.replace(/~/g, '~0').replace(/\//g, '~1') : text;
}

/** One segment read back: `~1` → `/`, `~0` → `~`. */
export function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `['paths', '/api/v1/account', 'get']` → `#/paths/~1api~1v1~1account/get`. */
export function pointerOf(segments: ReadonlyArray<string | number>): string {
  return `#/${segments.map(escapePointerSegment).join('/')}`;
}

/** `pointer` + more segments, each escaped. */
export function childPointer(pointer: string, ...segments: Array<string | number>): string {
  return segments.reduce<string>((acc, segment) => `${acc}/${escapePointerSegment(segment)}`, pointer);
}

/** Text URI-decoded, or as it is where it is not URI-encoded (a lone `%`). */
export function uriDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The segments of `#/a/b`, `/a/b` or a URI fragment (`#/paths/~1api~1v1~1account`), unescaped. */
export function pointerSegments(pointer: string): string[] {
  const path = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (path === '' || path === '/') return [];
  return path
    .slice(1)
    .split('/')
    .map((segment) => unescapePointerSegment(uriDecoded(segment)));
}

/** The value at `pointer` in `document`, or undefined when there is none. */
export function valueAt(document: unknown, pointer: string): unknown {
  let node = document;
  for (const segment of pointerSegments(pointer)) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/** Every string of a JSON value, with its pointer and the name of the field that holds it (an array's items: the array's). */
export function stringLeaves(value: unknown, pointer = '', field = '', leaves: Array<{ pointer: string; field: string; value: string }> = []): Array<{ pointer: string; field: string; value: string }> {
  if (typeof value === 'string') leaves.push({ pointer, field, value });
  else if (Array.isArray(value)) value.forEach((item, i) => stringLeaves(item, `${pointer}/${i}`, field, leaves));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) stringLeaves(v, `${pointer}/${escapePointerSegment(k)}`, k, leaves);
  return leaves;
}

/** Follows local `$ref`s hop after hop (`hop`: the node a `$ref` node leads to); a remote or circular one is an error. */
function followRefs<T>(value: unknown, hop: (node: { $ref: string }) => unknown): T {
  let current = value;
  const seen = new Set<string>();
  while (current !== null && typeof current === 'object' && typeof (current as { $ref?: unknown }).$ref === 'string') {
    const ref = (current as { $ref: string }).$ref;
    if (!ref.startsWith('#')) throw new Error(`Cannot follow $ref ${ref}: only local references are read`);
    if (seen.has(ref)) throw new Error(`Cannot follow $ref ${ref}: it comes back to itself`);
    seen.add(ref);
    current = hop(current as { $ref: string });
  }
  return current as T;
}

/** Follows a local `$ref` (`#/components/...`), hop after hop, to the first node that is not one. */
export function resolveRef<T = JsonObject>(document: unknown, value: unknown): T {
  return followRefs(value, (node) => valueAt(document, node.$ref));
}

/**
 * Like `resolveRef`, but keywords written beside a `$ref` (OpenAPI 3.1, AsyncAPI 3) are kept and
 * win over the target's: what a reader of the description is shown (a field's own `description`
 * beside a shared schema). The same failure rule; a `$ref` to nothing is an error here, as a
 * reader would otherwise be shown an empty schema.
 */
export function resolveRefShown<T = JsonObject>(document: unknown, value: unknown): T {
  return followRefs(value, ({ $ref: ref, ...beside }) => {
    const target = valueAt(document, ref);
    if (target === undefined) throw new Error(`Cannot follow $ref ${ref}: it points at nothing`);
    return { ...(target as object), ...beside };
  });
}
