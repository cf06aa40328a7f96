// "Negative data rejected" for reads: a query parameter whose schema constrains it (an enum, a
// format, a pattern) set to a value the schema refuses must get a 4xx. Reads change nothing
// (part 7.1), so this is harmless. Plain integers such as `days` and `limit` are left alone:
// the interface specification says other values fall back or are clamped, not rejected.
import { type Json, type Operation } from '../description.js';
import { resolveRef } from '../../src/contract/json-pointer.js';
import type { ScenarioDraft } from '../scenario.js';
import { exampleQuery, pathParamNames, provokes } from './shared.js';

/** A value the schema should refuse, or undefined when the schema does not constrain strings. */
function invalidValue(schema: Json): string | undefined {
  if (Array.isArray(schema?.enum)) return 'conformance-not-one-of-the-values';
  if (typeof schema?.format === 'string') return `not-a-${schema.format}`;
  if (typeof schema?.pattern === 'string') return 'conformance does not match the pattern';
  return undefined;
}

export function negativeQueryScenarios(document: Json, op: Operation): ScenarioDraft[] {
  if (op.method !== 'get' || pathParamNames(op).length) return [];
  return op.parameters
    .filter((p) => p.in === 'query' && invalidValue(resolveRef(document, p.schema)) !== undefined)
    .map((param) => ({
      id: `${op.operationId}/negative-query-rejected/${param.name}`,
      operationId: op.operationId,
      check: 'negative-query-rejected',
      part: '7',
      level: 'contract' as const,
      title: `a \`${param.name}\` its schema refuses is rejected`,
      provokes: provokes(op, 400),
      async run(ctx) {
        const value = invalidValue(resolveRef(ctx.env.document, param.schema)) as string;
        if (ctx.env.validator.accepts(param.schema, value)) return ctx.skip(`The schema of \`${param.name}\` accepts "${value}".`);
        const ex = await ctx.send(op, { query: { ...exampleQuery(ctx.env.document, op), [param.name]: value } });
        if (ex.status >= 400 && ex.status < 500) ctx.pass(`\`${param.name}=${value}\` rejected with ${ex.status}.`, ex);
        else if (param['x-inferred'] === true) ctx.advisory(`\`${param.name}=${value}\` answered ${ex.status}; the parameter is inferred (x-inferred).`, ex);
        else ctx.fail(`\`${param.name}=${value}\` (refused by its schema) answered ${ex.status}, not a 4xx.`, ex);
      },
    }));
}
