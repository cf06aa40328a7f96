// House rule (STYLE.md "3.1 nullability done right"; defect 1): OpenAPI 3.1 schemas are JSON
// Schema 2020-12, which has no `nullable`; 3.1 tools ignore it, so a field marked that way is
// silently not nullable. Use `type: [x, 'null']`, or `anyOf: [{$ref: ...}, {type: 'null'}]`.
//
// Given: the whole (unresolved) document. Flags a `nullable` key on any object except where keys
// are names chosen by the author (a property called `nullable` is fine) and inside literal values
// (examples, defaults, enums, extensions).
const NAMED_MAPS = new Set([
  'properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependentRequired',
  'schemas', 'responses', 'parameters', 'examples', 'requestBodies', 'headers', 'securitySchemes',
  'links', 'callbacks', 'pathItems', 'paths', 'webhooks', 'content', 'encoding', 'variables', 'mapping',
]);
const LITERALS = new Set(['example', 'default', 'const', 'enum', 'value']);

export default function noNullableKeyword(document) {
  const results = [];
  const visit = (node, path, parentKey) => {
    if (Array.isArray(node)) {
      // Schema `examples` (2020-12) is an array of literal values.
      if (parentKey === 'examples') return;
      node.forEach((item, index) => visit(item, [...path, index], parentKey));
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if ('nullable' in node && !NAMED_MAPS.has(parentKey)) {
      results.push({
        message: "`nullable` is not a keyword in OpenAPI 3.1; use `type: [<type>, 'null']` or `anyOf` with `{type: 'null'}`.",
        path: [...path, 'nullable'],
      });
    }
    const isNamedMap = NAMED_MAPS.has(parentKey);
    for (const [key, value] of Object.entries(node)) {
      // In a named map (`properties`, ...) every key is a name, even `value` or `x-foo`.
      if (!isNamedMap && (LITERALS.has(key) || key.startsWith('x-'))) continue;
      visit(value, [...path, key], key);
    }
  };
  visit(document, [], undefined);
  return results;
}
