// Reading the generated contract (never spec/): the bundles and the operation list derived from
// them, through the package's own loader and listing (src/contract/generated-files.ts,
// src/contract/operations.ts; the build runs under tsx), plus the links from an operation to its
// place in the rendered reference.
import { listOperations as listContractOperations } from '../../src/contract/operations.ts';
import { readGeneratedJson } from '../../src/contract/generated-files.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { slug } from './html.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const generatedDir = path.join(repoRoot, 'generated');

/** The generated documents the docs are built from (the mock's control surface beside the contract), read by the package's one loader. */
export function loadContract() {
  return {
    openapi: readGeneratedJson('openapi.json'),
    dereferenced: readGeneratedJson('openapi.dereferenced.json'),
    asyncapi: readGeneratedJson('asyncapi.json'),
    mockControl: readGeneratedJson('mock-control.json'),
  };
}

/**
 * Every operation of an OpenAPI document (paths, then webhooks), as the package lists them
 * (src/contract/operations.ts), with what the docs need. `webhook` is the webhook's name for
 * operations of the `webhooks` section.
 */
export function listOperations(doc) {
  return listContractOperations(doc, ['paths', 'webhooks']).map((entry) => ({
    method: entry.method,
    path: entry.section === 'paths' ? entry.path : null,
    webhook: entry.section === 'webhooks' ? entry.path : null,
    pointer: entry.pointer,
    operationId: entry.operation.operationId,
    summary: entry.operation.summary,
    tag: entry.operation.tags?.[0],
    operation: entry.operation,
    pathItem: entry.pathItem,
  }));
}

/**
 * The reference page's route to an operation. Redoc 3 routes by hash: `#/<tag slug>/<operationId
 * in lower case>`; the browser test opens each route the site links to and checks it renders.
 */
export function referenceRoute(op) {
  return `reference.html#/${slug(op.tag)}/${op.operationId.toLowerCase()}`;
}

/** The reference page's route to a tag's page. */
export function referenceTagRoute(tag) {
  return `reference.html#/${slug(tag)}`;
}

/**
 * A function that turns text starting with `METHOD /api/v1/...` into the reference route of that
 * operation, or null when the text names no operation. Text that looks like an operation but
 * names none is an error: a guide or a state table must not cite a path the contract lacks.
 */
export function operationLinker(doc) {
  const byKey = new Map(
    listOperations(doc)
      .filter((op) => op.path)
      .map((op) => [`${op.method.toUpperCase()} ${op.path}`, op]),
  );
  return (text) => {
    const match = /^(GET|PUT|POST|DELETE|PATCH|HEAD|OPTIONS|TRACE) (\/api\/v1\/[^\s?]*)/.exec(String(text ?? '').trim());
    if (!match) return null;
    const op = byKey.get(`${match[1]} ${match[2]}`);
    if (!op) throw new Error(`"${text}" names no operation of the bundled description (${match[1]} ${match[2]}).`);
    return referenceRoute(op);
  };
}
