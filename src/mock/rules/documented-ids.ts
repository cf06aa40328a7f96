// The ids the description's own examples use for a path parameter: the mock's account holds
// these and no others (see unknown-resource-404.ts). An id's prefix (`pn_`, `pm_`, `in_`, `wh_`)
// names its resource, so the ids of a parameter are its own examples plus every `id`/`…Id` value
// with the same prefix in a documented response example (a number's id in the number list, in the
// billing status and in usage alike). A parameter whose example has no prefix knows only its own
// examples and the values of response fields named like it.
import { listOperations, resolveRef, type JsonObject } from '../../contract/generated-files.js';

const ID_FIELD = /^id$|Id$|_id$/;
const ID_PREFIX = /^[A-Za-z]+_/;

/** A parameter's documented example values: `example`, named `examples`, its schema's `example(s)`. */
export function parameterExampleValues(document: JsonObject, parameter: JsonObject): unknown[] {
  const values: unknown[] = [];
  if (parameter.example !== undefined) values.push(parameter.example);
  for (const named of Object.values<JsonObject>(parameter.examples ?? {})) values.push(resolveRef(document, named)?.value);
  const schema = resolveRef(document, parameter.schema ?? {});
  if (schema?.example !== undefined) values.push(schema.example);
  if (Array.isArray(schema?.examples)) values.push(...schema.examples);
  return values.filter((value) => value !== undefined);
}

interface IdValue {
  field: string;
  value: string;
}

const idValuesCache = new WeakMap<JsonObject, IdValue[]>();

/** Every string under an id-like field in every documented response example, once per document. */
function responseIdValues(document: JsonObject): IdValue[] {
  const cached = idValuesCache.get(document);
  if (cached) return cached;
  const found: IdValue[] = [];
  const walk = (value: unknown, field: string): void => {
    if (typeof value === 'string') {
      if (ID_FIELD.test(field)) found.push({ field, value });
    } else if (Array.isArray(value)) value.forEach((item) => walk(item, field));
    else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) walk(item, key);
  };
  for (const { operation } of listOperations(document)) {
    for (const raw of Object.values<JsonObject>(operation.responses ?? {})) {
      for (const media of Object.values<JsonObject>(resolveRef(document, raw)?.content ?? {})) {
        if (media.example !== undefined) walk(media.example, '');
        for (const example of Object.values<JsonObject>(media.examples ?? {})) walk(resolveRef(document, example)?.value, '');
      }
    }
  }
  idValuesCache.set(document, found);
  return found;
}

/** The ids the description's examples use for this path parameter (empty when it documents none). */
export function documentedIds(document: JsonObject, parameter: JsonObject): Set<string> {
  const own = parameterExampleValues(document, parameter).filter((value): value is string => typeof value === 'string');
  const prefixes = own.map((value) => ID_PREFIX.exec(value)?.[0]).filter((prefix): prefix is string => prefix !== undefined);
  const ids = new Set(own);
  for (const { field, value } of responseIdValues(document)) {
    const sameResource = prefixes.length > 0 ? prefixes.some((prefix) => value.startsWith(prefix)) : parameter.name !== 'id' && field === parameter.name;
    if (sameResource) ids.add(value);
  }
  return ids;
}
