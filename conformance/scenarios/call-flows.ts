// Idempotent call (part 7.2): a call with an `Idempotency-Key` answers 201; the same key again
// answers 200 with the same call, and the calls list holds it once. The list is newest first
// (parts 4.5, 8): judged by ids, since a call record has no documented timestamp, the call placed
// is listed before the call the list showed first just before it was placed.
//
// Every call costs money and may ring a phone, so the suite places exactly one: it never sends a
// call without a key (part 7.4: each such request places another call), and the replay carries
// the same key. A 409 (the original still processing) is retried with the same key, a few times.
import { randomUUID } from 'node:crypto';
import { findOperation, type Operation } from '../description.js';
import { listRecords } from '../records.js';
import type { ScenarioDraft } from '../scenario.js';
import { idOf, needFields, senderNumber, sleep, WRITES_LOCK } from './write-helpers.js';

const CALL_INSTRUCTION = 'This is an automated conformance test call. Say that it is a test, say goodbye and hang up.';
const CHECK = 'call-idempotent-replay';
/** Retries of a replay answered 409, each a send of its own. */
const CONFLICT_RETRIES = 3;

export function callFlowScenarios(operations: Operation[]): ScenarioDraft[] {
  const call = findOperation(operations, 'createCall');
  if (!call) return [];
  const listCalls = findOperation(operations, 'listCalls');
  return [
    {
      id: `createCall/${CHECK}`,
      operationId: call.operationId,
      check: CHECK,
      part: '7',
      level: 'writes',
      exclusive: WRITES_LOCK,
      title: 'a call with an Idempotency-Key answers 201; the same key again answers 200 with the same id, and the call is listed once (part 7.2)',
      provokes: ['createCall 201', 'createCall 200'],
      rules: [CHECK, 'calls-newest-first'],
      async run(ctx) {
        needFields(ctx, call, ['to', 'fromNumberId', 'outboundInstruction', 'maxCallDurationSeconds']);
        const number = await senderNumber(ctx);
        // The newest call before this one, to judge the order by ids once it is listed.
        const before = listCalls ? await ctx.send(listCalls, {}) : undefined;
        const newestBefore = before?.status === 200 ? idOf(listRecords(before.body)?.records[0]) : undefined;
        ctx.reserveSends(2, 'the idempotent call (the call and its replay)');
        const headers = { 'Idempotency-Key': `conformance-${randomUUID()}` };
        // The shortest cap the description allows (60 s, part 8), so the test call is cheap.
        const body = { to: ctx.config.to, fromNumberId: number.id, outboundInstruction: CALL_INSTRUCTION, maxCallDurationSeconds: 60 };
        const first = await ctx.write(call, { body, headers });
        if (!ctx.expect(first.status === 201, `First attempt with a new key: ${first.status} (201 required for a fresh call).`, first)) return;
        let replay = await ctx.write(call, { body, headers });
        for (let i = 0; replay.status === 409 && i < CONFLICT_RETRIES; i++) {
          await sleep(1000);
          replay = await ctx.write(call, { body, headers });
        }
        if (!ctx.expect(replay.status === 200, `Replay with the same key: ${replay.status} (200 required, with the original call).`, replay)) return;
        const firstId = idOf(first.body);
        if (!firstId) return ctx.advisory('The call carries no `id` (an inferred field), so the replay and the list cannot be compared by it.', first);
        const replayId = idOf(replay.body);
        ctx.same('The call a replay returns (part 7.2: the original)', { ex: first, at: 'id', value: firstId }, { ex: replay, at: 'id', value: replayId }, '7');
        if (!listCalls) return;
        const ex = await ctx.send(listCalls, {});
        if (!ctx.expect(ex.status === 200, `The calls list answered ${ex.status} (200 required).`, ex)) return;
        const records = listRecords(ex.body)?.records;
        if (!records) return ctx.advisory('No list of records found in the answer (the list shape is inferred), so "listed once" cannot be judged.', ex);
        const listed = records.filter((r) => r.id === firstId).length;
        ctx.expect(
          listed === 1,
          listed === 1 ? `Call ${firstId} is listed once.` : listed === 0 ? `Call ${firstId} is not among the ${records.length} listed (the 100 most recent, part 8).` : `Call ${firstId} is listed ${listed} times: the replay placed another call.`,
          ex,
        );
        ctx.judging('calls-newest-first');
        const placed = records.findIndex((r) => r.id === firstId);
        const older = newestBefore === undefined ? -1 : records.findIndex((r) => r.id === newestBefore);
        if (placed < 0) return;
        if (!before || newestBefore === undefined) return ctx.advisory(`The calls list held no call before this one (${before ? before.status : 'not read'}), so the order cannot be judged with one call.`, ex);
        if (older < 0) return ctx.advisory(`Call ${newestBefore}, listed first before this one was placed, is no longer listed, so the order cannot be judged.`, ex);
        // The ids and places go in the facts, not the words: they change from run to run, the finding's id must not.
        if (placed < older) ctx.pass(`Newest first: call ${firstId}, placed last, is listed at ${placed}, before call ${newestBefore} (listed first before it) at ${older}.`, ex);
        else ctx.record('fail', 'Not newest first: the call placed last is listed after the call the list showed first just before it was placed (parts 4.5, 8).', ex, undefined, undefined, { expected: { placed: 'before the call listed first before it' }, actual: { placed: { id: firstId, at: placed }, listedFirstBefore: { id: newestBefore, at: older } } });
      },
    },
  ];
}
