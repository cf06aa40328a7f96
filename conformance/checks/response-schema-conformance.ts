// response-schema-conformance: a JSON answer of a documented media type validates against its
// schema. Severity follows the rule broken, not the container (inferred.ts): a value that breaks a
// documented field fails even inside an inferred envelope or answer; a break of what is itself
// inferred (x-inferred) is advisory.
import { childPointer } from '../../src/contract/json-pointer.js';
import type { Json } from '../description.js';
import { answerMedia, failUnlessInferred, finding, isJsonMedia, type ResponseCheck } from './check.js';

export const RESPONSE_SCHEMA_CONFORMANCE = 'response-schema-conformance';

export const responseSchemaConformance: ResponseCheck = (ctx) => {
  const { documented, ex } = ctx;
  const { matched } = answerMedia(ctx);
  const content = (documented?.response?.content ?? {}) as Record<string, Json>;
  if (!documented || !matched || !isJsonMedia(matched) || !content[matched]?.schema) return [];
  if (ex.body === undefined) {
    return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, failUnlessInferred(ctx), ex.bodyText.length ? 'The body is not valid JSON.' : 'The body is empty; a JSON body is documented.')];
  }
  const result = ctx.validator.validate(childPointer(documented.pointer, 'content', matched, 'schema'), ex.body);
  if (result.errors.length === 0) return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, 'pass', `Body validates against the ${documented.key} schema.`)];
  if (result.documentedErrors.length > 0) {
    const within = ctx.inferred ? ' (inside an answer whose shape is inferred, x-inferred: the values it breaks are documented)' : '';
    return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, 'fail', `Body does not validate against the ${documented.key} schema${within}: ${result.documentedErrors.slice(0, 5).join('; ')}.`)];
  }
  const where = ctx.inferred ? 'what it breaks is inferred with the response (x-inferred)' : 'only inferred parts (x-inferred) are broken';
  return [finding(ctx, RESPONSE_SCHEMA_CONFORMANCE, 'advisory', `Body does not match the ${documented.key} schema, but ${where}: ${result.errors.slice(0, 5).join('; ')}.`)];
};
