// The rules of the interface specification the example server keeps on top of Prism's examples,
// in the order they apply to one answer.
import type { JsonObject, Operation } from '../../contract/generated-files.js';
import { billingActivityPage } from './billing-activity-page.js';
import type { MockRule, OperationRule } from './rule.js';
import { unknownResource404 } from './unknown-resource-404.js';
import { usageDaysFallback } from './usage-days-fallback.js';

export type { MockRule, OperationRule, RuleRequest } from './rule.js';

export const MOCK_RULES: readonly MockRule[] = [unknownResource404, usageDaysFallback, billingActivityPage];

/** The rules that apply to one operation, bound to it. */
export function rulesFor(document: JsonObject, operation: Operation, rules: readonly MockRule[] = MOCK_RULES): OperationRule[] {
  return rules.map((rule) => rule.forOperation(document, operation)).filter((rule): rule is OperationRule => rule !== undefined);
}
