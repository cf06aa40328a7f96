// Billing (parts 2, 3, 4.4, 8): the billing status composed from state, embedded checkouts (a
// wallet top-up, a subscription, saving a card) completed through the control surface, the
// subscription state table (spec/states/subscription.yaml), saved cards, invoices and the
// activity ledger.
//
// Choices where the interface specification is silent (each marked inferred in the contract):
// a subscription's `periodEnd` is one interval after it starts (`annual` a year, any other
// interval a month); a change of interval is paid at once, so a new period starts then; a
// preview quotes the documented prorated amount (prices are not shown) and 0 for no change;
// 10DLC fees and other wallet debits are `usage` items of the ledger, top-ups
// `payment-credits` items; the activity page is billing-activity.ts's (its default size is the
// contract's).
import type { ProcessStep, RequestContext, ResourceModule, RuleContext } from '../context.js';
import type { AccountState } from '../state.js';
import type { JsonObject, SimResponse } from '../types.js';
import { activityPaging, pageActivity } from './billing-activity.js';
import { liftFreeLimits } from './free-account.js';
import { refreshNumbers } from './numbers.js';

type CheckoutMode = 'credits' | 'subscription' | 'setup';

interface CheckoutSession extends JsonObject {
  clientSecret: string;
  mode: CheckoutMode;
  interval?: string;
  open: boolean;
  createdAt: string;
}

const PERIOD_END = 'billing.periodEnd';
/** A top-up completed without an amount: the control surface's documented default. */
const DEFAULT_TOP_UP = 50;

function checkouts(account: AccountState): CheckoutSession[] {
  return ((account.extra.checkouts ??= []) as CheckoutSession[]);
}

/** Appends a ledger item (newest last in state) at the current time. */
export function recordActivity(ctx: Pick<RuleContext, 'nowIso'>, account: AccountState, item: { type: string; [field: string]: unknown }): void {
  account.billing.activity.push({ ...item, occurredAt: ctx.nowIso });
}

/** Takes `amount` from the wallet and writes the `usage` ledger item for it (a 10DLC fee, ...). */
export function chargeWallet(ctx: Pick<RuleContext, 'nowIso'>, account: AccountState, amount: number, description: string): void {
  account.balance = Math.round((account.balance - amount) * 10000) / 10000;
  recordActivity(ctx, account, { type: 'usage', description, amount: -amount });
}

/** An invoice of the account, its links in the contract's `invoiceLinks` form. */
function issueInvoice(ctx: RuleContext, account: AccountState): string {
  const invoiceId = ctx.ids.next('in_');
  const links = ctx.contract.example('getInvoice', 200, 'invoiceLinks');
  const own = (url: string): string => url.replace(/in_[A-Za-z0-9]+/g, invoiceId);
  account.billing.invoices[invoiceId] = { ...links, invoicePdf: own(links.invoicePdf), hostedInvoiceUrl: own(links.hostedInvoiceUrl) };
  return invoiceId;
}

/** A new subscription period from now: a paid invoice, `periodEnd` one interval ahead, its end planned. */
function startPeriod(ctx: RuleContext, account: AccountState, interval: string): void {
  const end = new Date(ctx.nowIso);
  if (/^(annual|yearly|year)$/i.test(interval)) end.setUTCFullYear(end.getUTCFullYear() + 1);
  else end.setUTCMonth(end.getUTCMonth() + 1);
  const periodEnd = end.toISOString();
  account.billing.subscription = { cancelAtPeriodEnd: false, periodEnd, invoiceId: issueInvoice(ctx, account), interval };
  ctx.unschedule(account, PERIOD_END, 'subscription');
  ctx.schedule(account, PERIOD_END, 'subscription', Date.parse(periodEnd) - ctx.now, { periodEnd });
}

function setBillingModes(account: AccountState, mode: 'PAYG' | 'FIXED'): void {
  for (const number of account.numbers) number.billingMode = mode;
  refreshNumbers(account);
}

/** Part 3: at `periodEnd` a subscription scheduled to cancel ends (the account reverts to PAYG); otherwise it renews. */
const periodEnd: ProcessStep = (ctx, account, job) => {
  const subscription = account.billing.subscription;
  if (!subscription || subscription.periodEnd !== job.data?.periodEnd) return;
  if (subscription.cancelAtPeriodEnd) {
    account.billing.subscription = null;
    setBillingModes(account, 'PAYG');
  } else {
    startPeriod(ctx, account, String(subscription.interval ?? 'monthly'));
  }
};

