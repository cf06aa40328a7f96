// What only the package's mock lets the suite provoke, each on an account it signs up there (never
// the run's own), at the `writes` level, once the mock has announced itself. On a deployment each
// of these would spend, provision, check out or reach a person, or needs a test value the service
// gives no meaning; the coverage says which. Each journey judges every answer as any other, expects
// the documented status (and part 7's code), and compares what one answer carries to another:
// - numbers and messages: a WhatsApp number bought (201), none available (503), the channel
//   refusals (403 `unsupported_region`, `whatsapp_limited`), the spacing limit (429), typing
//   refusals (403, 503), a wait on a stream that is not configured (503);
// - lookups: one that cannot complete (502), then the burst cap (429 with Retry-After);
// - webhooks: a subscription refused (400), made (201), listed and pinged (200);
// - calls: a refused region (403), a duplicate still running (409), a free account's third call (429);
// - 10DLC: every documented answer of a submission and its codes, and the wallet's 402s;
// - billing: checkouts, saved cards, a subscription started, changed, cancelled and resumed;
// - refusals that need an account holding an iMessage number (403).
import { randomUUID } from 'node:crypto';
import { findOperation, type Json, type Operation } from '../description.js';
import type { Exchange } from '../http.js';
import { as, CONTROL_REFUSED, fictionalNumber, mockControl, signUpOnMock, type MockAccount } from '../mock-accounts.js';
import { listRecords } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { testValue, TEST_VALUE_ONLY_ON_THE_MOCK } from '../test-values.js';
import { keyPrefix } from '../../src/contract/api-key.js';

const CALL_INSTRUCTION = 'This is an automated conformance test call on the mock.';
const TEXT = 'numbers-api conformance test message on the mock.';

function body(ex: Exchange): Json {
  return (ex.body ?? {}) as Json;
}

/** The value of a test value named `name`, or a skip naming what is missing. */
function value(ctx: ScenarioContext, name: string): string {
  const found = testValue(ctx.env.document, name);
  if (!found) ctx.skip(`The description has no \`${name}\` test value.`);
  return found!.value;
}

/** A listed record of the account by id, and the list answer. */
async function listed(ctx: ScenarioContext, list: Operation, account: MockAccount, id: string): Promise<{ ex: Exchange; record?: Record<string, unknown>; index: number }> {
  const ex = await ctx.send(list, as(account));
  const records = listRecords(ex.body)?.records ?? [];
  const index = records.findIndex((r) => r.id === id);
  return { ex, record: records[index], index };
}

/** A call body from the account's line, with a fresh Idempotency-Key unless one is given (part 7.4: never a call without one). */
function callRequest(account: MockAccount, fromNumberId: string, to: string, key = `conformance-${randomUUID()}`) {
  return as(account, { body: { to, fromNumberId, outboundInstruction: CALL_INSTRUCTION, maxCallDurationSeconds: 60 }, headers: { 'Idempotency-Key': key } });
}

/** The account's first number (its line from the sign-up). */
async function firstLine(ctx: ScenarioContext, account: MockAccount): Promise<{ id: string; number: string }> {
  const numbers = await ctx.send(ctx.operation('listNumbers'), as(account));
  const first = listRecords(numbers.body)?.records.find((r) => typeof r.id === 'string' && typeof r.number === 'string');
  if (!first) return ctx.skip(`The account the suite signed up lists no number (${numbers.status}), so nothing can be sent from it.`);
  return { id: String(first.id), number: String(first.number) };
}

