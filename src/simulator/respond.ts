// Answers every way in composes the same way: `OPTIONS`, the documented 401 (part 5.1) and the
// answer to a path no operation has (the documented 400 is field-errors.ts).
import type { SimContract } from './contract.js';
import type { SimRequest, SimResponse } from './types.js';

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
