// Cross-account isolation (part 7: 404 is "resource not on this account"): every record id one
// account can read is 404 for another, on every operation that takes one. Needs a second account:
// `--second-key`, or, on the package's mock, an account the suite signs up there.
//
// Each id one account lists (its numbers, saved cards, invoices, webhook subscriptions) that the
// other does not hold is sent with the other's key, and must answer 404:
// - reads (a number's 10DLC registration, an invoice);
// - writes built to change nothing even where the deployment ignores whose record it is: a number's
//   call cap as that number holds it, the owner's default card made the default;
// - a ping of the owner's subscription (it would reach the owner's endpoint): at `writes` only;
// - on the mock only, toward the account the suite signed up there: removing its card and
//   submitting its number's 10DLC registration, which would act on a deployment's account.
import { findOperation, type Json, type Operation } from '../description.js';
import type { Exchange, RequestSpec } from '../http.js';
import { as, mockControl, signUpOnMock } from '../mock-accounts.js';
import { listRecords, valuesNamed } from '../records.js';
import type { Scenario, ScenarioContext } from '../scenario.js';

const CAP = 'maxCallDurationSeconds';
/** Ids of each kind judged per direction: one of each shows the rule; more only adds requests. */
const PER_KIND = 2;

interface Side {
  /** How a person names it: `the run's account`, `the second key's account`. */
  label: string;
  /** The request as this account: its key. */
  as(spec?: RequestSpec): RequestSpec;
  numbers: Array<{ id: string; cap: unknown }>;
  cards: Array<{ id: string; isDefault: boolean }>;
  invoices: string[];
  webhooks: string[];
  /** May be acted on if the deployment breaks isolation (an account the suite signed up on the mock). */
  disposable: boolean;
}

async function readSide(ctx: ScenarioContext, label: string, spec: (s?: RequestSpec) => RequestSpec, disposable: boolean): Promise<Side> {
  const read = async (id: string): Promise<unknown> => {
    const op = findOperation(ctx.env.operations, id);
    if (!op) return undefined;
    const ex = await ctx.send(op, spec());
    return ex.status === 200 ? ex.body : undefined;
  };
  const numbers = (listRecords(await read('listNumbers'))?.records ?? []).filter((r) => typeof r.id === 'string').map((r) => ({ id: String(r.id), cap: r[CAP] }));
  const billing = (await read('getBilling')) as Json | undefined;
  const cards = ((billing?.paymentMethods ?? []) as Json[]).filter((c) => c && typeof c.id === 'string').map((c) => ({ id: String(c.id), isDefault: c.isDefault === true }));
  const invoices = [...new Set(valuesNamed(billing, 'invoiceId'))];
  const webhooks = (listRecords(await read('listWebhookSubscriptions'))?.records ?? []).filter((r) => typeof r.id === 'string').map((r) => String(r.id));
  return { label, as: spec, numbers, cards, invoices, webhooks, disposable };
}

/** Every id of `owner` the other account does not hold itself, sent with the other's key: 404 each. */
async function crossCheck(ctx: ScenarioContext, owner: Side, other: Side, options: { writes: boolean }): Promise<number> {
  let checked = 0;
  const op = (id: string) => findOperation(ctx.env.operations, id);
  const expect404 = async (operation: Operation | undefined, spec: RequestSpec, what: string) => {
    if (!operation) return;
    const ex: Exchange = await ctx.send(operation, other.as(spec));
    checked++;
    const ok = ex.status === 404;
    ctx.record(
      ok ? 'pass' : 'fail',
      ok
        ? `${what} of ${owner.label}, asked for by ${other.label}: 404.`
        : `${what} of ${owner.label} answered ${ex.status} to ${other.label} (part 7: 404, not on this account): one account reaches another's record.`,
      ex,
      ctx.scenario.check,
      ctx.scenario.part,
      ok ? {} : { expected: { status: 404 }, actual: { status: ex.status } },
    );
  };
  const theirs = <T extends { id: string } | string>(list: T[], held: Array<{ id: string } | string>) => {
    const ids = new Set(held.map((h) => (typeof h === 'string' ? h : h.id)));
    return list.filter((item) => !ids.has(typeof item === 'string' ? item : item.id)).slice(0, PER_KIND);
  };
  for (const number of theirs(owner.numbers, other.numbers)) {
    await expect404(op('getTenDlcRegistration'), { pathParams: { id: number.id } }, `The 10DLC registration of number ${number.id}`);
    // The cap the number holds: nothing changes, whoever's record it is taken to be.
    if (number.cap === null || typeof number.cap === 'number') await expect404(op('updateNumber'), { pathParams: { id: number.id }, body: { [CAP]: number.cap } }, `Number ${number.id}, its cap written as it is`);
    if (owner.disposable) {
      const campaign = { messageFlow: 'Conformance test: people opt in by texting START to this number.' };
      await expect404(op('submitTenDlcRegistration'), { pathParams: { id: number.id }, body: { kind: 'business', brand: { vertical: 'TECHNOLOGY' }, campaign } }, `A 10DLC submission for number ${number.id}`);
    }
  }
  for (const invoice of theirs(owner.invoices, other.invoices)) await expect404(op('getInvoice'), { pathParams: { invoiceId: invoice } }, `Invoice ${invoice}`);
  for (const card of theirs(owner.cards, other.cards)) {
    if (card.isDefault || owner.disposable) await expect404(op('setDefaultPaymentMethod'), { pathParams: { id: card.id } }, `Card ${card.id} made the default`);
    if (owner.disposable) await expect404(op('deletePaymentMethod'), { pathParams: { id: card.id } }, `Card ${card.id} removed`);
  }
  if (options.writes) for (const hook of theirs(owner.webhooks, other.webhooks)) await expect404(op('pingWebhook'), { pathParams: { id: hook } }, `A ping of subscription ${hook}`);
  return checked;
}

