// What an operation does to the world, as its `x-effects` says (spec/EXTENSIONS.md: each key and its
// part), for every tool that must do no more than it is asked: the MCP policy and annotations, the
// suite's safety rules, the recorder, the client. No list of operations lives in code; one without
// `x-effects` is refused, never guessed from its method. Pure and browser-safe.
import type { JsonObject } from './json-pointer.js';

export interface Effects {
  changesState: boolean;
  charges: boolean;
  deletes: boolean;
  reachesPerson: boolean;
  /** The header of the key that makes a retry replay instead of repeat (part 7.2), if it takes one. */
  idempotencyKey?: string;
  mockOnly: boolean;
  /** What it does, in a line that follows the operationId, citing its part. */
  reason: string;
}

/** The operation's `x-effects`; throws when it has none, or one the lint rule would refuse. */
export function effectsOf(operation: JsonObject | undefined): Effects {
  const { changesState, charges, deletes, reachesPerson, idempotencyKey, mockOnly, reason } = operation?.['x-effects'] ?? {};
  const flags = { changesState, charges, deletes, reachesPerson };
  const bad = Object.entries(flags).find(([, value]) => typeof value !== 'boolean')?.[0] ?? (typeof reason === 'string' ? undefined : 'reason');
  if (bad) throw new Error(`${operation?.operationId ?? 'an operation'}: x-effects.${bad} must be ${bad === 'reason' ? 'a string' : 'a boolean'} (spec/EXTENSIONS.md)`);
  return { ...flags, ...(typeof idempotencyKey === 'string' ? { idempotencyKey } : {}), mockOnly: mockOnly === true, reason };
}

/** Why an operation needs the user's word before it goes to a deployment (it deletes or charges), or undefined. */
export function harmOf(effects: Effects): string | undefined {
  return effects.deletes || effects.charges ? effects.reason : undefined;
}
