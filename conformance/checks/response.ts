// The generic layer: checks every answer of every request against what the description documents
// for that operation and status, for any API (the equivalents of Schemathesis's
// not_a_server_error, status_code_conformance, content_type_conformance,
// response_headers_conformance and response_schema_conformance).
import { documentedResponse, type Json, type Operation } from '../description.js';
import { childPointer, resolveRef } from '../../src/contract/json-pointer.js';
import type { Finding } from '../findings.js';
import { describeRequest, type Exchange } from '../http.js';
import type { ResponseValidator } from '../validator.js';
import { checkKeyExposure, KEY_EXPOSURE_CHECK } from './key-exposure.js';

export const GENERIC_CHECKS = {
  serverError: 'not-a-server-error',
  statusCode: 'status-code-conformance',
  contentType: 'content-type-conformance',
  headers: 'response-headers-conformance',
  schema: 'response-schema-conformance',
  keyExposure: KEY_EXPOSURE_CHECK,
} as const;

function mediaTypeOf(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function mediaMatches(actual: string, documented: string): boolean {
  const [type, sub] = documented.toLowerCase().split('/');
  const [aType, aSub] = actual.split('/');
  return (type === '*' || type === aType) && (sub === '*' || sub === aSub);
}

function isJsonMedia(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

/** `apiKey`: the run's own key, looked for in every answer beside any full-length key (part 5.3). */
export function checkResponse(document: Json, validator: ResponseValidator, op: Operation, ex: Exchange, apiKey?: string): Finding[] {
  const request = describeRequest(ex);
  const findings: Finding[] = [...checkKeyExposure(document, op, ex, apiKey)];
  const add = (check: string, verdict: Finding['verdict'], reason: string, part?: string) =>
    findings.push({ check, verdict, reason, operationId: op.operationId, request, status: ex.status, part });
  const doc = documentedResponse(document, op, ex.status);

  // not-a-server-error: no 5xx except those the operation documents (the 502/503 cases of part 7).
  if (ex.status >= 500) {
    if (doc) add(GENERIC_CHECKS.serverError, 'pass', `${ex.status} is documented for this operation.`, '7');
    else add(GENERIC_CHECKS.serverError, 'fail', `Server error ${ex.status}, not documented for ${op.operationId}.`, '7');
  } else add(GENERIC_CHECKS.serverError, 'pass', `No server error (${ex.status}).`);

  if (!doc) {
    if (ex.status === 429) add(GENERIC_CHECKS.statusCode, 'advisory', `429 is not documented for ${op.operationId}; part 8 leaves general rate limits unpublished, so it is not a failure.`, '8');
    else if (op.inferred) add(GENERIC_CHECKS.statusCode, 'advisory', `${ex.status} is not documented, but the operation is inferred (x-inferred).`);
    else add(GENERIC_CHECKS.statusCode, 'fail', `${ex.status} is not a status ${op.operationId} documents (documented: ${Object.keys(op.operation.responses ?? {}).join(', ')}).`);
    return findings;
  }
  add(GENERIC_CHECKS.statusCode, 'pass', `${ex.status} is documented (${doc.key}).`);
  const inferred = op.inferred || doc.inferred;
  const soften = (verdict: 'fail' | 'pass') => (verdict === 'fail' && inferred ? 'advisory' : verdict);

  // response-headers-conformance: documented required headers present and valid.
  for (const [name, rawHeader] of Object.entries<Json>(doc.response?.headers ?? {})) {
    const header = resolveRef(document, rawHeader);
    const value = ex.headers[name.toLowerCase()];
    const headerInferred = inferred || header?.['x-inferred'] === true;
    if (value === undefined) {
      if (header?.required === true) {
        add(GENERIC_CHECKS.headers, headerInferred ? 'advisory' : 'fail', `Required header ${name} is missing from the ${ex.status} answer.`);
      }
      continue;
    }
    const schema = resolveRef(document, header?.schema);
    if (schema?.type === 'integer' && !/^\d+$/.test(value.trim()) && !(name.toLowerCase() === 'retry-after' && !Number.isNaN(Date.parse(value)))) {
      add(GENERIC_CHECKS.headers, headerInferred ? 'advisory' : 'fail', `Header ${name} is "${value}", not an integer.`);
    } else add(GENERIC_CHECKS.headers, 'pass', `Header ${name} present.`);
  }

  // content-type-conformance and response-schema-conformance.
  const content = doc.response?.content as Record<string, Json> | undefined;
  if (!content || Object.keys(content).length === 0) return findings;
  const actual = mediaTypeOf(ex.headers['content-type']);
  const documentedTypes = Object.keys(content);
  const matched = actual ? documentedTypes.find((t) => mediaMatches(actual, t)) : undefined;
  if (!matched) {
    add(GENERIC_CHECKS.contentType, soften('fail'), `Content-Type is ${actual ?? 'missing'}; documented: ${documentedTypes.join(', ')}.`);
    return findings;
  }
  add(GENERIC_CHECKS.contentType, 'pass', `Content-Type ${actual}.`);
  if (!isJsonMedia(matched) || !content[matched]?.schema) return findings;
  if (ex.body === undefined) {
    add(GENERIC_CHECKS.schema, soften('fail'), ex.bodyText.length ? 'The body is not valid JSON.' : 'The body is empty; a JSON body is documented.');
    return findings;
  }
  const pointer = childPointer(doc.pointer, 'content', matched, 'schema');
  const result = validator.validate(pointer, ex.body);
  // Severity follows the rule broken, not the container (inferred.ts): a documented value breaks
  // the contract even inside an inferred envelope or an inferred answer.
  if (result.errors.length === 0) add(GENERIC_CHECKS.schema, 'pass', `Body validates against the ${doc.key} schema.`);
  else if (result.documentedErrors.length > 0) {
    const within = inferred ? ' (inside an answer whose shape is inferred, x-inferred: the values it breaks are documented)' : '';
    add(GENERIC_CHECKS.schema, 'fail', `Body does not validate against the ${doc.key} schema${within}: ${result.documentedErrors.slice(0, 5).join('; ')}.`);
  } else {
    const where = inferred ? 'what it breaks is inferred with the response (x-inferred)' : 'only inferred parts (x-inferred) are broken';
    add(GENERIC_CHECKS.schema, 'advisory', `Body does not match the ${doc.key} schema, but ${where}: ${result.errors.slice(0, 5).join('; ')}.`);
  }
  return findings;
}
