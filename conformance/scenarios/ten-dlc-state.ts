// Part 2: a number's `tenDlc` is null where 10DLC does not apply: a number outside the US, or one
// with the `imessage` capability (the third case, an account that is not pay-as-you-go with no
// registration yet, turns on what part 2 does not show). Judged on the numbers the account lists;
// a +1 number may be Canadian, so only numbers outside +1 count as outside the US.
import { findOperation, type Operation } from '../description.js';
import { listRecords } from '../records.js';
import type { ScenarioDraft } from '../scenario.js';

/** Why 10DLC does not apply to a listed number, or undefined when part 2 gives no reason it should not. */
function notApplicable(record: Record<string, unknown>): string | undefined {
  if (Array.isArray(record.capabilities) && record.capabilities.includes('imessage')) return 'it has the `imessage` capability';
  if (typeof record.number === 'string' && !record.number.startsWith('+1')) return `${record.number} is not a US number`;
  return undefined;
}

export function tenDlcStateScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = findOperation(operations, 'listNumbers');
  if (!op) return [];
  return [
    {
      operationId: 'listNumbers',
      check: 'ten-dlc-null-when-not-applicable',
      part: '2',
      level: 'contract',
      title: "a number outside the US or with the `imessage` capability has `tenDlc` null (part 2)",
      async run(ctx) {
        const ex = await ctx.send(op, {});
        const records = ex.status === 200 ? listRecords(ex.body)?.records : undefined;
        if (!records) return ctx.skip(`The numbers list could not be read (${ex.status}).`);
        let judged = 0;
        for (const record of records) {
          const why = notApplicable(record);
          if (!why || !('tenDlc' in record)) continue;
          judged++;
          ctx.expect(record.tenDlc === null, `Number ${String(record.id)}: ${why}, and its tenDlc is ${JSON.stringify(record.tenDlc)} (null required: 10DLC does not apply).`, ex);
        }
        if (judged === 0) ctx.skip('The account lists no number outside the US or with the `imessage` capability.');
      },
    },
  ];
}
