// What a frontend relies on from the real mock (front + Prism), beyond the happy path: API keys
// (part 5.1), schema-breaking requests (400 with the Error shape, never Prism's bare 422), CORS,
// and the known Prism 5.14 traps, tested rather than trusted.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSecuredOperations } from '../src/mock/route-facts.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { describeVerdict } from '../src/contract/verdict.js';
import { followRef, isJsonMediaType, loadOpenApi, type JsonObject, type OperationEntry } from './helpers/contract.js';
import { documentedRequest, listOperations, send, startTestMock, VALID_KEY, type DocumentedRequest, type TestMock } from './helpers/mock-server.js';

const document = loadOpenApi();
const validator = contractValidator(document);
const operations = listOperations(document);
const name = (entry: OperationEntry): string => `${entry.method.toUpperCase()} ${entry.path}`;

/** The four sign-up operations of part 4.1, the only ones without a key (part 5.1). */
const SIGN_UP = ['POST /api/v1/auth/signup', 'POST /api/v1/auth/verify', 'POST /api/v1/auth/register-number', 'POST /api/v1/auth/verify-number'];

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(async () => {
  await mock?.close();
});

/** The named examples of one documented response's JSON content. */
function documentedExamples(entry: OperationEntry, status: string): unknown[] {
  const response = followRef(document, entry.operation.responses?.[status]);
  const media = Object.entries<JsonObject>(response?.content ?? {}).find(([type]) => isJsonMediaType(type))?.[1];
  return Object.values<JsonObject>(media?.examples ?? {}).map((example) => followRef(document, example).value);
}

async function expectDocumentedError(response: Response, entry: OperationEntry, status: number): Promise<void> {
  const text = await response.text();
  expect(response.status, `${name(entry)} answered ${text}`).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text);
  expect(validator.value('#/components/schemas/Error', body, { of: 'response', in: 'body' }).map(describeVerdict)).toEqual([]);
  expect(documentedExamples(entry, String(status))).toContainEqual(body);
}

describe('API keys (part 5.1)', () => {
  const secured = operations.filter((entry) => listSecuredOperations(document).some((op) => op.method === entry.method && op.path === entry.path));

  it('derives the operations needing a key from the bundle: all but the four sign-up operations', () => {
    const open = operations.filter((entry) => !secured.includes(entry)).map(name);
    expect(open.sort()).toEqual([...SIGN_UP].sort());
    expect(secured.length).toBe(operations.length - SIGN_UP.length);
  });

  it.each(secured.map((entry) => [name(entry), entry] as const))('%s: no key, a key not beginning sk_live_, or another scheme get the documented 401', async (_n, entry) => {
    for (const key of [null, 'Bearer sk_test_4eC39HqLyjWDarjtT1zdp7dc', 'Bearer live_sk_abc', 'Basic c2tfbGl2ZV9hYmM6', 'sk_live_abc']) {
      const response = await send(mock.url, documentedRequest(document, entry, key));
      await expectDocumentedError(response, entry, 401);
    }
  });

  it('takes the scheme as Prism does: `Bearer` exactly', async () => {
    const entry = operations.find((candidate) => name(candidate) === 'GET /api/v1/account')!;
    await expectDocumentedError(await send(mock.url, documentedRequest(document, entry, 'bearer sk_live_lowercasescheme')), entry, 401);
  });

  it('checks the key before the body: no key and a broken body is 401', async () => {
    const entry = operations.find((candidate) => name(candidate) === 'POST /api/v1/messages')!;
    const request = { ...documentedRequest(document, entry, null), body: '[]' };
    await expectDocumentedError(await send(mock.url, request), entry, 401);
  });

  it.each(SIGN_UP)('%s needs no key, and ignores one that is not a key', async (signUp) => {
    const entry = operations.find((candidate) => name(candidate) === signUp)!;
    for (const key of [null, 'Bearer not-a-key']) {
      const response = await send(mock.url, documentedRequest(document, entry, key));
      expect(response.status, await response.text()).toBe(200);
    }
  });
});

/** A value of another JSON type than `value`. */
function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return 'not-the-documented-type';
  if (Array.isArray(value)) return 'not-an-array';
  return 'not-an-object';
}

interface BrokenBody {
  label: string;
  body: unknown;
}

/** Bodies that break the operation's request schema (each checked with ajv before it is sent). */
function brokenBodies(entry: OperationEntry, request: DocumentedRequest): BrokenBody[] {
  const candidates: BrokenBody[] = [{ label: 'a JSON array instead of an object', body: [] }];
  const example = request.json as JsonObject;
  const first = Object.keys(example ?? {})[0];
  if (first) candidates.push({ label: `"${first}" of the wrong type`, body: { ...example, [first]: wrongType(example[first]) } });
  // Where the body's schema is, in the bundle (the request body may itself be a $ref).
  const bodyPointer: string = entry.operation.requestBody.$ref ?? `${entry.pointer}/requestBody`;
  const schema = `${bodyPointer}/content/${request.headers['Content-Type']!.replace(/\//g, '~1')}/schema`;
  return candidates.filter((candidate) => !validator.accepts(schema, candidate.body));
}

