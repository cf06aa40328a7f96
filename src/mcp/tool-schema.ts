// A schema of the bundled description made into a JSON Schema a tool can carry on its own (MCP's
// `inputSchema` and `outputSchema` are JSON Schema 2020-12 objects, and a client resolves no
// `#/components/...`): every component it reaches is copied into `$defs` once and its `$ref`s
// pointed there, so a union stays a union (`oneOf` branches intact, each a `$ref` to its titled
// branch) instead of being inlined into one flat object. OpenAPI's annotations that are not JSON
// Schema (`x-*`, `example`, `discriminator`, `xml`, `externalDocs`) are left out, only where a
// schema keyword stands (a property named `example` is a property). Pure.
import { pointerSegments, type JsonObject } from '../contract/json-pointer.js';

/** Keywords whose value is a map of schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value is one schema. */
const SCHEMA_ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems']);
/** OpenAPI annotations that are not JSON Schema keywords (and `examples`: the descriptions say it, in fewer tokens). */
const OPENAPI_ONLY = new Set(['example', 'examples', 'discriminator', 'xml', 'externalDocs']);

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

export interface SchemaCollector {
  /** The schema with its `$ref`s pointed at `#/$defs/...`; each component reached is recorded. */
  convert(schema: unknown): JsonObject;
  /** The `$defs` of every component converted so far (their own references included). */
  defs(): JsonObject;
}

export interface CollectorOptions {
  /**
   * Keep `description`s (default true). An output schema leaves them out: a client holds the
   * answer to the structure, the model reads the values, and the operation's own description
   * says what they mean; it costs a model's context about half as much.
   */
  descriptions?: boolean;
}

/** A collector over one description: convert any number of schemas, then read their shared `$defs`. */
export function schemaCollector(document: JsonObject, options: CollectorOptions = {}): SchemaCollector {
  const keep = (key: string): boolean => !(key.startsWith('x-') || OPENAPI_ONLY.has(key) || (options.descriptions === false && key === 'description'));
  const defs: JsonObject = {};
  const pending: string[] = [];

  const rewriteRef = (ref: string): string => {
    const match = COMPONENT_REF.exec(ref);
    if (!match) throw new Error(`Cannot carry $ref ${ref} into a tool schema: only #/components/schemas/... are followed`);
    const name = pointerSegments(ref).at(-1)!;
    if (!(name in defs)) {
      defs[name] = true; // placeholder: taken, converted below (a cycle comes back to a name already taken)
      pending.push(name);
    }
    return `#/$defs/${match[1]}`;
  };

  const convertNode = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(convertNode);
    if (node === null || typeof node !== 'object') return node;
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node as JsonObject)) {
      if (!keep(key)) continue;
      if (key === '$ref' && typeof value === 'string') out.$ref = rewriteRef(value);
      else if (SCHEMA_MAPS.has(key) && value && typeof value === 'object') out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, convertNode(sub)]));
      else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) out[key] = value.map(convertNode);
      else if (SCHEMA_ONE.has(key)) out[key] = convertNode(value);
      else out[key] = value; // data (enum, const, default, required, type ...): as it is
    }
    return out;
  };

  const drain = (): void => {
    while (pending.length > 0) {
      const name = pending.shift()!;
      const component = (document.components?.schemas as JsonObject | undefined)?.[name];
      if (component === undefined) throw new Error(`Cannot carry #/components/schemas/${name} into a tool schema: the description has no such schema`);
      defs[name] = convertNode(component);
    }
  };

  return {
    convert(schema) {
      const converted = convertNode(schema) as JsonObject;
      drain();
      return converted;
    },
    defs() {
      drain();
      return Object.fromEntries(Object.keys(defs).sort().map((name) => [name, defs[name]]));
    },
  };
}

/** A root object schema with the `$defs` its parts reach (none when they reach no component). */
export function withDefs(root: JsonObject, collector: SchemaCollector): JsonObject {
  const defs = collector.defs();
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}