function openCheckout(ctx: RequestContext, mode: CheckoutMode, extra: JsonObject = {}): SimResponse {
  const clientSecret = `cs_test_${ctx.ids.next('')}_secret_${ctx.ids.next('')}`;
  checkouts(ctx.account).push({ clientSecret, mode, open: true, createdAt: ctx.nowIso, ...extra });
  return ctx.json(200, { clientSecret });
}

/**
 * Completes the account's checkout session `clientSecret` (the newest open one when omitted), as
 * the customer paying would (control surface): credits, subscription or card setup.
 */
export function completeCheckout(ctx: RuleContext, account: AccountState, input: { clientSecret?: string; amount?: number }): SimResponse {
  const open = checkouts(account).filter((session) => session.open);
  const session = input.clientSecret === undefined ? open[open.length - 1] : open.find((s) => s.clientSecret === input.clientSecret);
  // The control surface answers its own documented `noCheckout` example (spec/mock-control.yaml).
  if (!session) return { status: 404 };
  session.open = false;
  if (session.mode === 'credits') {
    // Part 4.4: the wallet is credited when the invoice is paid; part 3: the first top-up lifts the free limits.
    const amount = input.amount ?? DEFAULT_TOP_UP;
    const invoiceId = issueInvoice(ctx, account);
    account.balance = Math.round((account.balance + amount) * 10000) / 10000;
    account.billing.deposits.unshift({ invoiceId, amount, createdAt: ctx.nowIso });
    const firstPage = ctx.contract.example('listBillingActivity', 200, 'firstPage');
    const template = firstPage.items?.find((item) => item.type === 'payment-credits') ?? { type: 'payment-credits' };
    recordActivity(ctx, account, { ...template, amount, invoiceId });
    liftFreeLimits(account);
  } else if (session.mode === 'subscription') {
    // Part 3: coverage begins when the invoice is paid; every number is on the subscription.
    startPeriod(ctx, account, session.interval ?? 'monthly');
    setBillingModes(account, 'FIXED');
    liftFreeLimits(account);
  } else {
    // Part 4.4: the first saved card becomes the default.
    const card = ctx.contract.example('getBilling', 200, 'payAsYouGo').paymentMethods[0]!;
    const methods = account.billing.paymentMethods;
    methods.push({ ...card, id: ctx.ids.next('pm_'), isDefault: !methods.some((m) => m.isDefault) });
  }
  return { status: 200, body: { completed: session.mode, clientSecret: session.clientSecret } };
}

/** Recent usage for the billing status: the account's own traffic of the last 30 days (part 4.3's counters). */
function recentUsage(ctx: RuleContext, account: AccountState): JsonObject {
  const since = new Date(ctx.now - 30 * 86_400_000).toISOString().slice(0, 10);
  const usage = { messages: 0, calls: 0, minutes: 0 };
  for (const [day, counts] of Object.entries(account.daily)) {
    if (day < since) continue;
    usage.messages += counts.messages;
    usage.calls += counts.calls;
    usage.minutes += counts.minutes;
  }
  return usage;
}

/** `act` on the account's subscription, unless there is none (409) or a test value of `only` answers instead. */
function onSubscription(ctx: RequestContext, only: string[], act: (subscription: JsonObject) => SimResponse): SimResponse {
  const subscription = ctx.account.billing.subscription;
  if (!subscription) return ctx.documented(409, 'noActiveSubscription');
  return (only.length > 0 && ctx.testValue(only)) || act(subscription);
}

/** Cancels the subscription at its period end (part 3: coverage continues until then, and the account reverts to PAYG), or no longer. */
const cancelAtPeriodEnd =
  (cancel: boolean) =>
  (ctx: RequestContext): SimResponse =>
    onSubscription(ctx, [], (subscription) => {
      subscription.cancelAtPeriodEnd = cancel;
      return ctx.documented(200, 'actionDone');
    });

