// Every example in the bundled description, with the schema it must satisfy:
// - media-type `examples` (named) and `example`, of request bodies and responses;
// - parameter and header `examples`/`example`;
// - schema `examples` (2020-12 arrays) and the deprecated schema `example`, at any depth.
// Each is reported once, at the place it is written (a component is walked once, under
// `components`); a named example that is a `$ref` to `#/components/examples/...` is checked where
// it is used, against that media type's schema.
import { followRef, HTTP_METHODS, pointerOf, type JsonObject } from './contract.js';

export type ExampleKind = 'media-type' | 'parameter' | 'header' | 'schema';

export interface ExampleCase {
  kind: ExampleKind;
  /** JSON pointer of the example, e.g. `#/paths/~1api~1v1~1account/get/responses/200/content/application~1json/examples/freeAccount`. */
  pointer: string;
  /** JSON pointer of the schema the example must satisfy. */
  schemaPointer: string;
  value: unknown;
}

type Segments = Array<string | number>;

/** Keywords whose value is one subschema / a list of them / a map of them (JSON Schema 2020-12). */
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function collectExamples(document: JsonObject): ExampleCase[] {
  const cases: ExampleCase[] = [];

  const walkSchema = (schema: unknown, at: Segments): void => {
    if (!isObject(schema)) return;
    const schemaPointer = pointerOf(at);
    if (Array.isArray(schema.examples)) {
      schema.examples.forEach((value: unknown, index: number) =>
        cases.push({ kind: 'schema', pointer: pointerOf([...at, 'examples', index]), schemaPointer, value }),
      );
    }
    if (schema.example !== undefined) {
      cases.push({ kind: 'schema', pointer: pointerOf([...at, 'example']), schemaPointer, value: schema.example });
    }
    for (const key of SUBSCHEMA) if (key in schema) walkSchema(schema[key], [...at, key]);
    for (const key of SUBSCHEMA_LISTS) {
      if (Array.isArray(schema[key])) schema[key].forEach((sub: unknown, i: number) => walkSchema(sub, [...at, key, i]));
    }
    for (const key of SUBSCHEMA_MAPS) {
      if (isObject(schema[key])) for (const [name, sub] of Object.entries(schema[key])) walkSchema(sub, [...at, key, name]);
    }
  };

  /** `example` / `examples` of a media type, parameter or header whose schema is at `schemaAt`. */
  const walkExampleHolder = (holder: JsonObject, at: Segments, schemaAt: Segments, kind: ExampleKind): void => {
    const schemaPointer = pointerOf(schemaAt);
    if (holder.example !== undefined) {
      cases.push({ kind, pointer: pointerOf([...at, 'example']), schemaPointer, value: holder.example });
    }
    if (isObject(holder.examples)) {
      for (const [name, raw] of Object.entries(holder.examples)) {
        const example = followRef(document, raw as JsonObject);
        // externalValue examples are inlined by the bundler; one left over has no value to check.
        if (isObject(example) && 'value' in example) {
          cases.push({ kind, pointer: pointerOf([...at, 'examples', name]), schemaPointer, value: example.value });
        }
      }
    }
  };

  const walkContent = (content: unknown, at: Segments, kind: ExampleKind): void => {
    if (!isObject(content)) return;
    for (const [mediaType, media] of Object.entries(content)) {
      if (!isObject(media)) continue;
      const mediaAt = [...at, mediaType];
      if (isObject(media.schema)) {
        walkSchema(media.schema, [...mediaAt, 'schema']);
        walkExampleHolder(media, mediaAt, [...mediaAt, 'schema'], kind);
      }
    }
  };

  /** A parameter or header written here (a `$ref` one is walked under components). */
  const walkParameterLike = (node: unknown, at: Segments, kind: 'parameter' | 'header'): void => {
    if (!isObject(node) || typeof node.$ref === 'string') return;
    if (isObject(node.schema)) {
      walkSchema(node.schema, [...at, 'schema']);
      walkExampleHolder(node, at, [...at, 'schema'], kind);
    }
    walkContent(node.content, [...at, 'content'], kind);
  };

  const walkResponse = (response: unknown, at: Segments): void => {
    if (!isObject(response) || typeof response.$ref === 'string') return;
    if (isObject(response.headers)) {
      for (const [name, header] of Object.entries(response.headers)) walkParameterLike(header, [...at, 'headers', name], 'header');
    }
    walkContent(response.content, [...at, 'content'], 'media-type');
  };

  const walkRequestBody = (body: unknown, at: Segments): void => {
    if (!isObject(body) || typeof body.$ref === 'string') return;
    walkContent(body.content, [...at, 'content'], 'media-type');
  };

  const walkPathItems = (section: 'paths' | 'webhooks'): void => {
    for (const [key, pathItem] of Object.entries(document[section] ?? {})) {
      if (!isObject(pathItem)) continue;
      const itemAt: Segments = [section, key];
      (pathItem.parameters ?? []).forEach((p: unknown, i: number) => walkParameterLike(p, [...itemAt, 'parameters', i], 'parameter'));
      for (const method of HTTP_METHODS) {
        const operation = pathItem[method];
        if (!isObject(operation)) continue;
        const opAt = [...itemAt, method];
        (operation.parameters ?? []).forEach((p: unknown, i: number) => walkParameterLike(p, [...opAt, 'parameters', i], 'parameter'));
        walkRequestBody(operation.requestBody, [...opAt, 'requestBody']);
        for (const [status, response] of Object.entries(operation.responses ?? {})) walkResponse(response, [...opAt, 'responses', status]);
      }
    }
  };

  walkPathItems('paths');
  walkPathItems('webhooks');
  const components = document.components ?? {};
  for (const [name, schema] of Object.entries(components.schemas ?? {})) walkSchema(schema, ['components', 'schemas', name]);
  for (const [name, p] of Object.entries(components.parameters ?? {})) walkParameterLike(p, ['components', 'parameters', name], 'parameter');
  for (const [name, h] of Object.entries(components.headers ?? {})) walkParameterLike(h, ['components', 'headers', name], 'header');
  for (const [name, r] of Object.entries(components.responses ?? {})) walkResponse(r, ['components', 'responses', name]);
  for (const [name, b] of Object.entries(components.requestBodies ?? {})) walkRequestBody(b, ['components', 'requestBodies', name]);
  return cases;
}

