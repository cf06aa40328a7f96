// content-type-conformance: an answer with a documented body comes with one of the documented
// media types.
import { answerMedia, failUnlessInferred, finding, type ResponseCheck } from './check.js';

export const CONTENT_TYPE_CONFORMANCE = 'content-type-conformance';

export const contentTypeConformance: ResponseCheck = (ctx) => {
  const { actual, documented, matched } = answerMedia(ctx);
  if (documented.length === 0) return [];
  if (matched) return [finding(ctx, CONTENT_TYPE_CONFORMANCE, 'pass', `Content-Type ${actual}.`)];
  return [finding(ctx, CONTENT_TYPE_CONFORMANCE, failUnlessInferred(ctx), `Content-Type is ${actual ?? 'missing'}; documented: ${documented.join(', ')}.`)];
};
