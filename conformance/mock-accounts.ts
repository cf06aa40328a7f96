// Accounts the suite signs up on the package's mock, for what it must not do to the run's own
// account (delete it, check out, subscribe, pay a 10DLC fee, provision numbers) and for the
// answers only the mock's documented test values reach. Only once the mock has announced itself
// (GET /__mock/about, announcement.ts); never on a deployment, where a sign-up reaches a person by
// email and SMS. The sign-up uses the mock's documented sign-up code (the `signupCode` test value)
// and an address and holder number that reach nobody: `example.com` (RFC 2606) and the fictional
// 555-01xx block of the North American plan.
import { randomInt } from 'node:crypto';
import { listOperations, type Json, type Operation } from './description.js';
import type { Exchange, RequestSpec } from './http.js';
import type { ScenarioContext } from './scenario.js';
import { testValue } from './test-values.js';
import { readGeneratedJson } from '../src/contract/generated-files.js';

export interface MockAccount {
  /** Its key, issued by the mock's verify-number (kept out of every output, as the run's own). */
  key: string;
  email: string;
  /** The holder's verified number (not the service number the account was given). */
  holder: string;
  /** The verify-number answer: the account, its key once, and the provisioned `phoneNumber` (part 4.1). */
  answer: Exchange;
}

/** An address no mail reaches (RFC 2606), without a `+tag`, which part 4.1 would drop. */
export function scratchEmail(): string {
  return `conformance-${Date.now().toString(36)}-${randomInt(1e9).toString(36)}@example.com`;
}

/** A number in the North American plan's fictional 555-01xx block: reaches nobody, never a service number. */
export function fictionalNumber(): string {
  return `+1${200 + randomInt(700)}55501${String(randomInt(100)).padStart(2, '0')}`;
}

/** A wrong 6-digit code (part 8): any but the mock's right one. */
export function wrongCode(right: string): string {
  return right === '000000' ? '111111' : '000000';
}

/** The request to `operationId` with the key of `account` (none when it is undefined). */
export function as(account: MockAccount | undefined, spec: RequestSpec = {}): RequestSpec {
  return account ? { ...spec, auth: 'scratch', key: account.key } : { ...spec, auth: 'none' };
}

/**
 * Signs up a new account on the mock, through the four sign-up operations (parts 3, 4.1): each
 * answer judged as any other, each step's status expected. A step that does not answer as
 * documented ends the scenario (skipped, with the reason); its failure is already recorded.
 * `coupon`: with the documented valid coupon, whose credit the new account holds (part 5.4).
 */
export async function signUpOnMock(ctx: ScenarioContext, options: { coupon?: boolean; what?: string } = {}): Promise<MockAccount> {
  const document = ctx.env.document;
  const code = testValue(document, 'signupCode')?.value;
  if (!code) return ctx.skip('The description has no `signupCode` test value, so no account can be signed up on the mock.');
  const coupon = options.coupon ? testValue(document, 'couponCredit')?.value : undefined;
  const op = (id: string) => ctx.operation(id);
  const what = options.what ?? 'an account of its own';
  const email = scratchEmail();
  const started = await ctx.send(op('signUp'), { auth: 'none', body: { email, ...(coupon ? { coupon } : {}) } });
  const verificationId = (started.body as { verificationId?: unknown } | undefined)?.verificationId;
  if (!ctx.expectStatus(started, 200, `Signing up ${what} on the mock`) || typeof verificationId !== 'string') return ctx.skip(`The mock's sign-up answered ${started.status}, so ${what} could not be signed up.`);
  const verified = await ctx.send(op('verifyEmail'), { auth: 'none', body: { verificationId, code } });
  const registrationId = (verified.body as { registrationId?: unknown } | undefined)?.registrationId;
  if (!ctx.expectStatus(verified, 200, 'The right email code for a new address') || typeof registrationId !== 'string') return ctx.skip(`verify answered ${verified.status} with the right code, so ${what} could not be signed up.`);
  let holder = fictionalNumber();
  let registered = await ctx.send(op('registerNumber'), { auth: 'none', body: { registrationId, phoneNumber: holder } });
  // A fictional number an earlier run bound (part 3: bound for good): another one.
  for (let i = 0; registered.status === 409 && i < 3; i++) {
    holder = fictionalNumber();
    registered = await ctx.send(op('registerNumber'), { auth: 'none', body: { registrationId, phoneNumber: holder } });
  }
  if (!ctx.expectStatus(registered, 200, "Registering the holder's number")) return ctx.skip(`register-number answered ${registered.status}, so ${what} could not be signed up.`);
  const answer = await ctx.send(op('verifyPhoneNumber'), { auth: 'none', body: { registrationId, code } });
  const key = (answer.body as { apiKey?: unknown } | undefined)?.apiKey;
  if (!ctx.expectStatus(answer, 200, 'The right SMS code') || typeof key !== 'string') return ctx.skip(`verify-number answered ${answer.status} with the right code, so ${what} could not be signed up.`);
  ctx.env.http.addSecret(key);
  return { key, email, holder, answer };
}

/** The operations of the mock's control surface (generated/mock-control.json), read once. */
let control: Operation[] | undefined;
function controlOperation(operationId: string): Operation | undefined {
  control ??= listOperations(readGeneratedJson('mock-control.json') as Json);
  return control.find((o) => o.operationId === operationId);
}

/** Why the control surface could not be used, in a line: the coverage says what would let it. */
export const CONTROL_REFUSED =
  "the mock's control surface refused the change (403: under --strict-keys or beyond loopback it needs its control token): pass --control-token <the token the mock printed>";

/**
 * A change through the mock's control surface (spec/mock-control.yaml): completing a checkout as
 * if the customer paid, setting a wallet. Sent with `Content-Type: application/json` (it asks for
 * it) and the control token when the run has one; its answers are the mock's own, not judged
 * against the service's contract. Undefined when the surface refused it (the reason is
 * CONTROL_REFUSED) or does not exist.
 */
export async function mockControl(ctx: ScenarioContext, operationId: string, body: unknown, account?: MockAccount): Promise<Exchange | undefined> {
  const op = controlOperation(operationId);
  if (!op) return undefined;
  const token = ctx.config.mockControlToken;
  ctx.scratchRequests++;
  const ex = await ctx.env.http.send(op, { ...as(account), body: body ?? {}, headers: { 'content-type': 'application/json', ...(token ? { 'x-mock-control-token': token } : {}) } });
  return ex.status >= 200 && ex.status < 300 ? ex : undefined;
}
