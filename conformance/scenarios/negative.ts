// "Negative data rejected" and "missing required header rejected": requests that break the
// request schema must get a 4xx. Sent only where the safety policy has a harmless invalid body.
import type { Operation } from '../description.js';
import { NEGATIVE_BODIES } from '../policy.js';
import type { ScenarioDraft } from '../scenario.js';
import { buildPolicyBody, exampleQuery, nonexistentPathParams, provokes } from './shared.js';

export function negativeDataScenarios(op: Operation): ScenarioDraft[] {
  const policy = NEGATIVE_BODIES[op.operationId];
  if (!policy || !op.authenticated) return [];
  return [
    {
      operationId: op.operationId,
      check: 'negative-data-rejected',
      part: '7',
      level: 'contract',
      title: `a body that breaks the schema is rejected (${policy.violation})`,
      provokes: provokes(op, 400),
      async run(ctx) {
        const body = buildPolicyBody(ctx, op, policy);
        const ex = await ctx.send(op, { body, pathParams: nonexistentPathParams(ctx.env.document, op) });
        if (ex.status >= 400 && ex.status < 500) ctx.pass(`Rejected with ${ex.status} (${policy.harmless}).`, ex);
        else ctx.fail(`An invalid body (${policy.violation}) was answered ${ex.status}, not a 4xx.`, ex);
      },
    },
  ];
}

/** Each required header parameter left out must get a 4xx (Schemathesis's missing_required_header). */
export function missingHeaderScenarios(op: Operation, safe: boolean): ScenarioDraft[] {
  if (!safe) return [];
  return op.parameters
    .filter((p) => p.in === 'header' && p.required && p.name.toLowerCase() !== 'authorization')
    .map((p) => ({
      id: `${op.operationId}/missing-required-header/${p.name}`,
      operationId: op.operationId,
      check: 'missing-required-header-rejected',
      level: 'contract' as const,
      title: `a request without the required header ${p.name} is rejected`,
      async run(ctx) {
        // With a body, only a valid one would isolate the header, and a valid write is not harmless.
        if (op.operation.requestBody) ctx.skip(`${op.operationId} takes a body; only a valid one would isolate the missing header, and that is not sent.`);
        const ex = await ctx.send(op, { pathParams: nonexistentPathParams(ctx.env.document, op), query: exampleQuery(ctx.env.document, op) });
        ctx.expect(ex.status >= 400 && ex.status < 500, `Without ${p.name}: ${ex.status} (a 4xx is required).`, ex);
      },
    }));
}
