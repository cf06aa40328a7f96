// The contract validator's verdicts (src/contract/contract-validator.ts, src/contract/verdict.ts):
// for each kind of break, what a verdict says as data: the rule (keyword, params), where in the
// request or answer (place, parameter, instance path, field), where in the contract (the schema
// object and its component), the union branch judged, the part, documented or inferred, expected
// and actual. Each row is a break a broken validator would report differently (a lost branch, a
// severity from the container instead of the rule, a field without the missing property ...).
import { describe, expect, it } from 'vitest';
import { contractValidator, type JudgedRequest } from '../src/contract/contract-validator.js';
import type { Verdict } from '../src/contract/verdict.js';
import { loadOpenApi } from './helpers/contract.js';

const document = loadOpenApi();
const validator = contractValidator(document);
const request = (body: unknown, query = '', headers: Record<string, string> = {}): JudgedRequest => ({ query: new URLSearchParams(query), headers, body });
const event = { id: 'evt_1', object: 'event', type: 'webhook.ping', version: 1, createdAt: '2026-11-21T10:00:00Z', relatedObject: null, data: {} };

interface Case {
  given: () => Verdict[];
  /** The verdicts a person is shown (judged, not a union's own), each matching. */
  want: Array<Partial<Verdict> & Record<string, unknown>>;
}

const cases: Array<[string, Case]> = [
  [
    'a body of a union is judged by the branch it means, the others kept but not judged',
    {
      given: () => validator.request('sendMessage', request({ to: '12345', fromNumberId: 'pn_8f3kq2m9x7', body: 'hi' })),
      want: [
        {
          of: 'request',
          in: 'body',
          keyword: 'pattern',
          instancePath: '/to',
          field: ['to'],
          schema: { pointer: '#/components/schemas/E164', component: 'E164' },
          branch: expect.objectContaining({ keyword: 'oneOf', pointer: '#/components/schemas/SendMessageRequest/oneOf', index: 1 }),
          judged: true,
          part: '4.5, 7, 8',
          severity: 'documented',
          expected: '^\\+[1-9][0-9]{1,14}$',
          actual: { type: 'string', value: '12345' },
          errorMessage: 'Invalid phone number',
        },
      ],
    },
  ],
  [
    // Before: UnknownEvent (more required fields sent) was judged, and the one cause was hidden under `/type must NOT be valid`.
    'an event of a documented type is judged by the branch its `type` fixes, its one break shown',
    {
      given: () => validator.value('#/components/schemas/AnyEvent', { ...event, type: 'message.received', relatedObject: { id: 'msg_1', type: 'message', url: null }, data: { messageId: 42, from: '+14155550123', to: '+14155550142', groupId: null, channel: 'sms', body: 'hi', media: [], replyToId: null, reaction: null, source: 'external' } }, { of: 'response', in: 'body' }),
      want: [{ keyword: 'type', instancePath: '/data/messageId', branch: expect.objectContaining({ pointer: '#/components/schemas/AnyEvent/oneOf', index: 0, title: 'KnownEvent' }), actual: { type: 'integer', value: 42 } }],
    },
  ],
  [
    'an event of an unknown type is judged as the open envelope, whatever its data',
    {
      given: () => validator.value('#/components/schemas/AnyEvent', { ...event, type: 'number.ported', createdAt: 'yesterday' }, { of: 'response', in: 'body' }),
      want: [{ keyword: 'format', instancePath: '/createdAt', branch: expect.objectContaining({ pointer: '#/components/schemas/AnyEvent/oneOf', index: 1, title: 'UnknownEvent' }) }],
    },
  ],
  [
    'a required body not sent is its own rule',
    { given: () => validator.request('sendMessage', request(undefined)), want: [{ in: 'body', keyword: 'bodyRequired', field: [], actual: { type: 'missing' } }] },
  ],
  [
    'a query parameter names itself and its schema',
    {
      given: () => validator.request('listBillingActivity', request(undefined, 'filter=bogus')),
      want: [
        {
          in: 'query',
          parameter: 'filter',
          keyword: 'enum',
          params: { allowedValues: ['all', 'usage', 'payment-credits'] },
          field: ['filter'],
          schema: { pointer: '#/paths/~1api~1v1~1billing~1activity/get/parameters/0/schema' },
          actual: { type: 'string', value: 'bogus' },
        },
      ],
    },
  ],
  [
    'a documented value of an answer is documented',
    {
      given: () => validator.response('getAccount', { status: 200, body: { maxCallDurationSeconds: 59, limits: null } }),
      want: [{ of: 'response', keyword: 'minimum', params: { comparison: '>=', limit: 60 }, field: ['maxCallDurationSeconds'], schema: { pointer: '#/components/schemas/CallDurationSetting', component: 'CallDurationSetting' }, severity: 'documented', expected: 60, actual: { type: 'integer', value: 59 } }],
    },
  ],
  [
    'a field under an x-inferred marker is inferred',
    {
      given: () => validator.response('getAccount', { status: 200, body: { maxCallDurationSeconds: null, limits: null, apiKeys: 'x' } }),
      want: [{ keyword: 'type', field: ['apiKeys'], severity: 'inferred', actual: { type: 'string', value: 'x' } }],
    },
  ],
  [
    'a missing property names itself, and what came instead (a near miss)',
    {
      given: () => {
        const { createdAt, ...rest } = event;
        return validator.value('#/components/schemas/Event', { ...rest, created_at: createdAt }, { of: 'response', in: 'body' });
      },
      want: [{ keyword: 'required', params: { missingProperty: 'createdAt' }, instancePath: '', field: ['createdAt'], schema: { pointer: '#/components/schemas/Event', component: 'Event' }, actual: { type: 'object', properties: expect.arrayContaining(['created_at']) } }],
    },
  ],
  [
    'a required header missing from an answer',
    {
      given: () => validator.response('lookupNumber', { status: 429, headers: {}, body: { error: 'Too many lookups.', code: 'rate_limited' } }),
      want: [{ of: 'response', in: 'header', parameter: 'Retry-After', keyword: 'required', field: ['Retry-After'] }],
    },
  ],
  [
    'a status the operation does not document',
    { given: () => validator.response('getAccount', { status: 418, body: {} }), want: [{ of: 'response', in: 'status', keyword: 'status', params: expect.objectContaining({ status: 418 }), actual: { type: 'integer', value: 418 } }] },
  ],
];

