// Answers every module composes the same way: the documented 400 `Error` built from what the
// contract gate found (part 7), and the answer to a path no operation has.
import type { SimContract } from './contract.js';
import type { SimRequest, SimResponse, Violation } from './types.js';

const REQUIRED = /required property '([^']+)'/;
const ADDITIONAL = /additional property '([^']+)'|must NOT have additional properties.*?'([^']+)'/;

/**
 * The field a violation is about: the body property or query/path/header parameter it names. A
 * violation of the body as a whole names its field in its message when it can (a missing required
 * property); otherwise it is `body`.
 */
export function violationField(violation: Violation): string {
  const [where, ...rest] = violation.location;
  if (rest.length > 0) return rest.join('.');
  const named = REQUIRED.exec(violation.message) ?? ADDITIONAL.exec(violation.message);
  if (named) return named[1] ?? named[2]!;
  return where ?? 'body';
}

/** The documented 400 `Error` with `fieldErrors` naming each field that failed (part 7). */
export function fieldErrorsResponse(violations: readonly Violation[]): SimResponse {
  const fieldErrors: Record<string, string[]> = {};
  for (const violation of violations) {
    const field = violationField(violation);
    const messages = (fieldErrors[field] ??= []);
    if (!messages.includes(violation.message)) messages.push(violation.message);
  }
  return { status: 400, body: { error: { fieldErrors } } };
}

/**
 * `OPTIONS` (not a browser's preflight, which the HTTP transport answers): what the path allows, in
 * `Allow`; a path the contract does not have is the 404 of `routeNotFound`.
 */
export function optionsAnswer(request: Pick<SimRequest, 'method' | 'pathname'>, methods: readonly string[]): SimResponse {
  if (methods.length === 0) return routeNotFound(request);
  return { status: 204, headers: { Allow: [...methods, 'OPTIONS'].join(', ') } };
}

/**
 * The documented 401 (part 5.1): a request with no `Authorization` at all is told its key is
 * missing (the `missingApiKey` example, where the operation documents it), any other is the first
 * example ("Invalid API key").
 */
export function unauthorized(contract: SimContract, operationId: string, authorization: string | undefined): SimResponse {
  const missing = authorization === undefined && contract.exampleNames(operationId, 401).includes('missingApiKey');
  return { status: 401, body: contract.example(operationId, 401, missing ? 'missingApiKey' : undefined) };
}

/** A path or method the contract has no operation for: 404 with the one error shape of part 7. */
export function routeNotFound(request: Pick<SimRequest, 'method' | 'pathname'>): SimResponse {
  return { status: 404, body: { error: `No operation ${request.method.toUpperCase()} ${request.pathname} in this API.` } };
}
