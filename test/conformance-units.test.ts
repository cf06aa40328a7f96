// The conformance suite's small parts: bounded concurrency, Retry-After parsing, redaction, and
// how a failure is attributed when the description marks a part `x-inferred`.
import { createServer, type Server } from 'node:http';
import { resolveRef } from '../src/contract/json-pointer.js';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResponse } from '../conformance/checks/response.js';
import { documentedResponse, findOperation, listOperations, loadDescription, type Json } from '../conformance/description.js';
import { ConformanceHttp, suiteRedactor, type Exchange } from '../conformance/http.js';
import { parseRetryAfter } from '../src/request/retry.js';
import { relaxSchema } from '../src/contract/documented-only.js';
import type { ScenarioOutcome } from '../conformance/findings.js';
import { buildReport, formatCoverage, formatSummary } from '../conformance/reporters/report.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { TEST_KEY } from './helpers/conformance-harness.js';
import { configFromEnv } from '../conformance/config.js';
import { UsageError } from '../src/cli/usage-error.js';

describe('bounded concurrency', () => {
  let server: Server;
  let url: string;
  let inFlight = 0;
  let maxInFlight = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }, 30);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it.each([1, 3])('never has more than %i requests in flight', async (limit) => {
    maxInFlight = 0;
    const http = new ConformanceHttp({ baseUrl: url, apiKey: TEST_KEY, concurrency: limit, timeoutMs: 5000, retryBudgetMs: 1000 });
    const op = findOperation(listOperations(loadDescription()), 'getAccount')!;
    await Promise.all(Array.from({ length: 12 }, () => http.send(op)));
    expect(maxInFlight).toBe(limit);
  });
});

describe('Retry-After', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});

describe('redaction', () => {
  it('removes the key from text and from every string of a value', () => {
    const redact = suiteRedactor([TEST_KEY]);
    expect(redact(`Bearer ${TEST_KEY} rejected`)).toBe('Bearer [redacted key] rejected');
    expect(redact({ a: [`x${TEST_KEY}`], [TEST_KEY]: 1 })).toEqual({ a: ['x[redacted key]'], '[redacted key]': 1 });
  });
});

