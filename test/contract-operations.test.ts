// The operations of the bundled description against the 33 operations of part 4 of the
// interface specification (4.1 sign-up 4, 4.2 account 3, 4.3 usage 1, 4.4 billing 12,
// 4.5 other operations 13). The list below is the oracle, written from part 4 by hand on purpose:
// it is what the description is checked against, so it must not be derived from it.
// None may be missing; an extra operation must be marked `x-inferred: true` (a path the
// specification does not show, such as the groups list). Every operation has a unique camelCase
// operationId, a tag, a summary, a description and an `x-source` naming its part.
import { describe, expect, test } from 'vitest';
import { listOperations, loadOpenApi, requiresApiKey, type OperationEntry } from './helpers/contract.js';

interface DocumentedOperation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  /** The section of part 4 that lists it; `x-source` must name it. */
  part: '4.1' | '4.2' | '4.3' | '4.4' | '4.5';
  /**
   * Status codes the interface specification names for this operation (part 4, and parts 3, 7
   * and 8 where they tie a code to it). 401 is checked separately for every keyed operation.
   */
  statuses: number[];
  /** Part 4 names no success status; the operation must still document one 2xx. */
  successNotShown?: true;
}

const PART_4: DocumentedOperation[] = [
  // 4.1 Sign-up and registration (no API key).
  { method: 'post', path: '/api/v1/auth/signup', part: '4.1', statuses: [200, 400] },
  { method: 'post', path: '/api/v1/auth/verify', part: '4.1', statuses: [200, 400, 401, 429] },
  { method: 'post', path: '/api/v1/auth/register-number', part: '4.1', statuses: [200, 400, 409, 429] },
  { method: 'post', path: '/api/v1/auth/verify-number', part: '4.1', statuses: [200, 400, 401, 409, 429, 502] },
  // 4.2 Account. PATCH 400: outside 60..3600 or above the free ceiling (also part 8).
  { method: 'get', path: '/api/v1/account', part: '4.2', statuses: [200] },
  { method: 'patch', path: '/api/v1/account', part: '4.2', statuses: [200, 400] },
  { method: 'delete', path: '/api/v1/account', part: '4.2', statuses: [200] },
  // 4.3 Usage.
  { method: 'get', path: '/api/v1/usage', part: '4.3', statuses: [200] },
  // 4.4 Billing (12).
  { method: 'get', path: '/api/v1/billing', part: '4.4', statuses: [200] },
  { method: 'post', path: '/api/v1/billing/checkout/credits', part: '4.4', statuses: [200, 409] },
  { method: 'post', path: '/api/v1/billing/checkout/subscription', part: '4.4', statuses: [200, 400, 403] },
  { method: 'post', path: '/api/v1/billing/subscription/cancel', part: '4.4', statuses: [200, 409] },
  { method: 'post', path: '/api/v1/billing/subscription/resume', part: '4.4', statuses: [200, 409] },
  { method: 'post', path: '/api/v1/billing/subscription/change', part: '4.4', statuses: [200, 400] },
  { method: 'post', path: '/api/v1/billing/subscription/preview', part: '4.4', statuses: [200, 400] },
  { method: 'post', path: '/api/v1/billing/payment-methods/setup', part: '4.4', statuses: [200] },
  { method: 'delete', path: '/api/v1/billing/payment-methods/{id}', part: '4.4', statuses: [200, 404] },
  { method: 'post', path: '/api/v1/billing/payment-methods/{id}/default', part: '4.4', statuses: [200, 404] },
  { method: 'get', path: '/api/v1/billing/invoices/{invoiceId}', part: '4.4', statuses: [200, 404] },
  { method: 'get', path: '/api/v1/billing/activity', part: '4.4', statuses: [200] },
  // 4.5 Other operations (13).
  // Send: 201; 400 message-send validation (7); 402 wallet gating of SMS (3); 403
  // unsupported_region / whatsapp_limited (7); 429 rate_limited (7, 8).
  { method: 'post', path: '/api/v1/messages', part: '4.5', statuses: [201, 400, 402, 403, 429] },
  { method: 'get', path: '/api/v1/messages', part: '4.5', statuses: [200] },
  // Call: 201 fresh, 200 replay, 409 duplicate while the original runs (7.2); 400 cap above the
  // free ceiling (8); 402 wallet gating (3); 403 unsupported_region (7); 429 call_limit_reached (7, 8).
  { method: 'post', path: '/api/v1/calls', part: '4.5', statuses: [200, 201, 400, 402, 403, 409, 429] },
  { method: 'get', path: '/api/v1/calls', part: '4.5', statuses: [200] },
  { method: 'get', path: '/api/v1/numbers', part: '4.5', statuses: [200] },
  // Provision: 201; 402 wallet gating (3); 503 whatsapp_unavailable (7).
  { method: 'post', path: '/api/v1/numbers', part: '4.5', statuses: [201, 402, 503] },
  // Update: 400 for an explicit cap above the free ceiling (8).
  { method: 'patch', path: '/api/v1/numbers/{id}', part: '4.5', statuses: [400], successNotShown: true },
  // Typing: the channel errors of sending (whatsapp_limited 403, part 7) plus 503.
  { method: 'post', path: '/api/v1/typing', part: '4.5', statuses: [403, 503], successNotShown: true },
  { method: 'post', path: '/api/v1/events/wait', part: '4.5', statuses: [408, 503], successNotShown: true },
  { method: 'get', path: '/api/v1/lookup', part: '4.5', statuses: [200, 429, 502] },
  // 10DLC: 400 tendlc_validation_failed, 402 fee, 403 not applicable / brand not reusable,
  // 404 brand not found, 409 brand not approved (7, 8).
  { method: 'post', path: '/api/v1/numbers/{id}/10dlc', part: '4.5', statuses: [400, 402, 403, 404, 409], successNotShown: true },
  { method: 'get', path: '/api/v1/numbers/{id}/10dlc', part: '4.5', statuses: [200] },
  { method: 'post', path: '/api/v1/webhooks/{id}/ping', part: '4.5', statuses: [], successNotShown: true },
];

