// Phone numbers (parts 2, 3, 4.5, 8): provisioning, listing, the number update, the `tenDlc`
// summary and the WhatsApp warm-up.
import type { ResourceModule } from '../context.js';
import type { AccountState } from '../state.js';
import type { JsonObject } from '../types.js';

/** The account's number by `id` or by E.164 `number` (either may be given; both must match when both are). */
export function findNumber(account: AccountState, by: { id?: string; number?: string }): JsonObject | undefined {
  if (by.id === undefined && by.number === undefined) return undefined;
  return account.numbers.find((n) => (by.id === undefined || n.id === by.id) && (by.number === undefined || n.number === by.number));
}

/**
 * Wallet gating (parts 3 and 7, 402): a PAYG number is gated while the wallet balance is at or
 * below zero; a FIXED (subscription) number never is.
 */
export function isWalletGated(account: AccountState, number: JsonObject | undefined): boolean {
  return (number?.billingMode ?? 'PAYG') === 'PAYG' && account.balance <= 0;
}

export const numbersModule: ResourceModule = {
  name: 'numbers',
  parts: '2, 3, 4.5, 8',
  handlers: {},
};
