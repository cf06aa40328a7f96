// What a response check of the generic layer sees and how it reports: one answer of one request,
// with the documented response it falls under worked out once. Each check (Schemathesis's
// checks.py style) is a top-level function named after what it proves; it decides at its top
// whether it applies (an empty list when not) and returns its findings.
import { documentedResponse, type Json, type Operation, type ResponseDoc } from '../description.js';
import type { Finding } from '../findings.js';
import { describeRequest, type Exchange } from '../http.js';
import type { ContractValidator } from '../../src/contract/contract-validator.js';
import type { Verdict } from '../../src/contract/verdict.js';

export interface ResponseCheckContext {
  document: Json;
  validator: ContractValidator;
  op: Operation;
  ex: Exchange;
  /** The run's own key (looked for in every answer, part 5.3). */
  apiKey?: string;
  /** The response the description documents for this status (exact, range or default), if any. */
  documented: ResponseDoc | undefined;
  /** The operation or that response is inferred (x-inferred): a break of what it defines is advisory. */
  inferred: boolean;
}

export type ResponseCheck = (ctx: ResponseCheckContext) => Finding[];

export function responseCheckContext(document: Json, validator: ContractValidator, op: Operation, ex: Exchange, apiKey?: string): ResponseCheckContext {
  const documented = documentedResponse(document, op, ex.status);
  return { document, validator, op, ex, ...(apiKey ? { apiKey } : {}), documented, inferred: op.inferred || Boolean(documented?.inferred) };
}

/** One finding of `check` about this answer; `verdicts`: the contract's, when the check judged with the validator. */
export function finding(ctx: ResponseCheckContext, check: string, verdict: Finding['verdict'], reason: string, part?: string, verdicts?: Verdict[]): Finding {
  return { check, verdict, reason, operationId: ctx.op.operationId, request: describeRequest(ctx.ex), status: ctx.ex.status, ...(part ? { part } : {}), ...(verdicts?.length ? { verdicts } : {}) };
}

/** A failure, or an advisory where what is broken is itself inferred. */
export function failUnlessInferred(ctx: ResponseCheckContext, inferred = ctx.inferred): 'fail' | 'advisory' {
  return inferred ? 'advisory' : 'fail';
}

function mediaTypeOf(header: string | undefined): string | undefined {
  return header?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function mediaMatches(actual: string, documented: string): boolean {
  const [type, sub] = documented.toLowerCase().split('/');
  const [aType, aSub] = actual.split('/');
  return (type === '*' || type === aType) && (sub === '*' || sub === aSub);
}

/** The answer's media type, and the documented one it matches (undefined when none does). */
export function answerMedia(ctx: ResponseCheckContext): { actual: string | undefined; documented: string[]; matched: string | undefined } {
  const content = (ctx.documented?.response?.content ?? {}) as Record<string, Json>;
  const documented = Object.keys(content);
  const actual = mediaTypeOf(ctx.ex.headers['content-type']);
  return { actual, documented, matched: actual ? documented.find((type) => mediaMatches(actual, type)) : undefined };
}

export function isJsonMedia(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}
