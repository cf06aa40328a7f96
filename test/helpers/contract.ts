// Loading the generated (bundled) descriptions, and small utilities over them. Tests read the
// committed files in generated/, never the split sources in spec/ (the contract-first rule).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A parsed JSON/YAML value of an OpenAPI or AsyncAPI document (shapes are checked by the tests). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonObject = Record<string, any>;

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const generatedDir = path.join(repoRoot, 'generated');

/** The five generated files, by name (`npm run bundle` writes them). */
export const generatedFiles = {
  openapiYaml: path.join(generatedDir, 'openapi.yaml'),
  openapiJson: path.join(generatedDir, 'openapi.json'),
  openapiDereferenced: path.join(generatedDir, 'openapi.dereferenced.json'),
  asyncapiYaml: path.join(generatedDir, 'asyncapi.yaml'),
  asyncapiJson: path.join(generatedDir, 'asyncapi.json'),
} as const;

const cache = new Map<string, JsonObject>();

function readJson(file: string): JsonObject {
  let cached = cache.get(file);
  if (!cached) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new Error(`${path.relative(repoRoot, file)} is missing: run \`npm run bundle\` first.`);
    }
    cached = JSON.parse(text) as JsonObject;
    cache.set(file, cached);
  }
  // A deep copy: tests may not change what other tests in the same worker read.
  return structuredClone(cached);
}

/** The bundled OpenAPI description (generated/openapi.json), `$ref`s to `#/components/...`. */
export function loadOpenApi(): JsonObject {
  return readJson(generatedFiles.openapiJson);
}

/** The fully dereferenced OpenAPI description (generated/openapi.dereferenced.json). */
export function loadDereferencedOpenApi(): JsonObject {
  return readJson(generatedFiles.openapiDereferenced);
}

/** The bundled AsyncAPI description (generated/asyncapi.json). */
export function loadAsyncApi(): JsonObject {
  return readJson(generatedFiles.asyncapiJson);
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationEntry {
  method: HttpMethod;
  path: string;
  /** The operation object, with a path item's `$ref` (if any) followed. */
  operation: JsonObject;
  pathItem: JsonObject;
  /** JSON pointer of the operation, e.g. `#/paths/~1api~1v1~1account/get`. */
  pointer: string;
}

/** Every operation under `paths` (or `webhooks`), in document order. */
export function listOperations(document: JsonObject, section: 'paths' | 'webhooks' = 'paths'): OperationEntry[] {
  const entries: OperationEntry[] = [];
  for (const [pathKey, rawItem] of Object.entries(document[section] ?? {})) {
    const pathItem = followRef(document, rawItem as JsonObject);
    for (const method of HTTP_METHODS) {
      const operation = pathItem?.[method] as JsonObject | undefined;
      if (operation) {
        entries.push({ method, path: pathKey, operation, pathItem, pointer: pointerOf([section, pathKey, method]) });
      }
    }
  }
  return entries;
}

/** Escape one segment of a JSON pointer (RFC 6901). */
export function escapePointerSegment(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `['paths', '/api/v1/account', 'get']` -> `#/paths/~1api~1v1~1account/get`. */
export function pointerOf(segments: ReadonlyArray<string | number>): string {
  return `#/${segments.map(escapePointerSegment).join('/')}`;
}

/** The value at a local JSON pointer (`#/components/schemas/Error`). */
export function resolvePointer(document: JsonObject, pointer: string): unknown {
  if (!pointer.startsWith('#')) throw new Error(`Only local pointers are supported, got ${pointer}`);
  const segments = pointer === '#' || pointer === '#/' ? [] : pointer.slice(2).split('/');
  let node: unknown = document;
  for (const raw of segments) {
    const segment = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(segment in (node as JsonObject))) {
      throw new Error(`Cannot resolve ${pointer}: no "${segment}"`);
    }
    node = (node as JsonObject)[segment];
  }
  return node;
}

/** Follow a chain of local `$ref`s (a response, parameter, example or header reference). */
export function followRef<T = JsonObject>(document: JsonObject, node: T): T {
  let current = node as unknown as JsonObject;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    if (seen.has(current.$ref)) throw new Error(`Reference cycle at ${current.$ref}`);
    seen.add(current.$ref);
    current = resolvePointer(document, current.$ref) as JsonObject;
  }
  return current as unknown as T;
}

/**
 * The effective security of an operation (its own, else the root's). An operation requires a key
 * when that list is non-empty and has no empty requirement `{}`.
 */
export function requiresApiKey(document: JsonObject, operation: JsonObject): boolean {
  const security = (operation.security ?? document.security ?? []) as JsonObject[];
  return security.length > 0 && security.every((requirement) => Object.keys(requirement).length > 0);
}

/** `application/json`, `application/problem+json`, ... */
export function isJsonMediaType(mediaType: string): boolean {
  return /^application\/([\w.-]+\+)?json(\s*;.*)?$/i.test(mediaType);
}
