// billing-activity-limit (parts 4.4 and 8): a page never holds more items than `limit`, which is
// clamped to 1..100 (the list's `maxItems`), and `hasMore` agrees with the page: true when
// `limit` cut it, false when it is empty (the documented last page); otherwise the documented
// page's own `hasMore` stands. Runs after billing-activity-order.
import { activityPage, pageItems } from './billing-activity-page.js';
import type { MockRule } from './rule.js';

const LIMIT = 'limit';
const MORE = 'hasMore';
const MIN_LIMIT = 1;
const MAX_LIMIT = 100;

/** The page size `limit` asks for, clamped to min..max; `max` when it asks for none. */
export function clampLimit(value: string | null, max: number): number {
  const limit = value !== null && /^\s*-?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isNaN(limit) ? max : Math.min(max, Math.max(MIN_LIMIT, limit));
}

const NAME = 'billing-activity-limit';

export const billingActivityLimit: MockRule = {
  name: NAME,
  part: '4.4, 8',
  forOperation(document, operation) {
    const page = activityPage(document, operation);
    if (!page) return undefined;
    const max = page.maxItems ?? MAX_LIMIT;
    return {
      name: NAME,
      rewrite: {
        status: 200,
        apply(body, { query }) {
          const items = pageItems(body, page);
          if (!items) return body;
          const limit = clampLimit(query.get(LIMIT), max);
          const cut = items.length > limit;
          body[page.listField] = items.slice(0, limit);
          if (cut) body[MORE] = true;
          else if (items.length === 0) body[MORE] = false;
          return body;
        },
      },
    };
  },
};
