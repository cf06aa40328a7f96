// Phone numbers (parts 2, 3, 4.5, 8): provisioning, listing, the number update, the `tenDlc`
// summary of each number and the WhatsApp warm-up. Records are kept in the PhoneNumber shape;
// `tenDlc` is kept current by `refreshNumbers` whenever what it depends on changes.
//
// Billing mode of a new number (part 1 says billing is per number, PAYG or FIXED, and part 4.4
// that a subscription's quantity is one unit per number): FIXED while the account has an active
// subscription, PAYG otherwise. billing.ts moves the numbers to FIXED when a subscription starts
// and back to PAYG when it ends.
import type { ProcessStep, RequestContext, ResourceModule, RuleContext } from '../context.js';
import type { NumberRecord, TenDlcSummaryRecord } from '../records.js';
import type { AccountState } from '../state.js';
import { aboveFreeCeiling } from './free-account.js';

/** The account's number by `id` or by E.164 `number` (either may be given; both must match when both are). */
export function findNumber(account: AccountState, by: { id?: string; number?: string }): NumberRecord | undefined {
  if (by.id === undefined && by.number === undefined) return undefined;
  return account.numbers.find((n) => (by.id === undefined || n.id === by.id) && (by.number === undefined || n.number === by.number));
}

/**
 * Wallet gating (parts 3 and 7, 402): a PAYG number is gated while the wallet balance is at or
 * below zero; a FIXED (subscription) number never is.
 */
export function isWalletGated(account: AccountState, number: Pick<NumberRecord, 'billingMode'> | undefined): boolean {
  return (number?.billingMode ?? 'PAYG') === 'PAYG' && account.balance <= 0;
}

/** An account is pay-as-you-go unless a subscription is active (part 3: at period end it reverts to PAYG). */
export function accountIsPayg(account: AccountState): boolean {
  return !account.billing.subscription;
}

/** The billing mode a number provisioned now gets (see the header). */
export function newNumberBillingMode(account: AccountState): 'PAYG' | 'FIXED' {
  return accountIsPayg(account) ? 'PAYG' : 'FIXED';
}

/** Whether 10DLC can ever apply to the number itself (part 2): a US number without the `imessage` capability. */
export function tenDlcApplicable(number: NumberRecord): boolean {
  return number.number.startsWith('+1') && !number.capabilities.includes('imessage');
}

/**
 * A number's `tenDlc` (part 2): null for a non-US number, a number with the `imessage`
 * capability, or an account that is not pay-as-you-go and has no registration yet; otherwise
 * the registration's status and reason, `not_registered` without one.
 */
export function tenDlcSummary(account: AccountState, number: NumberRecord): TenDlcSummaryRecord | null {
  if (!tenDlcApplicable(number)) return null;
  const registration = account.tenDlc[number.id];
  if (registration) return { status: registration.status ?? 'in_review', reason: registration.reason ?? null };
  if (!accountIsPayg(account)) return null;
  return { status: 'not_registered', reason: null };
}

/** Brings every number's derived `tenDlc` up to date (after a registration, subscription or number change). */
export function refreshNumbers(account: AccountState): void {
  for (const number of account.numbers) number.tenDlc = tenDlcSummary(account, number);
}

/**
 * A fresh number the service can hand out: in the fictional 555 range, held by nobody. Numbers are
 * handed out in turn (`numbersIssued`), each checked against the maps of numbers held (service
 * numbers, which every account's numbers are, and verified ones) by key: a store that keeps part
 * of the state in view loads just those entries.
 */
function allocateE164(ctx: RuleContext): string {
  // 555-1000..555-9999 in one area code after another (the contract's examples use 312 and 415).
  for (let n = ctx.state.numbersIssued ?? 0; ; n++) {
    const areaCode = 312 + Math.floor(n / 9000);
    const candidate = `+1${areaCode}555${String(1000 + (n % 9000)).padStart(4, '0')}`;
    if (Object.hasOwn(ctx.state.serviceNumbers, candidate) || Object.hasOwn(ctx.state.boundNumbers, candidate)) continue;
    ctx.state.numbersIssued = n + 1;
    return candidate;
  }
}