describe('inferred parts (x-inferred)', () => {
  const document = loadDescription();
  const operations = listOperations(document);
  const validator = contractValidator(document);
  const exchange = (operationId: string, status: number, body: unknown): Exchange => ({
    operationId,
    method: 'get',
    target: '/',
    auth: 'valid',
    status,
    headers: { 'content-type': 'application/json' },
    bodyText: JSON.stringify(body),
    body,
    durationMs: 1,
  });

  it('judges a documented component inside an inferred envelope as documented: its values and what it requires (issue 29)', () => {
    const relaxed = relaxSchema({ type: 'array', 'x-inferred': true, maxItems: 2, items: { $ref: '#/components/schemas/Message' } });
    expect(relaxed).toEqual({ 'x-inferred': true, items: { $ref: '#/components/schemas/Message' } });
  });

  it('keeps a documented component of an inferred union judged: the other branches stay out of its types', () => {
    const types = (ref: string) => (ref === '#/components/schemas/Subscription' ? ['object'] : undefined);
    const relaxed = relaxSchema({ 'x-inferred': true, anyOf: [{ $ref: '#/components/schemas/Subscription' }, { type: 'null' }] }, 'documented', types);
    expect(relaxed).toEqual({ 'x-inferred': true, anyOf: [{ $ref: '#/components/schemas/Subscription' }, { not: { type: 'object' } }] });
    const inline = relaxSchema({ 'x-inferred': true, oneOf: [{ type: 'string' }, { type: 'integer' }] }, 'documented', types);
    expect(inline).toEqual({ 'x-inferred': true, anyOf: [{}, {}] });
  });

  it('relaxes an inferred schema and drops inferred properties from `required`', () => {
    const relaxed = relaxSchema({
      type: 'object',
      required: ['a', 'b'],
      properties: { a: { type: 'string' }, b: { type: 'string', 'x-inferred': true } },
    });
    expect(relaxed.required).toEqual(['a']);
    expect(relaxed.properties.b.type).toBeUndefined();
    expect(relaxed.properties.a.type).toBe('string');
  });

  it('fails a documented field and only advises on an inferred one', () => {
    const op = findOperation(operations, 'getAccount')!;
    const documented = checkResponse(document, validator, op, exchange('getAccount', 200, { maxCallDurationSeconds: 'x', limits: null }));
    expect(documented.find((f) => f.check === 'response-schema-conformance')?.verdict).toBe('fail');
    const inferred = checkResponse(document, validator, op, exchange('getAccount', 200, { maxCallDurationSeconds: null, limits: null, apiKeys: 'x' }));
    expect(inferred.find((f) => f.check === 'response-schema-conformance')?.verdict).toBe('advisory');
  });

  it('a schema finding carries the contract\'s verdicts as data (the JSON report writes them), and its reason renders them', () => {
    const op = findOperation(operations, 'getAccount')!;
    const [finding] = checkResponse(document, validator, op, exchange('getAccount', 200, { maxCallDurationSeconds: 59, limits: null })).filter((f) => f.check === 'response-schema-conformance');
    expect(finding?.verdicts).toEqual([
      expect.objectContaining({
        of: 'response',
        in: 'body',
        keyword: 'minimum',
        params: { comparison: '>=', limit: 60 },
        instancePath: '/maxCallDurationSeconds',
        schema: { pointer: '#/components/schemas/CallDurationSetting', component: 'CallDurationSetting' },
        part: op.source,
        severity: 'documented',
        expected: 60,
        actual: { type: 'integer', value: 59 },
      }),
    ]);
    expect(finding?.reason).toContain('/maxCallDurationSeconds must be >= 60 (got 59; #/components/schemas/CallDurationSetting/minimum)');
    expect(JSON.parse(JSON.stringify(finding))).toEqual(finding);
  });

  it('on a whole inferred response or operation, advises on what the inference assumes and fails a documented value', () => {
    const send = findOperation(operations, 'sendMessage')!; // its 201 response is inferred: "the message record of part 2 is assumed"
    const partial = checkResponse(document, validator, send, exchange('sendMessage', 201, { id: 'msg_1' }));
    expect(partial.find((f) => f.check === 'response-schema-conformance')?.verdict).toBe('advisory');
    const wrongValue = checkResponse(document, validator, send, exchange('sendMessage', 201, { id: 'msg_1', channel: 'telegram' }));
    const schema = wrongValue.find((f) => f.check === 'response-schema-conformance');
    expect(schema?.verdict).toBe('fail');
    expect(schema?.reason).toMatch(/inside an answer whose shape is inferred.*\/channel must be equal to one of the allowed values/);
    const groups = findOperation(operations, 'listGroups')!; // the operation is inferred
    const undocumented = checkResponse(document, validator, groups, exchange('listGroups', 418, {}));
    expect(undocumented.find((f) => f.check === 'status-code-conformance')?.verdict).toBe('advisory');
  });

  it.each([
    ['listGroups', (body: Json[]) => body.map((g) => ({ ...g, id: 42 })), /\/0\/id must be string/], // a group's fields are inferred (part 2: not shown)
    ['listNumbers', (body: Json[]) => body.map((n) => ({ ...n, capabilities: 'lots' })), /\/0\/capabilities must be array/], // its shape is inferred
    ['listMessages', (body: Json[]) => ({ data: body }), /\(body\) must be array/], // the list's envelope is inferred
  ])('%s: a break inside what is itself inferred stays advisory', (operationId, breakIt, message) => {
    const op = findOperation(operations, operationId)!;
    const examples = documentedResponse(document, op, 200)!.response.content['application/json'].examples;
    const body = breakIt(structuredClone(resolveRef(document, Object.values(examples)[0]).value));
    const schema = checkResponse(document, validator, op, exchange(operationId, 200, body)).find((f) => f.check === 'response-schema-conformance');
    expect(schema?.verdict).toBe('advisory');
    expect(schema?.reason).toMatch(message);
  });

  it('checks formats (ajv-formats): a date-time that is not one fails', () => {
    const op = findOperation(operations, 'getUsage')!;
    const examples = documentedResponse(document, op, 200)!.response.content['application/json'].examples;
    const body = structuredClone(resolveRef(document, Object.values(examples)[0]).value) as { currentPeriod: { start: string } };
    expect(checkResponse(document, validator, op, exchange('getUsage', 200, body)).find((f) => f.check === 'response-schema-conformance')?.verdict).toBe('pass');
    body.currentPeriod.start = 'the first of the month';
    const broken = checkResponse(document, validator, op, exchange('getUsage', 200, body)).find((f) => f.check === 'response-schema-conformance');
    expect(broken?.verdict).toBe('fail');
    expect(broken?.reason).toMatch(/currentPeriod\/start must match format "date-time"/);
  });

  it('does not count an undocumented 429 as a failure', () => {
    const op = findOperation(operations, 'getAccount')!;
    const findings = checkResponse(document, validator, op, exchange('getAccount', 429, { error: 'slow down' }));
    expect(findings.filter((f) => f.verdict === 'fail')).toEqual([]);
    expect(findings.find((f) => f.check === 'status-code-conformance')?.verdict).toBe('advisory');
  });
});

