// Loading the generated (bundled) descriptions, and small utilities over them. Tests read the
// committed files in generated/, never the split sources in spec/ (the contract-first rule).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveRef, valueAt, type JsonObject } from '../../src/contract/json-pointer.js';
import { listOperations as listContractOperations, type Operation } from '../../src/contract/operations.js';
import { readGeneratedJson } from '../../src/contract/generated-files.js';

/** A parsed JSON/YAML value of an OpenAPI or AsyncAPI document (the repository's one loose type). */
export type { JsonObject };

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

/** A generated JSON file, read once by the package's loader (src/contract/generated-files.ts), as a deep copy: tests may not change what other tests in the same worker read. */
function readJson(file: 'openapi.json' | 'openapi.dereferenced.json' | 'asyncapi.json'): JsonObject {
  return structuredClone(readGeneratedJson(file));
}

/** The bundled OpenAPI description (generated/openapi.json), `$ref`s to `#/components/...`. */
export function loadOpenApi(): JsonObject {
  return readJson('openapi.json');
}

/** The fully dereferenced OpenAPI description (generated/openapi.dereferenced.json). */
export function loadDereferencedOpenApi(): JsonObject {
  return readJson('openapi.dereferenced.json');
}

/** The bundled AsyncAPI description (generated/asyncapi.json). */
export function loadAsyncApi(): JsonObject {
  return readJson('asyncapi.json');
}

export { HTTP_METHODS, type HttpMethod } from '../../src/contract/operations.js';

/** An operation of the description, as src/contract/operations.ts lists it for the whole package. */
export type OperationEntry = Operation;

/** Every operation under `paths` (or `webhooks`), in document order: the package's one listing. */
export function listOperations(document: JsonObject, section: 'paths' | 'webhooks' = 'paths'): OperationEntry[] {
  return listContractOperations(document, [section]);
}

export { childPointer, escapePointerSegment, pointerOf } from '../../src/contract/json-pointer.js';

/** The value at a local JSON pointer (`#/components/schemas/Error`); a pointer to nothing fails the test. */
export function resolvePointer(document: JsonObject, pointer: string): unknown {
  if (!pointer.startsWith('#')) throw new Error(`Only local pointers are supported, got ${pointer}`);
  const value = valueAt(document, pointer);
  if (value === undefined) throw new Error(`Cannot resolve ${pointer}`);
  return value;
}

/** Follow a chain of local `$ref`s (a response, parameter, example or header reference): the package's one helper. */
export function followRef<T = JsonObject>(document: JsonObject, node: T): T {
  return resolveRef<T>(document, node);
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
