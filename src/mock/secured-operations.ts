// Which requests need an API key (part 5.1): every operation except those whose security is
// explicitly `[]` (the four sign-up operations). Derived from the bundled description, so a new
// operation is covered the day it is added to spec/.
import { listOperations, needsApiKey, pathTemplateToRegExp, type HttpMethod, type JsonObject } from '../contract/operations.js';

export { needsApiKey, pathTemplateToRegExp } from '../contract/operations.js';
import { rulesFor, type OperationRule } from './rules/index.js';

export interface SecuredOperation {
  method: HttpMethod;
  path: string;
  operationId: string | undefined;
}

export function listSecuredOperations(document: JsonObject): SecuredOperation[] {
  return listOperations(document)
    .filter(({ operation }) => needsApiKey(document, operation))
    .map(({ method, path, operation }) => ({ method, path, operationId: operation.operationId as string | undefined }));
}

/** What the front needs to know about the operation a request is for. */
export interface RouteFacts {
  /** The operation needs an API key (part 5.1). */
  secured: boolean;
  /**
   * The status the front asks Prism for when the request names none, where Prism's own choice
   * (the lowest 2xx) is not the operation's default (see `defaultSuccessStatus`).
   */
  preferCode: string | undefined;
  /** The rules of the interface specification the mock keeps on this operation (src/mock/rules/). */
  rules: OperationRule[];
}

/**
 * The success status the mock answers by default. Prism takes the lowest documented 2xx; that is
 * right except where an operation documents a fresh creation (201) beside a 200, which the
 * service answers only when replaying an earlier request (`POST /api/v1/calls` with a repeated
 * `Idempotency-Key`, part 7.2). "Fresh creations return 201" (part 4), so 201 there.
 */
export function defaultSuccessStatus(operation: JsonObject): string | undefined {
  const successes = successStatuses(operation);
  return successes.includes('201') && successes.includes('200') ? '201' : successes[0];
}

function successStatuses(operation: JsonObject): string[] {
  return Object.keys(operation.responses ?? {})
    .filter((status) => /^2\d\d$/.test(status))
    .sort();
}

/** What Prism answers by itself: the lowest documented 2xx. */
export function lowestSuccessStatus(operation: JsonObject): string | undefined {
  return successStatuses(operation)[0];
}

interface Route extends RouteFacts {
  method: string;
  regex: RegExp;
  /** Literal paths win over templated ones, as in OpenAPI path matching. */
  templated: boolean;
}

/**
 * A function giving the facts of the operation `METHOD /path` is for, or `undefined` when it
 * matches none (Prism then answers 404 or 405). Paths are matched as OpenAPI does: a literal path
 * before a templated one.
 */
export function requestMatcher(document: JsonObject): (method: string, pathname: string) => RouteFacts | undefined {
  const routes: Route[] = listOperations(document)
    .map((entry) => ({ ...entry, rules: rulesFor(document, entry) }))
    .map(({ method, path, operation, rules }) => ({
      method: method.toUpperCase(),
      regex: pathTemplateToRegExp(path),
      templated: path.includes('{'),
      secured: needsApiKey(document, operation),
      preferCode: defaultSuccessStatus(operation) !== lowestSuccessStatus(operation) ? defaultSuccessStatus(operation) : undefined,
      rules,
    }))
    .sort((a, b) => Number(a.templated) - Number(b.templated));
  return (method, pathname) => {
    const upper = method.toUpperCase();
    return routes.find((route) => route.method === upper && route.regex.test(pathname));
  };
}

/** Whether `METHOD /path` is an operation that needs a key. */
export function securedRequestMatcher(document: JsonObject): (method: string, pathname: string) => boolean {
  const match = requestMatcher(document);
  return (method, pathname) => match(method, pathname)?.secured ?? false;
}
