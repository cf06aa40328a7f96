// Why the contract diff (scripts/diff/) does not delegate to api-smart-diff 1.0.6, the library the
// team evaluated first: these are the behaviours that rule it out for this contract, pinned so
// that a future version can be re-evaluated (when one of these fails, look again).
import { apiCompare } from 'api-smart-diff';
import { describe, expect, it } from 'vitest';
import { diffContracts } from '../scripts/diff/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const openapi = (response: Json, extra: Json = {}): Json => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1.0.0' },
  paths: {
    '/api/v1/things': {
      get: { responses: { '200': { description: 'ok', content: { 'application/json': { schema: response } } } } },
    },
  },
  ...extra,
});
const obj = (properties: Json, required: string[] = []) => ({ type: 'object', properties, required });
const types = (before: Json, after: Json) => apiCompare(before, after).diffs.map((d) => d.type);

describe('api-smart-diff 1.0.6 against the rules of this contract', () => {
  it('calls a removed optional response field non-breaking (ours: breaking)', () => {
    const before = openapi(obj({ a: { type: 'string' }, b: { type: 'string' } }));
    const after = openapi(obj({ a: { type: 'string' } }));
    expect(types(before, after)).toEqual(['non-breaking']);
    expect(diffContracts({ openapi: before }, { openapi: after }).summary.breaking).toBe(1);
  });

  it('calls a changed response type and a response field becoming nullable non-breaking (ours: breaking)', () => {
    expect(types(openapi(obj({ a: { type: 'string' } })), openapi(obj({ a: { type: 'integer' } })))).toEqual(['non-breaking']);
    expect(types(openapi(obj({ a: { type: 'string' } })), openapi(obj({ a: { type: ['string', 'null'] } })))).toEqual(['non-breaking']);
  });

  it('calls a value added to an open enum breaking (ours: non-breaking)', () => {
    const open = (values: string[]) => openapi(obj({ k: { anyOf: [...values.map((v) => ({ const: v })), { type: 'string' }] } }));
    expect(types(open(['x']), open(['x', 'y']))).toContain('breaking');
    expect(diffContracts({ openapi: open(['x']) }, { openapi: open(['x', 'y']) }).summary.breaking).toBe(0);
  });

  it('does not compare 3.1 webhooks whose payload is a $ref', () => {
    const hook = (props: Json) =>
      openapi(obj({}), {
        webhooks: { ev: { post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/E' } } } }, responses: { '200': { description: 'ok' } } } } },
        components: { schemas: { E: obj(props) } },
      });
    const before = hook({ a: { type: 'string' }, b: { type: 'string' } });
    const after = hook({ a: { type: 'string' } });
    expect(apiCompare(before, after).diffs.filter((d) => d.path[0] === 'webhooks')).toEqual([]);
    expect(diffContracts({ openapi: before }, { openapi: after }).changes.find((c) => c.code === 'property-removed')?.affects).toEqual([
      'webhook ev (POST) · delivered payload (application/json)',
    ]);
  });

  it('does not read AsyncAPI 3.0: every change is unclassified', () => {
    const doc = (props: Json) => ({
      asyncapi: '3.0.0',
      info: { title: 't', version: '1.0.0' },
      channels: { c: { address: 'c', messages: { m: { payload: obj(props) } } } },
      operations: { s: { action: 'send', channel: { $ref: '#/channels/c' } } },
    });
    expect(types(doc({ a: { type: 'string' }, b: { type: 'string' } }), doc({ a: { type: 'string' } }))).toEqual(['unclassified']);
  });
});
