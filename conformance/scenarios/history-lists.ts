// Part 8: the message and call history lists hold up to the 100 most recent records, newest
// first. The count is judged; the order needs a time field, and message and call records have
// no documented timestamp (part 2), so the order is judged only when the records carry a common
// date-time field, and reported as advisory.
import { findOperation, type Operation } from '../description.js';
import { firstOutOfOrder, listRecords, timestampsOf } from '../records.js';
import type { Scenario } from '../scenario.js';

const OPERATIONS = ['listMessages', 'listCalls'];
const TIME_FIELDS = ['createdAt', 'sentAt', 'receivedAt', 'startedAt', 'timestamp', 'date'];

export function historyListScenarios(operations: Operation[]): Scenario[] {
  return OPERATIONS.flatMap((operationId) => {
    const op = findOperation(operations, operationId);
    if (!op) return [];
    return [
      {
        id: `${operationId}/history-list-limit-order`,
        operationId,
        check: 'history-list-limit-order',
        part: '8',
        level: 'contract' as const,
        title: 'at most 100 records, newest first (part 8)',
        async run(ctx) {
          const ex = await ctx.send(op, {});
          if (ex.status !== 200) return ctx.fail(`Expected 200, got ${ex.status}.`, ex);
          const found = listRecords(ex.body);
          if (!found) return ctx.advisory('No list of records found in the answer (the list shape is inferred).', ex);
          const { records } = found;
          ctx.expect(records.length <= 100, `${records.length} records (at most 100).`, ex);
          const field = TIME_FIELDS.find((f) => records.length > 0 && records.every((r) => typeof r[f] === 'string'));
          const times = field ? timestampsOf(records, field) : undefined;
          if (records.length < 2) ctx.advisory(`${records.length} record(s): the order cannot be judged.`, ex);
          else if (!field || !times) ctx.advisory('Records carry no documented timestamp (part 2), so "newest first" cannot be judged.', ex);
          else {
            const bad = firstOutOfOrder(times);
            if (bad < 0) ctx.pass(`Newest first by \`${field}\`.`, ex);
            else ctx.advisory(`Not newest first by \`${field}\` (record ${bad}); the field is undocumented, so this is advisory.`, ex);
          }
        },
      },
    ];
  });
}