describe('a verdict carries what a report needs, as data', () => {
  it.each(cases)('%s', (_name, { given, want }) => {
    const shown = given().filter((verdict) => verdict.judged && verdict.keyword !== 'oneOf' && verdict.keyword !== 'anyOf');
    expect(shown).toEqual(want.map((fields) => expect.objectContaining(fields)));
  });

  it('a union break keeps every branch, each marked with its branch, and says which was judged', () => {
    const verdicts = validator.request('sendMessage', request({ to: '12345', fromNumberId: 'pn_8f3kq2m9x7', body: 'hi' }));
    const union = verdicts.find((verdict) => verdict.keyword === 'oneOf')!;
    expect(union.branch).toMatchObject({ index: 1, title: 'To one number, from a number id' });
    expect(union.judged).toBe(true);
    expect(new Set(verdicts.filter((v) => v.keyword !== 'oneOf').map((v) => v.branch?.index))).toEqual(new Set([0, 1, 2]));
    expect(verdicts.filter((v) => !v.judged).every((v) => v.branch?.index !== 1)).toBe(true);
  });

  it('verdicts are plain JSON (a report writes them as they are)', () => {
    const verdicts = validator.request('sendMessage', request({ to: 5 }));
    expect(JSON.parse(JSON.stringify(verdicts))).toEqual(verdicts);
  });

  it('a valid request and a valid answer have none', () => {
    expect(validator.request('sendMessage', request({ to: '+14155550123', fromNumberId: 'pn_8f3kq2m9x7', body: 'hi' }))).toEqual([]);
    expect(validator.response('getAccount', { status: 200, body: { maxCallDurationSeconds: null, limits: null } })).toEqual([]);
  });
});