/**
 * Provisions a number on the account (part 4.5) and registers it as a service number (part 5.5:
 * it can never register an account). Its shape and default inbound prompt are the contract's
 * `usPaygNumber` example (or `whatsappReadyNumber`: bought with WhatsApp, it arrives warmed,
 * part 3). No wallet or test-value check: the caller decides (sign-up provisions one too).
 */
export function provisionNumber(ctx: RuleContext, account: AccountState, options: { whatsapp?: boolean; nickname?: string } = {}): NumberRecord {
  const template = ctx.contract.example('createNumber', 201, options.whatsapp ? 'whatsappReadyNumber' : 'usPaygNumber');
  const e164 = allocateE164(ctx);
  const number: NumberRecord = {
    ...template,
    id: ctx.ids.next('pn_'),
    number: e164,
    nickname: options.nickname ?? e164,
    createdAt: ctx.nowIso,
    maxCallDurationSeconds: null,
    billingMode: newNumberBillingMode(account),
    ...(options.whatsapp ? { whatsapp: { status: 'ready' } } : {}),
  };
  if (!options.whatsapp) delete number.whatsapp;
  number.tenDlc = tenDlcSummary(account, number);
  account.numbers.push(number);
  ctx.state.serviceNumbers[e164] = account.id;
  return number;
}

/** About 6 hours from `warming_up` to `ready` for a customer-connected WhatsApp number (part 8). */
export const WHATSAPP_WARMUP_MS = 6 * 60 * 60 * 1000;
const WARMUP = 'numbers.whatsappWarmup';

const warmupDone: ProcessStep = (_ctx, account, job) => {
  const number = findNumber(account, { id: job.ref });
  if (number?.whatsapp?.status === 'warming_up') number.whatsapp = { status: 'ready' };
};

export const numbersModule: ResourceModule = {
  name: 'numbers',
  parts: '2, 3, 4.5, 8',
  reads: ['listNumbers'],
  handlers: {
    // Newest first.
    listNumbers(ctx) {
      refreshNumbers(ctx.account);
      return ctx.json(200, [...ctx.account.numbers].reverse());
    },

    createNumber(ctx: RequestContext<'createNumber'>) {
      const { account } = ctx;
      // Part 3 wallet gating: provisioning a PAYG number with the wallet at or below zero is 402.
      if (isWalletGated(account, { billingMode: newNumberBillingMode(account) })) return ctx.documented(402);
      // Only the number broker knows none is free: the documented test value (nothing bought or charged, part 7).
      if (ctx.body.whatsapp === true) {
        const unavailable = ctx.testValue(['whatsappUnavailable']);
        if (unavailable) return unavailable;
      }
      const nickname = typeof ctx.body.nickname === 'string' ? ctx.body.nickname : undefined;
      return ctx.json(201, provisionNumber(ctx, account, { whatsapp: ctx.body.whatsapp === true, nickname }));
    },

    updateNumber(ctx) {
      const number = findNumber(ctx.account, { id: ctx.params.id });
      if (!number) return ctx.documented(404);
      // 60..3600 is the schema's (the contract gate refuses it first); a free account's ceiling
      // applies to an explicit value (part 8).
      if (aboveFreeCeiling(ctx, ctx.account, ctx.body.maxCallDurationSeconds)) return ctx.documented(400, 'aboveFreeCeiling');
      if ('maxCallDurationSeconds' in ctx.body) number.maxCallDurationSeconds = ctx.body.maxCallDurationSeconds ?? null;
      if (typeof ctx.body.inboundPrompt === 'string') number.inboundPrompt = ctx.body.inboundPrompt;
      number.tenDlc = tenDlcSummary(ctx.account, number);
      return ctx.json(200, number);
    },
  },
  processes: { [WARMUP]: warmupDone },
  seed(ctx, account) {
    for (const number of account.numbers) {
      // A seeded number is one the service provisioned: it cannot register an account (part 5.5).
      ctx.state.serviceNumbers[number.number] ??= account.id;
      // A seeded number still warming up reaches `ready` about 6 hours after the account opens.
      if (number.whatsapp?.status === 'warming_up') ctx.schedule(account, WARMUP, number.id, WHATSAPP_WARMUP_MS);
    }
  },
};
