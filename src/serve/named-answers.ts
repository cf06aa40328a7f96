// Named answers: a request that names its answer (`Prefer: code=<status>`, `example=<name>`) gets
// exactly that documented example and touches no state, as `prism mock` answers it. The choice is
// Prism's mocker's (prism-http mocker/index.js, negotiator/): a request that breaks the contract
// gets the first example of its 422 or 400 answer (the named one when `code=` names that status).
// A status or an example name the operation lacks is refused with the documented `Error`, naming
// what the operation does document (Prism answers its own NOT_FOUND problem there). The pipeline
// checks the key, refuses such a `Prefer` and runs the gate before (pipeline.ts), for both
// transports and the example server (where Prism answers the named example itself).
import { defaultStatus, resolveRef, type JsonObject, type MatchedOperation } from '../contract/operations.js';
import type { SimContract } from '../simulator/contract.js';
import { readableFieldErrors } from '../simulator/field-errors.js';
import type { SimRequest, SimResponse } from '../simulator/types.js';

const NAMES_ITS_ANSWER = /\b(?:code|example)=/;
const NAMES_ITS_STATUS = /\bcode=/;

/** Whether the request names its answer with `Prefer: code=` or `example=`. */
export function namesItsAnswer(request: Pick<SimRequest, 'headers'>): boolean {
  return NAMES_ITS_ANSWER.test(request.headers.prefer ?? '');
}

/** Whether `Prefer` names a status (`code=`). */
export function namesItsStatus(prefer: string): boolean {
  return NAMES_ITS_STATUS.test(prefer);
}

/** What `Prefer` can name for an operation: each documented status with its example names. */
export function preferableAnswers(contract: SimContract, operationId: string): string {
  return Object.keys(contract.operation(operationId).responses ?? {})
    .map((status) => {
      const names = /^\d{3}$/.test(status) ? contract.exampleNames(operationId, Number(status)) : [];
      return names.length > 0 ? `${status} (${names.join(', ')})` : status;
    })
    .join('; ');
}

/** The answer to `Prefer` naming a status or an example the operation does not document: 404, in the one Error shape. */
export function unknownNamedAnswer(contract: SimContract, operationId: string, named: string): SimResponse {
  return { status: 404, body: { error: `${operationId} documents no ${named}. Prefer can name code=<status> and example=<name> among: ${preferableAnswers(contract, operationId)}.` } };
}

/** The documented headers of an answer, each with its example value. */
function exampleHeaders(document: JsonObject, declared: JsonObject): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries<JsonObject>(declared.headers ?? {})) {
    const definition = resolveRef<JsonObject>(document, value);
    const schema = resolveRef<JsonObject | undefined>(document, definition.schema);
    const sample = definition.example ?? Object.values<JsonObject>(definition.examples ?? {})[0]?.value ?? schema?.examples?.[0] ?? schema?.example;
    if (sample !== undefined) headers[header] = String(sample);
  }
  return headers;
}

/** The status and example a `Prefer` header names (the status defaults to the operation's default). */
function named(operation: JsonObject, prefer: string): { status: number; example: string | undefined } {
  const code = /\bcode=(\d{3})\b/.exec(prefer)?.[1];
  return { status: code ? Number(code) : defaultStatus(operation), example: /\bexample=([^,;\s"]+)/.exec(prefer)?.[1] };
}

/**
 * The refusal of a `Prefer` that names a status the operation does not document, or an example
 * that status does not have; undefined when it names documented ones. Asked first, whatever the
 * request's body (the example server asks it too, before it hands the request to Prism).
 */
export function preferRefusal(contract: SimContract, operationId: string, prefer: string): SimResponse | undefined {
  const operation = contract.operation(operationId);
  const { status, example } = named(operation, prefer);
  const declared = resolveRef<JsonObject | undefined>(contract.document, operation.responses?.[String(status)]);
  if (!declared) return unknownNamedAnswer(contract, operationId, `status ${status}`);
  if (example !== undefined && declared.content?.['application/json'] !== undefined && !contract.exampleNames(operationId, status).includes(example)) {
    return unknownNamedAnswer(contract, operationId, `example ${example} for status ${status}`);
  }
  return undefined;
}

/** The documented example the request names, for the operation it matched; the gate has judged it (its `violations`). */
export function namedAnswer(contract: SimContract, request: SimRequest, matched: MatchedOperation): SimResponse {
  const { document } = contract;
  const { operationId } = matched;
  const operation = contract.operation(operationId);
  const prefer = request.headers.prefer ?? '';
  // `Prefer` names documented answers: the pipeline refused any other (`preferRefusal`).
  const declaredAt = (status: number) => resolveRef<JsonObject | undefined>(document, operation.responses?.[String(status)]);
  let { status, example } = named(operation, prefer);
  // A request that breaks the contract gets its documented 422 or 400 instead (Prism's choice).
  if (request.violations.length > 0) {
    const invalid = [422, 400].find((candidate) => declaredAt(candidate));
    if (invalid === undefined) return readableFieldErrors(request, request.violations);
    if (status !== invalid) example = undefined;
    status = invalid;
  }
  const declared = declaredAt(status)!;
  const headers = exampleHeaders(document, declared);
  if (declared.content?.['application/json'] === undefined) return { status, headers };
  return { status, headers, body: contract.example(operationId, status, example) };
}
