// The simulator's state: plain, serializable data (a `--state` file is exactly this, as JSON).
// Records are kept in the contract's own shapes (the Message, Call, PhoneNumber ... schemas), so a
// list answer is the records as they are; what the service tracks but never shows (a message's
// delivery progress, a call's planned ending, a pending sign-up code) lives beside them.
import type { AccountRecord, ActivityRecord, CallRecord, DepositRecord, GroupRecord, InvoiceRecord, MessageRecord, NumberRecord, PaymentMethodRecord, SubscriptionRecord, TenDlcRecord, WebhookRecord } from './records.js';
import { dict, type Dict } from '../contract/dict.js';
import type { JsonNode } from '../contract/json-pointer.js';
import type { JsonObject } from '../contract/operations.js';

/** An event of part 6, its envelope as the contract gives it. */
export interface SimEvent {
  id: string;
  object: 'event';
  type: string;
  version: 1;
  createdAt: string;
  relatedObject: { id: string; type: string; url: string | null } | null;
  data: JsonObject;
}

/** A step of a simulated process, due at `at` (simulated ms); planned and taken in job-queue.ts. */
export interface Job {
  at: number;
  /** The process (`message.delivery`, `call.progress`, ...), registered by a resource module. */
  kind: string;
  accountId: string;
  /** The record the job is about (a message id, a call id, a number id ...). */
  ref: string;
  /** Process-specific data (the next state, ...). */
  data?: JsonObject;
  /** The order it was planned in, among steps due at the same time (job-queue.ts). */
  seq?: number;
}

export interface AccountState {
  id: string;
  /** The canonical email (part 4.1), null for a demo account made from a key. */
  email: string | null;
  createdAt: string;
  /** Full keys; only previews are ever answered (part 5.3). */
  keys: string[];
  /** The account record's own fields (the Account schema, minus `limits` and `apiKeys`, which are derived). */
  account: AccountRecord;
  /** True once the account has added credit or subscribed: the free-account limits are lifted for good (part 3). */
  paid: boolean;
  /** The credit-wallet balance in US dollars. */
  balance: number;
  /** Newest last. */
  numbers: NumberRecord[];
  /** Newest last; the newest `HISTORY_LIMIT` kept (see `trimOldest`). */
  messages: MessageRecord[];
  /** Newest last; the newest `HISTORY_LIMIT` kept (see `trimOldest`). */
  calls: CallRecord[];
  groups: GroupRecord[];
  webhooks: WebhookRecord[];
  billing: {
    subscription: SubscriptionRecord | null;
    paymentMethods: PaymentMethodRecord[];
    deposits: DepositRecord[];
    /** Newest last. */
    activity: ActivityRecord[];
    invoices: Dict<InvoiceRecord>;
  };
  /** 10DLC registrations by number id. */
  tenDlc: Dict<TenDlcRecord>;
  /** `Idempotency-Key` → call id (part 7.2). */
  idempotency: Dict<string>;
  /** Internal facts about records, by record id (delivery progress, planned ending ...). */
  meta: Dict<JsonObject>;
  /** Per-day traffic counters for usage (part 4.3), `YYYY-MM-DD` → counts. */
  daily: Dict<{ messages: number; calls: number; minutes: number }>;
  /** The account's event log, oldest first, the newest `EVENT_LOG_LIMIT` kept (see `trimOldest`); `seq` orders it. */
  events: Array<{ seq: number; event: SimEvent }>;
  /** Resource-specific state a module keeps (rate-limit windows ...). */
  extra: Dict<JsonNode>;
}

/** A sign-up in progress (part 3): from the email code to the account. */
export interface SignupState {
  verificationId: string;
  email: string;
  coupon?: string;
  emailVerified: boolean;
  registrationId?: string;
  phoneNumber?: string;
  /** The phone number is verified but provisioning failed (502): a retry needs no new code. */
  phoneVerified?: boolean;
  completed?: boolean;
  accountId?: string;
  failedAttempts: number;
  /** SMS codes sent for this registration (the cap on codes sent to one number, part 4.1). */
  codesSent?: number;
}

export interface SimState {
  /** Bumped when the shape changes, so an old `--state` file is refused rather than misread. */
  version: 1;
  accounts: Dict<AccountState>;
  /** Full API key → account id. */
  keys: Dict<string>;
  /** Keys that worked once and no longer do (a deleted account): 401 even without `--strict-keys`. */
  revokedKeys: Dict<true>;
  /** Canonical email → account id. */
  emails: Dict<string>;
  /** A verified phone number (E.164) → the account it is bound to, permanently (part 3). */
  boundNumbers: Dict<string>;
  /** Numbers the service provisioned (E.164) → account id; they cannot register an account (part 5.5). */
  serviceNumbers: Dict<string>;
  signups: Dict<SignupState>;
  /** registrationId → verificationId. */
  registrations: Dict<string>;
  /** Planned steps of simulated processes: a heap on (`at`, `seq`), kept by job-queue.ts. */
  jobs: Job[];
  /** The last `seq` handed to a planned step. */
  jobSeq?: number;
  /** The last event sequence number handed out. */
  eventSeq: number;
  /** How far the simulated clock is ahead of the machine's (the control surface's advance). */
  clockOffsetMs: number;
  /** How many numbers the service has handed out (resources/numbers.ts): the next one is looked for from there. */
  numbersIssued?: number;
}

export { copyWithoutPrototypes, dict, withoutPrototype, type Dict } from '../contract/dict.js';

/** How many records the history lists answer at most, newest first (part 8: messages and calls). */
export const LIST_LIMIT = 100;

/** How many messages and calls an account keeps: lists show 100 (part 8); the rest feeds nothing. */
export const HISTORY_LIMIT = 500;
/** How many events an account's log keeps for `events/wait` and webhooks. */
export const EVENT_LOG_LIMIT = 1000;

export function emptyState(): SimState {
  return {
    version: 1,
    accounts: dict(),
    keys: dict(),
    revokedKeys: dict(),
    emails: dict(),
    boundNumbers: dict(),
    serviceNumbers: dict(),
    signups: dict(),
    registrations: dict(),
    jobs: [],
    eventSeq: 0,
    clockOffsetMs: 0,
  };
}

/**
 * Drops the oldest entries of a newest-last list grown past `limit`, and returns them. Lists are
 * let grow an eighth past their limit and then cut back in one batch: cutting one entry per
 * append copies the whole list each time, and that churn (100,000 sends: gigabytes of promoted
 * garbage) is what kept the mock's heap high, not the records kept.
 */
export function trimOldest<T>(list: T[], limit: number): T[] {
  return list.length > limit + Math.ceil(limit / 8) ? list.splice(0, list.length - limit) : [];
}
