// What an operation does to the world, as the contract says in its `x-effects` (spec/EXTENSIONS.md),
// read here once for every tool that must not do more than it is asked: the MCP policy and tool
// annotations, the conformance suite's safety rules, the recorder and the client's retries. No
// list of operations lives in code; a description without `x-effects` is refused, not guessed
// from its methods. Pure and browser-safe.
import type { JsonObject } from './json-pointer.js';

export interface Effects {
  /** It creates, changes or removes something (false: a read, part 7.1). */
  changesState: boolean;
  /** It takes money or opens the way for it: a purchase, a fee, an invoice, a checkout. */
  charges: boolean;
  /** It removes something that cannot be brought back. */
  deletes: boolean;
  /** A person receives something: a message, a call, a code, a typing indicator. */
  reachesPerson: boolean;
  /** The header whose key makes a retry replay instead of repeat (part 7.2), if it takes one. */
  idempotencyKey?: string;
  /** Only on this package's mock (its control surface). */
  mockOnly: boolean;
  /** What it does, in a line that follows the operationId, citing its part. */
  reason: string;
}

export class EffectsError extends Error {}

const FLAGS = ['changesState', 'charges', 'deletes', 'reachesPerson'] as const;

/** The operation's `x-effects`; throws when it has none, or one the lint rule would refuse. */
export function effectsOf(operation: JsonObject | undefined): Effects {
  const raw = operation?.['x-effects'];
  const named = String(operation?.operationId ?? 'an operation');
  if (raw === null || typeof raw !== 'object') throw new EffectsError(`${named} has no x-effects (spec/EXTENSIONS.md)`);
  for (const flag of FLAGS) if (typeof raw[flag] !== 'boolean') throw new EffectsError(`${named}: x-effects.${flag} must be a boolean`);
  if (typeof raw.reason !== 'string') throw new EffectsError(`${named}: x-effects.reason must be a string`);
  return {
    ...Object.fromEntries(FLAGS.map((flag) => [flag, raw[flag] as boolean])),
    ...(typeof raw.idempotencyKey === 'string' ? { idempotencyKey: raw.idempotencyKey } : {}),
    mockOnly: raw.mockOnly === true,
    reason: raw.reason,
  } as Effects;
}

/** Why an operation needs the user's word before it is sent to a deployment: it deletes or charges. */
export function harmOf(effects: Effects): string | undefined {
  return effects.deletes || effects.charges ? effects.reason : undefined;
}
