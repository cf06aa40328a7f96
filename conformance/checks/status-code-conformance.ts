// status-code-conformance: every answer's status is one the operation documents. A 429 the
// operation does not document is advisory (part 8 leaves general request-rate limits unpublished),
// and so is any undocumented status of an inferred operation.
import { finding, type ResponseCheck } from './check.js';

export const STATUS_CODE_CONFORMANCE = 'status-code-conformance';

export const statusCodeConformance: ResponseCheck = (ctx) => {
  const { ex, op, documented } = ctx;
  if (documented) return [finding(ctx, STATUS_CODE_CONFORMANCE, 'pass', `${ex.status} is documented (${documented.key}).`)];
  if (ex.status === 429) {
    return [finding(ctx, STATUS_CODE_CONFORMANCE, 'advisory', `429 is not documented for ${op.operationId}; part 8 leaves general rate limits unpublished, so it is not a failure.`, '8')];
  }
  if (op.inferred) return [finding(ctx, STATUS_CODE_CONFORMANCE, 'advisory', `${ex.status} is not documented, but the operation is inferred (x-inferred).`)];
  return [finding(ctx, STATUS_CODE_CONFORMANCE, 'fail', `${ex.status} is not a status ${op.operationId} documents (documented: ${Object.keys(op.operation.responses ?? {}).join(', ')}).`)];
};
