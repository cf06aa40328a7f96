// Rewrites, in the docs' COPY of the bundle only, the JSON Schema forms Redoc 3.0.1 cannot render.
//
// A boolean subschema (`properties: { groupId: false }`, "this field must not be sent in this
// branch") makes Redoc fail with "Cannot use 'in' operator to search for 'title' in false" when
// an operation page using it is opened directly. `false` is rewritten to the equivalent
// `{ not: {} }` and `true` to `{}`, with a description that says what `false` meant. Only
// subschema positions are touched: `additionalProperties: false` is an ordinary keyword Redoc
// renders, and stays as it is.

const FORBIDDEN = 'Must not be sent in this case (the schema forbids it).';

/** Keywords whose value is a map of name to subschema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'];
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value is one subschema (`additionalProperties` deliberately left out). */
const SCHEMA_SINGLES = ['items', 'not', 'contains', 'if', 'then', 'else', 'propertyNames', 'unevaluatedItems'];

function rewriteBoolean(value) {
  if (value === false) return { not: {}, description: FORBIDDEN };
  if (value === true) return {};
  return value;
}

/** Rewrite boolean subschemas in place, everywhere in `node`; returns how many were rewritten. */
export function rewriteBooleanSubschemas(node) {
  let count = 0;
  const visit = (value) => {
    if (Array.isArray(value)) {
      value.forEach(visit);
      return;
    }
    if (!value || typeof value !== 'object') return;
    for (const key of SCHEMA_MAPS) {
      const map = value[key];
      if (map && typeof map === 'object' && !Array.isArray(map)) {
        for (const [name, sub] of Object.entries(map)) {
          if (typeof sub === 'boolean') {
            map[name] = rewriteBoolean(sub);
            count += 1;
          }
        }
      }
    }
    for (const key of SCHEMA_LISTS) {
      if (Array.isArray(value[key])) {
        value[key] = value[key].map((sub) => {
          if (typeof sub !== 'boolean') return sub;
          count += 1;
          return rewriteBoolean(sub);
        });
      }
    }
    for (const key of SCHEMA_SINGLES) {
      if (typeof value[key] === 'boolean') {
        value[key] = rewriteBoolean(value[key]);
        count += 1;
      }
    }
    for (const child of Object.values(value)) visit(child);
  };
  visit(node);
  return count;
}
