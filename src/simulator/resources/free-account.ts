// Free-account status (parts 3 and 8): an account that has never added credit and never
// subscribed is free, with the ceilings the contract's `freeAccount` example shows (300 s per
// call, 2 calls at once); the first top-up or subscription lifts them for good.
import type { RuleContext } from '../context.js';
import type { FreeAccountLimits } from '../records.js';
import type { AccountState } from '../state.js';

/** The free-account ceilings, from the contract's `freeAccount` example of `GET /api/v1/account`. */
export function freeLimits(ctx: Pick<RuleContext, 'contract'>): FreeAccountLimits {
  return ctx.contract.example('getAccount', 200, 'freeAccount').limits!;
}

export function isFree(account: AccountState): boolean {
  return !account.paid;
}

/** The account's `limits`: an object while free, null once it has paid (part 2). */
export function accountLimits(ctx: Pick<RuleContext, 'contract'>, account: AccountState): FreeAccountLimits | null {
  return isFree(account) ? freeLimits(ctx) : null;
}

/** The first top-up or subscription lifts the free-account limits permanently (part 3). */
export function liftFreeLimits(account: AccountState): void {
  account.paid = true;
}

/** Whether an explicit call cap is above a free account's ceiling (part 8: answered 400). */
export function aboveFreeCeiling(ctx: Pick<RuleContext, 'contract'>, account: AccountState, seconds: unknown): boolean {
  return isFree(account) && typeof seconds === 'number' && seconds > freeLimits(ctx).maxCallDurationSeconds;
}