const withJsonBody = operations.filter((entry) => documentedRequest(document, entry).body !== undefined);

describe('a request that breaks the schema gets 400 with the documented Error shape, never a bare 422', () => {
  it('every operation with a JSON body documents a 400', () => {
    expect(withJsonBody.filter((entry) => !entry.operation.responses?.['400']).map(name)).toEqual([]);
  });

  it.each(withJsonBody.map((entry) => [name(entry), entry] as const))('%s', async (_n, entry) => {
    const request = documentedRequest(document, entry);
    const broken = brokenBodies(entry, request);
    expect(broken.length, 'no schema-breaking body could be built').toBeGreaterThan(0);
    for (const { body } of broken) {
      const response = await send(mock.url, { ...request, body: JSON.stringify(body) });
      await expectDocumentedError(response, entry, 400);
    }
  });

  /** Query parameters whose schema a value can break: an enum, a date-time, a pattern. */
  const queryCases = operations.flatMap((entry) =>
    [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])]
      .map((raw: JsonObject) => followRef(document, raw))
      .filter((parameter) => parameter.in === 'query')
      .flatMap((parameter) => {
        const schema = followRef(document, parameter.schema ?? {});
        const value = schema.enum ? 'not-a-listed-value' : schema.format === 'date-time' ? 'not-a-timestamp' : schema.pattern ? 'x' : undefined;
        return value === undefined ? [] : [[`${name(entry)} ?${parameter.name}=${value}`, entry, parameter.name as string, value] as const];
      }),
  );

  it.each(queryCases)('%s', async (_n, entry, parameter, value) => {
    const request = documentedRequest(document, entry);
    const url = new URL(request.url, 'http://x');
    url.searchParams.set(parameter, value);
    const response = await send(mock.url, { ...request, url: `${url.pathname}${url.search}` });
    await expectDocumentedError(response, entry, 400);
  });

  it('a required query parameter left out is 400 too (GET /api/v1/lookup without number)', async () => {
    const entry = operations.find((candidate) => name(candidate) === 'GET /api/v1/lookup')!;
    const response = await send(mock.url, { ...documentedRequest(document, entry), url: '/api/v1/lookup' });
    await expectDocumentedError(response, entry, 400);
  });
});

describe('the exactly-one rules of part 4.5 (POST /api/v1/messages), kept by Prism from the schema', () => {
  const entry = operations.find((e) => e.method === 'post' && e.path === '/api/v1/messages')!;
  const request = documentedRequest(document, entry);
  const media = followRef(document, entry.operation.requestBody).content[request.headers['Content-Type']!];
  const sends = Object.values<JsonObject>(media.examples).map((example) => followRef(document, example).value as JsonObject);
  const toNumber = sends.find((s) => s.to && s.fromNumberId)!;
  const fromNumber = sends.find((s) => s.fromNumber)!.fromNumber;
  const group = sends.find((s) => s.groupId)!;

  it('accepts every documented send as it is', async () => {
    expect(sends.length).toBeGreaterThanOrEqual(2);
    for (const body of sends) {
      const response = await send(mock.url, { ...request, body: JSON.stringify(body) });
      expect(response.status, JSON.stringify(body)).toBeLessThan(300);
    }
  });

  it.each([
    ['`to` with `groupId`', () => ({ ...toNumber, groupId: group.groupId })],
    ['`groupId` with `to`', () => ({ ...group, to: toNumber.to })],
    ['neither `to` nor `groupId`', () => ({ ...toNumber, to: undefined })],
    ['`fromNumber` with `fromNumberId` on a `to` send', () => ({ ...toNumber, fromNumber })],
    ['a `to` send without `fromNumber` or `fromNumberId`', () => ({ ...toNumber, fromNumberId: undefined })],
  ])('refuses %s with the documented 400', async (_label, body) => {
    const response = await send(mock.url, { ...request, body: JSON.stringify(body()) });
    await expectDocumentedError(response, entry, 400);
  });
});

