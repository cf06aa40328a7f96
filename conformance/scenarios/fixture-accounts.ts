// What the run's own account cannot show, judged on accounts a team sets aside and names by option
// (config.ts, FIXTURE_ACCOUNTS; issue 38). Each scenario first reads the fixture with its own key:
// an account that is not what its option says is said about the fixture (FixtureUnfit: the run
// stops with exit 2), never judged as the deployment's. What each may send, by level:
// - --empty-wallet-key, at `writes` only: a message to --to from a pay-as-you-go line and a 10DLC
//   submission of a number without a registration, each of which a conforming deployment refuses
//   with 402 and carries out nothing (parts 3, 8); one that wrongly accepts them sends that message
//   to --to or charges the fixture the fee, so they wait for the level that sends, and count in
//   --max-sends. And one message to --to from its FIXED line, which a conforming deployment sends
//   (part 3: never gated): it reaches the test number, as the level's own message does.
// - --free-account-key, at `contract`: its `limits` read, and a cap above the free ceiling on the
//   account and on a number, each read first and restored if wrongly accepted (as call-duration.ts);
//   at `writes` also a call to --to with that cap, which a conforming deployment refuses with 400
//   and one that wrongly accepts places (with an Idempotency-Key, counted in --max-sends).
import { randomUUID } from 'node:crypto';
import { FIXTURE_ACCOUNTS, type FixtureAccount } from '../config.js';
import { documentedResponse, findOperation, type Json, type Operation } from '../description.js';
import { resolveRef } from '../../src/contract/json-pointer.js';
import type { Exchange, RequestSpec } from '../http.js';
import { listRecords } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { MESSAGE_BODY } from './write-helpers.js';

const CAP = 'maxCallDurationSeconds';
const CALL_INSTRUCTION = 'This is an automated conformance test call. No action is needed.';

type Line = Record<string, unknown> & { id: string };

/** A request with the fixture's key. */
const as = (fixture: FixtureAccount, spec: RequestSpec = {}): RequestSpec => ({ ...spec, auth: fixture });

/** The line that names the option and what the fixture showed, ending with what to set aside. */
function unfit(fixture: FixtureAccount, showed: string): string {
  const { option, account } = FIXTURE_ACCOUNTS[fixture];
  return `${option} names an account that is not ${account}: ${showed}. Set aside ${account} for it (conformance/README.md, Fixture accounts), or leave ${option} out.`;
}

/** A read with the fixture's key: its answer, or a skip saying the fixture could not be read (nothing else is sent). */
async function read(ctx: ScenarioContext, fixture: FixtureAccount, operationId: string): Promise<Exchange> {
  const ex = await ctx.send(ctx.operation(operationId), as(fixture));
  if (ex.status !== 200) ctx.skip(`${FIXTURE_ACCOUNTS[fixture].option}: ${ex.method.toUpperCase()} ${ex.target} answered ${ex.status} to the fixture's key, so the fixture could not be read first and nothing else is sent.`);
  return ex;
}

async function linesOf(ctx: ScenarioContext, fixture: FixtureAccount): Promise<Line[]> {
  return (listRecords((await read(ctx, fixture, 'listNumbers')).body)?.records ?? []).filter((r): r is Line => typeof r.id === 'string');
}

/** The --empty-wallet-key account, read first: its wallet at or below zero (part 3), and its lines. */
async function emptyWallet(ctx: ScenarioContext): Promise<Line[]> {
  const billing = await read(ctx, 'empty-wallet', 'getBilling');
  const balance = (billing.body as Json | undefined)?.balance;
  if (typeof balance !== 'number') ctx.skip('--empty-wallet-key: GET /api/v1/billing shows no numeric `balance` (its field is inferred), so the wallet cannot be confirmed empty and nothing is sent.');
  if (balance > 0) ctx.fixtureUnfit(unfit('empty-wallet', `GET /api/v1/billing shows a wallet balance of ${balance} (part 3 gates at or below zero)`));
  return linesOf(ctx, 'empty-wallet');
}

