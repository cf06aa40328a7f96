// Sign-up and the account's end, on the package's mock only (parts 3, 4.1, 4.2, 5.1, 5.3, 8): a
// sign-up emails and texts codes to a person and deleting an account cannot be undone, so on a
// deployment the suite provokes only what an id that cannot exist shows (the contract level's 401
// and 409s); on the mock it signs up accounts of its own with the mock's documented sign-up code,
// and judges each step, across requests:
// - the whole flow, a wrong code first at each step (401), the account it creates read with the
//   key it was given once, its first number the one the answer named (part 4.1), then deleted
//   (200), after which its key is refused (401);
// - the attempt limits (429): part 8 does not publish them; the suite tries up to 10 times;
// - a provisioning that fails (502), by the documented test value.
import { findOperation, type Operation } from '../description.js';
import type { Exchange } from '../http.js';
import { as, fictionalNumber, scratchEmail, signUpOnMock, wrongCode } from '../mock-accounts.js';
import { listRecords } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { testValue, TEST_VALUE_ONLY_ON_THE_MOCK } from '../test-values.js';

const SIGN_UP_REACHES_A_PERSON = 'a sign-up emails and texts codes to a person, and its codes cannot be read on a deployment; the suite signs up only on the package\'s mock';
/** Attempts at most before a limit part 8 does not publish is reported as not reached. */
const MAX_ATTEMPTS = 10;

function field(ex: Exchange, name: string): unknown {
  return (ex.body as Record<string, unknown> | undefined)?.[name];
}

/** Sends `send()` until it answers 429, at most MAX_ATTEMPTS times; the last answer (a 429 comes back as it came: it is what is provoked). */
async function untilLimited(send: () => Promise<Exchange>): Promise<{ last: Exchange; attempts: number }> {
  let last = await send();
  let attempts = 1;
  while (last.status !== 429 && attempts < MAX_ATTEMPTS) {
    last = await send();
    attempts++;
  }
  return { last, attempts };
}

