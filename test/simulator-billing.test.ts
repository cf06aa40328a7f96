// Billing (parts 2, 3, 4.4, 8) in the simulator: each rule of src/simulator/resources/billing.ts
// in-process (manual clock, sequential ids; requests checked by the contract as the gate does,
// answers validated against the contract), and the top-up and activity paging over the real
// stateful mock.
import { describe, expect, it } from 'vitest';
import { completeCheckout } from '../src/simulator/resources/billing.js';
import type { JsonObject } from '../src/simulator/types.js';
import { inProcessSimulator, useStatefulMock } from './helpers/simulator-harness.js';
import { client, newKey } from './helpers/stateful-mock.js';

const DAY = 86_400_000;

function sim() {
  const { simulator, clock, call, account } = inProcessSimulator({ key: 'sk_live_billing' });
  const complete = (input: { clientSecret?: string; amount?: number } = {}, key = 'sk_live_billing') =>
    simulator.withContext((ctx) => completeCheckout(ctx, account(key), input));
  /** The demo account holds an iMessage number, which forbids a subscription: drop it. */
  const withoutImessage = () => {
    account().numbers = account().numbers.filter((n) => !(n.capabilities as string[]).includes('imessage'));
  };
  const subscribe = (interval = 'monthly') => {
    withoutImessage();
    const { clientSecret } = call('POST', '/api/v1/billing/checkout/subscription', { interval }).body;
    expect(complete({ clientSecret }).status).toBe(200);
  };
  return { simulator, clock, call, account, complete, subscribe, withoutImessage };
}