describe('the report', () => {
  const document = loadDescription();
  const outcome = (operationId: string, verdict: ScenarioOutcome['verdict'], statuses: number[], extra: Partial<ScenarioOutcome> = {}): ScenarioOutcome => ({
    scenarioId: `${operationId}/x`,
    operationId,
    title: `scenario of ${operationId}`,
    check: 'x',
    verdict,
    findings: [],
    exchanges: statuses.map((status) => ({ operationId, status, request: `GET ${operationId}` })),
    notes: [],
    level: 'contract',
    sends: [],
    ...extra,
  });
  const report = buildReport({
    document,
    baseUrl: 'http://deployment',
    level: 'contract',
    notSent: [{ operationId: 'deleteAccount', method: 'delete', path: '/api/v1/account', reason: 'deletes the account' }],
    outcomes: [
      outcome('getAccount', 'pass', [200]),
      outcome('getAccount', 'skip', [], { skipReason: 'rate limited' }),
      outcome('getUsage', 'skip', [], { skipReason: 'rate limited' }),
      outcome('listCalls', 'fail', [200, 418], { findings: [{ check: 'status-code-conformance', verdict: 'fail', reason: '418 is not documented', operationId: 'listCalls', status: 418, request: 'GET /api/v1/calls (with the API key)' }] }),
    ],
  });

  it('gives each operation the verdict of what could be judged', () => {
    const verdict = (id: string) => report.operations.find((o) => o.operationId === id)?.verdict;
    expect(verdict('getAccount')).toBe('pass');
    expect(verdict('getUsage')).toBe('skip');
    expect(verdict('listCalls')).toBe('fail');
    expect(verdict('deleteAccount')).toBe('not sent');
    expect(verdict('getBilling')).toBe('not run');
  });

  it('counts documented statuses seen, and undocumented ones apart', () => {
    const calls = report.coverage.find((c) => c.operationId === 'listCalls');
    expect(calls?.seen).toEqual(['200']);
    expect(calls?.undocumentedSeen).toEqual(['418']);
    expect(formatCoverage(report)).toMatch(/^listCalls +GET \/api\/v1\/calls +yes +200\* 401 +418$/m);
  });

  it('prints failures with check, reason and request, and skips once by reason', () => {
    const text = formatSummary(report);
    expect(text).toMatch(/^FAIL +listCalls/m);
    // Findings come grouped by rule after the summary by operation, each with its id for --rerun.
    expect(text).toMatch(/^FAIL \[status-code-conformance\] 418 is not documented  finding [0-9a-f]{8}\n    listCalls answered 418\n    request: GET \/api\/v1\/calls \(with the API key\)$/m);
    expect(text).toMatch(/Skipped:\n  - rate limited\n      getAccount: scenario of getAccount\n      getUsage: scenario of getUsage/);
  });
});

describe('configFromEnv: --to (writes level)', () => {
  const base = { CONFORMANCE_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_API_KEY: 'sk_live_x', CONFORMANCE_LEVEL: 'writes' };

  it('accepts an E.164 test number, by the description\'s E164 pattern', () => {
    expect(configFromEnv({ ...base, CONFORMANCE_TO: '+14155550123' }).to).toBe('+14155550123');
  });

  it.each(['4155550123', '+0155550123', '+1415555012345678', '+1 415 555 0123'])('refuses %s as a usage error', (to) => {
    expect(() => configFromEnv({ ...base, CONFORMANCE_TO: to })).toThrow(UsageError);
  });
});
