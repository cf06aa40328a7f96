// A fuzz of the stateful mock from outside (issue 21), with fast-check over the bundle's schemas:
// for every operation, requests generated from its parameters and body schema, valid ones and ones
// built to break it (fields dropped or of the wrong type, unknown properties, numbers past their
// bounds, odd unicode, odd path ids), sent to both transports (the HTTP mock and the MSW handlers).
// Every answer is a status the operation documents, its body valid against the contract; none is
// a 5xx; none echoes a full `sk_live_` key. A fixed seed and a few runs per operation keep it to
// seconds; FUZZ_RUNS (default 6) and FUZZ_SEED set a larger or another run.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { contractValidator } from '../src/contract/contract-validator.js';
import { followRef, listOperations, loadOpenApi, type JsonObject, type OperationEntry } from './helpers/contract.js';
import { broken, oddStrings, otherType, valid } from './helpers/schema-arbitrary.js';
import { newKey, useBothTransports } from './helpers/stateful-mock.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.FUZZ_RUNS ?? 6);
const document = loadOpenApi();
const validator = contractValidator(document);
/** A key with nothing elided (part 5.3): the prefix and 16 or more key characters. */
const FULL_KEY = /sk_live_[A-Za-z0-9_-]{16,}/;

interface Generated {
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: string;
}

const parametersOf = (entry: OperationEntry): JsonObject[] =>
  [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])].map((p: JsonObject) => followRef(document, p));

/** A value for one parameter, as text: one its schema accepts, or one of another type or odd unicode. */
function parameterValue(parameter: JsonObject): fc.Arbitrary<string> {
  const schema = followRef(document, parameter.schema ?? {});
  return fc.oneof(valid(document, schema), otherType([schema.type].flat()), oddStrings).map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
}

function requestOf(entry: OperationEntry, key: string): fc.Arbitrary<Generated> {
  const parameters = parametersOf(entry);
  const pathParameters = parameters.filter((p) => p.in === 'path');
  const queryParameters = parameters.filter((p) => p.in === 'query');
  const headerParameters = parameters.filter((p) => p.in === 'header');
  const media = followRef(document, entry.operation.requestBody ?? null)?.content?.['application/json'];
  // A long poll holds for its `timeout`: a valid one waits the shortest the contract allows.
  const holds = '408' in (entry.operation.responses ?? {});
  const validBody = media
    ? valid(document, media.schema).map((body) => (holds && body && typeof body === 'object' && typeof (body as JsonObject).timeout === 'number' ? { ...(body as JsonObject), timeout: 1 } : body))
    : undefined;
  return fc.record({
    // A path segment is UTF-8 on the wire: a lone surrogate cannot be sent at all.
    path: fc.tuple(...pathParameters.map((p) => parameterValue(p).filter((value) => value.length > 0 && encodable(value)))).map((values) =>
      pathParameters.reduce((path, parameter, i) => path.replace(`{${parameter.name}}`, encodeURIComponent(values[i]!)), entry.path),
    ),
    query: fc.tuple(...queryParameters.map((p) => fc.option(parameterValue(p), { nil: undefined }))).map((values) => {
      const query = new URLSearchParams();
      queryParameters.forEach((parameter, i) => values[i] !== undefined && query.set(parameter.name, values[i]!));
      return query.size > 0 ? `?${query}` : '';
    }),
    headers: fc.tuple(...headerParameters.map((p) => fc.option(parameterValue(p).filter((v) => /^[\t\x20-\x7e]*$/.test(v)), { nil: undefined }))).map((values) => {
      const headers: Record<string, string> = { Authorization: `Bearer ${key}` };
      headerParameters.forEach((parameter, i) => values[i] !== undefined && (headers[parameter.name] = values[i]!));
      if (media) headers['Content-Type'] = 'application/json';
      return headers;
    }),
    body: validBody ? fc.oneof(validBody, broken(document, media.schema, validBody)).map((body) => JSON.stringify(body)) : fc.constant(undefined),
  });
}

/** Whether a string can go on the wire as UTF-8 (no lone surrogate). */
function encodable(value: string): boolean {
  try {
    encodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}

const tally = new Map<string, number>();
let requests = 0;

async function check(entry: OperationEntry, base: string, request: Generated): Promise<void> {
  const operationId = String(entry.operation.operationId);
  const response = await fetch(`${base}${request.path}${request.query}`, { method: entry.method.toUpperCase(), headers: request.headers, body: request.body });
  const text = await response.text();
  requests++;
  tally.set(String(response.status), (tally.get(String(response.status)) ?? 0) + 1);
  const where = `${operationId} ${request.path}${request.query} ${request.body ?? ''} → ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, where).toBeLessThan(500);
  expect(Object.keys(entry.operation.responses), where).toContain(String(response.status));
  const body = text ? JSON.parse(text) : undefined;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  expect(validator.response(operationId, { status: response.status, body, headers }), where).toEqual([]);
  // Only the sign-up's own documented `apiKey` may carry a key (part 5.3); nothing here gets that far.
  expect(FULL_KEY.test(text) && !/"apiKey"/.test(text), where).toBe(false);
}

const { bases } = useBothTransports();
afterAll(() => {
  const statuses = [...tally.entries()].sort(([a], [b]) => Number(a) - Number(b)).map(([status, n]) => `${status}: ${n}`).join(', ');
  console.log(`fuzz: ${requests} requests (seed ${SEED}, ${RUNS} runs per operation and transport), statuses ${statuses}; violations 0`);
});

describe.each(bases)('fuzz over %s', (_name, base) => {
  describe.concurrent('every operation', () => {
    it.each(listOperations(document).map((entry) => [String(entry.operation.operationId), entry] as const))('%s', async (operationId, entry) => {
      await fc.assert(
        fc.asyncProperty(requestOf(entry, newKey(`fuzz_${operationId}`)), (request) => check(entry, base(), request)),
        { seed: SEED, numRuns: RUNS, endOnFailure: false },
      );
    });
  });
});
