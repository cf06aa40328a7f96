// billing-activity-order (part 4.4): items come newest first, and `starting_after` (the
// `occurredAt` of the last item received) returns only strictly older items. The mock's ledger is
// the documented page Prism answers with.
import { activityPage, pageItems, timeOf } from './billing-activity-page.js';
import type { MockRule } from './rule.js';

const CURSOR = 'starting_after';

const NAME = 'billing-activity-order';

export const billingActivityOrder: MockRule = {
  name: NAME,
  part: '4.4',
  forOperation(document, operation) {
    const page = activityPage(document, operation);
    if (!page) return undefined;
    return {
      name: NAME,
      rewrite: {
        status: 200,
        apply(body, { query }) {
          const items = pageItems(body, page);
          if (!items) return body;
          // Newest first; an item without a readable time keeps its place after the dated ones.
          const dated = items.map((item, index) => ({ item, index, time: timeOf(item, page) }));
          dated.sort((a, b) => (Number.isNaN(b.time) ? -1 : 0) - (Number.isNaN(a.time) ? -1 : 0) || b.time - a.time || a.index - b.index);
          const cursor = query.get(CURSOR);
          const after = cursor === null ? Number.NaN : Date.parse(cursor);
          body[page.listField] = dated.filter(({ time }) => Number.isNaN(after) || time < after).map(({ item }) => item);
          return body;
        },
      },
    };
  },
};
