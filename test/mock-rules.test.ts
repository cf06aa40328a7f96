// The rules of the interface specification the mock keeps on top of Prism's examples
// (src/mock/rules/), on the real mock (front + Prism), once. Each test fails when its rule is
// taken out of MOCK_RULES: an unknown id answers 404 (part 7), usage `days` sets periodDays
// (part 4.3), billing activity is paged newest first with `filter`, `starting_after` and `limit`
// (parts 4.4 and 8), by the function the stateful mock pages with. A request that names its answer
// with `Prefer` gets exactly that, rules or not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedIds } from '../src/mock/rules/documented-ids.js';
import { MOCK_RULES, rulesFor } from '../src/mock/rules/index.js';
import { followRef, isJsonMediaType, loadOpenApi, type JsonObject, type OperationEntry } from './helpers/contract.js';
import { defaultSuccessStatus, documentedRequest, listOperations, send, startTestMock, VALID_KEY, type TestMock } from './helpers/mock-server.js';

const document = loadOpenApi();
const operations = listOperations(document);
const name = (entry: OperationEntry): string => `${entry.method.toUpperCase()} ${entry.path}`;
const byId = (operationId: string): OperationEntry => operations.find((entry) => entry.operation.operationId === operationId)!;

let mock: TestMock;
beforeAll(async () => {
  mock = await startTestMock();
});
afterAll(async () => {
  await mock?.close();
});

/** The named example values of one documented JSON response, in document order. */
function examplesOf(entry: OperationEntry, status: string): { name: string; value: JsonObject }[] {
  const response = followRef(document, entry.operation.responses?.[status]);
  const media = Object.entries<JsonObject>(response?.content ?? {}).find(([type]) => isJsonMediaType(type))?.[1];
  return Object.entries<JsonObject>(media?.examples ?? {}).map(([key, example]) => ({ name: key, value: followRef(document, example).value }));
}

function pathParameters(entry: OperationEntry): JsonObject[] {
  return [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])]
    .map((raw: JsonObject) => followRef(document, raw))
    .filter((parameter) => parameter.in === 'path');
}

/** The documented request with its path parameters set to `ids` (by name) and `query` added. */
function requestWith(entry: OperationEntry, ids: Record<string, string> = {}, query: Record<string, string> = {}, key: string | null = VALID_KEY) {
  const request = documentedRequest(document, entry, key);
  let path = entry.path;
  for (const parameter of pathParameters(entry)) {
    const value = ids[parameter.name] ?? String(parameter.example);
    path = path.replace(`{${parameter.name}}`, encodeURIComponent(value));
  }
  const url = new URL(`${path}${request.url.slice(request.url.indexOf('?') >= 0 ? request.url.indexOf('?') : request.url.length)}`, 'http://x');
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return { ...request, url: `${url.pathname}${url.search}` };
}

async function answer(entry: OperationEntry, ids?: Record<string, string>, query?: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await send(mock.url, requestWith(entry, ids, query), headers);
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
}

describe('where the rules apply, derived from the bundle', () => {
  it('names each rule with its part', () => {
    expect(MOCK_RULES.map((rule) => `${rule.name} (part ${rule.part})`)).toEqual([
      'unknown-resource-404 (part 7)',
      'usage-days-fallback (part 4.3)',
      'billing-activity-page (part 4.4, 8)',
    ]);
  });

  it('binds rules only to the operations they touch: GET /api/v1/account (the bench path) has none, so its answer is never parsed', () => {
    const touched = operations.filter((entry) => rulesFor(document, entry).length > 0);
    const expected = operations.filter(
      (entry) => pathParameters(entry).length > 0 && '404' in (entry.operation.responses ?? {}) || ['getUsage', 'listBillingActivity'].includes(entry.operation.operationId),
    );
    expect(touched.map(name).sort()).toEqual(expected.map(name).sort());
    expect(rulesFor(document, byId('getAccount'))).toEqual([]);
  });
});