/** The first line of `mode` (PAYG or FIXED); a skip when the lines do not say their mode (the field is inferred). */
function lineOf(ctx: ScenarioContext, lines: Line[], mode: 'PAYG' | 'FIXED'): Line | undefined {
  if (!lines.some((l) => typeof l.billingMode === 'string')) ctx.skip(`--empty-wallet-key: GET /api/v1/numbers shows no \`billingMode\` on the fixture's ${lines.length} number(s) (its field is inferred), so no ${mode} line can be told.`);
  return lines.find((l) => l.billingMode === mode);
}

/** The pay-as-you-go line the gate applies to (part 3), else the fixture is not what it must be. */
async function gatedLine(ctx: ScenarioContext): Promise<{ lines: Line[]; line: Line }> {
  const lines = await emptyWallet(ctx);
  const line = lineOf(ctx, lines, 'PAYG');
  if (!line) return ctx.fixtureUnfit(unfit('empty-wallet', `GET /api/v1/numbers lists ${lines.length} number(s), none pay-as-you-go (the wallet gates PAYG numbers, part 3)`));
  return { lines, line };
}

/**
 * The --free-account-key account, read first: a free account has never topped up nor subscribed
 * (part 3), so a billing status showing a subscription or a deposit is not one. Nothing else tells.
 */
async function freeAccount(ctx: ScenarioContext): Promise<void> {
  const billing = (await read(ctx, 'free-account', 'getBilling')).body as Json | undefined;
  if (billing?.subscription && typeof billing.subscription === 'object') ctx.fixtureUnfit(unfit('free-account', 'GET /api/v1/billing shows a subscription (part 3: a subscription lifts the free limits for good)'));
  const deposits = Array.isArray(billing?.deposits) ? billing.deposits.length : 0;
  if (deposits > 0) ctx.fixtureUnfit(unfit('free-account', `GET /api/v1/billing shows ${deposits} deposit(s): it was topped up (part 3: the first top-up lifts the free limits for good)`));
}

/** The free-account limits as the contract's `freeAccount` example of GET /api/v1/account gives them (part 8: 300 s, 2 calls). */
function documentedFreeLimits(ctx: ScenarioContext): Json | undefined {
  const examples = documentedResponse(ctx.env.document, ctx.operation('getAccount'), 200)?.response?.content?.['application/json']?.examples ?? {};
  const limits = (resolveRef(ctx.env.document, examples.freeAccount) as Json | undefined)?.value?.limits;
  return limits && typeof limits === 'object' ? (limits as Json) : undefined;
}

/** A cap above the free ceiling answers 400; a deployment that wrongly accepts it is written back to `original`. */
async function capRefused(ctx: ScenarioContext, op: Operation, spec: RequestSpec, cap: number, original: unknown, what: string): Promise<void> {
  const ex = await ctx.send(op, as('free-account', { ...spec, body: { [CAP]: cap } }));
  ctx.expectStatus(ex, 400, `${what} with ${CAP} ${cap}, above the free ceiling, on the free account (part 8)`);
  if (ex.status < 200 || ex.status >= 300) return;
  const restore = await ctx.send(op, as('free-account', { ...spec, body: { [CAP]: original } }));
  const ok = restore.status >= 200 && restore.status < 300;
  ctx.notes.push(
    ok
      ? `${what} on the free account (--free-account-key) wrongly accepted ${CAP}=${cap}; the suite restored it to ${JSON.stringify(original)} (answer ${restore.status}).`
      : `${what} on the free account (--free-account-key) wrongly accepted ${CAP}=${cap}, and restoring ${JSON.stringify(original)} failed with ${restore.status}: set it back by hand.`,
  );
}

