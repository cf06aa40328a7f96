// The documented-only view of a description. Inferred parts (`x-inferred: true`,
// spec/EXTENSIONS.md) are advisory, and only they: severity follows the rule a value breaks, not
// the container it stands in. To attribute a schema failure of an answer, the contract validator
// (contract-validator.ts) judges it twice: against the description as written, and against this
// "documented only" copy. A break that the copy does not see touches nothing but inferred parts
// (a verdict of severity `inferred`, advisory); one it sees breaks a documented rule.
//
// The copy reads each schema in one of three modes:
// - documented: as written, except that properties marked inferred are no longer required;
// - inferred (a node marked x-inferred, an inferred response or operation, and everything written
//   inline inside one): its own assertions go (type, required, enum, the shape of a list
//   envelope ...), but what it applies to its parts stays, so a documented record inside an
//   inferred envelope (a message in the inferred messages list, an event in an inferred answer)
//   is still judged;
// - under inferred (a documented component reached from inside something inferred): its values
//   are judged as documented (a message's `channel` is one of part 2's, `source` external or
//   internal), but the fields it requires are not (whether a record inside an assumed shape
//   carries every field is itself the assumption), and a `oneOf` becomes `anyOf`, since branches
//   told apart only by what they require would otherwise all match.
import type { JsonNode as Json } from './json-pointer.js';

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is one schema that applies to a part of the instance (kept in every mode). */
const APPLICATORS_SINGLE = ['items', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'propertyNames', 'contentSchema'];
/** Keywords whose value is one schema that asserts about the instance as a whole (dropped when inferred). */
const ASSERTING_SINGLE = ['not', 'if', 'then', 'else', 'contains'];
/** Keywords that only annotate: kept everywhere. */
const ANNOTATIONS = ['title', 'description', '$comment', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly', 'x-inferred', 'x-inferred-reason'];

type Mode = 'documented' | 'under-inferred' | 'inferred';

const COMPONENT = '#/components/schemas/';
/** The name of a component's "under inferred" variant in the documented-only copy. */
const UNDER_INFERRED = '.underInferred';

function isInferred(node: Json): boolean {
  return node !== null && typeof node === 'object' && node['x-inferred'] === true;
}

/** A `$ref` to a component, pointed at its "under inferred" variant. */
function underInferredRef(ref: string): string {
  return ref.startsWith(COMPONENT) && !ref.endsWith(UNDER_INFERRED) ? `${ref}${UNDER_INFERRED}` : ref;
}

/** A schema read in `mode` (returns a new object; input untouched). */
export function relaxSchema(schema: Json, mode: Mode = 'documented'): Json {
  if (typeof schema === 'boolean') return mode === 'inferred' ? true : schema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  if (isInferred(schema)) mode = 'inferred';
  const child = mode; // inline parts share their parent's mode (an inferred node's parts are inferred)
  const out: Json = {};
  for (const [key, value] of Object.entries<Json>(schema)) {
    if (key === '$ref') out.$ref = mode === 'documented' ? value : underInferredRef(value);
    else if (SUBSCHEMA_MAPS.includes(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries<Json>(value).map(([k, v]) => [k, relaxSchema(v, child)]));
    } else if (key === 'allOf' || key === 'anyOf' || key === 'prefixItems') {
      if (Array.isArray(value)) out[key] = value.map((v) => relaxSchema(v, child));
    } else if (key === 'oneOf') {
      if (Array.isArray(value)) out[mode === 'documented' ? 'oneOf' : 'anyOf'] = value.map((v) => relaxSchema(v, child));
    } else if (APPLICATORS_SINGLE.includes(key)) {
      // `additionalProperties: false` closes the inferred node itself: gone with its other assertions.
      if (!(mode === 'inferred' && typeof value === 'boolean')) out[key] = relaxSchema(value, child);
    } else if (ASSERTING_SINGLE.includes(key)) {
      // Kept as written where the node's rules hold: a condition relaxed would change its meaning.
      if (mode !== 'inferred') out[key] = value;
    } else if (key === 'required' || key === 'dependentRequired' || key === 'minProperties') {
      if (mode === 'documented') {
        out[key] = key === 'required' && Array.isArray(value) && schema.properties ? value.filter((name: string) => !isInferred(schema.properties[name])) : value;
      }
    } else if (mode !== 'inferred' || ANNOTATIONS.includes(key)) {
      // The node's own assertions (type, enum, const, pattern, format, ranges ...).
      out[key] = value;
    }
  }
  return out;
}

function relaxMediaMap(content: Json, mode: Mode): Json {
  if (!content || typeof content !== 'object') return content;
  return Object.fromEntries(
    Object.entries<Json>(content).map(([type, media]) => [type, media?.schema ? { ...media, schema: relaxSchema(media.schema, mode) } : media]),
  );
}

function relaxHeaders(headers: Json, mode: Mode = 'documented'): Json {
  if (!headers || typeof headers !== 'object') return headers;
  return Object.fromEntries(
    Object.entries<Json>(headers).map(([name, h]) => [name, h?.schema ? { ...h, schema: relaxSchema(h.schema, isInferred(h) ? 'inferred' : mode) } : h]),
  );
}

/** A response read as documented, or as inferred (the response or its operation is x-inferred). */
function relaxResponse(response: Json, inferred: boolean): Json {
  if (!response || typeof response !== 'object' || response.$ref) return response;
  const mode: Mode = inferred || isInferred(response) ? 'inferred' : 'documented';
  return { ...response, content: relaxMediaMap(response.content, mode), headers: relaxHeaders(response.headers, mode) };
}

/** The description with every inferred part relaxed, at every place a schema can sit. */
export function documentedOnly(document: Json): Json {
  const doc = structuredClone(document);
  const components = (doc.components ??= {});
  const schemas: Record<string, Json> = {};
  for (const [name, schema] of Object.entries<Json>(components.schemas ?? {})) {
    schemas[name] = relaxSchema(schema, 'documented');
    schemas[`${name}${UNDER_INFERRED}`] = relaxSchema(schema, 'under-inferred');
  }
  components.schemas = schemas;
  for (const [name, response] of Object.entries<Json>(components.responses ?? {})) components.responses[name] = relaxResponse(response, false);
  components.headers = relaxHeaders(components.headers);
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item ?? {})) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      for (const [code, response] of Object.entries<Json>(op.responses)) op.responses[code] = relaxResponse(response, isInferred(op));
    }
  }
  return doc;
}
