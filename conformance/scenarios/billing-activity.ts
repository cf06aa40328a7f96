// Part 4.4 (and 8): billing activity never returns more items than `limit` nor more than 100
// (limit is clamped to 1..100), `hasMore` says whether the limit cut the ledger, items come newest
// first by `occurredAt`, and `starting_after` returns only strictly older items.
import { findOperation, type Operation } from '../description.js';
import { firstOutOfOrder, listRecords, timestampsOf } from '../records.js';
import type { ScenarioDraft, ScenarioContext } from '../scenario.js';
import type { Exchange } from '../http.js';

const OPERATION = 'listBillingActivity';
const TIME_FIELD = 'occurredAt';

function itemsOf(ctx: ScenarioContext, ex: Exchange) {
  const found = listRecords(ex.body);
  if (!found) ctx.advisory('No list of items found in the page (its field name is inferred), so the rule could not be judged.', ex);
  return found?.records;
}

export function billingActivityScenarios(operations: Operation[]): ScenarioDraft[] {
  const op = findOperation(operations, OPERATION);
  if (!op) return [];
  const base = { operationId: OPERATION, part: '4.4, 8', level: 'contract' as const };
  return [
    {
      ...base,
      check: 'billing-activity-limit',
      title: 'never more items than `limit`, never more than 100; limit clamped to 1..100; `hasMore` says whether the limit cut the ledger (parts 4.4, 8)',
      rules: ['billing-activity-limit', 'billing-activity-has-more'],
      async run(ctx) {
        const pages = new Map<number, { ex: Exchange; items: Record<string, unknown>[] }>();
        for (const [limit, max] of [[1, 1], [2, 2], [0, 1], [500, 100]] as const) {
          const ex = await ctx.send(op, { query: { limit } });
          if (ex.status !== 200) {
            ctx.fail(`limit=${limit}: expected 200 (out-of-range limits are clamped, not rejected), got ${ex.status}.`, ex);
            continue;
          }
          const items = itemsOf(ctx, ex);
          if (!items) continue;
          ctx.expect(items.length <= max, `limit=${limit}: ${items.length} items (at most ${max}).`, ex);
          pages.set(limit, { ex, items });
        }
        // Judged from the whole page (limit 500, clamped to 100): it says how many there are.
        ctx.judging('billing-activity-has-more');
        const whole = pages.get(500);
        const one = pages.get(1);
        if (!whole || !one) return;
        const hasMore = (ex: Exchange) => (ex.body as { hasMore?: unknown } | undefined)?.hasMore;
        // The ledger's size goes in the facts, not the words: it grows from run to run, the finding's id must not.
        const judge = (page: { ex: Exchange }, wanted: boolean, words: string) =>
          ctx.record(hasMore(page.ex) === wanted ? 'pass' : 'fail', `${words}, and hasMore is ${JSON.stringify(hasMore(page.ex))} (${wanted} required).`, page.ex, undefined, undefined, hasMore(page.ex) === wanted ? {} : { expected: { hasMore: wanted }, actual: { hasMore: hasMore(page.ex), ledger: whole.items.length } });
        if (whole.items.length < 100) judge(whole, false, 'limit=500 (clamped to 100): the page holds the whole ledger');
        if (whole.items.length >= 2) {
          judge(one, true, 'limit=1: the ledger holds more than the one item');
        } else ctx.advisory(`The ledger holds ${whole.items.length} item(s): a page cut by the limit cannot be shown.`, whole.ex);
      },
    },
    {
      ...base,
      check: 'billing-activity-order',
      title: 'items newest first; `starting_after` returns only strictly older items (part 4.4)',
      rules: ['billing-activity-order', 'billing-activity-starting-after'],
      async run(ctx) {
        const first = await ctx.send(op, { query: { limit: 100 } });
        if (first.status !== 200) return ctx.fail(`Expected 200, got ${first.status}.`, first);
        const items = itemsOf(ctx, first);
        if (!items) return;
        const times = timestampsOf(items, TIME_FIELD);
        if (!times) return ctx.fail(`Not every item has a date-time \`${TIME_FIELD}\` (part 2).`, first);
        const outOfOrder = firstOutOfOrder(times);
        ctx.expect(outOfOrder < 0, outOfOrder < 0 ? `${items.length} items, newest first.` : `Item ${outOfOrder} is newer than item ${outOfOrder - 1}: not newest first.`, first);
        if (items.length < 2) ctx.advisory(`The ledger holds ${items.length} item(s): paging with starting_after is judged on what there is.`, first);
        if (items.length === 0) return;
        ctx.judging('billing-activity-starting-after');
        // Page from the first item: everything returned must be strictly older than it.
        const cursor = items[0]?.[TIME_FIELD] as string;
        const next = await ctx.send(op, { query: { limit: 100, starting_after: cursor } });
        if (next.status !== 200) return ctx.fail(`starting_after: expected 200, got ${next.status}.`, next);
        const older = itemsOf(ctx, next);
        if (!older) return;
        const olderTimes = timestampsOf(older, TIME_FIELD) ?? [];
        const cursorTime = Date.parse(cursor);
        const notOlder = olderTimes.findIndex((t) => t >= cursorTime);
        ctx.expect(notOlder < 0, notOlder < 0 ? `starting_after=${cursor}: ${older.length} items, all strictly older.` : `starting_after=${cursor}: item ${notOlder} is not strictly older.`, next);
      },
    },
  ];
}
