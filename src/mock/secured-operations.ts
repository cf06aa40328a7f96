// Which requests need an API key (part 5.1): every operation except those whose security is
// explicitly `[]` (the four sign-up operations). Derived from the bundled description, so a new
// operation is covered the day it is added to spec/.
import { listOperations, type HttpMethod, type JsonObject } from './description.js';

export interface SecuredOperation {
  method: HttpMethod;
  path: string;
  operationId: string | undefined;
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

export function listSecuredOperations(document: JsonObject): SecuredOperation[] {
  return listOperations(document)
    .filter(({ operation }) => needsApiKey(document, operation))
    .map(({ method, path, operation }) => ({ method, path, operationId: operation.operationId as string | undefined }));
}

/** `/api/v1/numbers/{id}` → a regular expression matching `/api/v1/numbers/pn_1` (one segment per parameter). */
export function pathTemplateToRegExp(template: string): RegExp {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') && part.endsWith('}') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}/?$`);
}

interface Route {
  method: string;
  regex: RegExp;
  /** Literal paths win over templated ones, as in OpenAPI path matching. */
  templated: boolean;
  secured: boolean;
}

/**
 * A function telling whether `METHOD /path` is an operation that needs a key. Paths are matched as
 * OpenAPI does: a literal path before a templated one. A request matching no operation is left to
 * Prism (it answers 404 or 405).
 */
export function securedRequestMatcher(document: JsonObject): (method: string, pathname: string) => boolean {
  const routes: Route[] = listOperations(document)
    .map(({ method, path, operation }) => ({
      method: method.toUpperCase(),
      regex: pathTemplateToRegExp(path),
      templated: path.includes('{'),
      secured: needsApiKey(document, operation),
    }))
    .sort((a, b) => Number(a.templated) - Number(b.templated));
  return (method, pathname) => {
    const upper = method.toUpperCase();
    for (const route of routes) {
      if (route.method === upper && route.regex.test(pathname)) return route.secured;
    }
    return false;
  };
}