export function mockJourneyScenarios(operations: Operation[]): ScenarioDraft[] {
  const has = (...ids: string[]) => ids.every((id) => findOperation(operations, id));
  const base = { level: 'writes' as const, mockOnly: TEST_VALUE_ONLY_ON_THE_MOCK };
  const scenarios: ScenarioDraft[] = [];

  if (has('createNumber', 'listNumbers', 'sendMessage', 'setTypingIndicator', 'waitForEvent')) {
    scenarios.push({
      ...base,
      mockOnly: 'provisions a number and sends to test values of the mock (spec/test-values.yaml), which the service gives no meaning',
      id: 'sendMessage/mock-whatsapp-answers',
      operationId: 'sendMessage',
      check: 'whatsapp-answers',
      part: '3, 4.5, 7, 8',
      title: 'a WhatsApp number is bought (201, listed as answered) or none is available (503); sends and typing meet the documented refusals and the spacing limit (parts 4.5, 7, 8)',
      provokes: [
        'createNumber 201',
        'createNumber 400',
        'createNumber 503',
        'createNumber 503 whatsapp_unavailable',
        'sendMessage 403',
        'sendMessage 403 unsupported_region',
        'sendMessage 403 whatsapp_limited',
        'sendMessage 429',
        'sendMessage 429 rate_limited',
        'setTypingIndicator 403',
        'setTypingIndicator 403 whatsapp_limited',
        'setTypingIndicator 503',
        'waitForEvent 503',
      ],
      rules: ['number-provision', 'whatsapp-unavailable-503', 'channel-refusals-403', 'whatsapp-spacing', 'typing-channel-down-503', 'event-stream-503'],
      async run(ctx) {
        const unavailable = value(ctx, 'whatsappUnavailable');
        const region = value(ctx, 'messageUnsupportedRegion');
        const limited = value(ctx, 'whatsappLimited');
        const typingLimited = value(ctx, 'typingWhatsappLimited');
        const channelDown = value(ctx, 'typingWhatsappChannelDown');
        const noStream = value(ctx, 'eventStreamNotConfigured');
        const account = await signUpOnMock(ctx, { coupon: true, what: 'an account for its WhatsApp number' });
        const create = ctx.operation('createNumber');
        ctx.judging('whatsapp-unavailable-503');
        ctx.expectStatus(await ctx.send(create, as(account, { body: { whatsapp: true, nickname: unavailable } })), 503, 'A WhatsApp number when none is available (test value)', 'whatsapp_unavailable');
        ctx.judging('number-provision');
        ctx.expectStatus(await ctx.send(create, as(account, { body: { whatsapp: 'yes' } })), 400, '`whatsapp` that is not a boolean');
        const bought = await ctx.send(create, as(account, { body: { whatsapp: true } }));
        const line = body(bought);
        if (!ctx.expectStatus(bought, 201, 'A WhatsApp number') || typeof line.id !== 'string') return;
        const { ex: list, record } = await listed(ctx, ctx.operation('listNumbers'), account, line.id);
        if (ctx.expect(record !== undefined, record ? `The number bought (${line.id}) is listed.` : `The number bought (${line.id}) is not listed.`, list)) {
          ctx.same('The WhatsApp number bought', { ex: bought, at: 'number', value: line.number }, { ex: list, at: `the record ${line.id}'s number`, value: record?.number }, '4.5');
        }
        const send = ctx.operation('sendMessage');
        const message = (to: string) => as(account, { body: { to, fromNumberId: line.id, channel: 'whatsapp', body: TEXT } });
        ctx.judging('channel-refusals-403');
        ctx.expectStatus(await ctx.send(send, message(region)), 403, 'A send to a region not enabled (test value)', 'unsupported_region');
        ctx.expectStatus(await ctx.send(send, message(limited)), 403, 'A new WhatsApp conversation on limited access (test value)', 'whatsapp_limited');
        // Part 8: at least one second between two WhatsApp messages of one number.
        ctx.judging('whatsapp-spacing');
        const recipient = fictionalNumber();
        if (ctx.expectStatus(await ctx.send(send, message(recipient)), 201, 'A WhatsApp message')) {
          const spaced = await ctx.send(send, { ...message(recipient), expect429: true });
          if (ctx.expectStatus(spaced, 429, 'A second WhatsApp message inside the spacing gap', 'rate_limited')) {
            ctx.expect(spaced.headers['retry-after'] !== undefined, `The spacing 429 carries Retry-After (${spaced.headers['retry-after'] ?? 'missing'}; part 8).`, spaced);
          }
        }
        const typing = ctx.operation('setTypingIndicator');
        ctx.judging('channel-refusals-403');
        ctx.expectStatus(await ctx.send(typing, as(account, { body: { toNumber: typingLimited, value: true, fromNumber: line.number } })), 403, 'Typing to someone limited access cannot reach (test value)', 'whatsapp_limited');
        ctx.judging('typing-channel-down-503');
        ctx.expectStatus(await ctx.send(typing, as(account, { body: { toNumber: channelDown, value: true, fromNumber: line.number } })), 503, 'Typing while the WhatsApp channel cannot be driven (test value)');
        ctx.judging('event-stream-503');
        ctx.expectStatus(await ctx.send(ctx.operation('waitForEvent'), as(account, { body: { timeout: 1, filters: { groupId: noStream } }, timeoutMs: 15_000 })), 503, 'A wait where the event stream is not configured (test value)');
      },
    });
  }

  if (has('lookupNumber')) {
    scenarios.push({
      ...base,
      id: 'lookupNumber/mock-lookup-limits',
      operationId: 'lookupNumber',
      check: 'lookup-answers',
      part: '4.5, 7, 8',
      title: 'a lookup that cannot complete answers 502; lookups of new numbers reach the burst cap: 429 with Retry-After (parts 4.5, 7, 8)',
      provokes: ['lookupNumber 502', 'lookupNumber 429', 'lookupNumber 429 rate_limited'],
      mockOnlyBecause: {
        'lookupNumber 429': 'part 8 does not publish the lookup caps; the suite does not spend a deployment\'s lookups to find them',
        'lookupNumber 429 rate_limited': 'part 8 does not publish the lookup caps; the suite does not spend a deployment\'s lookups to find them',
      },
      rules: ['lookup-502', 'lookup-limits'],
      async run(ctx) {
        const incomplete = value(ctx, 'lookupIncomplete');
        const account = await signUpOnMock(ctx, { what: 'an account for its lookups' });
        const lookup = ctx.operation('lookupNumber');
        ctx.expectStatus(await ctx.send(lookup, as(account, { query: { number: incomplete } })), 502, 'A lookup that cannot complete (test value)');
        ctx.judging('lookup-limits');
        // Part 8 does not publish the caps: new numbers, at most 20.
        for (let i = 0; i < 20; i++) {
          const ex = await ctx.send(lookup, as(account, { query: { number: fictionalNumber() }, expect429: true }));
          if (ex.status === 429) {
            ctx.expectStatus(ex, 429, `Lookup ${i + 2} of new numbers`, 'rate_limited');
            ctx.expect(ex.headers['retry-after'] !== undefined, `The lookup 429 carries Retry-After (${ex.headers['retry-after'] ?? 'missing'}; part 8).`, ex);
            return;
          }
          if (ex.status !== 200) return void ctx.expectStatus(ex, 200, 'A lookup of a new number');
        }
        ctx.notProvokedHere('lookupNumber 429', 'no 429 within 21 lookups (part 8 does not publish the caps)');
      },
    });
  }

  if (has('createWebhookSubscription', 'listWebhookSubscriptions', 'pingWebhook')) {
    scenarios.push({
      ...base,
      mockOnly: 'leaves a webhook subscription behind (part 6 shows no operation that removes one)',
      id: 'pingWebhook/mock-webhook-answers',
      operationId: 'pingWebhook',
      check: 'webhook-answers',
      part: '6',
      title: 'a subscription is refused without a valid url (400), made (201), listed as answered and pinged (200) (part 6)',
      provokes: ['createWebhookSubscription 400', 'createWebhookSubscription 201', 'pingWebhook 200'],
      async run(ctx) {
        const account = await signUpOnMock(ctx, { what: 'an account for its webhook' });
        const create = ctx.operation('createWebhookSubscription');
        ctx.expectStatus(await ctx.send(create, as(account, { body: { eventTypes: ['message.received'] } })), 400, 'A subscription without its url');
        // The discard port of this machine: the mock delivers only to loopback, and nothing answers there.
        const made = await ctx.send(create, as(account, { body: { url: 'http://127.0.0.1:9/conformance-webhook', eventTypes: ['message.received'] } }));
        const hook = body(made);
        if (!ctx.expectStatus(made, 201, 'A subscription') || typeof hook.id !== 'string') return;
        const { ex: list, record } = await listed(ctx, ctx.operation('listWebhookSubscriptions'), account, hook.id);
        ctx.same('The subscription made', { ex: made, at: 'url', value: hook.url }, { ex: list, at: `the record ${hook.id}'s url`, value: record?.url }, '6');
        ctx.expectStatus(await ctx.send(ctx.operation('pingWebhook'), as(account, { pathParams: { id: hook.id } })), 200, 'A ping of the subscription');
      },
    });
  }

  if (has('createCall')) {
    scenarios.push({
      ...base,
      id: 'createCall/mock-call-answers',
      operationId: 'createCall',
      check: 'call-answers',
      part: '3, 7, 8',
      title: 'calls meet a region not enabled (403), a duplicate still running (409) and a free account\'s concurrency limit (429) (parts 7, 8)',
      provokes: ['createCall 403', 'createCall 403 unsupported_region', 'createCall 409', 'createCall 429', 'createCall 429 call_limit_reached'],
      mockOnlyBecause: {
        'createCall 409': 'a duplicate still running past the wait window, which part 7.2 does not publish, reached on the mock by a test value of its Idempotency-Key',
        'createCall 429': "a free account at its 2 calls in progress (part 8): reaching it places two real calls, and the run's account may not be free",
        'createCall 429 call_limit_reached': "a free account at its 2 calls in progress (part 8): reaching it places two real calls, and the run's account may not be free",
      },
      rules: ['channel-refusals-403', 'call-409-still-running', 'free-concurrency-429'],
      async run(ctx) {
        const region = value(ctx, 'callUnsupportedRegion');
        const stillRunning = value(ctx, 'callStillProcessing');
        // A coupon's credit keeps the account free (part 5.4: not a top-up), with 2 calls at once (part 8).
        const account = await signUpOnMock(ctx, { coupon: true, what: 'a free account for its calls' });
        const line = await firstLine(ctx, account);
        const call = ctx.operation('createCall');
        ctx.expectStatus(await ctx.send(call, callRequest(account, line.id, region)), 403, 'A call to a destination the number cannot call (test value)', 'unsupported_region');
        ctx.judging('call-409-still-running');
        ctx.expectStatus(await ctx.send(call, callRequest(account, line.id, fictionalNumber(), stillRunning)), 409, 'A duplicate whose original is still running (test value of the Idempotency-Key)');
        ctx.judging('free-concurrency-429');
        for (const n of [1, 2]) if (!ctx.expectStatus(await ctx.send(call, callRequest(account, line.id, fictionalNumber())), 201, `Call ${n} of a free account`)) return;
        ctx.expectStatus(await ctx.send(call, { ...callRequest(account, line.id, fictionalNumber()), expect429: true }), 429, 'A third call while two are in progress on a free account', 'call_limit_reached');
      },
    });
  }

  if (has('submitTenDlcRegistration', 'getTenDlcRegistration', 'createNumber', 'listNumbers', 'sendMessage', 'createCall')) {
    scenarios.push({
      ...base,
      mockOnly: 'charges the one-time 10DLC fee and provisions numbers (parts 3, 4.5, 8)',
      id: 'submitTenDlcRegistration/mock-ten-dlc-answers',
      operationId: 'submitTenDlcRegistration',
      check: 'ten-dlc-answers',
      part: '2, 3, 4.5, 7, 8',
      title: 'a 10DLC submission meets each documented answer (200, 400, 402, 403, 404, 409 and their codes), its registration reads back as answered, and an empty wallet refuses numbers, messages and calls (402) (parts 3, 4.5, 7, 8)',
      provokes: [
        'submitTenDlcRegistration 200',
        'submitTenDlcRegistration 400',
        'submitTenDlcRegistration 400 tendlc_validation_failed',
        'submitTenDlcRegistration 402',
        'submitTenDlcRegistration 403',
        'submitTenDlcRegistration 403 tendlc_brand_not_reusable',
        'submitTenDlcRegistration 404',
        'submitTenDlcRegistration 404 tendlc_brand_not_found',
        'submitTenDlcRegistration 409',
        'submitTenDlcRegistration 409 tendlc_brand_not_approved',
        'createNumber 402',
        'sendMessage 402',
        'createCall 402',
      ],
      rules: ['ten-dlc-submission-answers', 'ten-dlc-reads-back', 'ten-dlc-fee-402', 'wallet-gating-402'],
      async run(ctx) {
        // The coupon's credit pays two fees exactly (the fee is 25.00, part 8); then the wallet is empty.
        const account = await signUpOnMock(ctx, { coupon: true, what: 'an account for its 10DLC registrations' });
        const create = ctx.operation('createNumber');
        const line = await firstLine(ctx, account);
        const numbers: string[] = [line.id];
        for (const n of [2, 3]) {
          const made = await ctx.send(create, as(account, { body: {} }));
          if (!ctx.expectStatus(made, 201, `Number ${n} of the account`) || typeof body(made).id !== 'string') return;
          numbers.push(String(body(made).id));
        }
        const [first, second, third] = numbers as [string, string, string];
        const submit = ctx.operation('submitTenDlcRegistration');
        const campaign = { messageFlow: 'Conformance test: people opt in by texting START to this number.' };
        const registration = (id: string, brand: Json, kind = 'sole_proprietor') => as(account, { pathParams: { id }, body: { kind, brand, campaign } });
        ctx.expectStatus(await ctx.send(submit, registration(first, {})), 400, 'A sole proprietor without `vertical` (part 2)', 'tendlc_validation_failed');
        const accepted = await ctx.send(submit, registration(first, { vertical: 'TECHNOLOGY' }));
        const soleBrand = body(accepted).brand?.brandId;
        if (!ctx.expectStatus(accepted, 200, 'A sole proprietor registration') || typeof soleBrand !== 'string') return;
        ctx.judging('ten-dlc-reads-back');
        const read = await ctx.send(ctx.operation('getTenDlcRegistration'), as(account, { pathParams: { id: first } }));
        ctx.same('The registration submitted', { ex: accepted, at: 'status', value: body(accepted).status }, { ex: read, at: 'status', value: body(read).status }, '3, 4.5');
        ctx.same('The registration submitted', { ex: accepted, at: 'brand.brandId', value: soleBrand }, { ex: read, at: 'brand.brandId', value: body(read).brand?.brandId }, '4.5');
        const { ex: list, record } = await listed(ctx, ctx.operation('listNumbers'), account, first);
        ctx.same("The number's 10DLC status", { ex: accepted, at: 'status', value: body(accepted).status }, { ex: list, at: `the record ${first}'s tenDlc.status`, value: (record?.tenDlc as Json | undefined)?.status }, '2');
        ctx.judging('ten-dlc-submission-answers');
        ctx.expectStatus(await ctx.send(submit, registration(second, { vertical: 'TECHNOLOGY', brandId: `BRD_conformance0nonexistent${randomUUID().slice(0, 6)}` })), 404, 'A `brandId` that names no brand of the account', 'tendlc_brand_not_found');
        ctx.expectStatus(await ctx.send(submit, registration(second, { vertical: 'TECHNOLOGY', brandId: soleBrand })), 403, "Another number's sole proprietor brand", 'tendlc_brand_not_reusable');
        const business = await ctx.send(submit, registration(second, { vertical: 'TECHNOLOGY' }, 'business'));
        const businessBrand = body(business).brand?.brandId;
        if (!ctx.expectStatus(business, 200, 'A business registration') || typeof businessBrand !== 'string') return;
        ctx.expectStatus(await ctx.send(submit, registration(first, { vertical: 'TECHNOLOGY', brandId: businessBrand }, 'business')), 409, 'A business brand still in review, named for another number', 'tendlc_brand_not_approved');
        // Two fees paid: the wallet is empty (parts 3, 8).
        ctx.judging('ten-dlc-fee-402');
        ctx.expectStatus(await ctx.send(submit, registration(third, { vertical: 'TECHNOLOGY' })), 402, 'A first registration of a number the balance cannot pay the fee for');
        ctx.judging('wallet-gating-402');
        ctx.expectStatus(await ctx.send(create, as(account, { body: {} })), 402, 'A number provisioned on an empty pay-as-you-go wallet (part 3)');
        ctx.expectStatus(await ctx.send(ctx.operation('sendMessage'), as(account, { body: { to: fictionalNumber(), fromNumberId: first, body: TEXT } })), 402, 'A message from a pay-as-you-go line on an empty wallet (part 3)');
        ctx.expectStatus(await ctx.send(ctx.operation('createCall'), callRequest(account, first, fictionalNumber())), 402, 'A call from a pay-as-you-go line on an empty wallet (part 3)');
      },
    });
  }

  const billingOps = ['getBilling', 'createPaymentMethodSetup', 'createCreditsCheckout', 'createSubscriptionCheckout', 'setDefaultPaymentMethod', 'deletePaymentMethod', 'previewSubscriptionChange', 'changeSubscriptionInterval', 'cancelSubscription', 'resumeSubscription', 'submitTenDlcRegistration'];
  if (has(...billingOps)) {
    const afterPaying = [
      'setDefaultPaymentMethod 200',
      'deletePaymentMethod 200',
      'createCreditsCheckout 409',
      'previewSubscriptionChange 200',
      'changeSubscriptionInterval 200',
      'changeSubscriptionInterval 400',
      'cancelSubscription 200',
      'resumeSubscription 200',
      'submitTenDlcRegistration 403 tendlc_not_available',
    ];
    scenarios.push({
      ...base,
      mockOnly: 'starts checkouts, saves and removes cards and starts a subscription (part 4.4); completing a checkout needs the mock\'s control surface',
      id: 'createSubscriptionCheckout/mock-billing-answers',
      operationId: 'createSubscriptionCheckout',
      check: 'billing-answers',
      part: '3, 4.4, 7',
      title: 'checkouts answer 200, 400 and 401; cards are saved, made default and removed as part 4.4 says; a subscription starts, refuses a top-up (409), changes, cancels and resumes, each read back (parts 3, 4.4)',
      provokes: [
        'createPaymentMethodSetup 200',
        'createPaymentMethodSetup 400',
        'createPaymentMethodSetup 401',
        'createCreditsCheckout 200',
        'createCreditsCheckout 400',
        'createCreditsCheckout 401',
        'createSubscriptionCheckout 200',
        'createSubscriptionCheckout 400',
        'createSubscriptionCheckout 401',
        ...afterPaying,
      ],
      rules: ['checkout-answers', 'free-account-limits-object', 'first-card-default', 'remove-default-promotes-next', 'subscription-checkout-activates', 'free-limits-lift', 'credits-checkout-409-subscribed', 'promotion-code-400', 'unchanged-writes', 'subscription-cancel-resume', 'ten-dlc-not-applicable'],
      async run(ctx) {
        const interval = ctx.env.document.components?.schemas?.SubscriptionInterval?.examples?.[0];
        if (typeof interval !== 'string') return ctx.skip('The description gives no example of a subscription interval.');
        const promotion = value(ctx, 'promotionCodeInvalid');
        const account = await signUpOnMock(ctx, { what: 'an account for its billing' });
        const op = (id: string) => ctx.operation(id);
        const billing = async () => {
          const ex = await ctx.send(op('getBilling'), as(account));
          return { ex, status: body(ex) };
        };
        const secretOf = (ex: Exchange) => (typeof body(ex).clientSecret === 'string' ? String(body(ex).clientSecret) : undefined);
        for (const id of ['createPaymentMethodSetup', 'createCreditsCheckout']) {
          ctx.expectStatus(await ctx.send(op(id), as(account, { body: { returnUrl: 'not a url' } })), 400, 'A `returnUrl` that is not a URI');
          ctx.expectStatus(await ctx.send(op(id), as(undefined, { body: {} })), 401, 'A checkout without a key');
        }
        ctx.expectStatus(await ctx.send(op('createSubscriptionCheckout'), as(account, { body: {} })), 400, 'A subscription checkout without `interval`');
        ctx.expectStatus(await ctx.send(op('createSubscriptionCheckout'), as(undefined, { body: { interval } })), 401, 'A checkout without a key');
        ctx.expectStatus(await ctx.send(op('createCreditsCheckout'), as(account, { body: {} })), 200, 'A top-up checkout');
        const setup = await ctx.send(op('createPaymentMethodSetup'), as(account, { body: {} }));
        if (!ctx.expectStatus(setup, 200, 'A card setup checkout')) return;
        const notProvoked = (reason: string, unlock?: string) => {
          for (const target of afterPaying) ctx.notProvokedHere(target, reason, unlock);
        };
        // Part 2: an account that has never paid shows its free limits; part 3: paying lifts them.
        const limits = async () => {
          const ex = await ctx.send(op('getAccount'), as(account));
          return { ex, limits: (body(ex) as { limits?: unknown }).limits };
        };
        ctx.judging('free-account-limits-object');
        const free = await limits();
        ctx.expect(free.limits !== null && typeof free.limits === 'object', `An account that has never paid shows limits ${JSON.stringify(free.limits)} (an object required, part 2).`, free.ex);
        ctx.judging('first-card-default');
        // The customer pays: only the mock's control surface can say so.
        if (!(await mockControl(ctx, 'mockCompleteCheckout', { clientSecret: secretOf(setup) }, account))) return notProvoked(CONTROL_REFUSED, '--control-token');
        const second = await ctx.send(op('createPaymentMethodSetup'), as(account, { body: {} }));
        if (!(await mockControl(ctx, 'mockCompleteCheckout', { clientSecret: secretOf(second) }, account))) return notProvoked(CONTROL_REFUSED, '--control-token');
        const saved = await billing();
        const cards = (saved.status.paymentMethods ?? []) as Json[];
        if (!ctx.expect(cards.length === 2, `Two cards saved: the billing status lists ${cards.length} (part 4.4).`, saved.ex)) return;
        const [firstCard, secondCard] = cards as [Json, Json];
        ctx.expect(firstCard.isDefault === true && secondCard.isDefault !== true, `The first card saved is the default (part 4.4): ${JSON.stringify(cards.map((c) => c.isDefault))}.`, saved.ex);
        ctx.expectStatus(await ctx.send(op('setDefaultPaymentMethod'), as(account, { pathParams: { id: String(firstCard.id) } })), 200, 'Making the default card the default');
        ctx.judging('remove-default-promotes-next');
        ctx.expectStatus(await ctx.send(op('deletePaymentMethod'), as(account, { pathParams: { id: String(firstCard.id) } })), 200, 'Removing the default card');
        const left = await billing();
        const promoted = ((left.status.paymentMethods ?? []) as Json[]).find((c) => c.id === secondCard.id);
        ctx.expect(promoted?.isDefault === true, `Removing the default card promotes the next one (part 4.4): ${secondCard.id} is ${promoted?.isDefault === true ? '' : 'not '}the default now.`, left.ex);
        ctx.judging('subscription-checkout-activates');
        const checkout = await ctx.send(op('createSubscriptionCheckout'), as(account, { body: { interval } }));
        if (!ctx.expectStatus(checkout, 200, 'A subscription checkout')) return;
        if (!(await mockControl(ctx, 'mockCompleteCheckout', { clientSecret: secretOf(checkout) }, account))) return notProvoked(CONTROL_REFUSED, '--control-token');
        const subscribed = await billing();
        const subscription = subscribed.status.subscription as Json | undefined;
        if (!ctx.expect(subscription !== null && typeof subscription === 'object', `The subscription is active once its invoice is paid (part 3): ${JSON.stringify(subscription)}.`, subscribed.ex)) return;
        ctx.judging('free-limits-lift');
        const paid = await limits();
        ctx.expect(paid.limits === null, `Once its subscription is paid, the account shows limits ${JSON.stringify(paid.limits)} (null required: the first subscription lifts them, part 3).`, paid.ex);
        ctx.judging('credits-checkout-409-subscribed');
        ctx.expectStatus(await ctx.send(op('createCreditsCheckout'), as(account, { body: {} })), 409, 'A top-up while a subscription is active');
        ctx.judging('unchanged-writes');
        ctx.expectStatus(await ctx.send(op('previewSubscriptionChange'), as(account, { body: {} })), 200, 'A preview of no change');
        const current = subscription!.interval ?? interval;
        ctx.judging('promotion-code-400');
        ctx.expectStatus(await ctx.send(op('changeSubscriptionInterval'), as(account, { body: { interval: current, promotionCode: promotion } })), 400, 'A change with a refused promotion code (test value)');
        ctx.judging('unchanged-writes');
        ctx.expectStatus(await ctx.send(op('changeSubscriptionInterval'), as(account, { body: { interval: current } })), 200, 'A change to the current interval (part 3: a no-op)');
        const unchanged = await billing();
        ctx.same('The subscription after a change to its own interval', { ex: subscribed.ex, at: 'subscription.periodEnd', value: subscription!.periodEnd }, { ex: unchanged.ex, at: 'subscription.periodEnd', value: (unchanged.status.subscription as Json | undefined)?.periodEnd }, '3');
        const line = await firstLine(ctx, account);
        const campaign = { messageFlow: 'Conformance test: people opt in by texting START to this number.' };
        ctx.judging('ten-dlc-not-applicable');
        ctx.expectStatus(
          await ctx.send(op('submitTenDlcRegistration'), as(account, { pathParams: { id: line.id }, body: { kind: 'business', brand: { vertical: 'TECHNOLOGY' }, campaign } })),
          403,
          'A first 10DLC registration on an account that is not pay-as-you-go (part 2)',
          'tendlc_not_available',
        );
        ctx.judging('subscription-cancel-resume');
        for (const [id, cancelling] of [['cancelSubscription', true], ['resumeSubscription', false]] as const) {
          if (!ctx.expectStatus(await ctx.send(op(id), as(account)), 200, id === 'cancelSubscription' ? 'Cancelling at period end' : 'Resuming before the period ends')) continue;
          const after = await billing();
          ctx.same(`cancelAtPeriodEnd after ${id}`, { ex: after.ex, at: 'the state part 3 gives', value: cancelling }, { ex: after.ex, at: 'subscription.cancelAtPeriodEnd', value: (after.status.subscription as Json | undefined)?.cancelAtPeriodEnd }, '3');
        }
      },
    });
  }

  if (has('listNumbers', 'createSubscriptionCheckout', 'submitTenDlcRegistration')) {
    scenarios.push({
      ...base,
      mockOnly: 'starts a checkout and submits 10DLC registrations (part 4.4, 4.5)',
      id: 'submitTenDlcRegistration/mock-imessage-refusals',
      operationId: 'submitTenDlcRegistration',
      check: 'imessage-number-refusals',
      part: '2, 3, 4.4, 7',
      title: 'an account holding an iMessage number cannot subscribe (403), and 10DLC does not apply to an iMessage or non-US number (403 `tendlc_not_applicable`) (parts 2, 3)',
      provokes: ['createSubscriptionCheckout 403', 'submitTenDlcRegistration 403 tendlc_not_applicable'],
      rules: ['imessage-account-cannot-subscribe', 'ten-dlc-not-applicable'],
      async run(ctx) {
        if (ctx.config.mock !== 'any') {
          return ctx.skip('needs an account holding an iMessage number; under --strict-keys the suite cannot open one (the accounts it signs up get an SMS number)');
        }
        // On a mock that accepts any key, a new key opens an account from its seed (the demo's has an iMessage number).
        const key = `${keyPrefix(ctx.env.document)}conformance${randomUUID().replace(/-/g, '')}`;
        ctx.env.http.addSecret(key);
        const account: MockAccount = { key, email: '', holder: '', answer: undefined as unknown as Exchange };
        const list = await ctx.send(ctx.operation('listNumbers'), as(account));
        const numbers = listRecords(list.body)?.records ?? [];
        const imessage = numbers.find((n) => Array.isArray(n.capabilities) && n.capabilities.includes('imessage'));
        if (!imessage) return ctx.skip('The account a new key opens on the mock holds no iMessage number (a --seed without one).');
        const interval = ctx.env.document.components?.schemas?.SubscriptionInterval?.examples?.[0];
        if (typeof interval !== 'string') return ctx.skip('The description gives no example of a subscription interval.');
        ctx.expectStatus(await ctx.send(ctx.operation('createSubscriptionCheckout'), as(account, { body: { interval } })), 403, 'A subscription checkout on an account holding an iMessage number (part 3)');
        const campaign = { messageFlow: 'Conformance test: people opt in by texting START to this number.' };
        ctx.judging('ten-dlc-not-applicable');
        ctx.expectStatus(
          await ctx.send(ctx.operation('submitTenDlcRegistration'), as(account, { pathParams: { id: String(imessage.id) }, body: { kind: 'business', brand: { vertical: 'TECHNOLOGY' }, campaign } })),
          403,
          'A 10DLC registration of an iMessage number (part 2)',
          'tendlc_not_applicable',
        );
      },
    });
  }
  return scenarios;
}