describe('known Prism 5.14 traps', () => {
  // stoplightio/prism#2574: a request body whose schema is one `$ref` shared by several operations
  // was passed unvalidated. Derived from the bundle, where the sharing is visible as `$ref`s.
  const sharedSchemas = new Map<string, OperationEntry[]>();
  for (const entry of withJsonBody) {
    for (const media of Object.values<JsonObject>(followRef(document, entry.operation.requestBody).content ?? {})) {
      const ref = media.schema?.$ref;
      if (ref) sharedSchemas.set(ref, [...(sharedSchemas.get(ref) ?? []), entry]);
    }
  }
  const shared = [...sharedSchemas].filter(([, users]) => users.length > 1);
  const sharedCases = shared.flatMap(([ref, users]) => users.map((entry) => [`${ref.split('/').pop()} via ${name(entry)}`, entry] as const));

  it('the bundle shares at least one request-body schema between operations (so #2574 is exercised)', () => {
    expect(shared.length).toBeGreaterThan(0);
  });

  it.each(sharedCases)('#2574: shared request schema %s is validated', async (_n, entry) => {
    const request = documentedRequest(document, entry);
    // Valid first, then broken: a validator that gave up after the first use would let it through.
    const ok = await send(mock.url, request);
    expect(ok.status).toBeLessThan(300);
    await ok.arrayBuffer();
    for (const { body } of brokenBodies(entry, request)) {
      await expectDocumentedError(await send(mock.url, { ...request, body: JSON.stringify(body) }), entry, 400);
    }
  });

  it('#2345: no schema uses `discriminator` (Prism 5.14 does not support oneOf with discriminator)', () => {
    const found: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === 'discriminator' && value && typeof value === 'object') found.push(at);
        walk(value, `${at}/${key}`);
      }
    };
    walk({ paths: document.paths, webhooks: document.webhooks, components: document.components }, '#');
    expect(found).toEqual([]);
  });

  it('#2345: the oneOf event union is served and validated without a discriminator (events/wait, every example)', async () => {
    const entry = operations.find((candidate) => name(candidate) === 'POST /api/v1/events/wait')!;
    const response = followRef(document, entry.operation.responses['200']);
    const names = Object.keys(response.content['application/json'].examples);
    expect(names.length).toBeGreaterThan(1);
    for (const example of names) {
      const answer = await send(mock.url, documentedRequest(document, entry), { Prefer: `example=${example}` });
      const body = await answer.json();
      expect(answer.status).toBe(200);
      expect(validator.value('#/components/schemas/AnyEvent', body, { of: 'response', in: 'body' }).map(describeVerdict), example).toEqual([]);
    }
  });
});

describe('the front passes requests on as they came', () => {
  it('a chunked JSON body (no Content-Length) is validated and answered like any other', async () => {
    const entry = operations.find((candidate) => name(candidate) === 'POST /api/v1/messages')!;
    const request = documentedRequest(document, entry);
    const status = (body: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const url = new URL(`${mock.url}${request.url}`);
        const outgoing = http.request(url, { method: 'POST', headers: request.headers }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        });
        outgoing.on('error', reject);
        // Two writes without a length: Node sends Transfer-Encoding: chunked.
        outgoing.write(body.slice(0, 5));
        outgoing.end(body.slice(5));
      });
    expect(await status(request.body!)).toBe(201);
    expect(await status('[1, 2, 3]')).toBe(400);
  });
});

describe('a fresh creation is 201 where a 200 replay is documented too (parts 4 and 7.2)', () => {
  const entry = operations.find((candidate) => name(candidate) === 'POST /api/v1/calls')!;
  const firstOf = (status: string): [string, unknown] => {
    const examples = followRef(document, entry.operation.responses[status]).content['application/json'].examples;
    const [exampleName, example] = Object.entries<JsonObject>(examples)[0]!;
    return [exampleName, followRef(document, example).value];
  };

  it('documents both, so the mock has to choose', () => {
    expect(Object.keys(entry.operation.responses)).toEqual(expect.arrayContaining(['200', '201']));
  });

  it('answers 201 with no Prefer, and with an example of the 201', async () => {
    const [exampleName, example] = firstOf('201');
    for (const prefer of [undefined, `example=${exampleName}`]) {
      const response = await send(mock.url, documentedRequest(document, entry), prefer ? { Prefer: prefer } : {});
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual(example);
    }
  });

  it('answers the 200 replay when asked with Prefer: code=200', async () => {
    const [exampleName, example] = firstOf('200');
    const response = await send(mock.url, documentedRequest(document, entry), { Prefer: `code=200, example=${exampleName}` });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(example);
  });

  it('still answers 401 without a key and 400 for a broken body', async () => {
    await expectDocumentedError(await send(mock.url, documentedRequest(document, entry, null)), entry, 401);
    await expectDocumentedError(await send(mock.url, { ...documentedRequest(document, entry), body: '[]' }), entry, 400);
  });
});

describe('dynamic examples', () => {
  it('Prefer: dynamic=true still generates a JSON body (Prism loads faker English-only, see prism-child.ts)', async () => {
    const entry = operations.find((candidate) => name(candidate) === 'GET /api/v1/account')!;
    const response = await send(mock.url, documentedRequest(document, entry), { Prefer: 'dynamic=true' });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toHaveProperty('apiKeys');
    // Generated, not the documented example.
    const documented = documentedExamples(entry, '200');
    expect(documented).not.toContainEqual(body);
  });
});

describe('CORS from a browser origin, for a bearer-token API (the front answers it, as the stateful mock does)', () => {
  const origin = 'http://localhost:5173';

  it('answers a preflight for a keyed JSON POST', async () => {
    const response = await fetch(`${mock.url}/api/v1/messages`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,prefer' },
    });
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
  });

  it('lets the browser read a cross-origin answer, a 401 included', async () => {
    for (const key of [VALID_KEY, undefined]) {
      const response = await fetch(`${mock.url}/api/v1/account`, { headers: { Origin: origin, ...(key ? { Authorization: key } : {}) } });
      expect(response.status).toBe(key ? 200 : 401);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      await response.arrayBuffer();
    }
  });
});
