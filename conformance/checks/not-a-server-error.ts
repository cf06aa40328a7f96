// not-a-server-error (part 7): no 5xx but those the operation documents (the 502s and 503s of
// part 7: a lookup that could not complete, provisioning, the event stream, WhatsApp numbers).
import { finding, type ResponseCheck } from './check.js';

export const NOT_A_SERVER_ERROR = 'not-a-server-error';

export const notAServerError: ResponseCheck = (ctx) => {
  const { status } = ctx.ex;
  if (status < 500) return [finding(ctx, NOT_A_SERVER_ERROR, 'pass', `No server error (${status}).`)];
  if (ctx.documented) return [finding(ctx, NOT_A_SERVER_ERROR, 'pass', `${status} is documented for this operation.`, '7')];
  return [finding(ctx, NOT_A_SERVER_ERROR, 'fail', `Server error ${status}, not documented for ${ctx.op.operationId}.`, '7')];
};
