// The safety policy: what the suite may send to a live deployment. A live account costs money and
// holds real numbers, so the suite is harmless by construction:
// - some operations are never sent at all, at any level;
// - `contract` sends only reads and requests a conforming deployment must reject, each built so
//   that a deployment that wrongly accepts it still sends, charges and provisions nothing;
// - anything that creates something waits for the opt-in `writes` level.
// Which operations delete or charge is the contract's `x-effects` (src/contract/effects.ts); this
// file names operations and fields only for the requests it knows to be harmless, so that part of
// the policy can be audited in one place; scenarios check at run time that each named field still
// exists (else they skip).
import { harmOf } from '../src/contract/effects.js';
import type { Json, Operation } from './description.js';

/**
 * Operations that delete or charge which the suite still sends, each only in the way that leaves
 * nothing to act on, even where a deployment wrongly accepts it.
 */
export const SENT_ONLY_HARMLESSLY: Readonly<Record<string, string>> = {
  createNumber: 'sent only without a valid key and with a body that is not an object (the 401 checks)',
  changeSubscriptionInterval: 'sent only without a valid key, or once the billing status shows no subscription to change (the 409, part 4.4)',
};

/**
 * Why an operation is never sent to a deployment, at any level, with or without a key (issue 6),
 * or undefined. What deletes or charges (x-effects) is never sent, unless it names its record in
 * the path (then only to an id that cannot exist: the 401 and unknown-id 404 checks) or is sent
 * only harmlessly (above). On the package's own mock, the `writes` level sends them on accounts it
 * signs up there, never on the run's account (scenarios/mock-*.ts).
 */
export function neverSentReason(op: Pick<Operation, 'operationId' | 'effects' | 'parameters'>): string | undefined {
  const harm = harmOf(op.effects);
  if (!harm || SENT_ONLY_HARMLESSLY[op.operationId] || op.parameters.some((p) => p.in === 'path')) return undefined;
  return harm;
}

/** A value that is not an E.164 number: no message, call or typing indicator can reach it. */
export const NOT_A_PHONE_NUMBER = 'not-a-phone-number';

/**
 * A body that cannot be valid for an object schema (a JSON string): used for requests without a
 * valid key to operations that have no harmless negative body (creating a number, changing a
 * subscription), so that even a deployment that ignores the key and the body type has nothing it
 * could act on.
 */
export const NOT_AN_OBJECT = 'conformance check: this body is deliberately not an object';

/** An identifier that cannot exist on any account, keeping the example's prefix (`pn_`, `pm_`). */
export function nonexistentId(example?: unknown): string {
  const prefix = typeof example === 'string' ? (/^[a-z]+_/i.exec(example)?.[0] ?? '') : '';
  return `${prefix}conformance0nonexistent${Math.random().toString(36).slice(2, 8)}`;
}

export interface NegativeBody {
  /** Fields of the request schema the mutation touches; the scenario skips if any is gone. */
  fields: string[];
  /** What makes the body invalid, for the report. */
  violation: string;
  /** Why a deployment that wrongly accepts it still sends, charges and provisions nothing. */
  harmless: string;
  build(example: Json): Json;
}

/**
 * Authenticated requests with invalid bodies, for the operations where one is harmless.
 * Operations absent here (creating a number, changing, cancelling or resuming a subscription,
 * creating a webhook subscription) get no authenticated negative request at the contract level.
 */
export const NEGATIVE_BODIES: Readonly<Record<string, NegativeBody>> = {
  sendMessage: {
    fields: ['to', 'fromNumberId'],
    violation: '`to` is not E.164',
    harmless: '`to` reaches nobody and `fromNumberId` names a number that cannot exist',
    build: (example) => {
      const body = { ...(example ?? {}) };
      delete body.fromNumber;
      delete body.groupId;
      return { ...body, to: NOT_A_PHONE_NUMBER, fromNumberId: nonexistentId(example?.fromNumberId) };
    },
  },
  createCall: {
    fields: ['to', 'fromNumberId', 'maxCallDurationSeconds'],
    violation: '`to` is not E.164 and `maxCallDurationSeconds` is 59 (below 60, part 8)',
    harmless: '`to` reaches nobody and `fromNumberId` names a number that cannot exist',
    build: (example) => ({ ...(example ?? {}), to: NOT_A_PHONE_NUMBER, fromNumberId: nonexistentId(example?.fromNumberId), maxCallDurationSeconds: 59 }),
  },
  setTypingIndicator: {
    fields: ['toNumber'],
    violation: '`toNumber` is not E.164',
    harmless: 'the indicator has nobody to be shown to, and typing is free (part 4.5)',
    build: (example) => ({ ...(example ?? {}), toNumber: NOT_A_PHONE_NUMBER }),
  },
  previewSubscriptionChange: {
    fields: ['quantity'],
    violation: '`quantity` is 0 (at least 1, part 4.4)',
    harmless: 'a preview changes and charges nothing (part 4.4)',
    build: () => ({ quantity: 0 }),
  },
  waitForEvent: {
    fields: ['timeout'],
    violation: '`timeout` is a string',
    harmless: 'waiting for an event changes nothing',
    build: () => ({ timeout: 'one second' }),
  },
  injectTestInboundMessage: {
    fields: ['to'],
    violation: '`to` is not E.164',
    harmless: 'no number of the account can receive it',
    build: (example) => ({ ...(example ?? {}), to: NOT_A_PHONE_NUMBER }),
  },
};

/**
 * Invalid sign-up bodies (no key): a conforming deployment answers 400, not 401 (part 5.1), and
 * sends no code, since the address or number is invalid or the ids cannot exist.
 */
export const SIGNUP_BODIES: Readonly<Record<string, NegativeBody>> = {
  signUp: {
    fields: ['email'],
    violation: '`email` is not an email address',
    harmless: 'no code can be emailed to it',
    build: () => ({ email: 'not-an-email-address' }),
  },
  verifyEmail: {
    fields: ['verificationId', 'code'],
    violation: '`code` is missing',
    harmless: 'the `verificationId` cannot exist',
    build: () => ({ verificationId: nonexistentId('ver_') }),
  },
  registerNumber: {
    fields: ['registrationId', 'phoneNumber'],
    violation: '`phoneNumber` is not E.164',
    harmless: 'no SMS can reach it and the `registrationId` cannot exist',
    build: () => ({ registrationId: nonexistentId('reg_'), phoneNumber: NOT_A_PHONE_NUMBER }),
  },
  verifyPhoneNumber: {
    fields: ['registrationId', 'code'],
    violation: '`code` is missing',
    harmless: 'the `registrationId` cannot exist',
    build: () => ({ registrationId: nonexistentId('reg_') }),
  },
};