export function mockSignUpScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = (id: string) => findOperation(operations, id);
  const [signUp, verifyEmail, registerNumber, verifyPhoneNumber, getAccount, listNumbers, deleteAccount] = ['signUp', 'verifyEmail', 'registerNumber', 'verifyPhoneNumber', 'getAccount', 'listNumbers', 'deleteAccount'].map(op);
  if (!signUp || !verifyEmail || !registerNumber || !verifyPhoneNumber || !getAccount || !listNumbers || !deleteAccount) return [];
  const base = { level: 'writes' as const, mockOnly: SIGN_UP_REACHES_A_PERSON };

  return [
    {
      ...base,
      operationId: 'verifyPhoneNumber',
      check: 'sign-up-flow',
      part: '3, 4.1, 4.2, 5.3',
      title: 'a new account signs up (a wrong code first at each step: 401), is read with the key it was given once, and is deleted for good (parts 3, 4.1, 4.2, 5.3)',
      provokes: ['signUp 200', 'verifyEmail 200', 'verifyEmail 401', 'registerNumber 200', 'registerNumber 409', 'verifyPhoneNumber 200', 'verifyPhoneNumber 401', 'verifyPhoneNumber 409', 'deleteAccount 200', 'deleteAccount 401', 'getAccount 401'],
      rules: ['sign-up-flow', 'sign-up-wrong-code', 'sign-up-registration-state-409', 'account-delete'],
      async run(ctx) {
        const code = testValue(ctx.env.document, 'signupCode')?.value;
        if (!code) return ctx.skip('The description has no `signupCode` test value.');
        const started = await ctx.send(signUp, { auth: 'none', body: { email: scratchEmail() } });
        const verificationId = field(started, 'verificationId');
        if (!ctx.expectStatus(started, 200, 'Sign-up with a new address') || typeof verificationId !== 'string') return;
        ctx.judging('sign-up-wrong-code');
        ctx.expectStatus(await ctx.send(verifyEmail, { auth: 'none', body: { verificationId, code: wrongCode(code) } }), 401, 'A wrong email code');
        ctx.judging('sign-up-flow');
        const verified = await ctx.send(verifyEmail, { auth: 'none', body: { verificationId, code } });
        const registrationId = field(verified, 'registrationId');
        if (!ctx.expectStatus(verified, 200, 'The right email code for a new address') || typeof registrationId !== 'string') return;
        // Part 4.1: an unfinished flow carries registrationId and no account (no key).
        ctx.expect(field(verified, 'apiKey') === undefined, 'A new address is answered a registrationId and no key: the flow is unfinished (part 4.1).', verified);
        ctx.judging('sign-up-registration-state-409');
        ctx.expectStatus(await ctx.send(verifyPhoneNumber, { auth: 'none', body: { registrationId, code } }), 409, 'verify-number before a number is registered');
        ctx.judging('sign-up-flow');
        const holder = fictionalNumber();
        if (!ctx.expectStatus(await ctx.send(registerNumber, { auth: 'none', body: { registrationId, phoneNumber: holder } }), 200, "Registering the holder's number")) return;
        ctx.judging('sign-up-wrong-code');
        ctx.expectStatus(await ctx.send(verifyPhoneNumber, { auth: 'none', body: { registrationId, code: wrongCode(code) } }), 401, 'A wrong SMS code');
        ctx.judging('sign-up-flow');
        const created = await ctx.send(verifyPhoneNumber, { auth: 'none', body: { registrationId, code } });
        const key = field(created, 'apiKey');
        if (!ctx.expectStatus(created, 200, 'The right SMS code') || typeof key !== 'string') return;
        ctx.env.http.addSecret(key);
        const account = { key, email: '', holder, answer: created };
        ctx.judging('sign-up-registration-state-409');
        ctx.expectStatus(await ctx.send(registerNumber, { auth: 'none', body: { registrationId, phoneNumber: holder } }), 409, 'register-number on a registration already complete');
        ctx.judging('sign-up-flow');
        // Part 4.1: the `phoneNumber` answered is the service number provisioned for the account.
        const numbers = await ctx.send(listNumbers, as(account));
        const first = listRecords(numbers.body)?.records[0];
        if (ctx.expectStatus(numbers, 200, 'The new account reads its numbers with the key it was given') && first) {
          ctx.same("The new account's service number", { ex: created, at: 'phoneNumber', value: field(created, 'phoneNumber') }, { ex: numbers, at: '/0/number', value: first.number }, '4.1');
        }
        ctx.expectStatus(await ctx.send(getAccount, as(account)), 200, 'The new account, read with its key');
        ctx.judging('account-delete');
        ctx.expectStatus(await ctx.send(deleteAccount, as(undefined)), 401, 'Deleting without a key');
        if (!ctx.expectStatus(await ctx.send(deleteAccount, as(account)), 200, 'Deleting the account the suite signed up')) return;
        ctx.expectStatus(await ctx.send(getAccount, as(account)), 401, "The deleted account's key, read again (part 4.2: cannot be undone)");
      },
    },
    {
      ...base,
      operationId: 'verifyEmail',
      check: 'sign-up-attempt-limits',
      part: '4.1, 8',
      title: `wrong codes and re-sent codes end in 429 (part 4.1; part 8 does not publish the limits: at most ${MAX_ATTEMPTS} tries each)`,
      provokes: ['verifyEmail 429', 'registerNumber 429', 'verifyPhoneNumber 429'],
      mockOnly: `part 8 does not publish the attempt limits, and a sign-up reaches a person; the suite signs up only on the package's mock`,
      async run(ctx) {
        const code = testValue(ctx.env.document, 'signupCode')?.value;
        if (!code) return ctx.skip('The description has no `signupCode` test value.');
        const limited = async (target: string, what: string, send: () => Promise<Exchange>) => {
          const { last, attempts } = await untilLimited(send);
          if (last.status === 429) ctx.expectStatus(last, 429, `${what}, ${attempts} in a row`);
          else ctx.notProvokedHere(target, `${what}: still ${last.status} after ${attempts} attempts (part 8 does not publish the limit)`);
        };
        const first = await ctx.send(signUp, { auth: 'none', body: { email: scratchEmail() } });
        const wasted = field(first, 'verificationId');
        if (!ctx.expectStatus(first, 200, 'Sign-up with a new address') || typeof wasted !== 'string') return;
        await limited('verifyEmail 429', 'Wrong email codes', () => ctx.send(verifyEmail, { auth: 'none', body: { verificationId: wasted, code: wrongCode(code) }, expect429: true }));
        const second = await ctx.send(signUp, { auth: 'none', body: { email: scratchEmail() } });
        const verificationId = field(second, 'verificationId');
        if (typeof verificationId !== 'string') return;
        const verified = await ctx.send(verifyEmail, { auth: 'none', body: { verificationId, code } });
        const registrationId = field(verified, 'registrationId');
        if (!ctx.expectStatus(verified, 200, 'The right email code for a new address') || typeof registrationId !== 'string') return;
        const holder = fictionalNumber();
        await limited('registerNumber 429', 'SMS codes re-sent to one number', () => ctx.send(registerNumber, { auth: 'none', body: { registrationId, phoneNumber: holder }, expect429: true }));
        await limited('verifyPhoneNumber 429', 'Wrong SMS codes', () => ctx.send(verifyPhoneNumber, { auth: 'none', body: { registrationId, code: wrongCode(code) }, expect429: true }));
      },
    },
    {
      ...base,
      mockOnly: TEST_VALUE_ONLY_ON_THE_MOCK,
      operationId: 'verifyPhoneNumber',
      check: 'provisioning-fails-502',
      part: '3, 4.1, 7',
      title: 'a provisioning that fails at verify-number answers 502 (parts 3, 4.1; the documented test value)',
      provokes: ['verifyPhoneNumber 502'],
      async run(ctx) {
        const code = testValue(ctx.env.document, 'signupCode')?.value;
        const fails = testValue(ctx.env.document, 'provisioningFails');
        if (!code || !fails) return ctx.skip('The description has no `signupCode` or `provisioningFails` test value.');
        const started = await ctx.send(signUp, { auth: 'none', body: { email: scratchEmail() } });
        const verificationId = field(started, 'verificationId');
        if (!ctx.expectStatus(started, 200, 'Sign-up with a new address') || typeof verificationId !== 'string') return;
        const verified = await ctx.send(verifyEmail, { auth: 'none', body: { verificationId, code } });
        const registrationId = field(verified, 'registrationId');
        if (!ctx.expectStatus(verified, 200, 'The right email code') || typeof registrationId !== 'string') return;
        const registered = await ctx.send(registerNumber, { auth: 'none', body: { registrationId, phoneNumber: fails.value } });
        if (registered.status === 409) {
          return ctx.skip(`The test number ${fails.value} is bound to an account an earlier sign-up completed (part 3: for good); restart the mock to provoke the 502 again.`);
        }
        if (!ctx.expectStatus(registered, 200, `Registering the test number ${fails.value}`)) return;
        // Not retried: the retry would create the account and bind the test number for good (part 3).
        ctx.expectStatus(await ctx.send(verifyPhoneNumber, { auth: 'none', body: { registrationId, code } }), 502, 'The right SMS code while provisioning fails');
      },
    },
  ];
}

/** The scenario signs up an account of its own on the mock (re-exported for the journeys). */
export async function scratchAccount(ctx: ScenarioContext, what: string, coupon = true) {
  return signUpOnMock(ctx, { coupon, what });
}
