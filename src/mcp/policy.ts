// What the MCP server lets a tool send, decided before anything is sent (the guide's "safety
// first toward deployments": nothing an agent tool sends may spend, delete or reach a person
// unless the user asked for that level by name). Three levels, each asked for by name:
// - reads run always;
// - anything that changes something (a write) runs only under --allow-writes;
// - against anything that is not this package's mock (a deployment), the operations that delete
//   the account, release numbers, buy, check out or pay a fee run only when also named one by
//   one with --allow <operationId>.
// This file names operations of the contract deliberately, so the policy can be audited in one
// place, as conformance/policy.ts does for the suite (test/mcp-policy.test.ts holds every name to
// the contract and keeps the suite's never-sent operations guarded here too). Verdicts are data;
// the words are made where they are shown.

/** POST operations that change nothing, so they count as reads. */
export const POSTS_THAT_READ: Readonly<Record<string, string>> = {
  waitForEvent: 'a long poll for the next event changes nothing (parts 4.5 and 6)',
  previewSubscriptionChange: 'a preview changes and charges nothing (part 4.4)',
};

/** Refused against a deployment unless named with --allow, even under --allow-writes. */
export const GUARDED_ON_DEPLOYMENTS: Readonly<Record<string, string>> = {
  deleteAccount: 'deletes the account and releases every number (part 4.2)',
  createNumber: 'buys a number (part 4.5)',
  createCreditsCheckout: 'starts a checkout that charges a card (part 4.4)',
  createSubscriptionCheckout: 'starts a subscription checkout that charges a card (part 4.4)',
  createPaymentMethodSetup: 'starts a checkout that saves a card (part 4.4)',
  changeSubscriptionInterval: 'changes the subscription, prorated and invoiced at once (parts 3 and 4.4)',
  submitTenDlcRegistration: 'charges the one-time 10DLC fee (parts 3 and 8)',
};

/** Why an operation is guarded on a deployment, or undefined. Every DELETE is, whatever it names: it could release numbers. */
export function guardedReason(operationId: string, method: string): string | undefined {
  if (GUARDED_ON_DEPLOYMENTS[operationId]) return GUARDED_ON_DEPLOYMENTS[operationId];
  if (method.toLowerCase() === 'delete') return 'deletes something on the account (a DELETE: it could release numbers)';
  return undefined;
}

/** Whether an operation changes something: any method but GET and HEAD, except the POSTs that read. */
export function isWrite(operationId: string, method: string): boolean {
  const m = method.toLowerCase();
  return m !== 'get' && m !== 'head' && !(operationId in POSTS_THAT_READ);
}

export interface PolicyOptions {
  /** `--allow-writes`. */
  allowWrites: boolean;
  /** The operation ids (and workflow ids) named with `--allow`. */
  allow: ReadonlySet<string>;
  /** Whether the target announced itself as this package's mock (GET /__mock/about). */
  targetIsMock: boolean;
}

/** What a tool would send, as far as the policy cares. */
export interface Action {
  operationId: string;
  method: string;
  /** `mockControl`: the mock's control surface, which exists only on the mock. */
  source: 'numbersApi' | 'mockControl';
}

export type Verdict =
  | { allowed: true }
  | { allowed: false; rule: 'mock-only' }
  | { allowed: false; rule: 'read-only' }
  | { allowed: false; rule: 'guarded'; reason: string };

/** The one decision every tool (an operation, a workflow's step, the compact call) goes through. */
export function verdict(action: Action, options: PolicyOptions): Verdict {
  if (action.source === 'mockControl' && !options.targetIsMock) return { allowed: false, rule: 'mock-only' };
  if (!isWrite(action.operationId, action.method)) return { allowed: true };
  if (!options.allowWrites) return { allowed: false, rule: 'read-only' };
  if (!options.targetIsMock) {
    const reason = guardedReason(action.operationId, action.method);
    if (reason && !options.allow.has(action.operationId)) return { allowed: false, rule: 'guarded', reason };
  }
  return { allowed: true };
}

/** The refusal in words: what was refused, why, and how to allow it. */
export function refusalText(action: Action, refused: Exclude<Verdict, { allowed: true }>, options: PolicyOptions): string {
  switch (refused.rule) {
    case 'mock-only':
      return `${action.operationId} is part of the mock's control surface, and the target is not the numbers-api mock: nothing was sent.`;
    case 'read-only':
      return (
        `${action.operationId} changes something (${action.method.toUpperCase()}), and this MCP server is read-only: nothing was sent. ` +
        `Restart it with --allow-writes to let write tools run${options.targetIsMock ? ' (the target is the mock: nothing reaches a person or costs money)' : ''}.`
      );
    case 'guarded':
      return (
        `${action.operationId} ${refused.reason}, and the target is not the numbers-api mock (it does not announce itself at GET /__mock/about): nothing was sent. ` +
        `To allow it, restart with --allow-writes --allow ${action.operationId}.`
      );
  }
}
