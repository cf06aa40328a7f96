// response-headers-conformance: the headers the documented response requires are present, and an
// integer header (`Retry-After`, part 8) holds an integer (or, for `Retry-After`, an HTTP date).
import { resolveRef } from '../../src/contract/json-pointer.js';
import type { Json } from '../description.js';
import type { Finding } from '../findings.js';
import { failUnlessInferred, finding, type ResponseCheck } from './check.js';

export const RESPONSE_HEADERS_CONFORMANCE = 'response-headers-conformance';

export const responseHeadersConformance: ResponseCheck = (ctx) => {
  if (!ctx.documented) return [];
  const findings: Finding[] = [];
  for (const [name, raw] of Object.entries<Json>(ctx.documented.response?.headers ?? {})) {
    const header = resolveRef(ctx.document, raw);
    const value = ctx.ex.headers[name.toLowerCase()];
    const verdict = failUnlessInferred(ctx, ctx.inferred || header?.['x-inferred'] === true);
    if (value === undefined) {
      if (header?.required === true) findings.push(finding(ctx, RESPONSE_HEADERS_CONFORMANCE, verdict, `Required header ${name} is missing from the ${ctx.ex.status} answer.`));
      continue;
    }
    const schema = resolveRef(ctx.document, header?.schema);
    const isDate = name.toLowerCase() === 'retry-after' && !Number.isNaN(Date.parse(value));
    if (schema?.type === 'integer' && !/^\d+$/.test(value.trim()) && !isDate) {
      findings.push(finding(ctx, RESPONSE_HEADERS_CONFORMANCE, verdict, `Header ${name} is "${value}", not an integer.`));
    } else findings.push(finding(ctx, RESPONSE_HEADERS_CONFORMANCE, 'pass', `Header ${name} present.`));
  }
  return findings;
};
