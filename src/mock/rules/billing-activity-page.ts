// The page of GET /api/v1/billing/activity as the two billing-activity rules see it: the list
// field (`items` is inferred, so it is read from the schema: the page's array property) and the
// date-time field its items are ordered by (`occurredAt`, part 4.4).
import { resolveRef, type JsonObject, type Operation } from '../../contract/generated-files.js';

export const BILLING_ACTIVITY_OPERATION_ID = 'listBillingActivity';
const TIME_FIELD = 'occurredAt';

export interface ActivityPage {
  /** The property holding the items. */
  listField: string;
  /** The item property the ledger is ordered by. */
  timeField: string;
  /** The most items a page may hold (the list's `maxItems`), when the schema says. */
  maxItems: number | undefined;
}

export function activityPage(document: JsonObject, { operation }: Operation): ActivityPage | undefined {
  if (operation.operationId !== BILLING_ACTIVITY_OPERATION_ID) return undefined;
  const response = resolveRef(document, operation.responses?.['200']);
  const schema = resolveRef(document, response?.content?.['application/json']?.schema);
  for (const [field, raw] of Object.entries<JsonObject>(schema?.properties ?? {})) {
    const property = resolveRef(document, raw);
    if (property?.type !== 'array') continue;
    const item = resolveRef(document, property.items);
    if (!item?.properties?.[TIME_FIELD]) return undefined;
    return { listField: field, timeField: TIME_FIELD, maxItems: Number.isInteger(property.maxItems) ? property.maxItems : undefined };
  }
  return undefined;
}

/** The items of a page answer, or undefined when it holds no list. */
export function pageItems(body: JsonObject, page: ActivityPage): JsonObject[] | undefined {
  const items = body?.[page.listField];
  return Array.isArray(items) ? items : undefined;
}

export function timeOf(item: JsonObject, page: ActivityPage): number {
  const value = item?.[page.timeField];
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}
