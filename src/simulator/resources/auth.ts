// Sign-up and registration (parts 3, 4.1, 5.3 to 5.5): email code, registration, the holder's
// phone number, the account. Which operation may move a sign-up on from where it stands is read
// from the contract's `signUp` state machine (x-state-machines), each transition bound to the
// operationId its trigger names; the state names below are the machine's own.
import { issueKey } from '../accounts.js';
import { trimKeys } from '../account-bounds.js';
import type { RequestContext, ResourceModule, RuleContext } from '../context.js';
import type { SignupState } from '../state.js';
import type { JsonObject, SimResponse } from '../types.js';
import { accountRecord } from './account.js';
import { provisionNumber } from './numbers.js';

/**
 * Wrong codes one verification or registration takes before every further attempt answers 429,
 * and SMS codes one registration may have sent. Part 8 does not show the attempt limits; these
 * are the mock's, stated in the operations' descriptions (inferred).
 */
export const MAX_WRONG_CODES = 5;
export const MAX_CODES_SENT = 5;

/** The credit of the documented valid coupon (`couponCredit` test value; coupon values are not shown, part 5.4). */
export const COUPON_CREDIT_USD = 50;

/** The states of the contract's `signUp` machine this module stands in (part 3). */
export const SIGNUP_STAGES = {
  emailCodePending: 'email code pending',
  signedIn: 'signed in',
  registrationPending: 'registration pending',
  phoneCodePending: 'phone code pending',
  provisioningFailed: 'phone verified, provisioning failed',
  accountCreated: 'account created',
} as const;

/** Where a sign-up stands, as a state of the `signUp` machine. */
export function signupStage(signup: SignupState): string {
  if (signup.completed) return signup.registrationId ? SIGNUP_STAGES.accountCreated : SIGNUP_STAGES.signedIn;
  if (signup.phoneVerified) return SIGNUP_STAGES.provisioningFailed;
  if (signup.phoneNumber) return SIGNUP_STAGES.phoneCodePending;
  if (signup.emailVerified) return SIGNUP_STAGES.registrationPending;
  return SIGNUP_STAGES.emailCodePending;
}

export interface BoundTransition {
  from: string;
  to: string;
  operationId: string | undefined;
  condition?: string;
}

/** The `signUp` machine's transitions, each bound to the operationId its trigger (`POST /api/v1/auth/...`) names. */
export function signupTransitions(ctx: Pick<RuleContext, 'contract'>): BoundTransition[] {
  const machine = ctx.contract.stateMachine('signUp');
  if (!machine) throw new Error('The contract has no signUp state machine (x-state-machines).');
  return (machine.transitions as JsonObject[]).map((transition) => {
    const trigger = /^(GET|POST|PUT|PATCH|DELETE) (\S+)/.exec(String(transition.trigger));
    return {
      from: String(transition.from),
      to: String(transition.to),
      operationId: trigger ? ctx.contract.match(trigger[1]!, trigger[2]!)?.operationId : undefined,
      ...(transition.condition ? { condition: String(transition.condition) } : {}),
    };
  });
}

/** Whether the machine lets `operationId` move a sign-up on from where it stands. */
function allowed(ctx: RequestContext, signup: SignupState): boolean {
  const stage = signupStage(signup);
  return signupTransitions(ctx).some((transition) => transition.from === stage && transition.operationId === ctx.operationId);
}

/**
 * The canonical form of an address (part 4.1): a `+tag` is dropped from the local part, dots are
 * ignored in the local part of gmail.com, googlemail.com is read as gmail.com. The address is
 * also lower-cased, as mailboxes do not tell case apart in practice.
 */
export function canonicalEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return email.toLowerCase();
  let local = email.slice(0, at).toLowerCase().split('+')[0]!;
  let domain = email.slice(at + 1).toLowerCase();
  if (domain === 'googlemail.com') domain = 'gmail.com';
  if (domain === 'gmail.com') local = local.replace(/\./g, '');
  return `${local}@${domain}`;
}

function testValueOf(ctx: Pick<RuleContext, 'contract'>, name: string): string | undefined {
  return ctx.contract.testValues().find((entry) => entry.name === name)?.value;
}

/** The coupons the mock accepts: the documented `couponCredit` test value (part 5.4). */
function validCoupon(ctx: RuleContext, coupon: string): boolean {
  return coupon === testValueOf(ctx, 'couponCredit');
}

function signupOfRegistration(ctx: RequestContext): SignupState | undefined {
  const verificationId = ctx.state.registrations[String(ctx.body.registrationId)];
  return verificationId ? ctx.state.signups[verificationId] : undefined;
}

/** A code check with the attempt limit: undefined when the code is right. */
function checkCode(ctx: RequestContext, signup: SignupState): SimResponse | undefined {
  if (signup.failedAttempts >= MAX_WRONG_CODES) return ctx.documented(429);
  if (ctx.body.code === ctx.options.signupCode) return undefined;
  signup.failedAttempts++;
  return ctx.documented(401, 'wrongCode');
}