/** The four operations that need no API key (parts 4.1 and 5.1). */
const SIGN_UP = ['/api/v1/auth/signup', '/api/v1/auth/verify', '/api/v1/auth/register-number', '/api/v1/auth/verify-number'];

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

const document = loadOpenApi();
const operations = listOperations(document);
const byKey = new Map(operations.map((op) => [key(op.method, op.path), op]));
const documented = new Set(PART_4.map((op) => key(op.method, op.path)));
const isInferred = (op: OperationEntry) => op.operation['x-inferred'] === true || op.pathItem['x-inferred'] === true;

describe('operations of generated/openapi.json against part 4', () => {
  test('the oracle lists the 33 operations of part 4 (4 + 3 + 1 + 12 + 13)', () => {
    expect(documented.size).toBe(33);
    const perPart = Object.fromEntries(['4.1', '4.2', '4.3', '4.4', '4.5'].map((p) => [p, PART_4.filter((op) => op.part === p).length]));
    expect(perPart).toEqual({ '4.1': 4, '4.2': 3, '4.3': 1, '4.4': 12, '4.5': 13 });
  });

  test('none of the 33 is missing (exact method and path)', () => {
    expect([...documented].filter((k) => !byKey.has(k))).toEqual([]);
  });

  test('every other operation is marked x-inferred', () => {
    const extra = operations.filter((op) => !documented.has(key(op.method, op.path)));
    expect(extra.filter((op) => !isInferred(op)).map((op) => key(op.method, op.path))).toEqual([]);
  });

  test('operationIds are unique and camelCase (paths and webhooks)', () => {
    const all = [...operations, ...listOperations(document, 'webhooks')];
    const ids = all.map((op) => op.operation.operationId as unknown);
    expect(ids.filter((id) => typeof id !== 'string' || !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  test('the four sign-up operations opt out of security with `security: []` (part 5.1)', () => {
    for (const path of SIGN_UP) {
      const op = byKey.get(key('post', path));
      expect(op?.operation.security, path).toEqual([]);
    }
  });

  test('every other operation requires the bearer API key (part 5.1)', () => {
    const scheme = document.components?.securitySchemes?.bearerAuth;
    expect(scheme).toMatchObject({ type: 'http', scheme: 'bearer' });
    const open = operations.filter((op) => !SIGN_UP.includes(op.path) && !requiresApiKey(document, op.operation));
    expect(open.map((op) => key(op.method, op.path))).toEqual([]);
  });

  describe.each(operations.map((op) => [key(op.method, op.path), op] as const))('%s', (_name, op) => {
    const { operation } = op;
    const expected = PART_4.find((d) => d.method === op.method && d.path === op.path);

    test('has a defined tag, a summary and a description', () => {
      const defined = (document.tags ?? []).map((t: { name: string }) => t.name);
      expect(operation.tags?.length ?? 0).toBeGreaterThan(0);
      for (const tag of operation.tags ?? []) expect(defined, `tag "${tag}" is not in the root tags`).toContain(tag);
      expect(typeof operation.summary === 'string' && operation.summary.trim().length > 0, 'summary').toBe(true);
      expect(typeof operation.description === 'string' && operation.description.trim().length > 0, 'description').toBe(true);
    });

    test(`has x-source${expected ? ` naming part ${expected.part}` : ''}`, () => {
      expect(typeof operation['x-source']).toBe('string');
      const parts = String(operation['x-source']).split(/,\s*/);
      if (expected) expect(parts).toContain(expected.part);
    });

    if (requiresApiKey(document, operation)) {
      test('documents 401 (it requires an API key, part 5.1)', () => {
        expect(Object.keys(operation.responses ?? {})).toContain('401');
      });
    }

    if (expected) {
      const named = expected.statuses.length ? `the statuses the specification names (${expected.statuses.join(', ')})` : 'its statuses';
      test(`documents ${named}${expected.successNotShown ? ' and a 2xx (which one is not shown)' : ''}`, () => {
        const statuses = Object.keys(operation.responses ?? {});
        expect(expected.statuses.map(String).filter((s) => !statuses.includes(s))).toEqual([]);
        expect(statuses.some((s) => /^2\d\d$/.test(s)), 'a 2xx response').toBe(true);
      });
    } else {
      test('is marked x-inferred with a reason (it is not one of the 33 of part 4)', () => {
        expect(isInferred(op)).toBe(true);
        const reason = operation['x-inferred-reason'] ?? op.pathItem['x-inferred-reason'];
        expect(typeof reason === 'string' && reason.trim().length > 0).toBe(true);
      });
    }
  });
});
