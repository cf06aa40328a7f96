// Part 8 (and 4.2): `maxCallDurationSeconds` outside 60..3600 is rejected on the account and on
// number updates. No request that must be rejected here can be made harmless in advance, so the
// suite reads the current value first and, if the deployment wrongly accepts a change, writes the
// original value back and says so in the report.
import { findOperation, type Operation } from '../description.js';
import type { Exchange } from '../http.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import { outOfRangeIntegers, requestFields } from './shared.js';

const FIELD = 'maxCallDurationSeconds';

async function rejectOrRestore(
  ctx: ScenarioContext,
  op: Operation,
  pathParams: Record<string, string>,
  original: number | null,
  what: string,
): Promise<void> {
  if (!requestFields(ctx.env.document, op).has(FIELD)) ctx.skip(`The request schema of ${op.operationId} no longer has ${FIELD}.`);
  // The bounds come from the description (60..3600, part 8), not from this file.
  const outOfRange = outOfRangeIntegers(ctx.env.document, op, FIELD);
  if (outOfRange.length === 0) ctx.skip(`The request schema of ${op.operationId} no longer bounds ${FIELD}.`);
  for (const value of outOfRange) {
    const ex: Exchange = await ctx.send(op, { pathParams, body: { [FIELD]: value } });
    if (ex.status === 400) {
      ctx.pass(`${FIELD}=${value} rejected with 400.`, ex);
      continue;
    }
    ctx.fail(`${FIELD}=${value} (outside the documented range) answered ${ex.status}, not 400.`, ex);
    if (ex.status >= 200 && ex.status < 300) {
      const restore = await ctx.send(op, { pathParams, body: { [FIELD]: original } });
      const ok = restore.status >= 200 && restore.status < 300;
      ctx.notes.push(
        ok
          ? `${what} wrongly accepted ${FIELD}=${value}; the suite restored it to ${JSON.stringify(original)} (answer ${restore.status}).`
          : `${what} wrongly accepted ${FIELD}=${value}, and restoring ${JSON.stringify(original)} failed with ${restore.status}: set it back by hand.`,
      );
      if (!ok) ctx.fail(`Could not restore ${FIELD} to ${JSON.stringify(original)} (${restore.status}).`, restore);
    }
  }
}

function originalValue(record: unknown): number | null | undefined {
  const value = (record as Record<string, unknown> | undefined)?.[FIELD];
  return value === null || typeof value === 'number' ? value : undefined;
}

export function callDurationScenarios(operations: Operation[]): ScenarioDraft[] {
  const scenarios: ScenarioDraft[] = [];
  const updateAccount = findOperation(operations, 'updateAccount');
  const getAccount = findOperation(operations, 'getAccount');
  if (updateAccount && getAccount) {
    scenarios.push({
      operationId: 'updateAccount',
      check: 'call-duration-range',
      part: '4.2, 8',
      level: 'contract',
      title: '`maxCallDurationSeconds` outside 60..3600 is rejected on the account; state read first and restored if accepted (parts 4.2, 8)',
      provokes: ['updateAccount 400'],
      async run(ctx) {
        // One account change at a time (the writes level's read-your-write check changes it too).
        await ctx.env.locks.run('account', async () => {
          const read = await ctx.send(getAccount, {});
          const original = read.status === 200 ? originalValue(read.body) : undefined;
          if (original === undefined) return ctx.skip(`The account could not be read first (${read.status}), so no change is risked.`);
          await rejectOrRestore(ctx, updateAccount, {}, original, 'PATCH /account');
        });
      },
    });
  }
  const updateNumber = findOperation(operations, 'updateNumber');
  if (updateNumber) {
    scenarios.push({
      operationId: 'updateNumber',
      check: 'call-duration-range',
      part: '4.5, 8',
      level: 'contract',
      title: '`maxCallDurationSeconds` outside 60..3600 is rejected on a number; state read first and restored if accepted (parts 4.5, 8)',
      provokes: ['updateNumber 400'],
      async run(ctx) {
        const number = await ctx.env.fixtures.firstNumber();
        if (!number) return ctx.skip('The account lists no number to try the update on.');
        const original = originalValue(number.record);
        if (original === undefined) return ctx.skip(`The number's current ${FIELD} is not in the list, so no change is risked.`);
        const idParam = updateNumber.parameters.find((p) => p.in === 'path')?.name ?? 'id';
        await rejectOrRestore(ctx, updateNumber, { [idParam]: number.id }, original, `PATCH number ${number.id}`);
      },
    });
  }
  return scenarios;
}
