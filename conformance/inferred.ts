// Inferred parts (`x-inferred: true`, spec/EXTENSIONS.md) are advisory: the suite reports them
// but never fails on them. To attribute a schema failure, responses are validated twice: against
// the description as written, and against a "documented only" copy in which every inferred schema
// accepts anything and inferred properties are no longer required. A body that fails only the
// first is an advisory finding; one that fails the second breaks a documented part.
import type { Json } from './description.js';

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_SINGLE = [
  'items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains',
  'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema',
];

function isInferred(node: Json): boolean {
  return node !== null && typeof node === 'object' && node['x-inferred'] === true;
}

/** A schema with every inferred part relaxed (returns a new object; input untouched). */
export function relaxSchema(schema: Json): Json {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  if (isInferred(schema)) return { description: 'inferred: accepts anything when judging documented parts' };
  const out: Json = { ...schema };
  for (const key of SUBSCHEMA_MAPS) {
    if (out[key] && typeof out[key] === 'object') {
      out[key] = Object.fromEntries(Object.entries<Json>(out[key]).map(([k, v]) => [k, relaxSchema(v)]));
    }
  }
  for (const key of SUBSCHEMA_LISTS) {
    if (Array.isArray(out[key])) out[key] = out[key].map(relaxSchema);
  }
  for (const key of SUBSCHEMA_SINGLE) {
    if (key in out) out[key] = relaxSchema(out[key]);
  }
  if (Array.isArray(out.required) && schema.properties) {
    out.required = out.required.filter((name: string) => !isInferred(schema.properties[name]));
  }
  return out;
}

function relaxMediaMap(content: Json): Json {
  if (!content || typeof content !== 'object') return content;
  return Object.fromEntries(
    Object.entries<Json>(content).map(([type, media]) => [type, media?.schema ? { ...media, schema: relaxSchema(media.schema) } : media]),
  );
}

function relaxHeaders(headers: Json): Json {
  if (!headers || typeof headers !== 'object') return headers;
  return Object.fromEntries(
    Object.entries<Json>(headers).map(([name, h]) => [name, h?.schema ? { ...h, schema: relaxSchema(h.schema) } : h]),
  );
}

function relaxResponse(response: Json): Json {
  if (!response || typeof response !== 'object' || response.$ref) return response;
  return { ...response, content: relaxMediaMap(response.content), headers: relaxHeaders(response.headers) };
}

/** The description with every inferred schema relaxed, at every place a schema can sit. */
export function documentedOnly(document: Json): Json {
  const doc = structuredClone(document);
  const components = doc.components ?? {};
  for (const [name, schema] of Object.entries<Json>(components.schemas ?? {})) components.schemas[name] = relaxSchema(schema);
  for (const [name, response] of Object.entries<Json>(components.responses ?? {})) components.responses[name] = relaxResponse(response);
  components.headers = relaxHeaders(components.headers);
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item ?? {})) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      for (const [code, response] of Object.entries<Json>(op.responses)) op.responses[code] = relaxResponse(response);
    }
  }
  return doc;
}
