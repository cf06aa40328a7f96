// response-schema-conformance: a JSON answer of a documented media type validates against its
// schema. Severity follows the rule broken, not the container (src/contract/documented-only.ts): a
// value that breaks a documented field fails even inside an inferred envelope or answer; a break
// of what is itself inferred (x-inferred) is advisory. The finding carries the contract's verdicts
// as data; its reason is their rendering.
import { childPointer } from '../../src/contract/json-pointer.js';
import { describeVerdict } from '../../src/contract/verdict.js';
import type { Json } from '../description.js';
import { answerMedia, failUnlessInferred, finding, isJsonMedia, type ResponseCheck } from './check.js';

export const RESPONSE_SCHEMA_CONFORMANCE = 'response-schema-conformance';

/** At most this many verdicts are written into a reason (all of them stay in the finding). */
const SHOWN = 5;

export const responseSchemaConformance: ResponseCheck = (ctx) => {
  const { documented, ex } = ctx;
  const { matched } = answerMedia(ctx);
  const content = (documented?.response?.content ?? {}) as Record<string, Json>;
  if (!documented || !matched || !isJsonMedia(matched) || !content[matched]?.schema) return [];
  if (ex.body === undefined) {
    return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, failUnlessInferred(ctx), ex.bodyText.length ? 'The body is not valid JSON.' : 'The body is empty; a JSON body is documented.')];
  }
  const pointer = childPointer(documented.pointer, 'content', matched, 'schema');
  const verdicts = ctx.validator.value(pointer, ex.body, { of: 'response', in: 'body', ...(ctx.op.source ? { part: ctx.op.source } : {}) });
  if (verdicts.length === 0) return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, 'pass', `Body validates against the ${documented.key} schema.`)];
  const documentedBreaks = verdicts.filter((verdict) => verdict.severity === 'documented');
  const lines = (shown: typeof verdicts): string => shown.slice(0, SHOWN).map(describeVerdict).join('; ');
  if (documentedBreaks.length > 0) {
    const within = ctx.inferred ? ' (inside an answer whose shape is inferred, x-inferred: the values it breaks are documented)' : '';
    return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, 'fail', `Body does not validate against the ${documented.key} schema${within}: ${lines(documentedBreaks)}.`, undefined, verdicts)];
  }
  const where = ctx.inferred ? 'what it breaks is inferred with the response (x-inferred)' : 'only inferred parts (x-inferred) are broken';
  return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, 'advisory', `Body does not match the ${documented.key} schema, but ${where}: ${lines(verdicts)}.`, undefined, verdicts)];
};
