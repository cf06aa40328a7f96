// Reading an OpenAPI description already parsed into JSON: its operations, local `$ref`s, path
// templates and security. Pure functions with no Node built-in, so the mock's HTTP transport, the
// in-process (MSW) transport in a browser, the conformance suite, the docs build and the tests
// all list the operations the same way. Loading the bundle from disk is src/contract/generated-files.ts.

import { pointerOf, resolveRef, uriDecoded, type JsonObject } from './json-pointer.js';

export { escapePointerSegment, pointerOf, resolveRef, type JsonObject } from './json-pointer.js';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface Operation {
  method: HttpMethod;
  /** The path template, e.g. `/api/v1/numbers/{id}` (the webhook's name under `webhooks`). */
  path: string;
  operation: JsonObject;
  pathItem: JsonObject;
  /** Where it is: under `paths` or under `webhooks`. */
  section: 'paths' | 'webhooks';
  /** JSON pointer of the operation, e.g. `#/paths/~1api~1v1~1account/get`. */
  pointer: string;
}

/**
 * Every operation of an OpenAPI document, in document order: under `paths` by default, or under
 * each of `sections` in turn (`['paths', 'webhooks']`). The one listing every part of this package
 * uses: the mock, the simulator, the conformance suite, the docs build and the tests.
 */
export function listOperations(document: JsonObject, sections: ReadonlyArray<'paths' | 'webhooks'> = ['paths']): Operation[] {
  const operations: Operation[] = [];
  for (const section of sections) {
    for (const [pathKey, rawItem] of Object.entries(document[section] ?? {})) {
      const pathItem = resolveRef(document, rawItem);
      for (const method of HTTP_METHODS) {
        const operation = pathItem?.[method] as JsonObject | undefined;
        if (operation) operations.push({ method, path: pathKey, operation, pathItem, section, pointer: pointerOf([section, pathKey, method]) });
      }
    }
  }
  return operations;
}

/** `/api/v1/numbers/{id}` → a regular expression matching `/api/v1/numbers/pn_1` (one segment per parameter). */
export function pathTemplateToRegExp(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') && part.endsWith('}') ? '([^/]+)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}/?$`);
}

/** The names of a template's path parameters, in order: `/a/{id}/b/{x}` → `['id', 'x']`. */
export function pathParameterNames(template: string): string[] {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

/**
 * An operation needs a key when its effective security (its own `security`, else the document's)
 * is a non-empty list with no empty requirement `{}` (an empty requirement makes auth optional).
 */
export function needsApiKey(document: JsonObject, operation: JsonObject): boolean {
  const security: unknown = operation.security ?? document.security;
  if (!Array.isArray(security) || security.length === 0) return false;
  return !security.some((requirement) => requirement && typeof requirement === 'object' && Object.keys(requirement).length === 0);
}

function successStatuses(operation: JsonObject): number[] {
  return Object.keys(operation.responses ?? {})
    .filter((status) => /^2\d\d$/.test(status))
    .map(Number)
    .sort((a, b) => a - b);
}

/** The lowest documented 2xx: what Prism answers when a request names no status. */
export function lowestSuccessStatus(operation: JsonObject): number | undefined {
  return successStatuses(operation)[0];
}

/**
 * The status an operation answers by default: "fresh creations return 201 and reads return 200"
 * (part 4), so 201 where it is documented (beside a 200 replay on `POST /api/v1/calls`, part 7.2),
 * else the lowest documented 2xx.
 */
export function defaultStatus(operation: JsonObject): number {
  const successes = successStatuses(operation);
  return successes.includes(201) ? 201 : (successes[0] ?? 200);
}

/** A function giving the methods (upper case) the description has operations for at `pathname`. */
export function pathMethods(document: JsonObject): (pathname: string) => string[] {
  const routes = listOperations(document).map((entry) => ({ method: entry.method.toUpperCase(), regex: pathTemplateToRegExp(entry.path) }));
  return (pathname) => [...new Set(routes.filter((route) => route.regex.test(pathname)).map((route) => route.method))];
}

export interface MatchedOperation {
  entry: Operation;
  operationId: string;
  /** Decoded path parameters by name. */
  params: Record<string, string>;
}

/**
 * A function finding the operation `METHOD /path` is for, as OpenAPI matches paths: a literal
 * path before a templated one. `undefined` when none matches.
 */
export function operationMatcher(document: JsonObject): (method: string, pathname: string) => MatchedOperation | undefined {
  const routes = listOperations(document)
    .map((entry) => ({ entry, method: entry.method.toUpperCase(), regex: pathTemplateToRegExp(entry.path), names: pathParameterNames(entry.path) }))
    .sort((a, b) => Number(a.names.length > 0) - Number(b.names.length > 0));
  return (method, pathname) => {
    const upper = method.toUpperCase();
    for (const route of routes) {
      if (route.method !== upper) continue;
      const found = route.regex.exec(pathname);
      if (!found) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = uriDecoded(found[i + 1]!)));
      return { entry: route.entry, operationId: String(route.entry.operation.operationId), params };
    }
    return undefined;
  };
}
