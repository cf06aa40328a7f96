// What the MCP server lets a tool send, decided before anything is sent (the guide's "safety
// first toward deployments": nothing an agent tool sends may spend, delete or reach a person
// unless the user asked for that level by name). Three levels, each asked for by name:
// - reads run always;
// - anything that changes something (a write) runs only under --allow-writes;
// - against anything but the mock (a deployment), what deletes or charges (the account, a card, a
//   number bought, a checkout, a fee) runs only when also named one by one with --allow <operationId>.
// Which operation is which is the contract's `x-effects` (src/contract/effects.ts), never a list
// here. Verdicts are data; the words are made where they are shown.
import { harmOf, type Effects } from '../contract/effects.js';

export interface PolicyOptions {
  /** `--allow-writes`. */
  allowWrites: boolean;
  /** The operation ids (and workflow ids) named with `--allow`. */
  allow: ReadonlySet<string>;
  /** Whether the target is the mock: started by this server, or named so by the user (target.ts). */
  targetIsMock: boolean;
}

/** What a tool would send, as far as the policy cares. */
export type Action = { operationId: string; effects: Effects };

/** A refusal, with the options a restart needs for the action to run (none lets a mock-only one). */
export type Refused = { allowed: false; rule: 'mock-only' } | { allowed: false; rule: 'read-only'; allowWith: string } | { allowed: false; rule: 'guarded'; reason: string; allowWith: string };
export type Verdict = { allowed: true } | Refused;

/** The one decision every tool (an operation, a workflow's step, the compact call) goes through. */
export function verdict(action: Action, options: PolicyOptions): Verdict {
  const { effects } = action;
  if (effects.mockOnly && !options.targetIsMock) return { allowed: false, rule: 'mock-only' };
  if (!effects.changesState) return { allowed: true };
  if (!options.allowWrites) return { allowed: false, rule: 'read-only', allowWith: '--allow-writes' };
  const reason = options.targetIsMock ? undefined : harmOf(effects);
  if (reason && !options.allow.has(action.operationId)) return { allowed: false, rule: 'guarded', reason, allowWith: `--allow-writes --allow ${action.operationId}` };
  return { allowed: true };
}

/** The refusal in words: what was refused, why, and how to allow it. */
export function refusalText(action: Action, refused: Refused, options: PolicyOptions): string {
  switch (refused.rule) {
    case 'mock-only':
      return `${action.operationId} is part of the mock's control surface, and the target is not the numbers-api mock: nothing was sent.`;
    case 'read-only':
      return (
        `${action.operationId} ${action.effects.reason}, and this MCP server is read-only: nothing was sent. ` +
        `Restart it with ${refused.allowWith} to let write tools run${options.targetIsMock ? ' (the target is the mock: nothing reaches a person or costs money)' : ''}.`
      );
    case 'guarded':
      return (
        `${action.operationId} ${refused.reason}, and the target is not the numbers-api mock (this server did not start it, and --target-is-mock does not name it): nothing was sent. ` +
        `To allow it, restart with ${refused.allowWith}.`
      );
  }
}
