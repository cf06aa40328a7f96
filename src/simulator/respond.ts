// Answers the simulator and every way in compose the same way: the documented 401 (part 5.1) and
// the answer to a path no operation has (the documented 400 is field-errors.ts).
import type { SimContract } from './contract.js';
import type { SimRequest, SimResponse } from './types.js';

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
