// Where the bundled descriptions are, and reading them. Everything the mock and the event source
// know about the API comes from generated/ (written by `npm run bundle`), never from spec/.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A parsed JSON value of an OpenAPI or AsyncAPI document. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type JsonObject = Record<string, any>;

const PACKAGE_NAME = 'numbers-api-contract';

/**
 * The contract package's root directory: the nearest parent holding numbers-api-contract's
 * package.json (the sources in the repository, src/mock/), else the numbers-api-contract
 * dependency (the numbers-api package, whose dist/ holds code but not the contract).
 */
export function findPackageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as JsonObject).name === PACKAGE_NAME) return dir;
      } catch {
        // an unreadable package.json is not ours; keep looking
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return dependencyRoot(from);
    dir = parent;
  }
}

function dependencyRoot(from: string): string {
  try {
    return path.dirname(createRequire(path.join(from, 'noop.js')).resolve(`${PACKAGE_NAME}/package.json`));
  } catch {
    throw new Error(`Cannot find the ${PACKAGE_NAME} package above ${from} or as a dependency: install it (npm install ${PACKAGE_NAME}).`);
  }
}

export type GeneratedFile =
  | 'openapi.yaml'
  | 'openapi.json'
  | 'openapi.dereferenced.json'
  | 'asyncapi.yaml'
  | 'asyncapi.json';

/** Absolute path of a file in generated/. */
export function generatedPath(file: GeneratedFile): string {
  return path.join(findPackageRoot(), 'generated', file);
}

const cache = new Map<string, JsonObject>();

/** A JSON file of generated/, parsed once per process; a missing file says how to make it. */
export function readGeneratedJson(file: Extract<GeneratedFile, `${string}.json`>): JsonObject {
  const cached = cache.get(file);
  if (cached) return cached;
  const location = generatedPath(file);
  let text: string;
  try {
    text = readFileSync(location, 'utf8');
  } catch {
    throw new Error(`${location} is missing: run \`npm run bundle\` first.`);
  }
  const parsed = JSON.parse(text) as JsonObject;
  cache.set(file, parsed);
  return parsed;
}

/** The bundled OpenAPI description (generated/openapi.json): `$ref`s point into `#/components`. */
export function loadOpenApi(): JsonObject {
  return readGeneratedJson('openapi.json');
}

/** The bundled AsyncAPI description (generated/asyncapi.json). */
export function loadAsyncApi(): JsonObject {
  return readGeneratedJson('asyncapi.json');
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface Operation {
  method: HttpMethod;
  /** The path template, e.g. `/api/v1/numbers/{id}`. */
  path: string;
  operation: JsonObject;
  pathItem: JsonObject;
}

/** Follows a local `$ref` (`#/components/...`) once per hop until a non-reference object. */
export function resolveRef<T = JsonObject>(document: JsonObject, value: unknown): T {
  let current = value as JsonObject | undefined;
  const seen = new Set<string>();
  while (current && typeof current === 'object' && typeof current.$ref === 'string') {
    const ref: string = current.$ref;
    if (!ref.startsWith('#/') || seen.has(ref)) throw new Error(`Cannot follow $ref ${ref}`);
    seen.add(ref);
    current = ref
      .slice(2)
      .split('/')
      .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<JsonObject | undefined>((node, key) => node?.[key], document);
  }
  return current as T;
}

/** Every operation under `paths`, in document order. */
export function listOperations(document: JsonObject): Operation[] {
  const operations: Operation[] = [];
  for (const [pathKey, rawItem] of Object.entries(document.paths ?? {})) {
    const pathItem = resolveRef(document, rawItem);
    for (const method of HTTP_METHODS) {
      const operation = pathItem?.[method] as JsonObject | undefined;
      if (operation) operations.push({ method, path: pathKey, operation, pathItem });
    }
  }
  return operations;
}
