// A 400's field errors narrow with one exported guard (issue 26): `isFieldErrors(e.error)` makes
// `e.error.fieldErrors` the map of fields, `FieldErrors` names that map; and a send's `channel`
// offers the channels part 2 names while staying open to others (in the contract, so every
// generator sees it; docs/guides/tool-compatibility.md says what each keeps).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { FieldErrors, FieldErrorsError, SendMessageRequest } from '../src/index.js';
import { ApiError, createClient, isFieldErrors } from '../src/client/index.js';
import { repoRoot } from './helpers/contract.js';
import { newKey } from './helpers/stateful-mock.js';
import { useStatefulMock } from './helpers/simulator-harness.js';

const mock = useStatefulMock();

describe('isFieldErrors', () => {
  it.each([
    ['a 400 field map', { fieldErrors: { to: ['Invalid phone number'] } }, true],
    ['an empty field map', { fieldErrors: {} }, true],
    ['a message string', 'Invalid JSON body', false],
    ['a 10DLC failure (keyed by field, no wrapper)', { 'brand.phone': 'One of your own numbers' }, false],
    ['fieldErrors that is not a map of messages', { fieldErrors: { to: 'Invalid phone number' } }, false],
    ['fieldErrors as an array', { fieldErrors: ['to'] }, false],
    ['null', null, false],
    ['undefined', undefined, false],
  ])('%s: %s', (_name, value, expected) => {
    expect(isFieldErrors(value)).toBe(expected);
  });

  it("narrows a real 400's ApiError.error to the map of fields (the stateful mock, the client)", async () => {
    const api = createClient({ apiKey: newKey('field-errors'), baseUrl: mock().url });
    const error = await api.PATCH('/api/v1/account', { body: { maxCallDurationSeconds: 5 } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(400);
    expect(isFieldErrors(apiError.error)).toBe(true);
    if (!isFieldErrors(apiError.error)) return;
    // Typed: the map of fields, each with its messages (a guard that narrowed nothing would leave unknown).
    expectTypeOf(apiError.error.fieldErrors).toEqualTypeOf<FieldErrors>();
    expectTypeOf(apiError.error.fieldErrors).toEqualTypeOf<{ [field: string]: string[] }>();
    const messages: string[] = Object.values(apiError.error.fieldErrors).flat();
    expect(Object.keys(apiError.error.fieldErrors)).toContain('maxCallDurationSeconds');
    expect(messages.length).toBeGreaterThan(0);
  });

  it('FieldErrors names the map of fields; FieldErrorsError the `error` that wraps it', () => {
    expectTypeOf<FieldErrorsError>().toEqualTypeOf<{ fieldErrors: FieldErrors }>();
    expectTypeOf<FieldErrors>().toEqualTypeOf<{ [field: string]: string[] }>();
  });
});

describe("a send's channel", () => {
  type Channel = NonNullable<SendMessageRequest['channel']>;

  it('offers the channels part 2 names and stays open to others', () => {
    expectTypeOf<'sms' | 'imessage' | 'rcs' | 'whatsapp'>().toExtend<Channel>();
    expectTypeOf<'a channel not shown'>().toExtend<Channel>();
    // The generated type keeps the literals beside the open string (what an editor completes).
    const types = readFileSync(path.join(repoRoot, 'generated/types/openapi.ts'), 'utf8');
    const block = types.slice(types.indexOf('        SendMessageContent: {'));
    expect(block.slice(0, block.indexOf('\n        };'))).toMatch(/channel\?: "sms" \| "imessage" \| "rcs" \| "whatsapp" \| \(string & \{\}\);/);
  });

  it('is listed in the contract, open, and marked inferred with its reason', () => {
    const openapi = JSON.parse(readFileSync(path.join(repoRoot, 'generated/openapi.json'), 'utf8'));
    const channel = openapi.components.schemas.SendMessageContent.properties.channel;
    expect(channel.anyOf.filter((b: { const?: string }) => b.const).map((b: { const: string }) => b.const)).toEqual(['sms', 'imessage', 'rcs', 'whatsapp']);
    expect(channel.anyOf.at(-1)).toMatchObject({ type: 'string' });
    expect(channel.anyOf.at(-1).const).toBeUndefined();
    expect(channel['x-inferred']).toBe(true);
    expect(channel['x-inferred-reason']).toMatch(/part 2/);
  });
});
