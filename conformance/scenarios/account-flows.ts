// Read your write (part 4.2): the account's `maxCallDurationSeconds` is set, the PATCH answers
// the updated account, and a read then shows the new value. The original value is read first
// (nothing is changed if it cannot be) and written back in a `finally`, so the account is
// restored whatever the check concludes, and the report says so.
import { findOperation, type Operation } from '../description.js';
import type { Exchange } from '../http.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { requestProperties } from './shared.js';
import { WRITES_LOCK } from './write-helpers.js';

const FIELD = 'maxCallDurationSeconds';
const CHECK = 'account-cap-read-your-write';

function capOf(body: unknown): number | null | undefined {
  const value = (body as Record<string, unknown> | undefined)?.[FIELD];
  return value === null || typeof value === 'number' ? value : undefined;
}

/**
 * A valid value other than the original: the documented minimum (60, part 8), or one above it.
 * Both are under the free-account ceiling (300 s), so a free account accepts them too.
 */
function newValue(ctx: ScenarioContext, op: Operation, original: number | null): number | undefined {
  const schema = requestProperties(ctx.env.document, op).get(FIELD);
  const branches = [schema, ...(schema?.anyOf ?? []), ...(schema?.oneOf ?? [])];
  const minimum = branches.map((s) => s?.minimum).find((m) => typeof m === 'number');
  if (typeof minimum !== 'number') return undefined;
  return original === minimum ? minimum + 1 : minimum;
}

async function restore(ctx: ScenarioContext, update: Operation, read: Operation, original: number | null, value: number): Promise<void> {
  let answer: Exchange | undefined;
  let why = '';
  try {
    answer = await ctx.write(update, { body: { [FIELD]: original } });
  } catch (error) {
    why = (error as Error).message;
  }
  let after: Exchange | undefined;
  if (answer && answer.status >= 200 && answer.status < 300) after = await ctx.send(read, {}).catch(() => undefined);
  const restored = after?.status === 200 && capOf(after.body) === original;
  if (restored) {
    ctx.notes.push(`The account's ${FIELD} was set to ${value} to read it back, and restored to ${JSON.stringify(original)} (answer ${answer?.status}).`);
    return;
  }
  ctx.notes.push(`The account's ${FIELD} was set to ${value} to read it back, and restoring ${JSON.stringify(original)} failed (${answer ? answer.status : why}${after ? `; read back ${JSON.stringify(capOf(after.body))}` : ''}): set it back by hand.`);
  ctx.record('fail', `Could not restore ${FIELD} to ${JSON.stringify(original)}.`, after ?? answer, CHECK, '4.2');
}

export function accountFlowScenarios(operations: Operation[]): ScenarioDraft[] {
  const update = findOperation(operations, 'updateAccount');
  const read = findOperation(operations, 'getAccount');
  if (!update || !read) return [];
  return [
    {
      id: `updateAccount/${CHECK}`,
      operationId: update.operationId,
      check: CHECK,
      part: '4.2',
      level: 'writes',
      exclusive: WRITES_LOCK,
      title: 'the account cap is set, answered and read back, then restored to its original value (part 4.2)',
      provokes: ['updateAccount 200'],
      async run(ctx) {
        await ctx.env.locks.run('account', async () => {
          const before = await ctx.send(read, {});
          const original = before.status === 200 ? capOf(before.body) : undefined;
          if (original === undefined) return ctx.skip(`The account could not be read first (${before.status}), so no change is risked.`);
          const value = newValue(ctx, update, original);
          if (value === undefined) return ctx.skip(`The request schema of ${update.operationId} no longer bounds ${FIELD}.`);
          ctx.reserveSends(2, 'read your write (the change and its restore)');
          try {
            const set = await ctx.write(update, { body: { [FIELD]: value } });
            if (!ctx.expect(set.status === 200, `PATCH ${FIELD}=${value}: ${set.status} (200 required, with the updated account).`, set)) return;
            ctx.expect(capOf(set.body) === value, `The PATCH answer shows ${FIELD} ${JSON.stringify(capOf(set.body))} (${value} sent).`, set);
            const after = await ctx.send(read, {});
            ctx.expect(
              after.status === 200 && capOf(after.body) === value,
              `Read back: ${after.status}, ${FIELD} ${JSON.stringify(capOf(after.body))} (${value} was written).`,
              after,
            );
          } finally {
            await restore(ctx, update, read, original, value);
          }
        });
      },
    },
  ];
}
