// Part 4.3: `days` is one of 7, 30, 90 (default 30); any other value falls back to 30, and
// `periodDays` says which window was used. `currentPeriod` is the account's monthly cycle,
// independent of `days`: every answer holds the same one.
import { findOperation, type Json, type Operation } from '../description.js';
import type { Exchange } from '../http.js';
import type { ScenarioDraft } from '../scenario.js';

const OPERATION = 'getUsage';

export function usageScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = findOperation(operations, OPERATION);
  if (!op) return [];
  const cases: [string, number | string, number][] = [
    ['7', 7, 7],
    ['90', 90, 90],
    ['45 (not 7/30/90)', 45, 30],
    ['0', 0, 30],
    ['-7', -7, 30],
  ];
  return [
    {
      operationId: OPERATION,
      check: 'usage-days-fallback',
      part: '4.3',
      level: 'contract',
      title: '`days` outside 7/30/90 falls back to periodDays 30; 7 and 90 are honoured; `currentPeriod` is the same whatever `days` (part 4.3)',
      rules: ['usage-days-fallback', 'usage-current-period-independent'],
      async run(ctx) {
        const answered: Exchange[] = [];
        for (const [label, days, expected] of cases) {
          const ex = await ctx.send(op, { query: { days } });
          if (ex.status !== 200) {
            ctx.fail(`days=${label}: expected 200 (other values are not rejected, they fall back to 30), got ${ex.status}.`, ex);
            continue;
          }
          answered.push(ex);
          const periodDays = (ex.body as { periodDays?: unknown } | undefined)?.periodDays;
          ctx.expect(periodDays === expected, `days=${label}: periodDays is ${JSON.stringify(periodDays)}, expected ${expected}.`, ex);
        }
        // The cycle's bounds, not its counts: traffic between two reads may move those.
        ctx.judging('usage-current-period-independent');
        const [first, ...others] = answered;
        const period = (ex: Exchange) => (ex.body as { currentPeriod?: Json } | undefined)?.currentPeriod;
        if (!first || !period(first)) return;
        for (const ex of others) {
          for (const field of ['start', 'end']) {
            ctx.same(`currentPeriod.${field} (independent of days)`, { ex: first, at: `currentPeriod.${field} for ${first.target.split('?')[1]}`, value: period(first)?.[field] }, { ex, at: `currentPeriod.${field} for ${ex.target.split('?')[1]}`, value: period(ex)?.[field] });
          }
        }
      },
    },
  ];
}
