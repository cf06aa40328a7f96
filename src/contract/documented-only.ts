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
//   envelope ...), but what it applies to its parts stays, and a documented component it holds is
//   judged as documented, also for the fields it requires: a phone number in the inferred numbers
//   list lacking `createdAt` fails, as it does inside `GET /api/v1/usage` (issue 29);
// - assumed (a documented component that is itself the whole answer of an inferred success
//   response, such as the message record "assumed" as the answer to a send whose response fields
//   part 4.5 does not show): its values are judged as documented (a `channel` of part 2), but not
//   the fields it requires, since that the answer is such a record at all is the assumption; a
//   `oneOf` becomes `anyOf`, since branches told apart only by what they require would otherwise
//   all match. An error answer is part 7's `Error` whatever its status, so it is never "assumed".
import type { JsonNode as Json } from './json-pointer.js';

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
/** Keywords whose value is one schema that applies to a part of the instance (kept in every mode). */
const APPLICATORS_SINGLE = ['items', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'propertyNames', 'contentSchema'];
/** Keywords whose value is one schema that asserts about the instance as a whole (dropped when inferred). */
const ASSERTING_SINGLE = ['not', 'if', 'then', 'else', 'contains'];
/** Keywords that only annotate: kept everywhere. */
const ANNOTATIONS = ['title', 'description', '$comment', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly', 'x-inferred', 'x-inferred-reason'];

type Mode = 'documented' | 'assumed' | 'inferred';

const COMPONENT = '#/components/schemas/';
/** The name of a component's "assumed" variant in the documented-only copy. */
const ASSUMED = '.assumed';

/** A `$ref` to a component, pointed at its "assumed" variant. */
function assumedRef(ref: string): string {
  return ref.startsWith(COMPONENT) && !ref.endsWith(ASSUMED) ? `${ref}${ASSUMED}` : ref;
}

function isInferred(node: Json): boolean {
  return node !== null && typeof node === 'object' && node['x-inferred'] === true;
}

/**
 * The JSON types a documented component asserts (`object` for a phone number), so that the other
 * branches of a union read as inferred do not swallow a record it documents; undefined for an
 * inferred component or one without a type.
 */
export type ComponentTypes = (ref: string) => string[] | undefined;

/**
 * A union read as inferred: its inline branches lose their assertions, so each would accept any
 * value, and a documented component beside them would never be judged (`subscription` is
 * `anyOf: [Subscription, null]`, with the field itself inferred). They keep out of the types the
 * component branches claim: an object there is judged as a Subscription; anything else is what
 * the inferred part allows.
 */
function relaxUnion(branches: Json[], mode: Mode, types?: ComponentTypes): Json[] {
  const relaxed = branches.map((branch) => relaxSchema(branch, mode, types));
  if (mode !== 'inferred' || !types) return relaxed;
  const claimed = [...new Set(branches.flatMap((branch) => (typeof branch?.$ref === 'string' ? (types(branch.$ref) ?? []) : [])))];
  if (claimed.length === 0) return relaxed;
  return relaxed.map((branch, i) => {
    if (typeof branches[i]?.$ref === 'string') return branch;
    const guard = { not: { type: claimed.length === 1 ? claimed[0] : claimed } };
    return branch === true ? guard : branch === false ? false : { ...branch, ...guard };
  });
}

/** A schema read in `mode` (returns a new object; input untouched). `types`: see ComponentTypes. */
export function relaxSchema(schema: Json, mode: Mode = 'documented', types?: ComponentTypes): Json {
  if (typeof schema === 'boolean') return mode === 'inferred' ? true : schema;
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  if (isInferred(schema)) mode = 'inferred'; // inline parts share their parent's mode (an inferred node's parts are inferred)
  const out: Json = {};
  for (const [key, value] of Object.entries<Json>(schema)) {
    if (key === '$ref') out.$ref = mode === 'assumed' ? assumedRef(value) : value;
    else if (SUBSCHEMA_MAPS.includes(key) && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries<Json>(value).map(([k, v]) => [k, relaxSchema(v, mode, types)]));
    } else if (key === 'allOf' || key === 'prefixItems') {
      if (Array.isArray(value)) out[key] = value.map((v) => relaxSchema(v, mode, types));
    } else if (key === 'anyOf') {
      if (Array.isArray(value)) out.anyOf = relaxUnion(value, mode, types);
    } else if (key === 'oneOf') {
      // Relaxed inline branches no longer tell themselves apart: any of them will do.
      if (Array.isArray(value)) out[mode === 'documented' ? 'oneOf' : 'anyOf'] = relaxUnion(value, mode, types);
    } else if (APPLICATORS_SINGLE.includes(key)) {
      // `additionalProperties: false` closes the inferred node itself: gone with its other assertions.
      if (!(mode === 'inferred' && typeof value === 'boolean')) out[key] = relaxSchema(value, mode, types);
    } else if (ASSERTING_SINGLE.includes(key)) {
      // Kept as written where the node's rules hold: a condition relaxed would change its meaning.
      if (mode !== 'inferred') out[key] = value;
    } else if (key === 'required' || key === 'dependentRequired' || key === 'minProperties') {
      // What a record requires holds as documented, also under an inferred envelope; not where the record itself is the assumption.
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

/**
 * A map of media types or of headers, each entry's schema read in `mode` (inferred under an entry
 * marked x-inferred); `assumed`: a component that is the whole schema is read as its "assumed" variant.
 */
function relaxEntries(map: Json, mode: Mode, types: ComponentTypes, assumed = false): Json {
  if (!map || typeof map !== 'object') return map;
  return Object.fromEntries(
    Object.entries<Json>(map).map(([name, entry]) => {
      if (!entry?.schema) return [name, entry];
      const schema = relaxSchema(entry.schema, isInferred(entry) ? 'inferred' : mode, types);
      return [name, { ...entry, schema: assumed && typeof schema.$ref === 'string' ? { ...schema, $ref: assumedRef(schema.$ref) } : schema }];
    }),
  );
}

/**
 * A response read as documented, or as inferred (the response or its operation is x-inferred).
 * The documented component that is the whole of an inferred success answer is read as assumed.
 */
function relaxResponse(response: Json, inferred: boolean, types: ComponentTypes, success: boolean): Json {
  if (!response || typeof response !== 'object' || response.$ref) return response;
  const mode: Mode = inferred || isInferred(response) ? 'inferred' : 'documented';
  return { ...response, content: relaxEntries(response.content, mode, types, mode === 'inferred' && success), headers: relaxEntries(response.headers, mode, types) };
}

/** ComponentTypes read from the description as written. */
function componentTypes(document: Json): ComponentTypes {
  return (ref) => {
    if (!ref.startsWith(COMPONENT)) return undefined;
    const schema = document.components?.schemas?.[ref.slice(COMPONENT.length)];
    if (!schema || typeof schema !== 'object' || isInferred(schema) || schema.type === undefined) return undefined;
    return [schema.type].flat();
  };
}

/** The description with every inferred part relaxed, at every place a schema can sit. */
export function documentedOnly(document: Json): Json {
  const doc = structuredClone(document);
  const types = componentTypes(document);
  const components = (doc.components ??= {});
  const schemas: Record<string, Json> = {};
  for (const [name, schema] of Object.entries<Json>(components.schemas ?? {})) {
    schemas[name] = relaxSchema(schema, 'documented', types);
    schemas[`${name}${ASSUMED}`] = relaxSchema(schema, 'assumed', types);
  }
  components.schemas = schemas;
  for (const [name, response] of Object.entries<Json>(components.responses ?? {})) components.responses[name] = relaxResponse(response, false, types, false);
  components.headers = relaxEntries(components.headers, 'documented', types);
  for (const item of Object.values<Json>(doc.paths ?? {})) {
    for (const op of Object.values<Json>(item ?? {})) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      for (const [code, response] of Object.entries<Json>(op.responses)) op.responses[code] = relaxResponse(response, isInferred(op), types, code.startsWith('2'));
    }
  }
  return doc;
}
