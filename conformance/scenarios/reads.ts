// Reads with the key (part 7.1: GET has no side effects), so that every documented read answer is
// exercised and judged by the generic checks, and unknown ids answer 404 (part 7).
import { parameterExample, requestExample, type Operation } from '../description.js';
import { NOT_AN_OBJECT } from '../policy.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { documents, exampleQuery, hasRequestBody, isSuccess, nonexistentPathParams, pathParamNames, provokes, successStatus } from './shared.js';

/** Real ids for path parameters, from the deployment's own data; undefined when none is known. */
async function realPathParams(ctx: ScenarioContext, op: Operation): Promise<Record<string, string> | undefined> {
  const params: Record<string, string> = {};
  for (const p of op.parameters.filter((x) => x.in === 'path')) {
    const example = String(parameterExample(ctx.env.document, p) ?? '');
    let value: string | undefined;
    if (p.name === 'invoiceId') value = await ctx.env.fixtures.invoiceId();
    else if (/^pn_/.test(example) || op.path.includes('/numbers/{')) value = (await ctx.env.fixtures.firstNumber())?.id;
    if (!value) return undefined;
    params[p.name] = value;
  }
  return params;
}

export function readScenarios(op: Operation): ScenarioDraft[] {
  if (op.method !== 'get') return [];
  return [
    {
      id: `${op.operationId}/read`,
      operationId: op.operationId,
      check: 'read-succeeds',
      part: '4, 7.1',
      level: 'contract',
      title: 'a read with the key succeeds and its answer matches the description',
      provokes: provokes(op, successStatus(op) ?? 200),
      async run(ctx) {
        let pathParams: Record<string, string> | undefined = {};
        if (pathParamNames(op).length) {
          pathParams = await realPathParams(ctx, op);
          if (!pathParams) return ctx.skip('The deployment has no resource to read here (no number or invoice found); the unknown-id check covers the 404.');
        }
        const query = exampleQuery(ctx.env.document, op);
        const ex = await ctx.send(op, { pathParams, query });
        // A required parameter whose name or form is inferred may not be what the deployment takes.
        const inferredParams = op.parameters.filter((p) => p.in === 'query' && p.name in query && p['x-inferred']).map((p) => p.name);
        if (isSuccess(ex.status)) ctx.pass(`${ex.status}.`, ex);
        else if (ex.status >= 400 && ex.status < 500 && inferredParams.length) {
          ctx.advisory(`${ex.status}: the read relies on the inferred parameter(s) ${inferredParams.join(', ')} (x-inferred).`, ex);
        }
        else if (ex.status >= 500 && documents(op, ex.status)) ctx.advisory(`${ex.status} is documented (part 7), but the read could not be judged.`, ex);
        else ctx.fail(`A read with the key answered ${ex.status}.`, ex);
      },
    },
  ];
}

/** Operations on one resource by id: an id that cannot exist answers 404 (part 7). */
export function unknownResourceScenarios(op: Operation, safe: boolean): ScenarioDraft[] {
  if (!safe || !pathParamNames(op).length || !documents(op, 404)) return [];
  return [
    {
      operationId: op.operationId,
      check: 'unknown-resource-404',
      part: '7',
      level: 'contract',
      title: 'an id that cannot exist on the account answers 404 (part 7)',
      provokes: provokes(op, 404),
      async run(ctx) {
        // The id cannot exist, so the documented example body has nothing to apply to.
        const body = hasRequestBody(op) ? (requestExample(ctx.env.document, op) ?? NOT_AN_OBJECT) : undefined;
        const ex = await ctx.send(op, { pathParams: nonexistentPathParams(ctx.env.document, op), body });
        if (ex.status === 404) ctx.pass('404 for an unknown id.', ex);
        else if (ex.status === 400 && body !== undefined) ctx.advisory('400: the invalid body was judged before the id, so the 404 could not be shown.', ex);
        else ctx.fail(`Expected 404 for an id that cannot exist, got ${ex.status}.`, ex);
      },
    },
  ];
}