export function fixtureAccountScenarios(operations: Operation[], options: { emptyWallet?: boolean; freeAccount?: boolean }): ScenarioDraft[] {
  const has = (...ids: string[]) => ids.every((id) => findOperation(operations, id));
  const scenarios: ScenarioDraft[] = [];
  if (options.emptyWallet && has('getBilling', 'listNumbers', 'sendMessage')) {
    const base = { fixture: 'empty-wallet' as const, level: 'writes' as const, part: '3' };
    scenarios.push(
      {
        ...base,
        operationId: 'sendMessage',
        check: 'wallet-gating-402',
        part: '3, 7',
        title: 'on the empty-wallet account (--empty-wallet-key), a message to --to from a pay-as-you-go line answers 402 (parts 3, 7)',
        provokes: ['sendMessage 402'],
        async run(ctx) {
          const { line } = await gatedLine(ctx);
          ctx.reserveSends(1, 'the message an empty wallet must refuse');
          const ex = await ctx.write(ctx.operation('sendMessage'), as('empty-wallet', { body: { to: ctx.config.to, fromNumberId: line.id, body: `${MESSAGE_BODY} (empty wallet: to be refused)` } }), { refusedWith402: true });
          ctx.expectStatus(ex, 402, `A message from pay-as-you-go line ${String(line.number ?? line.id)} on an empty wallet`);
          ctx.notes.push('wallet-gating-402 is asked with a message to --to only: a call or a number provisioned on the empty wallet is not asked, since a deployment that wrongly accepted it would place the call or provision the number.');
        },
      },
      {
        ...base,
        operationId: 'sendMessage',
        check: 'wallet-fixed-not-gated',
        title: 'on the empty-wallet account (--empty-wallet-key), a message to --to from a FIXED line is sent: the wallet never gates it (part 3)',
        async run(ctx) {
          const lines = await emptyWallet(ctx);
          const line = lineOf(ctx, lines, 'FIXED');
          if (!line) return ctx.skip(`--empty-wallet-key: the fixture lists no FIXED line (${lines.length} number(s)), so a FIXED send on an empty wallet cannot be judged: give the account one to judge it.`);
          ctx.reserveSends(1, 'the message from the FIXED line');
          const ex = await ctx.write(ctx.operation('sendMessage'), as('empty-wallet', { body: { to: ctx.config.to, fromNumberId: line.id, body: MESSAGE_BODY } }), { refusedWith402: true });
          ctx.expectStatus(ex, 201, `A message from FIXED line ${String(line.number ?? line.id)} on an empty wallet`);
        },
      },
    );
    if (has('submitTenDlcRegistration')) {
      scenarios.push({
        ...base,
        operationId: 'submitTenDlcRegistration',
        check: 'ten-dlc-fee-402',
        part: '7, 8',
        title: 'on the empty-wallet account (--empty-wallet-key), a first 10DLC submission the balance cannot pay answers 402 (parts 7, 8)',
        provokes: ['submitTenDlcRegistration 402'],
        async run(ctx) {
          const { lines } = await gatedLine(ctx);
          // A first submission pays the fee (part 8); a number with a registration already could be a free resubmission.
          const number = lines.find((l) => l.billingMode === 'PAYG' && (l.tenDlc as Json | null | undefined)?.status === 'not_registered');
          if (!number) return ctx.skip('--empty-wallet-key: the fixture lists no pay-as-you-go number whose `tenDlc` is `not_registered`, so no submission would owe the fee: give the account one (a US number) to judge it.');
          ctx.reserveSends(1, 'the 10DLC submission an empty wallet must refuse');
          const body = { kind: 'sole_proprietor', brand: { vertical: 'TECHNOLOGY' }, campaign: { messageFlow: 'Conformance test: people opt in by texting START to this number.' } };
          const ex = await ctx.write(ctx.operation('submitTenDlcRegistration'), as('empty-wallet', { pathParams: { id: number.id }, body }), { refusedWith402: true });
          ctx.expectStatus(ex, 402, `A first 10DLC submission of number ${String(number.number ?? number.id)} on an empty wallet`);
          if (ex.status >= 200 && ex.status < 300) ctx.notes.push(`The deployment accepted a 10DLC submission of number ${number.id} on the empty-wallet account (--empty-wallet-key): its registration is under way, and the fee may be owed.`);
        },
      });
    }
  }
  if (options.freeAccount && has('getBilling', 'getAccount')) {
    const base = { fixture: 'free-account' as const, level: 'contract' as const, part: '2, 8' };
    scenarios.push({
      ...base,
      operationId: 'getAccount',
      check: 'free-account-limits-object',
      title: 'the free account (--free-account-key) shows `limits` as the object of its call ceiling and concurrency (parts 2, 8)',
      async run(ctx) {
        await freeAccount(ctx);
        const ex = await read(ctx, 'free-account', 'getAccount');
        const limits = (ex.body as Json | undefined)?.limits;
        if (!ctx.expect(limits !== null && typeof limits === 'object', `The free account (no subscription, no deposit) shows limits ${JSON.stringify(limits)}: an object required while it has never paid (part 2).`, ex)) return;
        const documented = documentedFreeLimits(ctx);
        if (documented) ctx.expect(JSON.stringify(limits) === JSON.stringify(documented), `The free account's limits ${JSON.stringify(limits)}, the contract's ${JSON.stringify(documented)} (part 8).`, ex);
      },
    });
    if (has('updateAccount', 'listNumbers', 'updateNumber')) {
      scenarios.push({
        ...base,
        operationId: 'updateAccount',
        check: 'free-call-cap-400',
        part: '4.2, 8',
        title: 'on the free account (--free-account-key), a call cap above the free ceiling answers 400 on the account and a number (read first, restored if accepted), and at --level writes on a call to --to (parts 4.2, 8)',
        async run(ctx) {
          await freeAccount(ctx);
          const account = await read(ctx, 'free-account', 'getAccount');
          const shown = ((account.body as Json | undefined)?.limits as Json | null | undefined)?.[CAP];
          const ceiling = typeof shown === 'number' ? shown : documentedFreeLimits(ctx)?.[CAP];
          if (typeof ceiling !== 'number') return ctx.skip('Neither the free account nor the contract gives the free call ceiling.');
          const cap = ceiling + 1;
          await capRefused(ctx, ctx.operation('updateAccount'), {}, cap, (account.body as Json | undefined)?.[CAP] ?? null, 'PATCH /api/v1/account');
          const line = (await linesOf(ctx, 'free-account'))[0];
          if (!line) return ctx.skip('--free-account-key: the free account lists no number, so a number update and a call cannot be asked.');
          await capRefused(ctx, ctx.operation('updateNumber'), { pathParams: { id: line.id } }, cap, line[CAP] ?? null, `PATCH number ${line.id}`);
          const call = findOperation(ctx.env.operations, 'createCall');
          if (!call) return;
          if (ctx.config.level !== 'writes' || !ctx.config.to) {
            ctx.notes.push('free-call-cap-400: the call with a cap above the free ceiling goes only at --level writes, to --to (a deployment that wrongly accepted it would place the call).');
            return;
          }
          ctx.reserveSends(1, 'the call a free account must refuse');
          const ex = await ctx.write(call, as('free-account', { body: { to: ctx.config.to, fromNumberId: line.id, outboundInstruction: CALL_INSTRUCTION, [CAP]: cap }, headers: { 'Idempotency-Key': `conformance-${randomUUID()}` } }), { refusedWith402: true });
          // Which comes first, the ceiling or the wallet, is not shown: a 402 leaves the call's cap unjudged.
          if (ex.status === 402) ctx.notes.push(`The call with ${CAP} ${cap} on the free account answered 402 (no credit), so its cap could not be judged there.`);
          else ctx.expectStatus(ex, 400, `A call with ${CAP} ${cap}, above the free ceiling, on the free account (part 8)`);
        },
      });
    }
  }
  return scenarios;
}
