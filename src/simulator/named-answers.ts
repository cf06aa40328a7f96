// Named answers: a request that names its answer (`Prefer: code=<status>`, `example=<name>`) gets
// exactly that documented example and touches no state, as `prism mock` answers it. The choice is
// Prism's mocker's (prism-http mocker/index.js, negotiator/): a refused key gets the 401 example;
// a request that breaks the contract gets the first example of its 422 or 400 answer (the named
// one when `code=` names that status); a status or an example name the operation lacks gets Prism's
// NOT_FOUND problem. One implementation for both transports (the HTTP mock no longer asks Prism).
import { isAcceptedAuthorization } from '../contract/api-key.js';
import { defaultStatus, resolveRef, type JsonObject, type MatchedOperation } from '../contract/operations.js';
import type { SimContract } from './contract.js';
import type { Gate } from './gate.js';
import { fieldErrorsResponse } from './respond.js';
import type { SimRequest, SimResponse } from './types.js';

const NAMES_ITS_ANSWER = /\b(?:code|example)=/;

/** Whether the request names its answer with `Prefer: code=` or `example=`. */
export function namesItsAnswer(request: SimRequest): boolean {
  return NAMES_ITS_ANSWER.test(request.headers.prefer ?? '');
}

/** Prism's answer when a request names a status or an example the operation lacks (its NOT_FOUND problem). */
function prismNotFound(detail: string): SimResponse {
  return {
    status: 404,
    body: { type: 'https://stoplight.io/prism/errors#NOT_FOUND', title: 'The server cannot find the requested content', status: 404, detail },
  };
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

/** The documented example the request names, for the operation it matched. */
export function namedAnswer(contract: SimContract, gate: Gate, request: SimRequest, matched: MatchedOperation): SimResponse {
  const { document } = contract;
  const { operationId } = matched;
  const operation = contract.operation(operationId);
  const declaredAt = (status: number) => resolveRef<JsonObject | undefined>(document, operation.responses?.[String(status)]);
  if (contract.needsKey(operationId) && !isAcceptedAuthorization(request.headers.authorization)) {
    return { status: 401, body: contract.example(operationId, 401) };
  }
  const prefer = request.headers.prefer ?? '';
  const code = /\bcode=(\d{3})\b/.exec(prefer)?.[1];
  const name = /\bexample=([^,;\s"]+)/.exec(prefer)?.[1];
  const violations = [...request.violations, ...gate.check(operationId, request)];
  let status = code ? Number(code) : defaultStatus(operation);
  let example = name;
  if (violations.length > 0) {
    const invalid = [422, 400].find((candidate) => declaredAt(candidate));
    if (invalid === undefined) return fieldErrorsResponse(violations);
    if (status !== invalid) example = undefined;
    status = invalid;
  }
  const declared = declaredAt(status);
  if (!declared) return prismNotFound(`Requested status code ${status} is not defined in the document.`);
  const headers = exampleHeaders(document, declared);
  if (declared.content?.['application/json'] === undefined) return { status, headers };
  if (example !== undefined && !contract.exampleNames(operationId, status).includes(example)) {
    return prismNotFound(`Response for contentType: application/json and exampleKey: ${example} does not exist.`);
  }
  return { status, headers, body: contract.example(operationId, status, example) };
}
