// Documented success answers the `writes` level provokes on the run's own account with writes
// that change nothing, each sent only where the state read first guarantees it (parts 3, 4.4, 4.5,
// 6), and each taken from --max-sends:
// - a number's call cap written back as it is (PATCH /numbers/{id}: 200, the same value read back);
// - a typing indicator cleared (`value` false) from the account's line to --to: free, shows nothing;
// - the default card made the default again (200, still the default);
// - the subscription changed to the interval it is on (part 3: a no-op answering 200, its period unchanged);
// - the account's own webhook subscription pinged (200: part 4.5, the ping reaches that subscription only).
// What the account lacks (no card, no subscription, no webhook subscription) is said in the coverage.
// And one limit, where the account has a ready WhatsApp line: two messages to --to inside the
// spacing gap (part 8), the second refused with 429 and Retry-After, and nothing sent.
import { findOperation, type Json, type Operation } from '../description.js';
import { listRecords } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { MESSAGE_BODY, senderNumber, WRITES_LOCK } from './write-helpers.js';

const CAP = 'maxCallDurationSeconds';

async function readBilling(ctx: ScenarioContext, op: Operation | undefined) {
  if (!op) return undefined;
  const ex = await ctx.send(op, {});
  return ex.status === 200 && ex.body && typeof ex.body === 'object' ? { ex, status: ex.body as Json } : undefined;
}

