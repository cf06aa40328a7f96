// The generic layer: every answer of every request is judged by these checks against what the
// description documents for that operation and status, for any API (the equivalents of
// Schemathesis's not_a_server_error, status_code_conformance, content_type_conformance,
// response_headers_conformance and response_schema_conformance), plus part 5.3's
// no-full-key-in-answers. Each check is its own module and runs alone as well.
import type { Json, Operation } from '../description.js';
import type { Finding } from '../findings.js';
import type { Exchange } from '../http.js';
import type { ContractValidator } from '../../src/contract/contract-validator.js';
import { responseCheckContext, type ResponseCheck } from './check.js';
import { CONTENT_TYPE_CONFORMANCE, contentTypeConformance } from './content-type-conformance.js';
import { KEY_EXPOSURE_CHECK, noFullKeyInAnswers } from './key-exposure.js';
import { NOT_A_SERVER_ERROR, notAServerError } from './not-a-server-error.js';
import { RESPONSE_HEADERS_CONFORMANCE, responseHeadersConformance } from './response-headers-conformance.js';
import { RESPONSE_SCHEMA_CONFORMANCE, responseSchemaConformance } from './response-schema-conformance.js';
import { STATUS_CODE_CONFORMANCE, statusCodeConformance } from './status-code-conformance.js';

/** The checks of every answer, in the order their findings are reported. */
export const RESPONSE_CHECKS: readonly ResponseCheck[] = [
  noFullKeyInAnswers,
  notAServerError,
  statusCodeConformance,
  responseHeadersConformance,
  contentTypeConformance,
  responseSchemaConformance,
];

/** Every check's findings on one answer; `apiKey`: the run's own key (part 5.3). */
export function checkResponse(document: Json, validator: ContractValidator, op: Operation, ex: Exchange, apiKey?: string, checks: readonly ResponseCheck[] = RESPONSE_CHECKS): Finding[] {
  const ctx = responseCheckContext(document, validator, op, ex, apiKey);
  return checks.flatMap((check) => check(ctx));
}