function judge(ctx: ScenarioContext, checked: number, a: Side, b: Side): void {
  if (checked === 0) ctx.skip(`Neither account holds a record id the other does not (${a.label}: ${a.numbers.length} numbers; ${b.label}: ${b.numbers.length}), so isolation could not be judged.`);
}

export function isolationScenarios(operations: Operation[], options: { secondKey?: boolean; mock?: boolean }): Scenario[] {
  if (!findOperation(operations, 'listNumbers')) return [];
  const base = { operationId: 'getTenDlcRegistration', check: 'cross-account-404', part: '7', secondAccount: true };
  const keys = { mine: (s: RequestSpec = {}): RequestSpec => ({ ...s, auth: 'valid' }), second: (s: RequestSpec = {}): RequestSpec => ({ ...s, auth: 'second' }) };
  if (options.secondKey) {
    return [
      {
        ...base,
        id: 'getTenDlcRegistration/cross-account-404',
        level: 'contract',
        title: "every record id one account reads answers 404 to the other (--second-key; part 7): reads, and writes that change nothing",
        async run(ctx) {
          const mine = await readSide(ctx, "the run's account", keys.mine, false);
          const second = await readSide(ctx, "the second key's account", keys.second, false);
          judge(ctx, (await crossCheck(ctx, mine, second, { writes: false })) + (await crossCheck(ctx, second, mine, { writes: false })), mine, second);
        },
      },
      {
        ...base,
        id: 'pingWebhook/cross-account-404',
        operationId: 'pingWebhook',
        level: 'writes',
        title: "a webhook subscription of one account answers 404 to a ping with the other's key (--second-key; part 7)",
        async run(ctx) {
          const mine = await readSide(ctx, "the run's account", keys.mine, false);
          const second = await readSide(ctx, "the second key's account", keys.second, false);
          const pingOnly = (side: Side): Side => ({ ...side, numbers: [], cards: [], invoices: [] });
          const checked = (await crossCheck(ctx, pingOnly(mine), pingOnly(second), { writes: true })) + (await crossCheck(ctx, pingOnly(second), pingOnly(mine), { writes: true }));
          if (checked === 0) ctx.skip('Neither account has a webhook subscription the other does not.');
        },
      },
    ];
  }
  if (!options.mock) return [];
  return [
    {
      ...base,
      id: 'getTenDlcRegistration/cross-account-404',
      level: 'writes',
      mockOnly: 'signs up a second account on the mock; on a deployment, pass --second-key',
      title: 'every record id one account reads answers 404 to the other: the run\'s account and one the suite signs up on the mock (part 7)',
      async run(ctx) {
        const scratch = await signUpOnMock(ctx, { coupon: true, what: 'a second account' });
        // A subscription of its own, so that a ping of another's is judged too.
        const create = findOperation(ctx.env.operations, 'createWebhookSubscription');
        if (create) await ctx.send(create, as(scratch, { body: { url: 'http://127.0.0.1:9/conformance-webhook', eventTypes: ['message.received'] } }));
        // A saved card of its own, so that removing another's is judged too: the customer's payment
        // is completed through the mock's control surface (where it refuses, the card is not judged).
        const setup = findOperation(ctx.env.operations, 'createPaymentMethodSetup');
        const secret = setup ? ((await ctx.send(setup, as(scratch, { body: {} }))).body as Json | undefined)?.clientSecret : undefined;
        if (typeof secret === 'string') await mockControl(ctx, 'mockCompleteCheckout', { clientSecret: secret }, scratch);
        const mine = await readSide(ctx, "the run's account", keys.mine, false);
        const theirs = await readSide(ctx, 'the account the suite signed up', (s = {}) => as(scratch, s), true);
        judge(ctx, (await crossCheck(ctx, mine, theirs, { writes: true })) + (await crossCheck(ctx, theirs, mine, { writes: true })), mine, theirs);
      },
    },
  ];
}
