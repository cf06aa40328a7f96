// Billing (parts 2, 3, 4.4). Not simulated yet: its operations answer their documented examples.
import type { ResourceModule } from '../context.js';

export const billingModule: ResourceModule = {
  name: 'billing',
  parts: '2, 3, 4.4',
  handlers: {},
};

/**
 * Completes the account's checkout session `clientSecret` (the newest open one when omitted), as
 * the customer paying would (control surface): credits, subscription or card setup.
 */
export function completeCheckout(
  _ctx: import('../context.js').RuleContext,
  _account: import('../state.js').AccountState,
  _input: { clientSecret?: string; amount?: number },
): import('../types.js').SimResponse {
  return { status: 404, body: { error: 'No open checkout session on this account.' } };
}