// Every operation on one resource by id that documents a 404, from the bundle.
const byIdOperations = operations.filter((entry) => pathParameters(entry).length > 0 && '404' in (entry.operation.responses ?? {}));

describe('unknown-resource-404 (part 7): an id not on the account answers the documented 404', () => {
  it('covers the operations by id', () => {
    expect(byIdOperations.length).toBeGreaterThanOrEqual(6);
  });

  it('knows the ids the examples use: the parameter example and the same resource in response examples', () => {
    const numberId = pathParameters(byId('getTenDlcRegistration'))[0]!;
    const ids = [...documentedIds(document, numberId)];
    const listed = examplesOf(byId('listNumbers'), '200').flatMap(({ value }) => (value as unknown as JsonObject[]).map((n) => n.id));
    expect(ids).toEqual(expect.arrayContaining([numberId.example, ...listed]));
    expect(ids.every((id) => id.startsWith('pn_'))).toBe(true);
    const invoiceIds = [...documentedIds(document, pathParameters(byId('getInvoice'))[0]!)];
    expect(invoiceIds.length).toBeGreaterThan(1);
    expect(invoiceIds.every((id) => id.startsWith('in_'))).toBe(true);
  });

  it.each(byIdOperations.map((entry) => [name(entry), entry] as const))('%s', async (_n, entry) => {
    const parameters = pathParameters(entry);
    // Every documented id is found, with the operation's default success.
    for (const parameter of parameters) {
      for (const id of documentedIds(document, parameter)) {
        const found = await answer(entry, { [parameter.name]: id });
        expect(found.status, `${parameter.name}=${id}: ${found.text}`).toBe(Number(defaultSuccessStatus(entry)));
      }
    }
    const unknownIds = Object.fromEntries(parameters.map((p) => [p.name, `${/^[a-z]+_/i.exec(String(p.example))?.[0] ?? ''}notonthisaccount`]));
    const missing = await answer(entry, unknownIds);
    expect(missing.status, missing.text).toBe(404);
    expect(missing.body).toEqual(examplesOf(entry, '404')[0]!.value);
    // The key is checked first: no key and an unknown id is 401.
    const unauthenticated = await send(mock.url, requestWith(entry, unknownIds, {}, null));
    expect(unauthenticated.status).toBe(401);
    await unauthenticated.arrayBuffer();
    // A request that names its answer gets it, even for an unknown id.
    const success = defaultSuccessStatus(entry);
    const asked = await answer(entry, unknownIds, {}, { Prefer: `code=${success}` });
    expect(asked.status, asked.text).toBe(Number(success));
    const first = examplesOf(entry, success)[0];
    if (first) {
      const named = await answer(entry, unknownIds, {}, { Prefer: `example=${first.name}` });
      expect(named.status).toBe(Number(success));
      expect(named.body).toEqual(first.value);
    }
  });
});

describe('usage-days-fallback (part 4.3): periodDays is days when 7, 30 or 90, else 30', () => {
  const usage = byId('getUsage');
  const first = examplesOf(usage, '200')[0]!;
  const cases: [string | undefined, number][] = [['7', 7], ['30', 30], ['90', 90], ['45', 30], ['0', 30], ['-7', 30], ['abc', 30], ['7.5', 30], [undefined, 30]];

  it.each(cases)('days=%s answers periodDays %i, the rest of the first example as documented', async (days, periodDays) => {
    const { status, body, text } = await answer(usage, {}, days === undefined ? {} : { days });
    expect(status, text).toBe(200);
    expect(body).toEqual({ ...first.value, periodDays });
  });

  it('a named example is served as documented, whatever days says', async () => {
    for (const { name: example, value } of examplesOf(usage, '200')) {
      const { body } = await answer(usage, {}, { days: '90' }, { Prefer: `example=${example}` });
      expect(body).toEqual(value);
      expect(value.periodDays).not.toBe(90);
    }
  });
});

