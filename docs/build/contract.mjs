// Reading the generated contract (never spec/): the bundles and the operation list derived from
// them, plus the links from an operation to its place in the rendered reference.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { slug } from './html.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const generatedDir = path.join(repoRoot, 'generated');

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function readJson(name) {
  const file = path.join(generatedDir, name);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`generated/${name} cannot be read (${error.message}); run \`npm run bundle\` first.`);
  }
}

/** The generated documents the docs are built from (the mock's control surface beside the contract). */
export function loadContract() {
  return {
    openapi: readJson('openapi.json'),
    dereferenced: readJson('openapi.dereferenced.json'),
    asyncapi: readJson('asyncapi.json'),
    mockControl: readJson('mock-control.json'),
  };
}

/**
 * Every operation of an OpenAPI document (paths, then webhooks), with what the docs need.
 * `webhook` is the webhook's name for operations of the `webhooks` section.
 */
export function listOperations(doc) {
  const ops = [];
  for (const [section, entries] of [
    ['paths', doc.paths ?? {}],
    ['webhooks', doc.webhooks ?? {}],
  ]) {
    for (const [key, item] of Object.entries(entries)) {
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!op) continue;
        ops.push({
          method,
          path: section === 'paths' ? key : null,
          webhook: section === 'webhooks' ? key : null,
          pointer: `#/${section}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`,
          operationId: op.operationId,
          summary: op.summary,
          tag: op.tags?.[0],
          operation: op,
          pathItem: item,
        });
      }
    }
  }
  return ops;
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
