// Prototype-named strings never reach an object's prototype (issue 21): `__proto__`,
// `constructor`, `toString`, `hasOwnProperty` and `prototype` sent as every path id, every query
// and header parameter, and as body keys, of every operation, to both transports (the HTTP mock
// and the MSW handlers). Every answer is a status the operation documents, its body valid against
// the contract, never a 5xx; and Object.prototype is untouched afterwards.
import { setupServer } from 'msw/node';
import { describe, expect, it } from 'vitest';
import { createHandlers } from '../src/msw/index.js';
import { contractValidator } from '../src/contract/contract-validator.js';
import { followRef, listOperations, loadOpenApi, type JsonObject, type OperationEntry } from './helpers/contract.js';
import { documentedRequest, type CorpusRequest } from './helpers/mock-server.js';
import { client, MSW_BASE, newKey, useBothTransports } from './helpers/stateful-mock.js';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype'] as const;
const document = loadOpenApi();
const validator = contractValidator(document);

/** A request that carries one of the names where a user string goes. */
type Probe = CorpusRequest;

function parametersOf(entry: OperationEntry): JsonObject[] {
  return [...(entry.pathItem.parameters ?? []), ...(entry.operation.parameters ?? [])].map((p: JsonObject) => followRef(document, p));
}

function probesFor(entry: OperationEntry, key: string): Probe[] {
  const operationId = String(entry.operation.operationId);
  const base = documentedRequest(document, entry, `Bearer ${key}`);
  // A long poll waits its `timeout` for nothing here: the shortest the contract allows (part 8: 1 to 60 s).
  if (base.json && typeof (base.json as JsonObject).timeout === 'number') {
    const schema = followRef(document, followRef(document, entry.operation.requestBody).content['application/json'].schema);
    base.json = { ...(base.json as JsonObject), timeout: followRef(document, schema.properties.timeout).minimum };
    base.body = JSON.stringify(base.json);
  }
  const probes: Probe[] = [];
  const parameters = parametersOf(entry);
  for (const hostile of NAMES) {
    const add = (where: string, change: Partial<Probe>) =>
      probes.push({ name: `${operationId}: ${hostile} as ${where}`, operationId, method: base.method, url: base.url, headers: { ...base.headers }, ...(base.body ? { body: base.body } : {}), ...change });
    let path = entry.path;
    const pathNames = parameters.filter((p) => p.in === 'path').map((p) => p.name as string);
    for (const name of pathNames) path = path.replace(`{${name}}`, encodeURIComponent(hostile));
    if (pathNames.length > 0) add('every path id', { url: `${path}${base.url.includes('?') ? base.url.slice(base.url.indexOf('?')) : ''}` });
    for (const parameter of parameters.filter((p) => p.in === 'query')) {
      const [pathname, query = ''] = base.url.split('?');
      const params = new URLSearchParams(query);
      params.set(parameter.name, hostile);
      add(`query ${parameter.name}`, { url: `${pathname}?${params}` });
    }
    for (const parameter of parameters.filter((p) => p.in === 'header')) add(`header ${parameter.name}`, { headers: { ...base.headers, [parameter.name]: hostile } });
    // A query parameter the operation does not know, named so: every operation has this probe.
    add('an unknown query parameter', { url: `${base.url}${base.url.includes('?') ? '&' : '?'}${encodeURIComponent(hostile)}=${encodeURIComponent(hostile)}` });
    if (base.json && typeof base.json === 'object' && !Array.isArray(base.json)) {
      // A key named so, at the top and one level down, as a JSON text (JSON.stringify would drop `__proto__` of a literal).
      const text = base.body!.replace(/^\{/, `{"${hostile}": {"${hostile}": "x", "polluted": true},`);
      add('a body key', { body: text });
    }
  }
  return probes;
}

type Send = (probe: Probe) => Promise<{ status: number; body: unknown }>;

async function sendOver(baseUrl: string, probe: Probe): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseUrl}${probe.url}`, { method: probe.method, headers: probe.headers, body: probe.body });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function expectDocumented(probe: Probe, answer: { status: number; body: unknown }): void {
  const where = `${probe.name} → ${answer.status} ${JSON.stringify(answer.body)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(Object.keys(followRef(document, listOperations(document).find((e) => e.operation.operationId === probe.operationId)!.operation).responses), where).toContain(String(answer.status));
  expect(validator.response(probe.operationId, { status: answer.status, body: answer.body }), where).toEqual([]);
}

function runCorpus(transport: string, send: () => Send): void {
  describe(`${transport}: every operation, every hostile name`, () => {
    // A key per operation: DELETE /api/v1/account revokes its own key only.
    const probes = listOperations(document).flatMap((entry) => probesFor(entry, newKey(`hostile_${String(entry.operation.operationId)}`)));

    it('covers every operation', () => {
      expect(new Set(probes.map((probe) => probe.operationId)).size).toBe(listOperations(document).length);
    });

    it.concurrent.each(probes.map((probe) => [probe.name, probe] as const))('%s', async (_name, probe) => {
      expectDocumented(probe, await send()(probe));
    });

    it('an invoice id named toString, hasOwnProperty or __proto__ is the documented 404', async () => {
      const key = newKey('hostile_invoice');
      for (const id of ['toString', 'hasOwnProperty', '__proto__', 'constructor']) {
        const probe: Probe = { name: `invoice ${id}`, operationId: 'getInvoice', method: 'GET', url: `/api/v1/billing/invoices/${encodeURIComponent(id)}`, headers: { authorization: `Bearer ${key}` } };
        const answer = await send()(probe);
        expect(answer.status, id).toBe(404);
        expectDocumented(probe, answer);
      }
    });

    it('Idempotency-Key: __proto__ sent twice places one call and replays it (part 7.2)', async () => {
      const entry = listOperations(document).find((e) => e.operation.operationId === 'createCall')!;
      const callKey = newKey('hostile_idem');
      const base = documentedRequest(document, entry, `Bearer ${callKey}`);
      const probe: Probe = { name: 'call', operationId: 'createCall', method: 'POST', url: base.url, headers: { ...base.headers, 'Idempotency-Key': '__proto__' }, body: base.body! };
      const first = await send()(probe);
      const second = await send()(probe);
      expect([first.status, second.status]).toEqual([201, 200]);
      expect((second.body as { id: string }).id).toBe((first.body as { id: string }).id);
    });

    it('leaves Object.prototype as it was', () => {
      expect(Object.keys(Object.prototype)).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });
}

const transports = useBothTransports();
for (const [name, base] of transports.bases) runCorpus(name, () => (probe) => sendOver(base(), probe));

describe('the key rule comes first', () => {
  it('under --strict-keys a Prefer request with an unknown key is 401, not the example it names', async () => {
    const strict = createHandlers({ strictKeys: true, validateResponses: 'strict' });
    const local = setupServer(...strict.handlers);
    transports.server.close();
    local.listen({ onUnhandledRequest: 'bypass' });
    try {
      const named = await client(MSW_BASE, newKey('stranger'))('GET', '/api/v1/account', undefined, { Prefer: 'example=paidAccount' });
      expect(named.status).toBe(401);
    } finally {
      local.close();
      strict.control.stop();
      transports.server.listen({ onUnhandledRequest: 'bypass' });
    }
  });
});
