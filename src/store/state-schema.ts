// The schema of the simulator's state (src/simulator/state.ts), for a `--state` file read at
// start: the structure is the state's own, and every record in it is checked against the
// contract's schema of that record (Message, Call, PhoneNumber ...), since the lists answer records
// as they are kept. A file that fails is refused with what is wrong, before the mock starts.
import type { JsonObject } from '../contract/operations.js';
import type { SimContract } from '../simulator/contract.js';
import type { SimState } from '../simulator/state.js';
import { contractValidator } from '../contract/contract-validator.js';
import { ruleWords } from '../contract/verdict.js';

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (items: JsonObject): JsonObject => ({ type: 'array', items });
const dictOf = (values: JsonObject): JsonObject => ({ type: 'object', additionalProperties: values });
const STRING = { type: 'string' };
const INTEGER = { type: 'integer' };
const NUMBER = { type: 'number' };
const OBJECT = { type: 'object' };

const job: JsonObject = {
  type: 'object',
  required: ['at', 'kind', 'accountId', 'ref'],
  properties: { at: NUMBER, kind: STRING, accountId: STRING, ref: STRING, data: OBJECT, seq: INTEGER },
};

const account: JsonObject = {
  type: 'object',
  required: ['id', 'email', 'createdAt', 'keys', 'account', 'paid', 'balance', 'numbers', 'messages', 'calls', 'groups', 'webhooks', 'billing', 'tenDlc', 'idempotency', 'meta', 'daily', 'events', 'extra'],
  properties: {
    id: STRING,
    email: { type: ['string', 'null'] },
    createdAt: STRING,
    keys: arrayOf(STRING),
    account: { type: 'object', properties: { maxCallDurationSeconds: { type: ['integer', 'null'] } } },
    paid: { type: 'boolean' },
    balance: NUMBER,
    numbers: arrayOf(ref('PhoneNumber')),
    messages: arrayOf(ref('Message')),
    calls: arrayOf({ allOf: [ref('Call'), { required: ['id'], properties: { id: STRING } }] }),
    groups: arrayOf(ref('Group')),
    webhooks: arrayOf(ref('WebhookSubscription')),
    billing: {
      type: 'object',
      required: ['subscription', 'paymentMethods', 'deposits', 'activity', 'invoices'],
      properties: {
        subscription: { anyOf: [ref('Subscription'), { type: 'null' }] },
        paymentMethods: arrayOf(ref('PaymentMethod')),
        deposits: arrayOf(ref('Deposit')),
        activity: arrayOf(ref('BillingActivityItem')),
        invoices: dictOf(ref('Invoice')),
      },
    },
    tenDlc: dictOf(ref('TenDlcRegistration')),
    idempotency: dictOf(STRING),
    meta: dictOf(OBJECT),
    daily: dictOf({ type: 'object', properties: { messages: NUMBER, calls: NUMBER, minutes: NUMBER } }),
    events: arrayOf({ type: 'object', required: ['seq', 'event'], properties: { seq: INTEGER, event: ref('Event') } }),
    extra: OBJECT,
  },
};

/** The state's schema; its `$ref`s name the contract's component schemas. */
export const STATE_SCHEMA: JsonObject = {
  type: 'object',
  required: ['version', 'accounts', 'keys', 'revokedKeys', 'emails', 'boundNumbers', 'serviceNumbers', 'signups', 'registrations', 'jobs', 'eventSeq', 'clockOffsetMs'],
  properties: {
    version: { const: 1 },
    accounts: dictOf(account),
    keys: dictOf(STRING),
    revokedKeys: dictOf({ const: true }),
    emails: dictOf(STRING),
    boundNumbers: dictOf(STRING),
    serviceNumbers: dictOf(STRING),
    signups: dictOf({ type: 'object', required: ['verificationId', 'email', 'emailVerified', 'failedAttempts'], properties: { verificationId: STRING, email: STRING, emailVerified: { type: 'boolean' }, failedAttempts: INTEGER } }),
    registrations: dictOf(STRING),
    jobs: arrayOf(job),
    jobSeq: INTEGER,
    eventSeq: INTEGER,
    clockOffsetMs: NUMBER,
  },
};

/** What is wrong with `state` as a state of this mock: schema problems first, then keys and ids that point nowhere. */
export function stateProblems(contract: SimContract, state: SimState): string[] {
  const verdicts = contractValidator(contract.document).outside(STATE_SCHEMA, state);
  if (verdicts.length > 0) return verdicts.map((verdict) => `${verdict.instancePath || '(top)'} ${ruleWords(verdict)}`);
  const problems: string[] = [];
  for (const [id, entry] of Object.entries(state.accounts)) if (entry.id !== id) problems.push(`/accounts/${id} has the id ${entry.id}`);
  for (const [key, id] of Object.entries(state.keys)) if (!state.accounts[id]) problems.push(`/keys/${key.slice(0, 12)}… opens ${id}, which is not an account of the file`);
  return problems;
}
