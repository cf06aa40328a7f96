// The bundled OpenAPI description (generated/openapi.json), read at run time, and small lookups
// over it. The suite never restates a path, schema or status code: it finds them here.
import { readFileSync } from 'node:fs';
import { effectsOf, type Effects } from '../src/contract/effects.js';
import { resolveRef, valueAt, type JsonNode } from '../src/contract/json-pointer.js';
import { listOperations as listContractOperations, needsApiKey } from '../src/contract/operations.js';
import { generatedPath } from '../src/contract/generated-files.js';

/** A node of the parsed description or an answer: the package's one loose JSON type (src/contract/json-pointer.ts). */
export type Json = JsonNode;

export { HTTP_METHODS } from '../src/contract/operations.js';

export interface Operation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/v1/numbers/{id}`. */
  path: string;
  operation: Json;
  /** Path-level and operation-level parameters, `$ref`s followed. */
  parameters: Json[];
  /** JSON pointer of the operation object, e.g. `#/paths/~1api~1v1~1account/get`. */
  pointer: string;
  /** False for the operations with `security: []` (the sign-up operations, part 5.1). */
  authenticated: boolean;
  inferred: boolean;
  /** `x-source` of the operation: the parts of the interface specification it comes from. */
  source: string;
  /** What it does to the world (`x-effects`): the safety policy reads it. */
  effects: Effects;
}

/**
 * Where the contract keeps generated/openapi.json: the numbers-api-contract package (the
 * repository itself, or the dependency of the installed numbers-api package), found by the
 * package's one loader (src/contract/generated-files.ts).
 */
export function defaultDescriptionPath(): string {
  return generatedPath('openapi.json');
}

export function loadDescription(file = defaultDescriptionPath()): Json {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`The OpenAPI description ${file} is missing: run \`npm run bundle\` first.`);
  }
  return JSON.parse(text);
}

/** Every operation under `paths`, in document order, as the package lists them (src/contract/operations.ts), with what the suite needs. */
export function listOperations(document: Json): Operation[] {
  return listContractOperations(document).map(({ method, path: pathKey, operation, pathItem, pointer }) => {
    const byKey = new Map<string, Json>();
    for (const p of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
      const param = resolveRef(document, p);
      byKey.set(`${param.in}:${param.name}`, param);
    }
    return {
      operationId: operation.operationId ?? `${method.toUpperCase()} ${pathKey}`,
      method,
      path: pathKey,
      operation,
      parameters: [...byKey.values()],
      pointer,
      authenticated: needsApiKey(document, operation),
      inferred: operation['x-inferred'] === true,
      source: String(operation['x-source'] ?? ''),
      effects: effectsOf(operation),
    };
  });
}

export interface ResponseDoc {
  /** The key under `responses` that matched: `404`, `4XX` or `default`. */
  key: string;
  response: Json;
  /** JSON pointer of the (dereferenced) response object. */
  pointer: string;
  inferred: boolean;
}

/** The documented response for a status: exact code first, then `4XX`-style ranges, then `default`. */
export function documentedResponse(document: Json, op: Operation, status: number): ResponseDoc | undefined {
  const responses = op.operation.responses ?? {};
  const code = String(status);
  const range = `${code[0]}XX`;
  const key = [code, range, range.toLowerCase(), 'default'].find((k) => k in responses);
  if (!key) return undefined;
  let pointer = `${op.pointer}/responses/${key}`;
  let node = responses[key];
  const inferredAtUse = node?.['x-inferred'] === true;
  while (node && typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
    pointer = node.$ref;
    node = valueAt(document, node.$ref);
  }
  return { key, response: node, pointer, inferred: inferredAtUse || node?.['x-inferred'] === true };
}

/** The statuses an operation documents, as written (`200`, `4XX`, `default`). */
export function documentedStatuses(op: Operation): string[] {
  return Object.keys(op.operation.responses ?? {});
}

/** The first example value of a request body's JSON media type (named `examples` or `example`). */
export function requestExample(document: Json, op: Operation): Json | undefined {
  const body = resolveRef(document, op.operation.requestBody);
  const media = body?.content?.['application/json'];
  if (!media) return undefined;
  if (media.example !== undefined) return structuredClone(media.example);
  for (const ex of Object.values<Json>(media.examples ?? {})) {
    const value = resolveRef(document, ex)?.value;
    if (value !== undefined) return structuredClone(value);
  }
  const schema = resolveRef(document, media.schema);
  if (Array.isArray(schema?.examples) && schema.examples.length) return structuredClone(schema.examples[0]);
  return undefined;
}

/** A parameter's example value (its `example`, first of `examples`, or its schema's). */
export function parameterExample(document: Json, param: Json): Json | undefined {
  if (param.example !== undefined) return param.example;
  for (const ex of Object.values<Json>(param.examples ?? {})) {
    const value = resolveRef(document, ex)?.value;
    if (value !== undefined) return value;
  }
  const schema = resolveRef(document, param.schema);
  if (schema?.example !== undefined) return schema.example;
  if (Array.isArray(schema?.examples) && schema.examples.length) return schema.examples[0];
  if (schema?.default !== undefined) return schema.default;
  return undefined;
}

export function findOperation(operations: Operation[], operationId: string): Operation | undefined {
  return operations.find((o) => o.operationId === operationId);
}
