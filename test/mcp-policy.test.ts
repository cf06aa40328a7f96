// The MCP server's policy and tool annotations, held to the contract's `x-effects` (spec/EXTENSIONS.md)
// over every operation of the bundled descriptions, and x-effects held to what the interface
// specification says of the operations it names: a GET is a read (7.1), deleting the account
// deletes (4.2), a number, a checkout, an interval change and the 10DLC fee charge (4.4, 4.5, 8), a
// message, a call and the sign-up codes reach a person (3, 4.1, 4.5), the call takes an
// Idempotency-Key (7.2), the wait and the preview change nothing (4.4, 4.5, 6).
import { describe, expect, it } from 'vitest';
import { neverSentReason } from '../conformance/policy.js';
import { listOperations as listSuiteOperations } from '../conformance/description.js';
import { effectsOf, type Effects } from '../src/contract/effects.js';
import { readGeneratedJson } from '../src/contract/generated-files.js';
import { annotationsOf, operationTools } from '../src/mcp/operation-tools.js';
import { verdict, type PolicyOptions } from '../src/mcp/policy.js';
import { listOperations, loadOpenApi, type JsonObject } from './helpers/contract.js';

const openapi = loadOpenApi();
const control = readGeneratedJson('mock-control.json');
const every = [...listOperations(openapi), ...listOperations(control)].map((entry) => ({ ...entry, id: String(entry.operation.operationId), raw: entry.operation['x-effects'] as JsonObject }));
const byId = new Map(every.map((entry) => [entry.id, entry]));

describe('x-effects says what the interface specification says', () => {
  it('is on every operation of the service and of the control surface, and the accessor reads each', () => {
    expect(every.length).toBe(52);
    for (const entry of every) expect(() => effectsOf(entry.operation), entry.id).not.toThrow();
    expect(() => effectsOf({ operationId: 'bare' })).toThrow(/bare: x-effects.changesState must be a boolean/);
    expect(() => effectsOf({ operationId: 'noReason', 'x-effects': { changesState: true, charges: false, deletes: false, reachesPerson: false } })).toThrow(/reason must be a string/);
    expect(() => effectsOf({ operationId: 'bad', 'x-effects': { changesState: 'yes' } })).toThrow(/changesState must be a boolean/);
  });

  it.each([
    ['every GET is a read (7.1)', (e: Effects, method: string) => method !== 'get' || !e.changesState],
    ['only the control surface is mock-only', (e: Effects, _m: string, id: string) => e.mockOnly === id.startsWith('mock')],
  ])('%s', (_name, holds) => {
    for (const entry of every) expect(holds(effectsOf(entry.operation), entry.method, entry.id), entry.id).toBe(true);
  });

  const TRUE: Array<[string, keyof Effects, string]> = [
    ['deleteAccount', 'deletes', '4.2'],
    ['deletePaymentMethod', 'deletes', '4.4'],
    ['createNumber', 'charges', '4.5, 7'],
    ['createCreditsCheckout', 'charges', '4.4'],
    ['createSubscriptionCheckout', 'charges', '3, 4.4'],
    ['createPaymentMethodSetup', 'charges', '4.4'],
    ['changeSubscriptionInterval', 'charges', '3, 4.4'],
    ['submitTenDlcRegistration', 'charges', '3, 8'],
    ['sendMessage', 'reachesPerson', '4.5'],
    ['createCall', 'reachesPerson', '4.5'],
    ['setTypingIndicator', 'reachesPerson', '4.5'],
    ['signUp', 'reachesPerson', '3, 4.1'],
    ['registerNumber', 'reachesPerson', '3, 4.1'],
  ];
  it.each(TRUE)('%s: %s (part %s)', (id, effect, part) => {
    const effects = effectsOf(byId.get(id)!.operation);
    expect(effects[effect]).toBe(true);
    expect(effects.reason).toContain(`part${part.includes(',') ? 's' : ''} ${part}`);
  });

  it('charges and deletes nothing else, and only the call takes an idempotency key (7.2, 7.4)', () => {
    const charging = new Set(TRUE.filter(([, e]) => e === 'charges' || e === 'deletes').map(([id]) => id));
    const mockDeletes = new Set(['mockReset', 'mockDeleteSnapshot', 'mockRestoreSnapshot']);
    for (const entry of every) {
      const effects = effectsOf(entry.operation);
      expect(effects.charges || effects.deletes, entry.id).toBe(charging.has(entry.id) || mockDeletes.has(entry.id));
      expect(effects.idempotencyKey, entry.id).toBe(entry.id === 'createCall' ? 'Idempotency-Key' : undefined);
    }
  });

  it.each(['waitForEvent', 'previewSubscriptionChange'])('%s is a POST that changes nothing (parts 4.4, 4.5, 6)', (id) => {
    expect(byId.get(id)!.method).toBe('post');
    expect(effectsOf(byId.get(id)!.operation).changesState).toBe(false);
  });
});

