// Each check of the conformance suite's generic layer runs alone (conformance/checks/*.ts): given an
// answer that keeps its rule it passes, given one that breaks it it fails, and on an answer it does
// not apply to it says nothing. A table per check, as openapi-typescript writes its transform tests.
import { describe, expect, it } from 'vitest';
import { responseCheckContext, type ResponseCheck } from '../conformance/checks/check.js';
import { contentTypeConformance } from '../conformance/checks/content-type-conformance.js';
import { noFullKeyInAnswers } from '../conformance/checks/key-exposure.js';
import { notAServerError } from '../conformance/checks/not-a-server-error.js';
import { responseHeadersConformance } from '../conformance/checks/response-headers-conformance.js';
import { RESPONSE_CHECKS, checkResponse } from '../conformance/checks/response.js';
import { responseSchemaConformance } from '../conformance/checks/response-schema-conformance.js';
import { statusCodeConformance } from '../conformance/checks/status-code-conformance.js';
import { findOperation, listOperations, loadDescription } from '../conformance/description.js';
import type { Verdict } from '../conformance/findings.js';
import type { Exchange } from '../conformance/http.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { TEST_KEY } from './helpers/conformance-harness.js';

const document = loadDescription();
const operations = listOperations(document);
const validator = contractValidator(document);
const account = { maxCallDurationSeconds: null, limits: null, apiKeys: [] };

interface Given {
  operationId: string;
  status: number;
  body?: unknown;
  /** The raw body, when it is not the JSON of `body`. */
  text?: string;
  headers?: Record<string, string>;
}

function exchange({ operationId, status, body, text, headers }: Given): Exchange {
  return {
    operationId,
    method: 'get',
    target: '/',
    auth: 'valid',
    status,
    headers: { 'content-type': 'application/json', ...headers },
    bodyText: text ?? (body === undefined ? '' : JSON.stringify(body)),
    ...(text === undefined && body !== undefined ? { body } : {}),
    durationMs: 1,
  };
}

/** The verdicts one check alone gives on one answer. */
function verdicts(check: ResponseCheck, given: Given): Verdict[] {
  const ctx = responseCheckContext(document, validator, findOperation(operations, given.operationId)!, exchange(given), TEST_KEY);
  return check(ctx).map((finding) => finding.verdict);
}

const table: Array<[string, ResponseCheck, Array<[string, { given: Given; want: Verdict[] }]>]> = [
  [
    'not-a-server-error',
    notAServerError,
    [
      ['a 200', { given: { operationId: 'getAccount', status: 200, body: account }, want: ['pass'] }],
      ['a documented 502 (lookup, part 7)', { given: { operationId: 'lookupNumber', status: 502, body: { error: 'x' } }, want: ['pass'] }],
      ['an undocumented 500', { given: { operationId: 'getAccount', status: 500, body: { error: 'x' } }, want: ['fail'] }],
    ],
  ],
  [
    'status-code-conformance',
    statusCodeConformance,
    [
      ['a documented status', { given: { operationId: 'getAccount', status: 200, body: account }, want: ['pass'] }],
      ['an undocumented status', { given: { operationId: 'getAccount', status: 418, body: {} }, want: ['fail'] }],
      ['an undocumented 429 (part 8: general limits unpublished)', { given: { operationId: 'getAccount', status: 429, body: { error: 'slow' } }, want: ['advisory'] }],
      ['an undocumented status of an inferred operation', { given: { operationId: 'listGroups', status: 418, body: {} }, want: ['advisory'] }],
    ],
  ],
  [
    'response-headers-conformance',
    responseHeadersConformance,
    [
      ['a required Retry-After present', { given: { operationId: 'lookupNumber', status: 429, body: { error: 'x', code: 'rate_limited' }, headers: { 'retry-after': '7' } }, want: ['pass'] }],
      ['a required Retry-After missing', { given: { operationId: 'lookupNumber', status: 429, body: { error: 'x', code: 'rate_limited' } }, want: ['fail'] }],
      ['a Retry-After that is not an integer', { given: { operationId: 'lookupNumber', status: 429, body: { error: 'x' }, headers: { 'retry-after': 'soon' } }, want: ['fail'] }],
      ['an undocumented status (not this check’s)', { given: { operationId: 'getAccount', status: 418, body: {} }, want: [] }],
    ],
  ],
  [
    'content-type-conformance',
    contentTypeConformance,
    [
      ['application/json', { given: { operationId: 'getAccount', status: 200, body: account }, want: ['pass'] }],
      ['text/html', { given: { operationId: 'getAccount', status: 200, text: '<html></html>', headers: { 'content-type': 'text/html' } }, want: ['fail'] }],
    ],
  ],
  [
    'response-schema-conformance',
    responseSchemaConformance,
    [
      ['the documented example', { given: { operationId: 'getAccount', status: 200, body: account }, want: ['pass'] }],
      ['a documented field of the wrong type', { given: { operationId: 'getAccount', status: 200, body: { ...account, maxCallDurationSeconds: 'x' } }, want: ['fail'] }],
      ['an inferred field of the wrong type', { given: { operationId: 'getAccount', status: 200, body: { ...account, apiKeys: 'x' } }, want: ['advisory'] }],
      ['a body that is not JSON', { given: { operationId: 'getAccount', status: 200, text: '{"maxCall' }, want: ['fail'] }],
      ['the wrong content type (not this check’s)', { given: { operationId: 'getAccount', status: 200, text: 'hi', headers: { 'content-type': 'text/plain' } }, want: [] }],
    ],
  ],
  [
    'no-full-key-in-answers (part 5.3)',
    noFullKeyInAnswers,
    [
      ['previews only', { given: { operationId: 'getAccount', status: 200, body: { ...account, apiKeys: [{ preview: 'sk_live_…p7dc' }] } }, want: ['pass'] }],
      ['another account’s full key in a list', { given: { operationId: 'getAccount', status: 200, body: { ...account, note: 'sk_live_0123456789abcdef0123' } }, want: ['fail'] }],
      ['the caller’s own key in a header', { given: { operationId: 'getAccount', status: 200, body: account, headers: { 'x-echo': TEST_KEY } }, want: ['fail'] }],
    ],
  ],
];

describe.each(table)('%s, alone', (_name, check, cases) => {
  it.each(cases)('%s', (_case, { given, want }) => {
    expect(verdicts(check, given)).toEqual(want);
  });
});

describe('the generic layer runs every check, once each', () => {
  it('a good answer passes each of them; the findings name every check', () => {
    const op = findOperation(operations, 'getAccount')!;
    const findings = checkResponse(document, validator, op, exchange({ operationId: 'getAccount', status: 200, body: account }), TEST_KEY);
    expect(findings.every((finding) => finding.verdict === 'pass')).toBe(true);
    expect(new Set(findings.map((finding) => finding.check))).toEqual(new Set(['no-full-key-in-answers', 'not-a-server-error', 'status-code-conformance', 'content-type-conformance', 'response-schema-conformance']));
    expect(RESPONSE_CHECKS).toHaveLength(table.length);
  });
});
