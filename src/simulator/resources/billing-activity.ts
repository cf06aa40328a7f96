// The billing activity page of GET /api/v1/billing/activity (parts 4.4 and 8), the one function
// both mocks page with: the stateful mock pages the account's ledger (billing.ts), the example
// server the documented page Prism answers with (src/mock/rules/billing-activity.ts).
// - `filter` (`all`, `usage`, `payment-credits`) keeps the items of that `type`;
// - items come newest first by `occurredAt` (at equal times the one recorded later first; an item
//   without a readable time after the dated ones);
// - `starting_after` (the `occurredAt` of the last item received) keeps only strictly older items;
// - `limit` is clamped to 1..100 (the list's `maxItems`), never refused; without one, the page
//   holds the contract's default (20: not shown in part 4.4, `x-inferred` on the parameter);
// - `hasMore` says whether the limit cut the list.
// Everything but the rules is read from the contract: the list field (`items` is inferred), its
// `maxItems`, the default `limit`. Browser-safe.
import { listOperations, resolveRef, type JsonObject } from '../../contract/operations.js';

export const BILLING_ACTIVITY_OPERATION_ID = 'listBillingActivity';
const TIME_FIELD = 'occurredAt';
const MIN_LIMIT = 1;
/** Part 8's ceiling, where the list schema gives no `maxItems`. */
const MAX_LIMIT = 100;

export interface ActivityPaging {
  /** The page's property holding the items. */
  listField: string;
  /** The most items a page holds, and the page size without `limit`. */
  maxLimit: number;
  defaultLimit: number;
}

const pagings = new WeakMap<object, ActivityPaging | null>();

/** How the contract pages billing activity, or undefined when it has no such page. */
export function activityPaging(document: JsonObject): ActivityPaging | undefined {
  if (pagings.has(document)) return pagings.get(document) ?? undefined;
  let paging: ActivityPaging | null = null;
  const operation = listOperations(document).find((entry) => entry.method === 'get' && entry.operation.operationId === BILLING_ACTIVITY_OPERATION_ID)?.operation;
  if (operation) {
    const schema = resolveRef<JsonObject | undefined>(document, resolveRef<JsonObject | undefined>(document, operation.responses?.['200'])?.content?.['application/json']?.schema);
    const limit = (operation.parameters ?? []).map((raw: unknown) => resolveRef<JsonObject>(document, raw)).find((p: JsonObject) => p.in === 'query' && p.name === 'limit');
    const defaultLimit = resolveRef<JsonObject | undefined>(document, limit?.schema)?.default;
    for (const [field, raw] of Object.entries<unknown>(schema?.properties ?? {})) {
      const property = resolveRef<JsonObject>(document, raw);
      if (property?.type !== 'array') continue;
      const maxLimit = Number.isInteger(property.maxItems) ? property.maxItems : MAX_LIMIT;
      paging = { listField: field, maxLimit, defaultLimit: Number.isInteger(defaultLimit) ? Math.min(maxLimit, defaultLimit) : maxLimit };
      break;
    }
  }
  pagings.set(document, paging);
  return paging ?? undefined;
}

/** One page of `items` (a ledger in any order) for the request's `filter`, `starting_after` and `limit`. */
export function pageActivity<T extends JsonObject>(items: readonly T[], query: URLSearchParams, paging: ActivityPaging): { items: T[]; hasMore: boolean } {
  const filter = query.get('filter') ?? 'all';
  const after = Date.parse(query.get('starting_after') ?? '');
  // The size `limit` asks for, clamped; the default when it asks for none (or not a number).
  const asked = Number.parseInt(query.get('limit') ?? '', 10);
  const limit = Number.isNaN(asked) ? paging.defaultLimit : Math.min(paging.maxLimit, Math.max(MIN_LIMIT, asked));
  const timeOf = (item: T): number => (typeof item[TIME_FIELD] === 'string' ? Date.parse(item[TIME_FIELD]) : Number.NaN);
  const matching = items
    .map((item, index) => ({ item, index, at: timeOf(item) }))
    .filter(({ item }) => filter === 'all' || item.type === filter)
    // Only strictly older items after the cursor (part 4.4); an undated item is never older.
    .filter(({ at }) => Number.isNaN(after) || at < after)
    // Newest first; at equal times the one recorded later first; undated ones last.
    .sort((a, b) => Number(Number.isNaN(a.at)) - Number(Number.isNaN(b.at)) || (b.at - a.at || 0) || b.index - a.index);
  return { items: matching.slice(0, limit).map(({ item }) => item), hasMore: matching.length > limit };
}