describe('the policy reads x-effects, every operation', () => {
  const options = (over: Partial<PolicyOptions>): PolicyOptions => ({ allowWrites: true, allow: new Set(), targetIsMock: false, ...over });
  const actionOf = (entry: (typeof every)[number]) => ({ operationId: entry.id, effects: effectsOf(entry.operation) });

  it.each(every.map((entry) => [entry.id, entry] as const))('%s', (_id, entry) => {
    const effects = effectsOf(entry.operation);
    const action = actionOf(entry);
    const onDeployment = (over: Partial<PolicyOptions>) => verdict(action, options(over));
    // The control surface exists only on the mock.
    if (effects.mockOnly) expect(onDeployment({})).toEqual({ allowed: false, rule: 'mock-only' });
    else if (!effects.changesState) expect(onDeployment({ allowWrites: false })).toEqual({ allowed: true });
    else {
      expect(onDeployment({ allowWrites: false })).toEqual({ allowed: false, rule: 'read-only', allowWith: '--allow-writes' });
      const harmful = effects.deletes || effects.charges;
      expect(onDeployment({})).toEqual(harmful ? { allowed: false, rule: 'guarded', reason: entry.raw.reason, allowWith: `--allow-writes --allow ${entry.id}` } : { allowed: true });
      expect(onDeployment({ allow: new Set([entry.id]) })).toEqual({ allowed: true });
    }
    // On the mock, --allow-writes lets everything run.
    expect(verdict(action, options({ targetIsMock: true }))).toEqual({ allowed: true });
  });

  it('decides by the effects, not the method: a DELETE that deletes nothing is a plain write, a POST that changes nothing a read', () => {
    const plain: Effects = { changesState: true, charges: false, deletes: false, reachesPerson: false, mockOnly: false, reason: 'ends something' };
    expect(verdict({ operationId: 'someDelete', effects: plain }, options({}))).toEqual({ allowed: true });
    expect(verdict({ operationId: 'somePost', effects: { ...plain, changesState: false } }, options({ allowWrites: false }))).toEqual({ allowed: true });
    expect(verdict({ operationId: 'someGet', effects: { ...plain, charges: true } }, options({}))).toMatchObject({ allowed: false, rule: 'guarded', reason: 'ends something' });
  });

  it('guards on a deployment everything the conformance suite never sends', () => {
    for (const op of listSuiteOperations(openapi)) {
      if (neverSentReason(op)) expect(verdict({ operationId: op.operationId, effects: op.effects }, options({})), op.operationId).toMatchObject({ allowed: false, rule: 'guarded' });
    }
  });
});

describe('the tool annotations are x-effects', () => {
  const tools = [...operationTools(openapi, 'numbersApi'), ...operationTools(control, 'mockControl')];

  it.each(tools.map((tool) => [tool.operationId, tool] as const))('%s', (id, tool) => {
    const raw = byId.get(id)!.raw;
    const write = raw.changesState === true;
    expect(tool.definition.annotations).toEqual({
      title: tool.definition.title,
      readOnlyHint: !write,
      ...(write ? { destructiveHint: raw.deletes, idempotentHint: typeof raw.idempotencyKey === 'string' } : {}),
      openWorldHint: raw.reachesPerson,
    });
  });

  it('follows a changed x-effects, not the method', () => {
    expect(annotationsOf('t', { changesState: true, charges: false, deletes: true, reachesPerson: false, mockOnly: false, reason: 'r' })).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(annotationsOf('t', { changesState: false, charges: false, deletes: false, reachesPerson: false, mockOnly: false, reason: 'r' })).toEqual({ title: 't', readOnlyHint: true, openWorldHint: false });
  });
});