export const billingModule: ResourceModule = {
  name: 'billing',
  parts: '2, 3, 4.4, 8',
  reads: ['getBilling', 'getInvoice', 'listBillingActivity'],
  handlers: {
    getBilling(ctx) {
      const { account } = ctx;
      return ctx.json(200, {
        balance: account.balance,
        subscription: account.billing.subscription,
        numbers: [...account.numbers].reverse().map(({ id, number, billingMode }) => ({ id, number, billingMode: billingMode ?? 'PAYG' })),
        paymentMethods: account.billing.paymentMethods,
        deposits: account.billing.deposits,
        recentUsage: recentUsage(ctx, account),
      });
    },

    createCreditsCheckout(ctx) {
      // Part 4.4: no top-ups while a subscription is active.
      if (ctx.account.billing.subscription) return ctx.documented(409, 'subscriptionActive');
      return openCheckout(ctx, 'credits');
    },

    createSubscriptionCheckout(ctx) {
      // Part 4.4: an account holding an iMessage number cannot subscribe.
      if (ctx.account.numbers.some((number) => ((number.capabilities ?? []) as string[]).includes('imessage'))) return ctx.documented(403, 'imessageNumber');
      return openCheckout(ctx, 'subscription', { interval: String(ctx.body.interval) });
    },

    createPaymentMethodSetup: (ctx) => openCheckout(ctx, 'setup'),

    cancelSubscription: cancelAtPeriodEnd(true),
    resumeSubscription: cancelAtPeriodEnd(false),

    changeSubscriptionInterval: (ctx) =>
      onSubscription(ctx, ['promotionCodeInvalid'], (subscription) => {
        const interval = String(ctx.body.interval);
        // Part 3: the same interval is a no-op answering 200; another is prorated and invoiced at
        // once (paid), clearing any scheduled cancellation.
        if (interval !== subscription.interval) startPeriod(ctx, ctx.account, interval);
        return ctx.documented(200, 'actionDone');
      }),

    // Nothing is changed or charged (part 4.4).
    previewSubscriptionChange: (ctx) =>
      onSubscription(ctx, ['promotionCodeInvalid'], (subscription) => {
        const interval = ctx.body.interval ?? subscription.interval;
        const quote = ctx.documented(200, 'proratedQuote').body as JsonObject;
        const unchanged = interval === subscription.interval && (ctx.body.quantity ?? ctx.account.numbers.length) === ctx.account.numbers.length;
        return ctx.json(200, { ...quote, prorationDate: Math.floor(ctx.now / 1000), amountDue: unchanged ? 0 : quote.amountDue });
      }),

    deletePaymentMethod(ctx) {
      const methods = ctx.account.billing.paymentMethods;
      const index = methods.findIndex((method) => method.id === ctx.params.id);
      if (index < 0) return ctx.documented(404);
      const [removed] = methods.splice(index, 1);
      // Part 4.4: removing the default promotes the next card on file.
      if (removed!.isDefault && methods.length > 0) methods[Math.min(index, methods.length - 1)]!.isDefault = true;
      return ctx.documented(200, 'actionDone');
    },

    setDefaultPaymentMethod(ctx) {
      const methods = ctx.account.billing.paymentMethods;
      if (!methods.some((method) => method.id === ctx.params.id)) return ctx.documented(404);
      for (const method of methods) method.isDefault = method.id === ctx.params.id;
      return ctx.documented(200, 'actionDone');
    },

    getInvoice(ctx) {
      // Part 4.4: 404 when the invoice does not belong to the account.
      const invoice = ctx.account.billing.invoices[ctx.params.invoiceId ?? ''];
      return invoice ? ctx.json(200, invoice) : ctx.documented(404);
    },

    listBillingActivity: (ctx) => ctx.json(200, pageActivity(ctx.account.billing.activity, ctx.request.query, activityPaging(ctx.contract.document)!)),
  },
  processes: { [PERIOD_END]: periodEnd },
  seed(ctx, account) {
    // A seeded subscription ends or renews at its periodEnd.
    const subscription = account.billing.subscription;
    if (subscription?.periodEnd) {
      ctx.schedule(account, PERIOD_END, 'subscription', Math.max(0, Date.parse(String(subscription.periodEnd)) - ctx.now), { periodEnd: subscription.periodEnd });
    }
  },
};