export const authModule: ResourceModule = {
  name: 'auth',
  parts: '3, 4.1, 5.3, 5.4, 5.5',
  handlers: {
    signUp(ctx) {
      const email = canonicalEmail(String(ctx.body.email));
      const coupon = typeof ctx.body.coupon === 'string' ? ctx.body.coupon : undefined;
      // Refused before any code is sent (part 4.1); the mock knows only the documented coupon.
      if (coupon !== undefined && !validCoupon(ctx, coupon)) return ctx.documented(400, 'couponRefused');
      const verificationId = ctx.ids.next('ver_');
      ctx.state.signups[verificationId] = { verificationId, email, emailVerified: false, failedAttempts: 0, ...(coupon ? { coupon } : {}) };
      return ctx.json(200, { verificationId });
    },

    verifyEmail(ctx) {
      const signup = ctx.state.signups[String(ctx.body.verificationId)];
      // An unknown verification, or one whose code was used already: the code is wrong, expired or used.
      if (!signup || !allowed(ctx, signup)) return ctx.documented(401, 'wrongCode');
      const refused = checkCode(ctx, signup);
      if (refused) return refused;
      signup.emailVerified = true;
      signup.failedAttempts = 0;
      const existing = ctx.state.accounts[ctx.state.emails[signup.email] ?? ''];
      if (existing) {
        // Signed in: a new key of that account, returned this once (part 5.3); a coupon is for new accounts only.
        const apiKey = issueKey(ctx, existing);
        trimKeys(ctx.state, existing);
        signup.completed = true;
        signup.accountId = existing.id;
        return ctx.json(200, { ...accountRecord(ctx, existing), apiKey });
      }
      const registrationId = ctx.ids.next('reg_');
      signup.registrationId = registrationId;
      ctx.state.registrations[registrationId] = signup.verificationId;
      return ctx.json(200, { registrationId });
    },

    registerNumber(ctx) {
      const signup = signupOfRegistration(ctx);
      if (!signup || !allowed(ctx, signup)) return ctx.documented(409, 'registrationComplete');
      const phoneNumber = String(ctx.body.phoneNumber);
      // Part 5.5: a number the service provisioned (a seeded account's too, numbers.ts) cannot
      // register an account (409 inferred).
      if (Object.hasOwn(ctx.state.serviceNumbers, phoneNumber)) return ctx.documented(409, 'serviceNumber');
      // Part 3: a verified number is bound to one account permanently.
      if (ctx.state.boundNumbers[phoneNumber]) return ctx.documented(409, 'numberBound');
      if ((signup.codesSent ?? 0) >= MAX_CODES_SENT) return ctx.documented(429);
      // The same number re-sends the code; a different one replaces the pending number (and its code).
      if (signup.phoneNumber !== phoneNumber) {
        signup.phoneNumber = phoneNumber;
        signup.failedAttempts = 0;
      }
      signup.codesSent = (signup.codesSent ?? 0) + 1;
      return ctx.documented(200);
    },

    verifyPhoneNumber(ctx) {
      const signup = signupOfRegistration(ctx);
      if (!signup) return ctx.documented(409, 'registrationComplete');
      if (signupStage(signup) === SIGNUP_STAGES.registrationPending) return ctx.documented(409, 'noNumberRegistered');
      if (!allowed(ctx, signup)) return ctx.documented(409, 'registrationComplete');
      const phoneNumber = signup.phoneNumber!;
      if (!signup.phoneVerified) {
        const refused = checkCode(ctx, signup);
        if (refused) return refused;
        signup.phoneVerified = true;
        // A carrier-side failure, reached by the documented test value: once, the number stays
        // verified and the retry with the same registrationId needs no new code (part 3).
        if (phoneNumber === testValueOf(ctx, 'provisioningFails')) return ctx.documented(502, 'provisioningFailed');
      }
      // Another registration completed with this email or this number in the meantime.
      if (ctx.state.emails[signup.email] || ctx.state.boundNumbers[phoneNumber]) return ctx.documented(409, 'registrationComplete');
      // A new account is free (limits an object) and holds no credit but a valid coupon's (parts 3, 5.4).
      const account = ctx.createAccount({ email: signup.email });
      if (signup.coupon && validCoupon(ctx, signup.coupon)) account.balance += COUPON_CREDIT_USD;
      const apiKey = issueKey(ctx, account);
      ctx.state.boundNumbers[phoneNumber] = account.id;
      // The first number (part 3), provisioned as createNumber does and registered as a service number.
      const first = provisionNumber(ctx, account);
      signup.completed = true;
      signup.accountId = account.id;
      // `phoneNumber` is the provisioned service number, not the verified one (part 4.1).
      return ctx.json(200, { ...accountRecord(ctx, account), apiKey, phoneNumber: first.number });
    },
  },
};
