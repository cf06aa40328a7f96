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
//
// And no list of one account holds a record of the other (`cross-account-lists`, at `writes`):
// the second account is first given a message of its own (an injected test message on its line,
// or without the test helper one message from its line to `--to`: one send), which only its own
// messages list may hold; then every list both accounts read (each read without path parameters
// answering records with ids, and the billing status's saved cards) is compared, id by id. Ids
// are issued by the service, so an id in both accounts' lists is another account's record; only
// on the package's mock, whose keyed accounts may start from one seed, is a shared id passed over.
import { findOperation, type Json, type Operation } from '../description.js';
import type { Exchange, RequestSpec } from '../http.js';
import { as, mockControl, signUpOnMock } from '../mock-accounts.js';
import { listRecords, valuesNamed } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { idOf, MESSAGE_BODY, testHelperAvailable, WRITES_LOCK } from './write-helpers.js';

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

/** An account as the lists check knows it: how a person names it, and its key. */
type Account = Pick<Side, 'label' | 'as'>;

/** One list an account reads, and the record ids it holds. */
interface Listed {
  what: string;
  ex: Exchange;
  ids: Set<string>;
}

/** Every list the account reads: each read without path or required query parameters whose answer holds records with ids, and the saved cards of the billing status. */
async function listsOf(ctx: ScenarioContext, spec: (s?: RequestSpec) => RequestSpec): Promise<Listed[]> {
  const lists: Listed[] = [];
  const reads = ctx.env.operations.filter((op) => op.method === 'get' && !op.parameters.some((p) => p.in === 'path' || (p.in === 'query' && p.required)));
  for (const op of reads) {
    const ex = await ctx.send(op, spec());
    if (ex.status !== 200) continue;
    const records = op.operationId === 'getBilling' ? ((ex.body as Json | undefined)?.paymentMethods as Json[] | undefined) : listRecords(ex.body)?.records;
    const ids = new Set((records ?? []).map((r) => idOf(r)).filter((id): id is string => id !== undefined));
    if (ids.size) lists.push({ what: op.operationId === 'getBilling' ? 'saved cards (GET /api/v1/billing)' : `${op.method.toUpperCase()} ${op.path}`, ex, ids });
  }
  return lists;
}

/** A message of the other account's own, on its first line: its id, or undefined (with the reason) when it could not be given one. */
async function messageOfItsOwn(ctx: ScenarioContext, spec: (s?: RequestSpec) => RequestSpec, write: (op: Operation, s: RequestSpec) => Promise<Exchange>): Promise<{ id?: string; why?: string }> {
  const listNumbers = findOperation(ctx.env.operations, 'listNumbers');
  const line = listNumbers ? listRecords((await ctx.send(listNumbers, spec())).body)?.records.find((r) => typeof r.id === 'string') : undefined;
  if (!line) return { why: 'it lists no number to hold a message' };
  const inject = findOperation(ctx.env.operations, 'injectTestInboundMessage');
  const send = findOperation(ctx.env.operations, 'sendMessage');
  const text = `${MESSAGE_BODY} (isolation)`;
  let ex: Exchange | undefined;
  if (inject && typeof line.number === 'string' && ctx.config.to && (await testHelperAvailable(ctx, inject))) ex = await write(inject, spec({ body: { to: line.number, from: ctx.config.to, body: text } }));
  else if (send && ctx.config.to) ex = await write(send, spec({ body: { to: ctx.config.to, fromNumberId: line.id, body: text } }));
  if (!ex) return { why: 'the deployment has neither the test helper nor a message send to give it one' };
  const id = ex.status === 201 ? idOf(ex.body) : undefined;
  return id ? { id } : { why: `${ex.method.toUpperCase()} ${ex.target} answered ${ex.status}${ex.status === 201 ? ' without an id' : ''}` };
}

/**
 * No list of one account holds a record of the other: the fresh message of `other` only in its
 * own list, and no id in lists of both (`seeded`: on the mock, a shared id is the seed's).
 */