describe('billing activity (parts 4.4 and 8): filter, newest first, starting_after, limit and hasMore', () => {
  const activity = byId('listBillingActivity');
  const firstPage = examplesOf(activity, '200')[0]!;
  const documentedItems = firstPage.value.items as JsonObject[];
  const newestFirst = [...documentedItems].sort((a, b) => Date.parse(b.occurredAt) - Date.parse(a.occurredAt));

  it('the documented first page has several items and more to come (what the rules are judged on)', () => {
    expect(documentedItems.length).toBeGreaterThanOrEqual(2);
    expect(firstPage.value.hasMore).toBe(true);
  });

  const page = () => rulesFor(document, activity).find((rule) => rule.name === 'billing-activity-page')!;
  const defaultLimit = followRef(document, (activity.operation.parameters as JsonObject[]).map((p) => followRef(document, p)).find((p) => p.name === 'limit')!.schema).default as number;

  it('starting_after returns only strictly older items, newest first', async () => {
    for (let i = 0; i < newestFirst.length; i++) {
      const cursor = newestFirst[i]!.occurredAt as string;
      const { status, body } = await answer(activity, {}, { starting_after: cursor });
      expect(status).toBe(200);
      expect(body.items).toEqual(newestFirst.slice(i + 1));
    }
    // A cursor newer than everything returns everything; the last page is the documented empty one.
    expect((await answer(activity, {}, { starting_after: '2999-01-01T00:00:00Z' })).body.items).toEqual(newestFirst);
    const last = examplesOf(activity, '200').find(({ value }) => (value.items as unknown[]).length === 0)!;
    expect((await answer(activity, {}, { starting_after: newestFirst.at(-1)!.occurredAt as string })).body).toEqual(last.value);
  });

  it('the ledger is put newest first whatever order the example holds', () => {
    const shuffled = { items: [...newestFirst].reverse(), hasMore: true };
    const body = page().rewrite!.apply(shuffled, { params: {}, query: new URLSearchParams() });
    expect(body.items).toEqual(newestFirst);
  });

  it('filter keeps the items of its type', async () => {
    for (const type of new Set(newestFirst.map((item) => item.type as string))) {
      const { status, body } = await answer(activity, {}, { filter: type });
      expect(status).toBe(200);
      expect(body.items).toEqual(newestFirst.filter((item) => item.type === type));
    }
  });

  it.each([
    ['1', 1],
    ['0', 1],
    ['-3', 1],
    ['2', 2],
    ['500', 100],
  ] as const)('limit=%s holds at most %i items, and hasMore says whether it cut', async (limit, max) => {
    const { status, body } = await answer(activity, {}, { limit });
    expect(status).toBe(200);
    const expected = newestFirst.slice(0, max);
    expect(body.items).toEqual(expected);
    expect(body.hasMore).toBe(expected.length < newestFirst.length);
  });

  it('never more than 100 items; without limit, the contract\'s default (x-inferred), as the stateful mock pages', () => {
    expect(defaultLimit).toBeGreaterThanOrEqual(1);
    expect(defaultLimit).toBeLessThanOrEqual(100);
    const many = Array.from({ length: 150 }, (_, i) => ({ type: 'usage', occurredAt: new Date(Date.UTC(2026, 0, 1) - i * 60_000).toISOString() }));
    for (const [query, size] of [['', defaultLimit], ['limit=500', 100]] as const) {
      const body = page().rewrite!.apply({ items: [...many], hasMore: false }, { params: {}, query: new URLSearchParams(query) });
      expect(body.items).toHaveLength(size);
      expect(body.hasMore).toBe(true);
    }
  });

  it('without limit or starting_after, the documented first page\'s items are served newest first, and nothing was cut', async () => {
    expect((await answer(activity)).body).toEqual({ ...firstPage.value, items: newestFirst, hasMore: false });
  });

  it('a named example is served as documented, whatever the query says', async () => {
    const { body } = await answer(activity, {}, { limit: '1' }, { Prefer: `example=${firstPage.name}` });
    expect(body).toEqual(firstPage.value);
  });
});