export interface ResponseContent {
  /** JSON pointer of the media type object, e.g. `#/components/responses/NotFound/content/application~1json`. */
  pointer: string;
  mediaType: string;
  media: JsonObject;
}

/**
 * The media types of every response body written in the description (inline responses of
 * operations and webhooks, and `components.responses`); a `$ref` response is listed once, under components.
 */
export function listResponseContents(document: JsonObject): ResponseContent[] {
  const found: ResponseContent[] = [];
  const add = (response: unknown, at: Segments): void => {
    if (!isObject(response) || typeof response.$ref === 'string' || !isObject(response.content)) return;
    for (const [mediaType, media] of Object.entries(response.content)) {
      if (isObject(media)) found.push({ pointer: pointerOf([...at, 'content', mediaType]), mediaType, media });
    }
  };
  for (const section of ['paths', 'webhooks'] as const) {
    for (const [key, pathItem] of Object.entries(document[section] ?? {})) {
      for (const method of HTTP_METHODS) {
        const operation = (pathItem as JsonObject)?.[method];
        if (!isObject(operation)) continue;
        for (const [status, response] of Object.entries(operation.responses ?? {})) add(response, [section, key, method, 'responses', status]);
      }
    }
  }
  for (const [name, response] of Object.entries(document.components?.responses ?? {})) add(response, ['components', 'responses', name]);
  return found;
}
