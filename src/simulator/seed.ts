// What a new account starts with. The demo seed is built from the contract's own examples (a paid
// pay-as-you-go account with a positive wallet, a US SMS number, message, call and billing
// history), so lists render at once; `--seed <file>` replaces it with your own data (a JSON
// SeedFile). Accounts made by the sign-up flow start from nothing, as a new account does (part 3).
import { DOCUMENTED_KEY_PREFIX, isWellFormedKey } from '../contract/api-key.js';
import type { SimContract } from './contract.js';
import { withoutPrototype } from './state.js';
import type { AccountRecord, ActivityRecord, DepositRecord, GroupRecord, InvoiceRecord, MessageRecord, NumberRecord, PaymentMethodRecord, SeededCallRecord, SubscriptionRecord, TenDlcRecord, WebhookRecord } from './records.js';

/** An account's starting records, in the contract's shapes. Every field is optional. */
export interface AccountSeed {
  /** The account record's own fields (`maxCallDurationSeconds`, ...). */
  account?: Partial<AccountRecord>;
  /** Whether the account has paid (free-account limits lifted, part 3). */
  paid?: boolean;
  balance?: number;
  /** Newest first, as the list operations answer them. */
  numbers?: NumberRecord[];
  messages?: MessageRecord[];
  /** Calls; one without an `id` gets one. */
  calls?: SeededCallRecord[];
  groups?: GroupRecord[];
  webhooks?: WebhookRecord[];
  subscription?: SubscriptionRecord | null;
  paymentMethods?: PaymentMethodRecord[];
  deposits?: DepositRecord[];
  /** Billing activity items, newest first. */
  activity?: ActivityRecord[];
  /** Invoice links by invoice id. */
  invoices?: Record<string, InvoiceRecord>;
  /** 10DLC registrations by number id. */
  tenDlc?: Record<string, TenDlcRecord>;
}

export interface NamedAccountSeed extends AccountSeed {
  /** The keys that open this account (accepted under `--strict-keys`). */
  keys: string[];
  email?: string | null;
}

export interface SeedFile {
  /** What an account first opened by an unknown key starts with (the demo seed when omitted). */
  default?: AccountSeed;
  /** Accounts that exist from the start, with their keys; each starts from `default` and replaces what it gives. */
  accounts?: NamedAccountSeed[];
}

/** The demo account, every value taken from a named example of the contract. */
export function demoAccountSeed(contract: SimContract): AccountSeed {
  const account = contract.example('getAccount', 200, 'paidAccount');
  const billing = contract.example('getBilling', 200, 'payAsYouGo');
  const firstPage = contract.example('listBillingActivity', 200, 'firstPage');
  const lastPage = contract.example('listBillingActivity', 200, 'lastPage');
  const invoice = contract.example('getInvoice', 200);
  const { limits, apiKeys: _previews, ...fields } = account;
  return {
    account: fields,
    paid: limits === null,
    balance: billing.balance,
    // The two listed numbers, then a WhatsApp line bought warmed and the group's WhatsApp line
    // still warming up (it becomes ready when the clock moves about 6 hours, part 3).
    numbers: [
      contract.example('updateNumber', 200, 'whatsappWarmingUp'),
      contract.example('createNumber', 201, 'whatsappReadyNumber'),
      ...contract.example('listNumbers', 200, 'twoNumbers'),
    ],
    messages: contract.example('listMessages', 200, 'recentMessages'),
    calls: contract.example('listCalls', 200, 'recentCalls'),
    groups: contract.example('listGroups', 200, 'groups'),
    webhooks: [],
    subscription: billing.subscription ?? null,
    paymentMethods: billing.paymentMethods ?? [],
    deposits: billing.deposits ?? [],
    activity: [...(firstPage.items ?? []), ...(lastPage.items ?? [])],
    invoices: Object.fromEntries((billing.deposits ?? []).map((deposit) => [deposit.invoiceId, invoice])),
  };
}

/** Reads a seed file's JSON, saying what is wrong with it; its keys are well formed by the key rule (part 5.1). */
export function parseSeed(text: string, source = 'seed', prefix = DOCUMENTED_KEY_PREFIX): SeedFile {
  let value: unknown;
  try {
    value = JSON.parse(text, withoutPrototype);
  } catch (error) {
    throw new Error(`${source} is not JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source} must be a JSON object with "default" and/or "accounts".`);
  const seed = value as SeedFile;
  if (seed.accounts !== undefined) {
    if (!Array.isArray(seed.accounts)) throw new Error(`${source}: "accounts" must be an array.`);
    seed.accounts.forEach((account, i) => {
      if (!Array.isArray(account.keys) || account.keys.length === 0 || !account.keys.every((key) => isWellFormedKey(key, prefix))) {
        throw new Error(`${source}: accounts[${i}].keys must be a non-empty array of keys beginning ${prefix}.`);
      }
    });
  }
  return seed;
}
