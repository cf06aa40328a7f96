// Every documented operation on the real mock (front + Prism): a valid request built from its
// documented examples gets its documented success status and a body valid against its schema;
// every named example can be selected with `Prefer`; and Prism's static mode serves the documented
// example itself, never a body sampled from the schema (stoplightio/prism#2726).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listExampleNames, preferHeaderFor } from '../src/mock/example-names.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { describeVerdict } from '../src/contract/verdict.js';
import { childPointer, followRef, isJsonMediaType, loadOpenApi, pointerOf } from './helpers/contract.js';
import { defaultSuccessStatus, documentedRequest, listOperations, send, startTestMock, type TestMock } from './helpers/mock-server.js';

const document = loadOpenApi();
const validator = contractValidator(document);
const operations = listOperations(document);

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(async () => {
  await mock?.close();
});

/** The JSON media type of a response, with its pointer. */
function jsonContent(status: string, entry: (typeof operations)[number]) {
  const response = followRef(document, entry.operation.responses[status]);
  const found = Object.entries<Record<string, unknown>>(response?.content ?? {}).find(([type]) => isJsonMediaType(type));
  if (!found) return undefined;
  const [mediaType, media] = found;
  // Validate against the schema where the operation references it (the bundle keeps $refs).
  const responseRef: string | undefined = entry.operation.responses[status].$ref;
  const base = responseRef ?? pointerOf(['paths', entry.path, entry.method, 'responses', status]);
  return { mediaType, media: media as Record<string, any>, schemaPointer: childPointer(base, 'content', mediaType, 'schema') };
}

describe('every documented operation answers its documented success', () => {
  it('covers every operation of the bundle', () => {
    expect(operations.length).toBeGreaterThanOrEqual(33);
  });

  it.each(operations.map((entry) => [`${entry.method.toUpperCase()} ${entry.path}`, entry] as const))('%s', async (_name, entry) => {
    const request = documentedRequest(document, entry);
    const response = await send(mock.url, request);
    const status = defaultSuccessStatus(entry);
    const text = await response.text();
    expect(response.status, `${request.method} ${request.url} answered ${text}`).toBe(Number(status));
    const content = jsonContent(status, entry);
    if (!content) return;
    expect(response.headers.get('content-type')).toMatch(/json/);
    const body = JSON.parse(text);
    expect(validator.value(content.schemaPointer, body, { of: 'response', in: 'body' }).map(describeVerdict)).toEqual([]);
    // Static mode serves the first documented example as it is written (#2726 would sample),
    // except where a rule of the interface specification sets a field (src/mock/rules/): a usage
    // request without `days` is for the default window, 30 days (part 4.3); a page of billing
    // activity that holds every item has no more (parts 4.4 and 8).
    const first = followRef(document, Object.values<Record<string, unknown>>(content.media.examples ?? {})[0]).value;
    const byRule: Record<string, Record<string, unknown>> = { getUsage: { periodDays: 30 }, listBillingActivity: { hasMore: false } };
    const set = byRule[entry.operation.operationId];
    expect(body).toEqual(set ? { ...(first as Record<string, unknown>), ...set } : first);
  });
});

describe('Prefer selects every documented example (stoplightio/prism static mode)', () => {
  const cases = listExampleNames(document).flatMap((operation) => {
    const entry = operations.find((candidate) => candidate.method.toUpperCase() === operation.method && candidate.path === operation.path)!;
    return operation.responses
      .filter((response) => isJsonMediaType(response.mediaType))
      .flatMap((response) =>
        response.names.map((name) => [`${operation.method} ${operation.path} ${response.status} ${name}`, entry, operation, response.status, name] as const),
      );
  });

  it('has examples to select for every operation', () => {
    const withoutExamples = listExampleNames(document).filter((operation) => operation.responses.length === 0);
    expect(withoutExamples.map((operation) => `${operation.method} ${operation.path}`)).toEqual([]);
  });

  it('every JSON response documents named examples, so static mode never falls back to sampling the schema (#2726)', () => {
    const missing: string[] = [];
    for (const entry of operations) {
      for (const status of Object.keys(entry.operation.responses ?? {})) {
        const content = jsonContent(status, entry);
        if (content && Object.keys(content.media.examples ?? {}).length === 0 && content.media.example === undefined) {
          missing.push(`${entry.method.toUpperCase()} ${entry.path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it.each(cases)('%s', async (_name, entry, operation, status, name) => {
    const prefer = preferHeaderFor(operation, status, name);
    const response = await send(mock.url, documentedRequest(document, entry), { Prefer: prefer });
    const text = await response.text();
    expect(response.status, `Prefer: ${prefer} answered ${text}`).toBe(Number(status));
    const content = jsonContent(status, entry)!;
    expect(JSON.parse(text)).toEqual(followRef(document, content.media.examples[name]).value);
  });

  it('Prefer: code=402 on POST /api/v1/messages answers the documented 402 with the Error shape', async () => {
    const entry = operations.find((candidate) => candidate.method === 'post' && candidate.path === '/api/v1/messages')!;
    const response = await send(mock.url, documentedRequest(document, entry), { Prefer: 'code=402' });
    expect(response.status).toBe(402);
    const body = await response.json();
    expect(validator.value('#/components/schemas/Error', body, { of: 'response', in: 'body' }).map(describeVerdict)).toEqual([]);
  });

  it('an example name that is not documented is refused by Prism, not silently replaced', async () => {
    const entry = operations.find((candidate) => candidate.method === 'get' && candidate.path === '/api/v1/account')!;
    const response = await send(mock.url, documentedRequest(document, entry), { Prefer: 'example=noSuchExampleName' });
    expect(response.status).toBe(404);
    await response.arrayBuffer();
  });
});
