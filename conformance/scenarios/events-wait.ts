// Parts 6 and 8: `events/wait` with `timeout` 1 answers 408 (none arrived) or an event whose
// envelope validates (the generic schema check judges it); a timeout outside 1..60 is rejected.
import { findOperation, type Operation } from '../description.js';
import type { ScenarioDraft } from '../scenario.js';

const OPERATION = 'waitForEvent';

export function eventsWaitScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = findOperation(operations, OPERATION);
  if (!op) return [];
  return [
    {
      operationId: OPERATION,
      check: 'events-wait-timeout',
      part: '6, 8',
      level: 'contract',
      title: '`timeout` 1 answers 408 or a valid event envelope (parts 6, 8)',
      provokes: ['waitForEvent 408', 'waitForEvent 200'],
      async run(ctx) {
        const ex = await ctx.send(op, { body: { timeout: 1 }, timeoutMs: 15_000 });
        if (ex.status === 408) ctx.pass('408: no event within 1 second.', ex);
        else if (ex.status === 200) ctx.pass('200: an event arrived (its envelope is judged by the schema check).', ex);
        else if (ex.status === 503) ctx.skip('503: the event stream is not configured on this deployment (part 7).');
        else ctx.fail(`Expected 408 or 200, got ${ex.status}.`, ex);
      },
    },
    {
      operationId: OPERATION,
      check: 'events-wait-timeout-range',
      part: '8',
      level: 'contract',
      title: 'a `timeout` outside 1..60 is rejected (part 8)',
      provokes: ['waitForEvent 400'],
      async run(ctx) {
        for (const timeout of [0, 61]) {
          // A deployment that wrongly accepts 61 would hold the request open: 10 s is enough to tell.
          const ex = await ctx.send(op, { body: { timeout }, timeoutMs: 10_000 }).catch((error: Error) => {
            ctx.fail(`timeout=${timeout}: ${error.message} (the request was held open, so it was accepted).`);
            return undefined;
          });
          if (!ex) continue;
          ctx.expect(ex.status === 400, `timeout=${timeout}: ${ex.status} (400 required).`, ex);
        }
      },
    },
  ];
}
