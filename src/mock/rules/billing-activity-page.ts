// billing-activity-page (parts 4.4 and 8): the documented page Prism answers with, paged as the
// stateful mock pages an account's ledger, by the same function (src/simulator/resources/
// billing-activity.ts): `filter`, newest first, `starting_after` strictly older, `limit` clamped
// to 1..100 with the contract's default, and `hasMore` saying whether the limit cut the list.
import { activityPaging, BILLING_ACTIVITY_OPERATION_ID, pageActivity } from '../../simulator/resources/billing-activity.js';
import type { MockRule } from './rule.js';

const NAME = 'billing-activity-page';

export const billingActivityPage: MockRule = {
  name: NAME,
  part: '4.4, 8',
  forOperation(document, { operation }) {
    const paging = operation.operationId === BILLING_ACTIVITY_OPERATION_ID ? activityPaging(document) : undefined;
    if (!paging) return undefined;
    return {
      name: NAME,
      rewrite: {
        status: 200,
        apply(body, { query }) {
          const items = body?.[paging.listField];
          if (!Array.isArray(items)) return body;
          const page = pageActivity(items, query, paging);
          return { ...body, [paging.listField]: page.items, hasMore: page.hasMore };
        },
      },
    };
  },
};
