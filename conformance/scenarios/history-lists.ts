// Part 8: the message and call history lists hold up to the 100 most recent records, newest
// first. The count is judged; the order needs a time field, and message and call records have
// no documented timestamp (part 2), so the order is judged only when the records carry a common
// date-time field, and reported as advisory (the writes level judges it by the ids it created).
// Part 4.5: the messages list's `groupId` filter holds only that group's messages, judged on a
// group that cannot exist (none) and on each group the list shows (its messages, and only them).
import { findOperation, parameterExample, type Operation } from '../description.js';
import { nonexistentId } from '../policy.js';
import { firstOutOfOrder, listRecords, timestampsOf } from '../records.js';
import type { ScenarioDraft } from '../scenario.js';

/** Groups judged by the filter: one shows the rule; more only adds requests. */
const GROUPS_JUDGED = 2;

const OPERATIONS = ['listMessages', 'listCalls'];
const TIME_FIELDS = ['createdAt', 'sentAt', 'receivedAt', 'startedAt', 'timestamp', 'date'];

export function historyListScenarios(operations: Operation[]): ScenarioDraft[] {
  const limits = OPERATIONS.flatMap((operationId): ScenarioDraft[] => {
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
  return [...limits, ...groupFilterScenarios(operations)];
}

function groupFilterScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = findOperation(operations, 'listMessages');
  const param = op?.parameters.find((p) => p.in === 'query' && p.name === 'groupId');
  if (!op || !param) return [];
  return [
    {
      operationId: 'listMessages',
      check: 'messages-filter-group',
      part: '4.5',
      level: 'contract',
      title: '`groupId` lists only the messages of that group: none for a group that cannot exist (part 4.5)',
      async run(ctx) {
        const all = await ctx.send(op, {});
        const records = all.status === 200 ? listRecords(all.body)?.records : undefined;
        if (!records) return ctx.skip(`The messages list could not be read (${all.status}) to compare the filtered ones with.`);
        const unknown = nonexistentId(parameterExample(ctx.env.document, param));
        const none = await ctx.send(op, { query: { groupId: unknown } });
        const leaked = listRecords(none.body)?.records ?? [];
        // Counts and ids go in the facts, not the words: they change from run to run, the finding's id must not.
        const ok = none.status === 200 && leaked.length === 0;
        ctx.record(ok ? 'pass' : 'fail', none.status !== 200 ? `groupId=${unknown} (a group that cannot exist) answered ${none.status} (200 with no message required).` : leaked.length ? `groupId=${unknown} (a group that cannot exist) lists messages: the filter is not applied.` : `groupId=${unknown} (a group that cannot exist) lists no message.`, none, undefined, undefined, ok ? {} : { expected: { messages: 0 }, actual: { messages: leaked.length, groups: [...new Set(leaked.map((r) => r.groupId))] } });
        const groups = [...new Set(records.map((r) => r.groupId).filter((g): g is string => typeof g === 'string'))].slice(0, GROUPS_JUDGED);
        for (const group of groups) {
          const ex = await ctx.send(op, { query: { groupId: group } });
          const listed = ex.status === 200 ? listRecords(ex.body)?.records : undefined;
          if (!ctx.expect(listed !== undefined, `groupId=${group}: ${ex.status} (200 with the group's messages required).`, ex) || !listed) continue;
          const others = listed.filter((r) => r.groupId !== group);
          if (!others.length) ctx.pass(`groupId=${group}: ${listed.length} message(s), all of that group.`, ex);
          else ctx.record('fail', `groupId=${group} lists messages of other groups: the filter is not applied.`, ex, undefined, undefined, { expected: { groupId: group }, actual: { others: others.map((r) => ({ id: r.id, groupId: r.groupId })) } });
          const ids = new Set(listed.map((r) => r.id));
          const missing = records.filter((r) => r.groupId === group && !ids.has(r.id));
          if (!missing.length) ctx.pass(`groupId=${group} holds each message of that group the unfiltered list holds.`, ex);
          else ctx.record('fail', `groupId=${group} leaves out messages of that group the unfiltered list holds.`, ex, undefined, undefined, { expected: { listed: missing.map((r) => r.id) }, actual: { missing: missing.map((r) => r.id) } });
        }
      },
    },
  ];
}
