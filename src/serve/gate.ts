// The contract gate: the seam of the pipeline that says what is wrong with a request against the
// contract, before the simulator answers it, as verdicts (src/contract/verdict.ts). Prism stays
// the reference: the ajv gate refuses what `prism mock` refuses, and Prism's wording of its
// verdicts (src/contract/prism-wording.ts) is the real Prism's, word for word
// (test/gate-parity.test.ts sends one corpus to both). What is Prism's here is how it reads a
// request: a parameter sent empty (`?limit=`, `Idempotency-Key:`) counts as not sent.
import type { ContractValidator } from '../contract/contract-validator.js';
import { dict } from '../contract/dict.js';
import type { SimRequest, Verdict } from '../simulator/types.js';

/** The contract gate of the pipeline (a named seam: the ajv gate here, Prism's validator in src/mock/prism-gate.ts). */
export interface Gate {
  /** What is wrong with `request` against `operationId`'s parameters and body; empty when valid. */
  check(operationId: string, request: SimRequest): Verdict[];
}

function hasEmptyValue(request: SimRequest): boolean {
  for (const value of request.query.values()) if (value === '') return true;
  for (const name in request.headers) if (request.headers[name] === '') return true;
  return false;
}

/** The request as Prism's gate reads it: a query or header parameter sent empty is not sent. */
function gateView(request: SimRequest): SimRequest {
  if (!hasEmptyValue(request)) return request; // the usual request: nothing to copy
  const query = new URLSearchParams();
  for (const [name, value] of request.query) if (value !== '') query.append(name, value);
  const headers = dict<string | undefined>();
  for (const [name, value] of Object.entries(request.headers)) if (value !== '') headers[name] = value;
  return { ...request, query, headers };
}

/** The gate as ajv compiled from the contract (browser-safe: the in-process mock's, and the HTTP mock's by default). */
export function ajvGate(validator: ContractValidator): Gate {
  return { check: (operationId, request) => validator.request(operationId, gateView(request)) };
}
