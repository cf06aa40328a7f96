// Where the bundled descriptions are, and reading them from disk (Node only; the rest of
// src/contract/ is browser-safe). Everything the mock, the event source, the listening agent, the
// conformance suite and the docs know about the API comes from generated/ (written by
// `npm run bundle`), never from spec/.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import type { JsonObject } from './operations.js';

// Reading the parsed description is src/contract/operations.ts, shared by every part of the package.
export { HTTP_METHODS, listOperations, resolveRef, type HttpMethod, type JsonObject, type Operation } from './operations.js';

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

export type GeneratedFile = 'openapi.json' | 'openapi.dereferenced.json' | 'asyncapi.json' | 'mock-control.json' | 'workflows.arazzo.json';

/** Absolute path of a file in generated/. */
export function generatedPath(file: GeneratedFile): string {
  return path.join(findPackageRoot(), 'generated', file);
}

const cache = new Map<string, JsonObject>();

/** A JSON file of generated/, parsed once per process; a missing file says how to make it. */
export function readGeneratedJson(file: GeneratedFile): JsonObject {
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