async function judgeLists(ctx: ScenarioContext, mine: Account, other: Account, fresh: { id?: string; why?: string }, seeded: boolean): Promise<void> {
  // The other's lists first: a deployment that mixes accounts has seen them when the run's are read.
  const theirs = await listsOf(ctx, other.as);
  const ours = await listsOf(ctx, mine.as);
  let judged = 0;
  if (fresh.id) {
    const messages = (side: Listed[]) => side.find((l) => l.what === 'GET /api/v1/messages');
    const own = messages(theirs);
    if (own && !own.ids.has(fresh.id)) ctx.advisory(`Message ${fresh.id}, given to ${other.label}, is not in its own messages list, so the list may be late; it is judged absent from ${mine.label}'s all the same.`, own.ex);
    const leak = messages(ours);
    if (leak) {
      judged++;
      // The message's id goes in the facts, not the words: it changes from run to run, the finding's id must not.
      if (!leak.ids.has(fresh.id)) ctx.pass(`${mine.label}'s messages list does not hold message ${fresh.id}, given to ${other.label}.`, leak.ex);
      else ctx.record('fail', `${mine.label}'s messages list holds the message the suite gave ${other.label} (part 7: one account's records are not another's).`, leak.ex, undefined, undefined, { expected: { notListed: fresh.id }, actual: { listed: fresh.id } });
    }
  } else ctx.notes.push(`${other.label} could not be given a message of its own (${fresh.why}); its lists are compared as they are.`);
  for (const list of ours) {
    const same = theirs.find((t) => t.what === list.what);
    if (!same) continue;
    judged++;
    const shared = [...list.ids].filter((id) => same.ids.has(id));
    if (shared.length && seeded) {
      ctx.notes.push(`${list.what}: ${shared.length} id(s) are in both accounts' lists; the package's mock may have started both keyed accounts from one seed, so they are passed over.`);
      continue;
    }
    if (!shared.length) ctx.pass(`${list.what}: none of ${mine.label}'s ${list.ids.size} record(s) is in ${other.label}'s ${same.ids.size}.`, same.ex);
    else ctx.record('fail', `${list.what} holds records of both accounts: ids are issued by the service, so one account's list shows the other's records (part 7).`, list.ex, undefined, undefined, { expected: { shared: [] }, actual: { shared } });
  }
  if (judged === 0) ctx.skip(`Neither account lists a record, and ${other.label} could not be given one (${fresh.why ?? 'no messages list'}), so isolation could not be judged.`);
}

export function isolationScenarios(operations: Operation[], options: { secondKey?: boolean; mock?: boolean }): ScenarioDraft[] {
  if (!findOperation(operations, 'listNumbers')) return [];
  const base = { operationId: 'getTenDlcRegistration', check: 'cross-account-404', part: '7', secondAccount: true };
  const keys = { mine: (s: RequestSpec = {}): RequestSpec => ({ ...s, auth: 'valid' }), second: (s: RequestSpec = {}): RequestSpec => ({ ...s, auth: 'second' }) };
  const lists = { ...base, id: 'listMessages/cross-account-lists', operationId: 'listMessages', check: 'cross-account-lists', level: 'writes' as const, exclusive: WRITES_LOCK };
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
        rules: ['cross-account-ping-404'],
        title: "a webhook subscription of one account answers 404 to a ping with the other's key (--second-key; part 7)",
        async run(ctx) {
          const mine = await readSide(ctx, "the run's account", keys.mine, false);
          const second = await readSide(ctx, "the second key's account", keys.second, false);
          const pingOnly = (side: Side): Side => ({ ...side, numbers: [], cards: [], invoices: [] });
          const checked = (await crossCheck(ctx, pingOnly(mine), pingOnly(second), { writes: true })) + (await crossCheck(ctx, pingOnly(second), pingOnly(mine), { writes: true }));
          if (checked === 0) ctx.skip('Neither account has a webhook subscription the other does not.');
        },
      },
      {
        ...lists,
        title: "no list of one account holds a record of the other: the second account is given a message of its own first (--second-key; part 7)",
        async run(ctx) {
          ctx.reserveSends(1, "isolation's message of the second account's own");
          const mine: Account = { label: "the run's account", as: keys.mine };
          const second: Account = { label: "the second key's account", as: keys.second };
          const fresh = await messageOfItsOwn(ctx, keys.second, (op, spec) => ctx.write(op, spec));
          await judgeLists(ctx, mine, second, fresh, ctx.config.mock !== undefined);
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
    {
      ...lists,
      mockOnly: 'signs up a second account on the mock; on a deployment, pass --second-key',
      title: "no list of one account holds a record of the other: the run's account and one the suite signs up on the mock, given a message of its own first (part 7)",
      async run(ctx) {
        const scratch = await signUpOnMock(ctx, { what: 'a second account' });
        const spec = (s: RequestSpec = {}) => as(scratch, s);
        const mine: Account = { label: "the run's account", as: keys.mine };
        const theirs: Account = { label: 'the account the suite signed up', as: spec };
        // On the mock's own account: free, and sent through ctx.send (nothing of the run's budget).
        const fresh = await messageOfItsOwn(ctx, spec, (op, s) => ctx.send(op, s));
        await judgeLists(ctx, mine, theirs, fresh, false);
      },
    },
  ];
}