export function writesProvocationScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = (id: string) => findOperation(operations, id);
  const scenarios: ScenarioDraft[] = [];
  const listNumbers = op('listNumbers');
  const updateNumber = op('updateNumber');
  const typing = op('setTypingIndicator');
  const getBilling = op('getBilling');
  const setDefault = op('setDefaultPaymentMethod');
  const change = op('changeSubscriptionInterval');
  const listHooks = op('listWebhookSubscriptions');
  const ping = op('pingWebhook');
  if (listNumbers && updateNumber && typing) {
    scenarios.push({
      operationId: 'updateNumber',
      check: 'unchanged-writes',
      part: '3, 4.4, 4.5, 6',
      level: 'writes',
      exclusive: WRITES_LOCK,
      title: 'writes that change nothing answer 200 and read back unchanged: a number\'s cap as it is, a typing indicator cleared, the default card, the current interval, a ping of the account\'s subscription (parts 3, 4.4, 4.5)',
      provokes: ['updateNumber 200', 'setTypingIndicator 200', 'setDefaultPaymentMethod 200', 'changeSubscriptionInterval 200', 'pingWebhook 200'],
      async run(ctx) {
        await ctx.env.locks.run('account', async () => {
          const numbers = await ctx.send(listNumbers, {});
          const line = listRecords(numbers.body)?.records.find((r) => typeof r.id === 'string' && (r[CAP] === null || typeof r[CAP] === 'number'));
          if (!line) return ctx.notProvokedHere('updateNumber 200', 'the account lists no number with a call cap to write back');
          ctx.reserveSends(1, "a number's cap written back as it is");
          const written = await ctx.write(updateNumber, { pathParams: { id: String(line.id) }, body: { [CAP]: line[CAP] } });
          if (ctx.expectStatus(written, 200, `The cap of ${String(line.id)} written back as it is (${JSON.stringify(line[CAP])})`)) {
            ctx.same(`${CAP} of ${String(line.id)}`, { ex: numbers, at: `the record's ${CAP}`, value: line[CAP] }, { ex: written, at: CAP, value: (written.body as Json)?.[CAP] }, '4.5');
          }
        });
        const sender = await senderNumber(ctx);
        if (sender.number) {
          ctx.reserveSends(1, 'a typing indicator cleared');
          ctx.expectStatus(await ctx.write(typing, { body: { toNumber: ctx.config.to, value: false, fromNumber: sender.number } }), 200, 'A typing indicator cleared (free, shows nothing)');
        } else ctx.notProvokedHere('setTypingIndicator 200', 'the account\'s first number has no `number` to type from');

        const billing = await readBilling(ctx, getBilling);
        const cards = ((billing?.status.paymentMethods ?? []) as Json[]).filter((c) => c && typeof c.id === 'string');
        const current = cards.find((c) => c.isDefault === true);
        if (setDefault && billing && current) {
          ctx.reserveSends(1, 'the default card made the default again');
          if (ctx.expectStatus(await ctx.write(setDefault, { pathParams: { id: String(current.id) } }), 200, 'The default card made the default again')) {
            const after = await readBilling(ctx, getBilling);
            const still = ((after?.status.paymentMethods ?? []) as Json[]).find((c) => c.isDefault === true);
            if (after) ctx.same('The default card', { ex: billing.ex, at: 'the default card', value: current.id }, { ex: after.ex, at: 'the default card', value: still?.id }, '4.4');
          }
        } else ctx.notProvokedHere('setDefaultPaymentMethod 200', cards.length ? 'no saved card of the account is shown as the default (`isDefault`, inferred)' : 'the account has no saved card: save one (POST /api/v1/billing/payment-methods/setup, then complete it), then run again');

        const subscription = billing?.status.subscription as Json | null | undefined;
        if (change && billing && subscription && typeof subscription.interval === 'string') {
          ctx.reserveSends(1, 'the subscription changed to the interval it is on');
          if (ctx.expectStatus(await ctx.write(change, { body: { interval: subscription.interval } }), 200, `A change to the current interval (${subscription.interval}; part 3: a no-op)`)) {
            const after = await readBilling(ctx, getBilling);
            if (after) ctx.same('The subscription period after a no-op change', { ex: billing.ex, at: 'subscription.periodEnd', value: subscription.periodEnd }, { ex: after.ex, at: 'subscription.periodEnd', value: (after.status.subscription as Json | undefined)?.periodEnd }, '3');
          }
        } else ctx.notProvokedHere('changeSubscriptionInterval 200', subscription ? 'the subscription shows no `interval` (inferred), so a change that changes nothing cannot be built' : 'the account has no active subscription (GET /api/v1/billing)');

        if (listHooks && ping) {
          const hooks = await ctx.send(listHooks, {});
          const hook = listRecords(hooks.body)?.records.find((r) => typeof r.id === 'string');
          if (hook) {
            ctx.reserveSends(1, "a ping of the account's webhook subscription");
            ctx.expectStatus(await ctx.write(ping, { pathParams: { id: String(hook.id) } }), 200, `A ping of the account's subscription ${String(hook.id)}`);
          } else ctx.notProvokedHere('pingWebhook 200', 'the account has no webhook subscription (GET /api/v1/webhooks): create one, then run again');
        }
      },
    });
  }

  const send = op('sendMessage');
  if (send && listNumbers) {
    scenarios.push({
      id: 'sendMessage/whatsapp-spacing-429',
      operationId: 'sendMessage',
      check: 'whatsapp-spacing',
      part: '8',
      level: 'writes',
      exclusive: WRITES_LOCK,
      title: 'two WhatsApp messages to --to inside the spacing gap: the second answers 429 `rate_limited` with Retry-After (part 8)',
      provokes: ['sendMessage 429', 'sendMessage 429 rate_limited'],
      async run(ctx) {
        const numbers = await ctx.env.fixtures.numbers();
        const line = numbers.find((n) => (n.record.whatsapp as Json | undefined)?.status === 'ready');
        if (!line) {
          ctx.notProvokedHere('sendMessage 429', 'the account has no ready WhatsApp line (a number whose `whatsapp.status` is `ready`)', 'a WhatsApp line on the account');
          ctx.notProvokedHere('sendMessage 429 rate_limited', 'the account has no ready WhatsApp line', 'a WhatsApp line on the account');
          return ctx.skip('The account has no ready WhatsApp line, so the spacing limit of part 8 is not provoked.');
        }
        ctx.reserveSends(2, 'the WhatsApp spacing limit (a message and one inside the gap)');
        const message = { body: { to: ctx.config.to, fromNumberId: line.id, channel: 'whatsapp', body: `${MESSAGE_BODY} (WhatsApp)` } };
        const first = await ctx.write(send, { ...message, expect429: true });
        if (first.status === 429) {
          // Part 8: also 3 messages to one recipient with no reply; --to may never reply. Documented all the same.
          ctx.expectStatus(first, 429, 'A WhatsApp message to --to, which has not replied to earlier runs (part 8: 3 unanswered)', 'rate_limited');
          return;
        }
        if (!ctx.expectStatus(first, 201, 'A WhatsApp message to --to')) return;
        const spaced = await ctx.write(send, { ...message, expect429: true });
        if (ctx.expectStatus(spaced, 429, 'A second WhatsApp message inside the spacing gap', 'rate_limited')) {
          ctx.expect(spaced.headers['retry-after'] !== undefined, `The spacing 429 carries Retry-After (${spaced.headers['retry-after'] ?? 'missing'}; part 8).`, spaced);
        }
      },
    });
  }
  return scenarios;
}
