// What the `writes` level's flows share: the sender number, the fields a flow relies on, the ids
// of what it created, and whether the deployment has the inferred test helper.
import type { Operation } from '../description.js';
import type { Environment, ScenarioContext } from '../scenario.js';
import type { NumberFixture } from '../fixtures.js';
import { requestFields } from './shared.js';

export const MESSAGE_BODY = 'numbers-api conformance test message. No reply needed.';

/** Skips the scenario when the description no longer has a field the flow sends. */
export function needFields(ctx: ScenarioContext, op: Operation, fields: string[]): void {
  const have = requestFields(ctx.env.document, op);
  const missing = fields.filter((f) => !have.has(f));
  if (missing.length) ctx.skip(`The request schema of ${op.operationId} no longer has ${missing.join(', ')}.`);
}

/** What an account without a line needs, in one line (preconditions.ts says it before the run). */
export const NO_LINE = 'the account has no number to send from: GET /api/v1/numbers lists none. Provision one (POST /api/v1/numbers), then run again.';

/** The account's first number: the line the flows send from and inject to. */
export async function senderNumber(ctx: ScenarioContext): Promise<NumberFixture> {
  const number = await ctx.env.fixtures.firstNumber();
  if (!number) return ctx.precondition(NO_LINE);
  return number;
}

/** The `id` of a created record, when its answer carries one. */
export function idOf(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

const helperProbes = new WeakMap<Environment, Promise<boolean>>();

/**
 * Whether the deployment has the test helper that injects inbound messages (its path is inferred,
 * part 4.5 names `/api/v1/test/*` without shapes). Asked once per run with an empty body, which
 * a helper that exists rejects (400) and which injects nothing either way; no such route (404,
 * 405, 501) means the flows send real messages to `--to` instead.
 */
export function testHelperAvailable(ctx: ScenarioContext, inject: Operation | undefined): Promise<boolean> {
  if (!inject) return Promise.resolve(false);
  let probe = helperProbes.get(ctx.env);
  if (!probe) {
    probe = ctx.send(inject, { body: {} }).then((ex) => ![404, 405, 501].includes(ex.status));
    helperProbes.set(ctx.env, probe);
  }
  return probe;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The lock the flows that create something or watch for its event share (Scenario.exclusive). */
export const WRITES_LOCK = 'writes';