describe('billing (in-process)', () => {
  it('GET /api/v1/billing composes the status from state', () => {
    const { call, account } = sim();
    const a = account();
    a.balance = 12.5;
    a.daily = {};
    const status = call('GET', '/api/v1/billing').body;
    expect(status.balance).toBe(12.5);
    expect(status.subscription).toBeNull();
    expect(status.numbers).toEqual([...a.numbers].reverse().map(({ id, number, billingMode }) => ({ id, number, billingMode })));
    expect(status.paymentMethods).toEqual(a.billing.paymentMethods);
    expect(status.deposits).toEqual(a.billing.deposits);
    expect(status.recentUsage).toEqual({ messages: 0, calls: 0, minutes: 0 });
    a.daily['2026-11-20'] = { messages: 3, calls: 2, minutes: 4.5 };
    a.daily['2026-01-01'] = { messages: 100, calls: 100, minutes: 100 };
    expect(call('GET', '/api/v1/billing').body.recentUsage).toEqual({ messages: 3, calls: 2, minutes: 4.5 });
  });

  it('a completed top-up credits the wallet, records a deposit with its invoice, a ledger item, and lifts the free limits for good', () => {
    const { call, account, complete } = sim();
    const a = account();
    a.paid = false;
    a.balance = 0;
    expect(call('GET', '/api/v1/account').body.limits).not.toBeNull();
    const checkout = call('POST', '/api/v1/billing/checkout/credits', {});
    expect(checkout.status).toBe(200);
    expect(typeof checkout.body.clientSecret).toBe('string');
    // Not credited before the checkout completes.
    expect(call('GET', '/api/v1/billing').body.balance).toBe(0);
    expect(complete({ clientSecret: checkout.body.clientSecret, amount: 20 }).body).toEqual({ completed: 'credits', clientSecret: checkout.body.clientSecret });
    const status = call('GET', '/api/v1/billing').body;
    expect(status.balance).toBe(20);
    const deposit = status.deposits[0];
    expect(deposit).toMatchObject({ amount: 20 });
    const invoice = call('GET', `/api/v1/billing/invoices/${deposit.invoiceId}`);
    expect(invoice.status).toBe(200);
    expect(invoice.body.invoicePdf).toContain(deposit.invoiceId);
    expect(call('GET', '/api/v1/billing/activity?limit=1').body.items[0]).toMatchObject({ type: 'payment-credits', amount: 20 });
    expect(call('GET', '/api/v1/account').body.limits).toBeNull();
    // A session completes once; no open session left → 404.
    expect(complete({ clientSecret: checkout.body.clientSecret }).status).toBe(404);
    expect(complete().status).toBe(404);
    // The limits stay lifted when the wallet is spent.
    a.balance = 0;
    expect(call('GET', '/api/v1/account').body.limits).toBeNull();
  });

  it('an invoice of another account, or an unknown one, is 404', () => {
    const { call, complete } = sim();
    call('POST', '/api/v1/billing/checkout/credits', {}, 'sk_live_other');
    complete({}, 'sk_live_other');
    const invoiceId = call('GET', '/api/v1/billing', undefined, 'sk_live_other').body.deposits[0].invoiceId;
    expect(call('GET', `/api/v1/billing/invoices/${invoiceId}`, undefined, 'sk_live_other').status).toBe(200);
    expect(call('GET', `/api/v1/billing/invoices/${invoiceId}`).status).toBe(404);
    expect(call('GET', '/api/v1/billing/invoices/in_nope').status).toBe(404);
  });

  it('a subscription checkout is refused 403 while an iMessage number is held', () => {
    const { simulator, call, withoutImessage } = sim();
    expect(call('POST', '/api/v1/billing/checkout/subscription', { interval: 'monthly' })).toEqual({ status: 403, body: simulator.contract.example('createSubscriptionCheckout', 403, 'imessageNumber') });
    withoutImessage();
    expect(call('POST', '/api/v1/billing/checkout/subscription', { interval: 'monthly' }).status).toBe(200);
  });

  it('a completed subscription checkout starts an active subscription one interval long, numbers FIXED, limits lifted; credits checkout then 409', () => {
    const { simulator, call, account, subscribe } = sim();
    account().paid = false;
    subscribe('monthly');
    const status = call('GET', '/api/v1/billing').body;
    expect(status.subscription).toMatchObject({ cancelAtPeriodEnd: false, periodEnd: '2026-12-23T12:00:00.000Z', interval: 'monthly' });
    expect(call('GET', `/api/v1/billing/invoices/${status.subscription.invoiceId}`).status).toBe(200);
    expect(status.numbers.every((n: JsonObject) => n.billingMode === 'FIXED')).toBe(true);
    expect(call('GET', '/api/v1/account').body.limits).toBeNull();
    expect(call('POST', '/api/v1/billing/checkout/credits', {})).toEqual({ status: 409, body: simulator.contract.example('createCreditsCheckout', 409, 'subscriptionActive') });
  });

  it('cancel, resume, change and preview answer 409 without a subscription', () => {
    const { simulator, call } = sim();
    const none = { status: 409, body: simulator.contract.example('cancelSubscription', 409, 'noActiveSubscription') };
    expect(call('POST', '/api/v1/billing/subscription/cancel')).toEqual(none);
    expect(call('POST', '/api/v1/billing/subscription/resume')).toEqual(none);
    expect(call('POST', '/api/v1/billing/subscription/change', { interval: 'annual' })).toEqual(none);
    expect(call('POST', '/api/v1/billing/subscription/preview', {})).toEqual(none);
  });

  it('cancel schedules the end at periodEnd; reaching it reverts the account to PAYG; resume before then renews', () => {
    const { simulator, call, subscribe } = sim();
    subscribe('monthly');
    expect(call('POST', '/api/v1/billing/subscription/cancel').status).toBe(200);
    expect(call('GET', '/api/v1/billing').body.subscription.cancelAtPeriodEnd).toBe(true);
    simulator.advance(29 * DAY);
    expect(call('GET', '/api/v1/billing').body.subscription).not.toBeNull();
    simulator.advance(1 * DAY);
    const ended = call('GET', '/api/v1/billing').body;
    expect(ended.subscription).toBeNull();
    expect(ended.numbers.every((n: JsonObject) => n.billingMode === 'PAYG')).toBe(true);
    expect(call('POST', '/api/v1/billing/checkout/credits', {}).status).toBe(200);

    const second = sim();
    second.subscribe('monthly');
    second.call('POST', '/api/v1/billing/subscription/cancel');
    expect(second.call('POST', '/api/v1/billing/subscription/resume').status).toBe(200);
    expect(second.call('GET', '/api/v1/billing').body.subscription.cancelAtPeriodEnd).toBe(false);
    second.simulator.advance(30 * DAY);
    const renewed = second.call('GET', '/api/v1/billing').body.subscription;
    expect(renewed).toMatchObject({ cancelAtPeriodEnd: false, periodEnd: '2027-01-23T12:00:00.000Z' });
  });

  it('change to the same interval is a no-op 200; to another interval it applies and clears a scheduled cancellation', () => {
    const { call, subscribe } = sim();
    subscribe('monthly');
    call('POST', '/api/v1/billing/subscription/cancel');
    const before = call('GET', '/api/v1/billing').body.subscription;
    expect(call('POST', '/api/v1/billing/subscription/change', { interval: 'monthly' }).status).toBe(200);
    expect(call('GET', '/api/v1/billing').body.subscription).toEqual(before);
    expect(call('POST', '/api/v1/billing/subscription/change', { interval: 'annual' }).status).toBe(200);
    expect(call('GET', '/api/v1/billing').body.subscription).toMatchObject({ interval: 'annual', cancelAtPeriodEnd: false, periodEnd: '2027-11-23T12:00:00.000Z' });
  });

  it('the promotionCodeInvalid test value answers 400 and changes nothing', () => {
    const { simulator, call, subscribe } = sim();
    subscribe('monthly');
    const code = simulator.contract.testValues('changeSubscriptionInterval').find((v) => v.name === 'promotionCodeInvalid')!.value;
    expect(call('POST', '/api/v1/billing/subscription/change', { interval: 'annual', promotionCode: code }).status).toBe(400);
    expect(call('GET', '/api/v1/billing').body.subscription.interval).toBe('monthly');
    expect(call('POST', '/api/v1/billing/subscription/change', { interval: 'annual', promotionCode: 'SPRING25' }).status).toBe(200);
  });

  it('preview quotes with a prorationDate and changes nothing', () => {
    const { clock, call, subscribe } = sim();
    subscribe('monthly');
    const before = call('GET', '/api/v1/billing').body;
    const quote = call('POST', '/api/v1/billing/subscription/preview', { interval: 'annual' });
    expect(quote.status).toBe(200);
    expect(quote.body.prorationDate).toBe(Math.floor(clock.now() / 1000));
    expect(quote.body.amountDue).toBeGreaterThan(0);
    expect(call('POST', '/api/v1/billing/subscription/preview', {}).body.amountDue).toBe(0);
    expect(call('GET', '/api/v1/billing').body).toEqual(before);
  });

  it('cards: the first saved becomes the default, removing the default promotes the next, unknown ids 404', () => {
    const { call, account, complete } = sim();
    account().billing.paymentMethods = [];
    for (let i = 0; i < 3; i++) {
      call('POST', '/api/v1/billing/payment-methods/setup', {});
      expect((complete().body as JsonObject).completed).toBe('setup');
    }
    let cards = call('GET', '/api/v1/billing').body.paymentMethods as JsonObject[];
    expect(cards.map((c) => c.isDefault)).toEqual([true, false, false]);
    expect(call('POST', `/api/v1/billing/payment-methods/${cards[2]!.id}/default`).status).toBe(200);
    expect((call('GET', '/api/v1/billing').body.paymentMethods as JsonObject[]).map((c) => c.isDefault)).toEqual([false, false, true]);
    expect(call('DELETE', `/api/v1/billing/payment-methods/${cards[2]!.id}`).status).toBe(200);
    cards = call('GET', '/api/v1/billing').body.paymentMethods as JsonObject[];
    expect(cards).toHaveLength(2);
    expect(cards.filter((c) => c.isDefault)).toHaveLength(1);
    expect(call('DELETE', `/api/v1/billing/payment-methods/${cards[0]!.id}`).status).toBe(200);
    expect(call('DELETE', '/api/v1/billing/payment-methods/pm_nope').status).toBe(404);
    expect(call('POST', '/api/v1/billing/payment-methods/pm_nope/default').status).toBe(404);
    cards = call('GET', '/api/v1/billing').body.paymentMethods as JsonObject[];
    expect(cards).toEqual([expect.objectContaining({ id: cards[0]!.id, isDefault: true })]);
  });

  it('activity: newest first, filter, starting_after strictly older, limit clamped to 1..100 with the documented default, hasMore exact', () => {
    const { call, account, simulator } = sim();
    const a = account();
    a.billing.activity = [];
    const base = Date.parse('2026-10-01T00:00:00Z');
    for (let i = 0; i < 130; i++) a.billing.activity.push({ type: i % 2 ? 'usage' : 'payment-credits', occurredAt: new Date(base + i * 60_000).toISOString(), amount: i });
    const page = (query: string) => call('GET', `/api/v1/billing/activity?${query}`).body;
    const first = page('limit=5');
    expect(first.items.map((i: JsonObject) => i.amount)).toEqual([129, 128, 127, 126, 125]);
    expect(first.hasMore).toBe(true);
    const next = page(`limit=5&starting_after=${encodeURIComponent(first.items[4].occurredAt)}`);
    expect(next.items.map((i: JsonObject) => i.amount)).toEqual([124, 123, 122, 121, 120]);
    expect(page('limit=0').items).toHaveLength(1);
    expect(page('limit=-3').items).toHaveLength(1);
    // Without limit: the contract's default (x-inferred), the one the example server pages with too.
    const limit = (simulator.contract.operation('listBillingActivity').parameters as JsonObject[]).find((p) => p.name === 'limit')!;
    expect(page('').items).toHaveLength(limit.schema.default);
    expect(limit.schema['x-inferred']).toBe(true);
    const big = page('limit=1000');
    expect(big.items).toHaveLength(100);
    expect(big.hasMore).toBe(true);
    expect(page('filter=usage&limit=100').items.every((i: JsonObject) => i.type === 'usage')).toBe(true);
    expect(page('filter=usage&limit=100').items).toHaveLength(65);
    expect(page('filter=usage&limit=100').hasMore).toBe(false);
    expect(page('filter=payment-credits&limit=65')).toMatchObject({ hasMore: false });
    expect(page('filter=payment-credits&limit=64')).toMatchObject({ hasMore: true });
    const last = page(`limit=10&starting_after=${encodeURIComponent(new Date(base + 10 * 60_000).toISOString())}`);
    expect(last.items.map((i: JsonObject) => i.amount)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(last.hasMore).toBe(false);
    expect(call('GET', '/api/v1/billing/activity?filter=bogus').status).toBe(400);
  });
});

describe('billing (stateful mock over HTTP)', () => {
  const mock = useStatefulMock();

  it('the seeded activity with limit=5 answers every item and hasMore false (no empty page after)', async () => {
    const call = client(mock().url, newKey('billing'));
    const page = await call('GET', '/api/v1/billing/activity?limit=5');
    expect(page.status).toBe(200);
    expect(page.body.hasMore).toBe(false);
    const occurred = page.body.items.map((i: JsonObject) => Date.parse(i.occurredAt));
    expect(occurred).toEqual([...occurred].sort((x, y) => y - x));
  });

  it('a top-up through the control surface credits the wallet and writes the ledger', async () => {
    const call = client(mock().url, newKey('billing'));
    const before = (await call('GET', '/api/v1/billing')).body.balance;
    const { clientSecret } = (await call('POST', '/api/v1/billing/checkout/credits', {})).body;
    const done = await call('POST', '/__mock/checkout/complete', { clientSecret, amount: 25 });
    expect(done.body).toEqual({ completed: 'credits', clientSecret });
    expect((await call('GET', '/api/v1/billing')).body.balance).toBe(before + 25);
    const items = (await call('GET', '/api/v1/billing/activity?filter=payment-credits&limit=1')).body.items;
    expect(items[0]).toMatchObject({ type: 'payment-credits', amount: 25 });
  });
});
